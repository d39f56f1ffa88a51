#!/usr/bin/env bash
# Whole-process start-up of the command-line tool: `remat --version` and `remat simulate
# gpt3-175b --json`, each run N times (default 20) under `perf stat`, reporting the mean wall
# time, the CPU time (task-clock: the figure to read on a busy machine), page faults and the
# peak resident memory of one run. Usage: tests/bench/startup.sh [path/to/remat] [N]
# (default build/default/app/remat, the build scripts/run.sh makes with nvcc present).
set -euo pipefail
remat="${1:-build/default/app/remat}"
runs="${2:-20}"
[ -x "$remat" ] || { echo "startup.sh: $remat is not an executable" >&2; exit 2; }
command -v perf > /dev/null || { echo "startup.sh: needs perf (package linux-perf)" >&2; exit 2; }

measure() {
    local label="$1"; shift
    local out
    out=$(perf stat -r "$runs" -x, -e task-clock,page-faults "$@" 2>&1 > /dev/null)
    local wall
    wall=$(perf stat -r "$runs" "$@" 2>&1 > /dev/null | awk '/seconds time elapsed/ {print $1}')
    local cpu faults rss
    cpu=$(awk -F, '$3 == "task-clock" {printf "%.1f", $1}' <<< "$out")
    faults=$(awk -F, '$3 == "page-faults" {printf "%d", $1}' <<< "$out")
    rss=$( { /usr/bin/time -f %M "$@" > /dev/null; } 2>&1 | tail -1)
    printf '%-36s wall %7.1f ms   CPU %7s ms   page faults %7s   max RSS %6.1f MiB\n' \
        "$label" "$(awk -v w="$wall" 'BEGIN {print w * 1000}')" "$cpu" "$faults" \
        "$(awk -v k="$rss" 'BEGIN {print k / 1024}')"
}

echo "$remat, mean of $runs runs"
measure "remat --version" "$remat" --version
measure "remat simulate gpt3-175b --json" "$remat" simulate gpt3-175b --json
