#!/usr/bin/env bash
# Builds the Debian packages of a built tree with CPack, unpacks them into a scratch root and
# runs the installed programs from there: `remat --version`, a simulation, `remat-studio
# --screenshot` offscreen, and (with the CUDA plugin) that the installed remat finds its
# plugin. Usage: scripts/check_package.sh BUILD_DIR   (the ctest `package_deb` runs it).
set -euo pipefail
build=$(cd "${1:?usage: check_package.sh BUILD_DIR}" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/remat-package.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() { echo "check_package: $*" >&2; exit 1; }

echo "== cpack =="
cpack --config "$build/CPackConfig.cmake" -B "$work/out" > "$work/cpack.log" 2>&1 ||
    { cat "$work/cpack.log"; fail "cpack failed"; }
main_deb=$(ls "$work"/out/remat-studio_*.deb 2>/dev/null | head -1)
[ -n "$main_deb" ] || { cat "$work/cpack.log"; fail "no remat-studio_*.deb was written"; }
cuda_deb=$(ls "$work"/out/remat-studio-cuda_*.deb 2>/dev/null | head -1 || true)

echo "== control =="
dpkg-deb -f "$main_deb" Package Version Architecture Depends Recommends
[ "$(dpkg-deb -f "$main_deb" Package)" = remat-studio ] || fail "package name is not remat-studio"
depends=$(dpkg-deb -f "$main_deb" Depends)
grep -q 'libc6' <<< "$depends" || fail "Depends lacks libc6: $depends"
studio=0
dpkg-deb -c "$main_deb" > "$work/contents"
if grep -q '/usr/bin/remat-studio$' "$work/contents"; then
    studio=1
    grep -q 'libqt6widgets6' <<< "$depends" || fail "Depends lacks libqt6widgets6: $depends"
    grep -q 'qt6-qpa-plugins' <<< "$depends" || fail "Depends lacks qt6-qpa-plugins: $depends"
fi
if grep -Eq 'cublas|cudart|nvidia' <<< "$depends"; then fail "remat-studio depends on CUDA: $depends"; fi

root="$work/root"
dpkg-deb -x "$main_deb" "$root"
[ -z "$cuda_deb" ] || dpkg-deb -x "$cuda_deb" "$root"
echo "== files =="
(cd "$root" && find . -type f | sort)
[ -x "$root/usr/bin/remat" ] || fail "usr/bin/remat missing"
if [ "$studio" = 1 ]; then
    [ -f "$root/usr/share/applications/remat-studio.desktop" ] || fail ".desktop file missing"
    [ -f "$root/usr/share/icons/hicolor/scalable/apps/remat-studio.svg" ] || fail "icon missing"
fi

echo "== remat --version =="
version=$("$root/usr/bin/remat" --version)
[ "$version" = "remat 0.1.0" ] || fail "remat --version printed '$version'"

echo "== remat simulate =="
"$root/usr/bin/remat" simulate gpt2-small --strategy sqrt --json > "$work/sim.json"
python3 - "$work/sim.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
peak = j["peak_bytes"] if "peak_bytes" in j else None
assert isinstance(peak, int) and peak > 0, f"no positive peak_bytes in {sorted(j)[:20]}"
print("peak_bytes", peak)
PY

echo "== CUDA plugin lookup =="
set +e
REMAT_CUDA_PLUGIN= "$root/usr/bin/remat" run mlp-3x1024 --backend cuda > "$work/run.out" 2> "$work/run.err"
rc=$?
set -e
cat "$work/run.err"
if [ -n "$cuda_deb" ]; then
    [ -f "$root/usr/lib/remat/libremat_cuda.so" ] ||
        ls "$root"/usr/lib/*/remat/libremat_cuda.so > /dev/null || fail "plugin not installed"
    # Found next to the installed programs: it runs (a GPU), or says why the GPU cannot.
    if [ "$rc" != 0 ]; then
        [ "$rc" = 2 ] || fail "remat run --backend cuda exited $rc"
        grep -q '^remat: CUDA backend unavailable: ' "$work/run.err" || fail "no clear message"
        if grep -q 'is not installed' "$work/run.err"; then fail "installed remat did not find its plugin"; fi
    fi
else
    [ "$rc" = 2 ] || fail "remat run --backend cuda without the plugin exited $rc"
    grep -q '^remat: CUDA backend unavailable: ' "$work/run.err" || fail "no clear message"
fi

if [ "$studio" = 1 ]; then
    echo "== remat-studio --screenshot =="
    QT_QPA_PLATFORM=offscreen "$root/usr/bin/remat-studio" --screenshot "$work/shot.png" \
        --autosave-dir "$work/autosave"
    [ "$(head -c 8 "$work/shot.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] ||
        fail "the screenshot is not a PNG"
    size=$(stat -c %s "$work/shot.png")
    [ "$size" -gt 20000 ] || fail "the screenshot is only $size bytes"
    echo "screenshot: $size bytes"
fi
echo "check_package: OK ($(basename "$main_deb")${cuda_deb:+, $(basename "$cuda_deb")})"
