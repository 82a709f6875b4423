//! The targets link libz3 from `.deps/z3` (installed by `cargo xtask setup`, found at build
//! time through `.cargo/config.toml`). At run time they find it through an `$ORIGIN`-relative
//! rpath, given here rather than in RUSTFLAGS: cargo-fuzz sets RUSTFLAGS itself, which
//! replaces the workspace's `[target] rustflags` (and their rpath).
//! Binaries are at `fuzz/libfuzzer/target/<triple>/release/`, five levels below the root.

fn main() {
    // Only this file decides the flag; without it cargo reruns the script (and relinks every
    // target) whenever libFuzzer adds a file under corpus/.
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rustc-link-arg-bins=-Wl,-rpath,$ORIGIN/../../../../../.deps/z3/z3/lib");
}
