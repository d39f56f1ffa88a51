#!/usr/bin/env bash
# Installs the Debian packages Remat Studio builds with, skipping the ones already present so
# that a second run is instant. Needs root (or sudo) only when something is missing.
# `setup.sh --tests` (what scripts/test.sh runs) also installs what only the tests need: Debian's
# PyTorch (python3-torch) for the tests that execute exported and traced PyTorch code.
set -euo pipefail

with_tests=0
for arg in "$@"; do
    case "$arg" in
        --tests) with_tests=1 ;;
        *) echo "setup.sh: unknown option '$arg' (known: --tests)" >&2; exit 2 ;;
    esac
done

packages=(
    build-essential cmake ninja-build pkg-config
    qt6-base-dev libqcustomplot-dev qt6-tools-dev qt6-l10n-tools qt6-tools-dev-tools
    qt6-svg-dev libgl-dev nlohmann-json3-dev libcli11-dev libopenblas-dev libbenchmark-dev
    xvfb xauth fonts-dejavu-core fonts-wqy-microhei
    clang libclang-rt-14-dev
)
if [ "$with_tests" -eq 1 ]; then
    packages+=(python3-torch)
fi

missing=()
for p in "${packages[@]}"; do
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
    exit 0
fi

echo "setup: installing ${missing[*]}"
sudo=""
if [ "$(id -u)" -ne 0 ]; then
    sudo="sudo"
fi
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y --no-install-recommends "${missing[@]}"
