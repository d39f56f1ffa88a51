#!/usr/bin/env bash
# Builds the libFuzzer targets (preset "fuzz": clang, ASan + UBSan, in build/fuzz) and runs each
# for a bounded time, one after the other, from its seed corpus (tests/fuzz/corpus/TARGET plus
# the preset models, device profiles and tests/data files it reads). Fails on the first crash,
# sanitizer report, broken contract, timeout or memory blow-up and prints the reproducer's path
# and the command that replays it. docs/reliability.md describes the targets.
#
#   FUZZ_SECONDS   seconds per target (default 60)
#   FUZZ_TARGETS   which targets (default "model device cli hf snapshot")
#   FUZZ_BUILD     build directory (default build/fuzz; it must be configured like the preset)
#   FUZZ_ARGS      extra libFuzzer flags (default "-seed=1": CI mutates the same way every run,
#                  so a red CI is a finding that reproduces, not luck; "-seed=0" for a random one)
# New corpus entries and crash files go to $FUZZ_BUILD/run/, never into the source tree.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${FUZZ_SECONDS:-60}
targets=${FUZZ_TARGETS:-"model device cli hf snapshot"}
build=${FUZZ_BUILD:-build/fuzz}
extra=${FUZZ_ARGS:--seed=1}

if ! command -v clang++ >/dev/null 2>&1; then
    echo "fuzz: clang++ not found (scripts/setup.sh installs clang and libclang-rt-14-dev)" >&2
    exit 1
fi

start=$(date +%s)
if [ "$build" = build/fuzz ]; then
    cmake --preset fuzz >/dev/null
else
    cmake -S . -B "$build" -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=Debug \
        -DCMAKE_CXX_FLAGS_DEBUG="-g -O1" -DREMAT_FUZZ=ON -DREMAT_SANITIZE=ON \
        -DREMAT_WITH_QT=OFF -DREMAT_WITH_CUDA=OFF -DREMAT_BUILD_BENCH=OFF >/dev/null
fi
cmake --build "$build" -j "$(nproc)" --target fuzz_targets
echo "fuzz: targets built in $(( $(date +%s) - start )) s"

# Seeds beyond the target's own corpus: the files users really have.
seeds_for() {
    case "$1" in
        model) echo "resources/models tests/data/good tests/data/bad" ;;
        device) echo "resources/devices" ;;
        cli) echo "" ;;
        hf) echo "tests/data/hf" ;;
        snapshot) echo "tests/data/snapshots" ;;
    esac
}

export ASAN_OPTIONS="detect_leaks=1:allocator_may_return_null=0:abort_on_error=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"

status=0
for target in $targets; do
    run="$build/run/$target"
    mkdir -p "$run/corpus" "$run/artifacts"
    rm -f "$run"/artifacts/*
    dict=tests/fuzz/json.dict
    max_len=32768
    if [ "$target" = cli ]; then
        dict=tests/fuzz/cli.dict
        max_len=512
    fi
    seed_dirs=()
    for d in "tests/fuzz/corpus/$target" $(seeds_for "$target"); do
        [ -d "$d" ] && seed_dirs+=("$d")
    done
    echo "== fuzz_$target for ${seconds} s (seeds: ${seed_dirs[*]}) =="
    # -timeout: one input that takes this long is a finding (unbounded work), well above the
    # slowest seed under the sanitizers on a loaded machine. -rss_limit_mb / malloc limit:
    # memory blow-ups (a "repeat" of a million, a huge allocation) are findings too.
    # shellcheck disable=SC2086
    if "$build/tests/fuzz/fuzz_$target" -max_total_time="$seconds" -max_len="$max_len" \
        -timeout=60 -rss_limit_mb=3072 -dict="$dict" -print_final_stats=1 \
        -artifact_prefix="$run/artifacts/" $extra "$run/corpus" "${seed_dirs[@]}" \
        >"$run/log.txt" 2>&1; then
        grep -E '^stat::(number_of_executed_units|peak_rss_mb)|^#[0-9]+ +DONE' "$run/log.txt" || true
        echo "fuzz_$target: no crash; corpus $(ls "$run/corpus" | wc -l) files; log $run/log.txt"
    else
        status=1
        tail -n 60 "$run/log.txt"
        echo "fuzz_$target: FAILED; log $run/log.txt"
        for f in "$run"/artifacts/*; do
            [ -e "$f" ] || continue
            echo "fuzz_$target: reproducer $f"
            echo "  replay: $build/tests/fuzz/fuzz_$target $f"
        done
    fi
done
echo "fuzz: done in $(( $(date +%s) - start )) s"
exit $status
