#!/usr/bin/env bash
# Regenerates the main-window screenshots in docs/screenshots/ (offscreen, no display needed)
# from a built remat-studio: `bash scripts/screenshots.sh [path/to/remat-studio]`.
set -euo pipefail
cd "$(dirname "$0")/.."
app="${1:-build/default/app/remat-studio}"
out=docs/screenshots
shot() {
    local file=$1
    shift
    QT_QPA_PLATFORM=offscreen "$app" "$@" --screenshot "$out/$file"
    echo "wrote $out/$file"
}
shot main-window-mlp.png mlp-3x1024
shot main-window-gpt2-small.png gpt2-small --strategy every:3
shot main-window-gpt2-small-dark.png gpt2-small --strategy every:3 --dark
shot main-window-gpt2-small-selective.png gpt2-small --strategy selective:attention_core --expand-all
shot main-window-gpt2-small-zh_CN.png gpt2-small --strategy every:3 --language zh_CN
shot main-window-projector-1280x720.png gpt2-small --strategy every:3 --size 1280x720
shot main-window-projector-1280x720-zh_CN.png gpt2-small --strategy every:3 --size 1280x720 --language zh_CN
# The step-through at the first recompute of every:3 (step 189), and the schedule grid of a
# nested plan (revolve with 2 slots: four recompute depths) at the peak.
shot step-through-gpt2-small-1280x720.png gpt2-small --strategy every:3 --size 1280x720 --step-through 189
shot schedule-grid-gpt2-small-revolve.png gpt2-small --strategy revolve:2 --step-through peak
# Presentation mode on a 1920 x 1080 projector.
shot presentation-gpt2-small-1920x1080.png gpt2-small --strategy every:3 --size 1920x1080 --presentation
# Two plans side by side: every:3 against none.
shot two-plans-gpt2-small-1280x720.png gpt2-small --strategy every:3 --size 1280x720 --compare-with none
# Lesson 3 (none, selective and full), step 2, revealed, on a projector.
shot lesson-1280x720.png --lesson 3:2:reveal --size 1280x720
# The parallel-layout window, GPT-2 small at dp 8 with ZeRO-3, and Make it fit (GPT-2 tiny
# fitting on 8 GPUs, GPT-3 175B not): taken by their GUI test, built beside the app.
# The main window before and after View → Language → 简体中文, at 1280 x 720: taken by the
# language switch's test.
language_test="$(dirname "$app")/../tests/tst_language_switch"
if [ -x "$language_test" ]; then
    REMAT_SCREENSHOT_DIR="$out" QT_QPA_PLATFORM=offscreen "$language_test" \
        everyShownTextFollowsTheLanguage >/dev/null
    echo "wrote $out/language-switch-before.png, language-switch-after.png"
fi
layout_test="$(dirname "$app")/../tests/tst_parallel_layout_gui"
if [ -x "$layout_test" ]; then
    REMAT_SCREENSHOT_DIR="$out" QT_QPA_PLATFORM=offscreen "$layout_test" >/dev/null
    echo "wrote $out/layout-dialog-gpt2-small.png, main-window-dp8-zero3.png, fit-dialog-*.png"
fi
# A refused budget said at its field: taken by the GUI polish test.
polish_test="$(dirname "$app")/../tests/tst_gui_polish"
if [ -x "$polish_test" ]; then
    shots="$(mktemp -d)"
    REMAT_SCREENSHOT_DIR="$shots" QT_QPA_PLATFORM=offscreen "$polish_test" budgetRefusedAtTheField >/dev/null
    cp "$shots/refusal-budget-field.png" "$out/"
    rm -rf "$shots"
    echo "wrote $out/refusal-budget-field.png"
fi
# The synthetic PyTorch snapshot laid over mlp-3x1024: taken by the overlay's test.
overlay_test="$(dirname "$app")/../tests/tst_snapshot_overlay"
if [ -x "$overlay_test" ]; then
    REMAT_SNAPSHOT_SHOT="$out/snapshot-overlay-mlp.png" QT_QPA_PLATFORM=offscreen "$overlay_test" >/dev/null
    echo "wrote $out/snapshot-overlay-mlp.png"
fi
