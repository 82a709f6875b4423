//! Project automation: `cargo xtask <command>` (alias in `.cargo/config.toml`).
//!
//! Std-only on purpose, and it must never depend on `z3`: `setup` has to run
//! before anything that links libz3 can be built.
//!
//! Commands:
//!   setup         install what the build needs (idempotent)
//!   test [ARGS]   setup, then the fuzz smoke step, then `cargo test --workspace [ARGS]`
//!   run [ARGS]    setup, build release, then `semfuzz serve --local-worker [ARGS]`: the
//!                 service on ./semfuzz.db with a continuous campaign and a local worker
//!   fuzz [TARGET...] [--time S]   setup, then the libFuzzer targets (fuzz/README.md)
//!   demo [ARGS]   setup, `cargo build --release`, then `scripts/demo.sh [ARGS]`

use std::env;
use std::ffi::OsString;
use std::fs;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::process::{exit, Command};

mod fuzz;

/// z3-solver wheel providing libz3.so + headers. When bumping it, also update
/// `Z3_SYS_Z3_VERSION` in `.cargo/config.toml` (checked by `setup`).
const Z3_WHEEL_VERSION: &str = "5.4.0.0";
/// Where the wheel is installed, relative to the workspace root (git-ignored).
const Z3_DIR: &str = ".deps/z3";
/// Directory inside the wheel that holds libz3.so.
const Z3_LIB_SUBDIR: &str = "z3/lib";

type Result<T> = std::result::Result<T, String>;

fn main() {
    let mut args = env::args_os().skip(1);
    let cmd = args.next().map(|a| a.to_string_lossy().into_owned());
    let rest: Vec<OsString> = args.collect();
    let root = workspace_root();

    let result = match cmd.as_deref() {
        Some("setup") if rest.is_empty() => setup(&root).map(|()| 0),
        Some("test") => setup(&root).and_then(|()| test(&root, &rest)),
        Some("run") => setup(&root).and_then(|()| run(&root, &rest)),
        Some("demo") => setup(&root).and_then(|()| demo(&root, &rest)),
        Some("fuzz") => setup(&root).and_then(|()| fuzz::command(&root, &rest)),
        Some("help" | "-h" | "--help") => {
            usage();
            Ok(0)
        }
        _ => {
            usage();
            Ok(2)
        }
    };
    match result {
        Ok(code) => exit(code),
        Err(msg) => {
            eprintln!("xtask: error: {msg}");
            exit(1);
        }
    }
}

fn usage() {
    eprintln!(
        "usage: cargo xtask <command>\n\n\
         commands:\n  \
         setup         install dependencies (z3-solver into {Z3_DIR}, backend tools into {PY_DIR}, Triton's wheel (LLVM trunk) into ~/.cache/semfuzz linked as {TRITON_LINK}, cvc5 and bitwuzla into {SOLVERS_DIR}, schemathesis into {SCHEMATHESIS_DIR}, libmpfr-dev, llvm-14/15/16/19/22)\n  \
         test [ARGS]   setup, then each fuzz target for 30 s, then `cargo test --workspace [ARGS]`\n  \
         run [ARGS]    setup, build release, then `semfuzz serve --db semfuzz.db --local-worker [ARGS]`\n  \
         fuzz [TARGET...] [--time S]   setup, then the libFuzzer targets (S seconds each, default 60)\n  \
         demo [ARGS]   setup, `cargo build --release`, then `scripts/demo.sh [ARGS]`"
    );
}

fn workspace_root() -> PathBuf {
    // `cargo run` sets CARGO_MANIFEST_DIR at run time too; fall back to the
    // compile-time value when the binary is started directly.
    let manifest = env::var_os("CARGO_MANIFEST_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")));
    manifest
        .parent()
        .expect("xtask lives one level below the workspace root")
        .to_path_buf()
}

fn step(msg: &str) {
    println!("xtask: {msg}");
}

// ---------------------------------------------------------------- setup ----

fn setup(root: &Path) -> Result<()> {
    check_config_version(root)?;
    setup_z3(root)?;
    setup_debian(DEBIAN_PACKAGES)?;
    install_pinned(root, PY_DIR, PY_TOOLS)?;
    install_pinned(root, SOLVERS_DIR, SOLVER_WHEELS)?;
    install_pinned(root, SCHEMATHESIS_DIR, SCHEMATHESIS_WHEELS)?;
    setup_triton(root)?;
    Ok(())
}

/// Debian packages the build and the backends need: MPFR for the FP tests (through `rug`
/// with the system libraries), LLVM 16's `opt` for the `llvm:opt-16` backend, the `llc` of
/// LLVM 14, 15 and 19 beside it for `validate-llc --llc all`'s regression ranges, LLVM 22's
/// `llc` (bookworm-security) so that the tests run a bug report's printed command with a real
/// `llc` of the version llvmlite bundles, PostgreSQL for the service's tests (they start their
/// own server), and Chromium for the dashboard's end-to-end test.
const DEBIAN_PACKAGES: &[&str] = &[
    "libmpfr-dev",
    "llvm-14",
    "llvm-15",
    "llvm-16",
    "llvm-19",
    "llvm-22",
    "postgresql-15",
    "chromium",
    "chromium-driver",
];

/// Python wheels the backends run, pinned, pip-installed into [`PY_DIR`]: LLVM 22 with NVPTX
/// (`llvm`), numba's CUDA simulator (`numba-sim`), and NVIDIA's `ptxas`, `cuobjdump` and
/// `nvdisasm` (kernel checks, `repro`, `validate-ptxas`), with the CCCL headers (`nv/target`)
/// that `nvcc` needs to compile CUDA C that includes `cuda_fp16.h` (`validate-nvcc`).
const PY_TOOLS: &[&str] = &[
    "llvmlite==0.50.0",
    "numba-cuda==0.30.4",
    "nvidia-cuda-nvcc==13.5.37",
    "nvidia-cuda-cccl==13.3.5.0.6",
    "nvidia-cuda-cuobjdump==13.5.37",
    "nvidia-cuda-nvdisasm==13.5.37",
];
/// Where [`PY_TOOLS`] go, relative to the workspace root (git-ignored); backends find it
/// there (`PYTHONPATH`, `nvidia/cu13/bin`).
const PY_DIR: &str = ".deps/py";

/// The SMT solvers of `semfuzz prove --solver` besides Z3, pinned, pip-installed into
/// [`SOLVERS_DIR`]: their wheels ship Python APIs (no executables), which
/// `smt/src/portfolio.py` drives.
const SOLVER_WHEELS: &[&str] = &["cvc5==1.4.2", "bitwuzla==0.9.1"];
/// Where [`SOLVER_WHEELS`] go (git-ignored), apart from [`PY_DIR`] so that each list is
/// installed and stamped on its own.
const SOLVERS_DIR: &str = ".deps/solvers";

/// Schemathesis, pinned, which `service/tests/schemathesis.rs` runs against the service's
/// OpenAPI document (`python3 -m schemathesis.cli` with this directory on `PYTHONPATH`).
const SCHEMATHESIS_WHEELS: &[&str] = &["schemathesis==4.32.5"];
/// Where [`SCHEMATHESIS_WHEELS`] go (git-ignored), apart from the others so that its many
/// dependencies never change the versions llvmlite and numba-cuda run with.
const SCHEMATHESIS_DIR: &str = ".deps/schemathesis";

/// Triton's wheel, pinned: `validate-llc --llc triton` compiles with the LLVM trunk snapshot it
/// bundles (Triton 3.9.0: LLVM 24.0.0git, llvm-project b010a18d2b64). It is 1 GB, so it goes
/// into the user's cache ([`triton_cache`]), which survives a fresh clone, and `.deps/triton`
/// links to it. `--no-deps`: the driver imports only `triton._C.libtriton`, which needs none.
const TRITON_VERSION: &str = "3.9.0";
/// Where the project finds Triton: a link to [`triton_cache`] (git-ignored, like all `.deps`).
const TRITON_LINK: &str = ".deps/triton";

/// `${XDG_CACHE_HOME:-$HOME/.cache}/semfuzz/triton-VERSION`.
fn triton_cache() -> Result<PathBuf> {
    let base = env::var_os("XDG_CACHE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .ok_or("neither XDG_CACHE_HOME nor HOME is set: nowhere to cache Triton's wheel")?;
    Ok(base
        .join("semfuzz")
        .join(format!("triton-{TRITON_VERSION}")))
}

/// Installs Triton's wheel into its cache unless it is there, and points [`TRITON_LINK`] at it.
fn setup_triton(root: &Path) -> Result<()> {
    let cache = triton_cache()?;
    install_into(
        &cache,
        &[&format!("triton=={TRITON_VERSION}")],
        &["--no-deps"],
    )?;
    let link = root.join(TRITON_LINK);
    if fs::read_link(&link).is_ok_and(|t| t == cache) {
        return Ok(());
    }
    match fs::remove_file(&link) {
        Ok(()) => {}
        Err(e) if e.kind() == ErrorKind::NotFound => {}
        Err(e) => return Err(format!("removing {}: {e}", link.display())),
    }
    step(&format!("linking {TRITON_LINK} -> {}", cache.display()));
    symlink(&cache.display().to_string(), &link)
}

/// Installs the pinned `wheels` into `rel_dir` unless the same list is already installed.
fn install_pinned(root: &Path, rel_dir: &str, wheels: &[&str]) -> Result<()> {
    install_into(&root.join(rel_dir), wheels, &[])
}

/// Installs the pinned `wheels` into `dir` (with pip's `extra` arguments) unless the same list
/// is already installed: the list is written into a stamp file after a complete install, so a
/// changed pin reinstalls.
fn install_into(dir: &Path, wheels: &[&str], extra: &[&str]) -> Result<()> {
    let stamp = dir.join(".semfuzz-installed");
    let wanted = wheels.join("\n");
    let shown = dir.display();
    if fs::read_to_string(&stamp).is_ok_and(|s| s == wanted) {
        step(&format!("{} already in {shown}", wheels.join(" ")));
        return Ok(());
    }
    let tmp = PathBuf::from(format!("{shown}.partial"));
    remove_dir_if_exists(&tmp)?;
    if let Some(parent) = dir.parent() {
        fs::create_dir_all(parent).map_err(|e| format!("creating {}: {e}", parent.display()))?;
    }
    step(&format!(
        "installing {} into {shown} (pip)",
        wheels.join(" ")
    ));
    let python = find_python()?;
    run_checked(
        Command::new(&python)
            .args(["-m", "pip", "install", "--disable-pip-version-check", "-q"])
            .args(["--no-warn-script-location", "--target"])
            .arg(&tmp)
            .args(extra)
            .args(wheels),
    )?;
    fs::write(tmp.join(".semfuzz-installed"), &wanted)
        .map_err(|e| format!("writing the stamp in {}: {e}", tmp.display()))?;
    remove_dir_if_exists(dir)?;
    fs::rename(&tmp, dir)
        .map_err(|e| format!("renaming {} -> {}: {e}", tmp.display(), dir.display()))
}

/// `.cargo/config.toml` tells z3-sys the Z3 version (the wheel has no
/// z3_version.h / pkg-config file to detect it from); make sure it matches.
fn check_config_version(root: &Path) -> Result<()> {
    let path = root.join(".cargo/config.toml");
    let text = fs::read_to_string(&path).map_err(|e| format!("reading {}: {e}", path.display()))?;
    let configured = text
        .lines()
        .map(str::trim)
        .find_map(|l| l.strip_prefix("Z3_SYS_Z3_VERSION"))
        .and_then(|l| l.split('"').nth(1))
        .ok_or_else(|| format!("{}: no Z3_SYS_Z3_VERSION in [env]", path.display()))?;
    if !Z3_WHEEL_VERSION.starts_with(&format!("{configured}.")) && Z3_WHEEL_VERSION != configured {
        return Err(format!(
            "{}: Z3_SYS_Z3_VERSION = \"{configured}\" does not match the z3-solver wheel \
             {Z3_WHEEL_VERSION} pinned in xtask",
            path.display()
        ));
    }
    Ok(())
}

fn setup_z3(root: &Path) -> Result<()> {
    let dir = root.join(Z3_DIR);
    let dist_info = dir.join(format!("z3_solver-{Z3_WHEEL_VERSION}.dist-info"));
    let lib_dir = dir.join(Z3_LIB_SUBDIR);

    if dist_info.is_dir() && lib_dir.join("libz3.so").exists() {
        step(&format!("z3-solver {Z3_WHEEL_VERSION} already in {Z3_DIR}"));
    } else {
        // Install into a scratch dir and rename, so an interrupted install
        // never looks complete.
        let tmp = root.join(format!("{Z3_DIR}.partial"));
        remove_dir_if_exists(&tmp)?;
        step(&format!(
            "installing z3-solver=={Z3_WHEEL_VERSION} into {Z3_DIR} (pip)"
        ));
        let python = find_python()?;
        run_checked(
            Command::new(&python)
                .args([
                    "-m",
                    "pip",
                    "install",
                    "--no-deps",
                    "--disable-pip-version-check",
                ])
                .args(["--no-warn-script-location", "--target"])
                .arg(&tmp)
                .arg(format!("z3-solver=={Z3_WHEEL_VERSION}")),
        )?;
        if dir.exists() {
            step(&format!("removing old {Z3_DIR}"));
            remove_dir_if_exists(&dir)?;
        }
        fs::rename(&tmp, &dir)
            .map_err(|e| format!("renaming {} -> {}: {e}", tmp.display(), dir.display()))?;
    }
    fix_z3_lib_names(&lib_dir)
}

/// The linker needs `libz3.so`; the loader needs the library's SONAME
/// (`libz3.so.5.4` for 5.4.0.0, which ships both as plain copies). Create
/// whichever is missing as a symlink.
fn fix_z3_lib_names(lib_dir: &Path) -> Result<()> {
    let entries = fs::read_dir(lib_dir)
        .map_err(|e| format!("{}: {e} (broken z3-solver install?)", lib_dir.display()))?;
    let mut versioned: Vec<String> = entries
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("libz3.so."))
        .collect();
    versioned.sort();
    let plain = lib_dir.join("libz3.so");

    if !plain.exists() {
        let target = versioned
            .last()
            .ok_or_else(|| format!("no libz3.so* in {}", lib_dir.display()))?;
        step(&format!("symlinking libz3.so -> {target}"));
        symlink(target, &plain)?;
    }
    match soname(&plain) {
        Some(so) if so != "libz3.so" && !lib_dir.join(&so).exists() => {
            step(&format!("symlinking {so} -> libz3.so (SONAME)"));
            symlink("libz3.so", &lib_dir.join(&so))?;
        }
        Some(_) => {}
        None => step("note: could not read libz3.so's SONAME (no readelf?); not checked"),
    }
    Ok(())
}

/// SONAME of an ELF shared library, via binutils' readelf (always present
/// where we can link C code).
fn soname(lib: &Path) -> Option<String> {
    let out = Command::new("readelf").arg("-d").arg(lib).output().ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text.lines().find(|l| l.contains("(SONAME)"))?;
    let start = line.find('[')? + 1;
    let end = line.rfind(']')?;
    Some(line[start..end].to_string())
}

fn symlink(target: &str, link: &Path) -> Result<()> {
    std::os::unix::fs::symlink(target, link)
        .map_err(|e| format!("symlink {} -> {target}: {e}", link.display()))
}

fn remove_dir_if_exists(dir: &Path) -> Result<()> {
    match fs::remove_dir_all(dir) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(()),
        Err(e) => Err(format!("removing {}: {e}", dir.display())),
    }
}

fn find_python() -> Result<String> {
    for py in ["python3", "python"] {
        let ok = Command::new(py)
            .args(["-m", "pip", "--version"])
            .output()
            .map(|o| o.status.success())
            .unwrap_or(false);
        if ok {
            return Ok(py.to_string());
        }
    }
    Err("need python3 with pip to install the z3-solver wheel \
         (Debian: apt-get install python3-pip)"
        .into())
}

/// Installs whichever of `packages` dpkg does not list as installed, in one apt-get call.
fn setup_debian(packages: &[&str]) -> Result<()> {
    let mut missing = Vec::new();
    for &package in packages {
        let status = match Command::new("dpkg").args(["-s", package]).output() {
            Ok(out) => out,
            Err(e) if e.kind() == ErrorKind::NotFound => {
                step(&format!(
                    "note: no dpkg (not Debian?); make sure these are installed: {}",
                    packages.join(" ")
                ));
                return Ok(());
            }
            Err(e) => return Err(format!("running dpkg: {e}")),
        };
        let installed = status.status.success()
            && String::from_utf8_lossy(&status.stdout)
                .lines()
                .any(|l| l.starts_with("Status:") && l.trim_end().ends_with("ok installed"));
        if !installed {
            missing.push(package);
        }
    }
    if missing.is_empty() {
        step(&format!("{} already installed", packages.join(", ")));
        return Ok(());
    }
    if !is_root() {
        return Err(format!(
            "{} not installed and xtask is not running as root; install with \
             `sudo apt-get install -y {}` and re-run",
            missing.join(", "),
            missing.join(" ")
        ));
    }
    step(&format!(
        "installing {} (apt-get update && apt-get install -y)",
        missing.join(" ")
    ));
    run_checked(Command::new("apt-get").arg("update"))?;
    run_checked(
        Command::new("apt-get")
            .args(["install", "-y", "--no-install-recommends"])
            .args(&missing)
            .env("DEBIAN_FRONTEND", "noninteractive"),
    )
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
        .unwrap_or(false)
}

// ---------------------------------------------------------- test / demo ----

fn cargo() -> Command {
    let mut cmd = Command::new(env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    // Binaries find libz3 via an $ORIGIN-relative rpath (.cargo/config.toml),
    // which only works with the default ./target dir; LD_LIBRARY_PATH covers
    // a custom CARGO_TARGET_DIR for everything run from here.
    cmd.env("LD_LIBRARY_PATH", ld_library_path());
    cmd
}

fn ld_library_path() -> OsString {
    let root = workspace_root();
    let mut paths = vec![root.join(Z3_DIR).join(Z3_LIB_SUBDIR)];
    if let Some(old) = env::var_os("LD_LIBRARY_PATH") {
        paths.extend(env::split_paths(&old));
    }
    env::join_paths(paths).expect("paths without ':'")
}

fn test(root: &Path, args: &[OsString]) -> Result<i32> {
    // The fuzz smoke step first, so that cargo test's closing lines end the output.
    let fuzz = fuzz::smoke(root)?;
    // [profile.test] has opt-level = 3, so no --release needed.
    step("cargo test --workspace");
    let tests = run_status(
        cargo()
            .current_dir(root)
            .args(["test", "--workspace"])
            .args(args),
    )?;
    // Repeated here, where CI's log (whose end is what is kept) and a reader both look.
    for report in &fuzz.0 {
        println!("{report}");
    }
    if !fuzz.0.is_empty() {
        step(&format!(
            "the fuzz smoke step failed on {} target(s); their reports are above",
            fuzz.0.len()
        ));
    }
    Ok(if tests != 0 { tests } else { fuzz.code() })
}

/// The service with a local worker on a continuous campaign over every variant and every
/// available backend, on `./semfuzz.db` (a second start resumes it). The process becomes
/// `semfuzz serve`, so Ctrl-C reaches it alone and it shuts down in order: the worker posts
/// its unit, then the server stops.
fn run(root: &Path, args: &[OsString]) -> Result<i32> {
    step("cargo build --release -p semfuzz");
    let code = run_status(
        cargo()
            .current_dir(root)
            .args(["build", "--release", "-p", "semfuzz"]),
    )?;
    if code != 0 {
        return Ok(code);
    }
    let target = env::var_os("CARGO_TARGET_DIR").map_or_else(|| root.join("target"), PathBuf::from);
    let mut cmd = Command::new(target.join("release/semfuzz"));
    cmd.args(serve_args(args, env::var_os("DATABASE_URL").is_some()))
        .current_dir(root)
        .env("LD_LIBRARY_PATH", ld_library_path());
    step(&describe(&cmd));
    use std::os::unix::process::CommandExt;
    Err(format!(
        "could not run `{}`: {}",
        describe(&cmd),
        cmd.exec()
    ))
}

/// `semfuzz serve`'s arguments for `run`: `./semfuzz.db` unless the caller names a database
/// (`--db`, `--database-url` or `DATABASE_URL`), which serve would otherwise refuse as two.
fn serve_args(args: &[OsString], database_url_set: bool) -> Vec<OsString> {
    let names_database = database_url_set
        || args.iter().any(|a| {
            let a = a.to_string_lossy();
            ["--db", "--database-url"]
                .iter()
                .any(|flag| a == *flag || a.starts_with(&format!("{flag}=")))
        });
    let mut out: Vec<OsString> = vec!["serve".into()];
    if !names_database {
        out.extend(["--db".into(), "semfuzz.db".into()]);
    }
    out.push("--local-worker".into());
    out.extend(args.iter().cloned());
    out
}

fn demo(root: &Path, args: &[OsString]) -> Result<i32> {
    step("cargo build --release");
    let code = run_status(cargo().current_dir(root).args(["build", "--release"]))?;
    if code != 0 {
        return Ok(code);
    }
    let script = root.join("scripts/demo.sh");
    if !script.exists() {
        step("note: scripts/demo.sh does not exist yet; nothing to run");
        return Ok(0);
    }
    step("bash scripts/demo.sh");
    let mut cmd = Command::new("bash");
    cmd.arg(&script)
        .args(args)
        .current_dir(root)
        .env("LD_LIBRARY_PATH", ld_library_path());
    run_status(&mut cmd)
}

// -------------------------------------------------------------- helpers ----

fn describe(cmd: &Command) -> String {
    let mut s = cmd.get_program().to_string_lossy().into_owned();
    for a in cmd.get_args() {
        s.push(' ');
        s.push_str(&a.to_string_lossy());
    }
    s
}

/// Runs `cmd`, returning its exit code (128+signal if killed by a signal).
fn run_status(cmd: &mut Command) -> Result<i32> {
    let status = cmd
        .status()
        .map_err(|e| format!("could not run `{}`: {e}", describe(cmd)))?;
    Ok(status.code().unwrap_or_else(|| {
        use std::os::unix::process::ExitStatusExt;
        128 + status.signal().unwrap_or(0)
    }))
}

fn run_checked(cmd: &mut Command) -> Result<()> {
    match run_status(cmd)? {
        0 => Ok(()),
        code => Err(format!("`{}` failed with exit code {code}", describe(cmd))),
    }
}

#[cfg(test)]
mod tests {
    use super::serve_args;
    use std::ffi::OsString;

    fn strings(args: &[&str], database_url_set: bool) -> Vec<String> {
        let args: Vec<OsString> = args.iter().map(OsString::from).collect();
        serve_args(&args, database_url_set)
            .into_iter()
            .map(|a| a.into_string().unwrap())
            .collect()
    }

    #[test]
    fn run_uses_semfuzz_db_unless_a_database_is_named() {
        assert_eq!(
            strings(&["--listen", "127.0.0.1:9000"], false),
            [
                "serve",
                "--db",
                "semfuzz.db",
                "--local-worker",
                "--listen",
                "127.0.0.1:9000"
            ]
        );
        assert_eq!(
            strings(&["--db", "x.db"], false),
            ["serve", "--local-worker", "--db", "x.db"]
        );
        assert_eq!(
            strings(&["--database-url=postgres://h/db"], false),
            ["serve", "--local-worker", "--database-url=postgres://h/db"]
        );
        assert_eq!(strings(&[], true), ["serve", "--local-worker"]);
    }
}
