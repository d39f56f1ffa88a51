#!/usr/bin/env bash
# The main job: install what is missing, build, and open the desktop app on the built-in
# default model (GPT-2 small). Without a display it prints the strategy comparison and writes
# the plots as PNG files into ./remat-output/ instead.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh
preset=cpu
if command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]; then
    export PATH="/usr/local/cuda/bin:$PATH"
    preset=default
fi
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset" --target remat remat-studio

app="build/$preset/app/remat-studio"
exec "$app" "$@"
