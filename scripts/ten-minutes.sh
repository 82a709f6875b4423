#!/usr/bin/env bash
# Issue 21's measurement of the main job's first ten minutes: `semfuzz serve --local-worker` on
# a fresh SQLite file (what `cargo xtask run` starts), then at ten minutes after the URL is
# printed what the API and the overview page show (docs/BENCHMARKS.md).
#   scripts/ten-minutes.sh [SEMFUZZ_BINARY] [OUT_DIR]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bin=${1:-target/release/semfuzz}
out=${2:-$(mktemp -d)}
port=18431
url=http://127.0.0.1:$port
mkdir -p "$out"
rm -f "$out"/semfuzz.db*
"$bin" serve --db "$out/semfuzz.db" --listen 127.0.0.1:$port --local-worker >"$out/serve.out" 2>&1 &
pid=$!
trap 'kill -INT $pid 2>/dev/null || true' EXIT
until grep -q 'dashboard at' "$out/serve.out"; do
    if ! kill -0 $pid 2>/dev/null; then
        cat "$out/serve.out" >&2
        echo "semfuzz serve ended before printing its URL" >&2
        exit 1
    fi
    sleep 0.5
done
echo "URL printed at $(date -u +%T), load $(cut -d' ' -f1-3 /proc/loadavg)"
sleep 600
echo "ten minutes at $(date -u +%T), load $(cut -d' ' -f1-3 /proc/loadavg)"
curl -s "$url/" >"$out/overview.html"
curl -s "$url/api/v1/campaigns/1" >"$out/campaign.json"
for q in "backend=host&variant=min.*" "backend=host&variant=max.*" "backend=host" \
    "backend=llvm" "backend=llvm:opt-16" "backend=numba-sim" ""; do
    total=$(curl -s "$url/api/v1/findings?$q&limit=1" | python3 -c 'import json, sys; print(json.load(sys.stdin)["total"])')
    echo "findings ${q:-(all)}: $total"
done
python3 - "$out/overview.html" <<'PY'
import collections, re, sys
page = open(sys.argv[1]).read()
matrix = page[page.find('id="matrix"'):]
matrix = matrix[:matrix.find("</table>")]
cells = collections.Counter(re.findall(r'<td class="([^"]*)"', matrix))
print("matrix cells:", sum(cells.values()), dict(cells), "(untried = never run)")
PY
echo "the server's log and the pages are in $out"
