#!/usr/bin/env bash
# The GPU checks (docs/gpu.md), one script for one lent machine with an NVIDIA GPU and no
# network. Stages (all by default, or those named): `backends`; `boundary`: the CUDA backend
# against the spec on every runnable PTX variant, boundary inputs; `exhaustive`: f16/bf16
# variants on every input; `exhaustive-ftz`: `.ftz` forms of <= 32 input bits on every input (the
# flush-to-zero reading, docs/ambiguities.md 7); `throughput`: cuda against the spec backend on the same machine;
# `device-test`: the backend's own test; `repro`: the first finding rebuilt and rechecked;
# `atomics`: the atomics probe; `collectives`: the warp-collectives probe, checked; `probes`: every backends/cuda/probes/*.txt through
# `semfuzz check --backend cuda`; `llc`: each validate-llc reproducer under
# backends/cuda/probes/llc/ run at its counterexample (`scripts/gpu-confirm-llc.py`). Takes what scripts/gpu-pack.sh packed into .gpu/ (a release
# semfuzz, libz3, the device test), writes everything to $OUT (or ./gpu-out).
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
OUT=${OUT:-gpu-out}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
repo=$(pwd)
root=/tmp/semfuzz-gpu
mkdir -p $root/target/release $root/.deps/z3/z3/lib
xz -dc .gpu/semfuzz.xz > $root/target/release/semfuzz
xz -dc .gpu/libz3.so.xz > $root/.deps/z3/z3/lib/libz3.so.5.4
xz -dc .gpu/device-test.xz > $root/device-test
chmod +x $root/target/release/semfuzz $root/device-test
sf=$root/target/release/semfuzz
ldconfig -p | grep -q libmpfr.so.6 || export LD_LIBRARY_PATH=$repo/.gpu/lib
threads=$(nproc)
stages=${*:-backends boundary exhaustive throughput device-test repro atomics probes}
log() { echo "== $*" | tee -a "$OUT/summary.txt"; }
cd "$OUT"
log "$(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader)"
for stage in $stages; do
    log "$stage"
    case $stage in
    backends) /usr/bin/time -f "%e s" $sf backends 2>&1 | tee -a summary.txt ;;
    boundary)
        timeout 170 $sf fuzz --backend cuda --instr '*' --cases 100000 --threads "$threads" \
            --json findings-boundary.jsonl > fuzz-boundary.txt 2>&1
        echo "rc $?" >> fuzz-boundary.txt; tail -4 fuzz-boundary.txt | tee -a summary.txt ;;
    exhaustive)
        timeout 120 $sf fuzz --backend cuda --generator exhaustive --threads "$threads" \
            --instr '{add,mul}.rn.f1[6]' --instr '{add,mul}.rn.bf1[6]' --instr 'cvt.rn.f16.f32' \
            --instr 'cvt.rn.bf16.f32' --time 110s \
            --json findings-exhaustive.jsonl > fuzz-exhaustive.txt 2>&1
        echo "rc $?" >> fuzz-exhaustive.txt; tail -4 fuzz-exhaustive.txt | tee -a summary.txt ;;
    exhaustive-ftz)
        timeout 130 $sf fuzz --backend cuda --generator exhaustive --threads "$threads" \
            --instr '{add,mul}.rn.ftz.f1[6]' --instr 'rcp.{rn,rm,rp}.ftz.f3[2]' \
            --instr 'sqrt.rn.ftz.f3[2]' --time 120s \
            --json findings-exhaustive-ftz.jsonl > fuzz-exhaustive-ftz.txt 2>&1
        echo "rc $?" >> fuzz-exhaustive-ftz.txt; tail -4 fuzz-exhaustive-ftz.txt | tee -a summary.txt ;;
    throughput)
        for b in cuda spec; do
            /usr/bin/time -f "$b wall %e s" timeout 60 $sf fuzz --backend $b \
                --instr 'add.rn.f3[2]' --instr 'fma.rn.f16x2' --instr 'set.lt.and.f16x2.f16x2' \
                --cases 20000000 --threads "$threads" 2>&1 | tail -2 | tee -a summary.txt
        done ;;
    device-test) timeout 60 $root/device-test --nocapture 2>&1 | tail -15 | tee -a summary.txt ;;
    repro)
        first=$(ls findings-*.jsonl 2>/dev/null | head -1)
        if [ -n "$first" ] && [ -s "$first" ]; then
            $sf repro "$first" 1 --out repro1 2>&1 | tail -3
            g++ -std=c++11 -O2 repro1/repro.cpp -o repro1/repro -I/usr/local/cuda/include \
                -l:libcuda.so.1 && repro1/repro | $sf check 2>&1 | tail -5 | tee -a summary.txt
        fi ;;
    atomics)
        nvcc -arch=sm_90 -o /tmp/atomic_flush "$repo/backends/cuda/probes/atomic_flush.cu" \
            && /tmp/atomic_flush | tee atomic-flush.txt ;;
    collectives)
        nvcc -arch=sm_90 -o /tmp/warp_collectives "$repo/backends/cuda/probes/warp_collectives.cu" \
            && /tmp/warp_collectives 64 > warp-collectives.txt \
            && $sf check warp-collectives.txt 2>&1 | tail -2 | tee -a summary.txt ;;
    probes)
        for p in "$repo"/backends/cuda/probes/*.txt; do
            # The closing count as a comment: the file is itself a check file of the GPU's results.
            $sf check --backend cuda "$p" 2>&1 | sed 's/^\([0-9]* passed, [0-9]* failed\)$/# \1/' \
                | tee "probe-$(basename "$p")"
        done ;;
    llc)
        python3 "$repo/scripts/gpu-confirm-llc.py" $sf "$repo"/backends/cuda/probes/llc/*/ \
            | tee llc-confirmed.txt ;;
    *) echo "unknown stage $stage" ;;
    esac
done
log "done $(date -u +%FT%TZ)"
