#!/usr/bin/env bash
# Installs what is missing, builds everything and runs every test: the release build (with the
# CUDA executor wherever nvcc exists, which is then required to build) and the
# AddressSanitizer + UBSan build of the whole suite.
set -euo pipefail
cd "$(dirname "$0")/.."

# --tests: also python3-torch, which the PyTorch tests run with (required below).
bash scripts/setup.sh --tests
jobs=$(nproc)

cuda_flags=()
if command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]; then
    export PATH="/usr/local/cuda/bin:$PATH"
    # A silent CPU-only build would hide broken CUDA code.
    cuda_flags=(-DREMAT_REQUIRE_CUDA=ON)
fi

echo "== release build (preset ci) =="
cmake --preset ci -DREMAT_REQUIRE_TORCH=ON "${cuda_flags[@]}"
cmake --build --preset ci -j "$jobs"
ctest --preset ci -j "$jobs"

echo "== sanitizer build (preset asan) =="
cmake --preset asan -DREMAT_REQUIRE_TORCH=ON
cmake --build --preset asan -j "$jobs"
ctest --preset asan -j "$jobs"

echo "== fuzzing (scripts/fuzz.sh: clang + libFuzzer, ${FUZZ_SECONDS:-60} s per target) =="
bash scripts/fuzz.sh
