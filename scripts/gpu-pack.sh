#!/usr/bin/env bash
# Packs what scripts/gpu-check.sh needs on a GPU machine that has no Rust and no network into
# .gpu/ (ignored by git): a release semfuzz, its libz3, and the CUDA backend's device test,
# xz-compressed so they fit the 64 MiB a device call carries. Run after `cargo xtask setup`.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
cargo build --release -p semfuzz
test_bin=$(cargo test --workspace --test device --no-run 2>&1 |
    sed -n 's/.*Executable tests\/device.rs (\(.*\))/\1/p' | tail -1)
mkdir -p .gpu
strip -o .gpu/semfuzz target/release/semfuzz
xz -T2 -6 -c .gpu/semfuzz > .gpu/semfuzz.xz && rm .gpu/semfuzz
xz -T2 -6 -c .deps/z3/z3/lib/libz3.so.5.4 > .gpu/libz3.so.xz
strip -o .gpu/device-test "$test_bin"
xz -T2 -6 -c .gpu/device-test > .gpu/device-test.xz && rm .gpu/device-test
# MPFR and GMP, in case the GPU machine's image lacks them (gpu-check.sh uses them only then).
mkdir -p .gpu/lib
cp -L /lib/x86_64-linux-gnu/libmpfr.so.6 /lib/x86_64-linux-gnu/libgmp.so.10 .gpu/lib/
du -ch .gpu/* .gpu/lib/*
