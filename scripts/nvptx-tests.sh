#!/usr/bin/env bash
# The full sweep of LLVM's own NVPTX codegen tests (docs/nvptx-tests.md): every file of
# ../shared/llvm-nvptx-tests/ (or the files given) validated at its own RUN lines'
# configurations, verdicts in nvptx-tests.json, the log with the per-file totals and the
# unsupported reasons in nvptx-tests.log. LLC=llc-22 (or any --llc value) picks the compiler,
# TIMEOUT the per-query solver timeout. Builds target/release/semfuzz unless SEMFUZZ is set.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
if [ -z "${SEMFUZZ:-}" ]; then
    cargo build --release -p semfuzz
    SEMFUZZ=target/release/semfuzz
fi
if [ "$#" -eq 0 ]; then
    set -- ../shared/llvm-nvptx-tests/*.ll
fi
start=$(date +%s)
status=0
"$SEMFUZZ" validate-llc --run-lines "$@" --llc "${LLC:-llvmlite}" \
    --timeout "${TIMEOUT:-2s}" --json nvptx-tests.json > nvptx-tests.log 2>&1 || status=$?
sed -n '/^run-lines totals/,$p' nvptx-tests.log
echo "$(( $(date +%s) - start )) s; verdicts in nvptx-tests.json, the log in nvptx-tests.log"
# 1: a counterexample or an unknown (the sweep's expected outcome); 2: semfuzz failed.
[ "$status" -le 1 ]
