#!/usr/bin/env bash
# The GPU check: one script to run on a GPU machine (H200, sm_90, CUDA 13, PyTorch 2.x, python3;
# no Qt, no apt, no network) with a `remat` CLI built for it (cli-only preset, CUDA arch 90).
# It runs, each step under its own `timeout` so the whole check ends within GPU_CHECK_BUDGET_S
# (default 230 s):
#   1. remat selftest --backend cuda         every CUDA op against the CPU reference
#   2. remat run --backend cuda --json       presets x strategies: predicted vs measured
#   3. remat calibrate (plan none)           per-op times -> calibrated profile per model
#   4. remat simulate --device <calibrated>  every strategy re-predicted from the calibration
#   5. scripts/torch_reference.py            the same models and plans in PyTorch eager
#   6. the report                            $OUT/report.md and $OUT/report.json
# Raw outputs stay in $OUT/raw. A step that fails or runs out of time is reported as such; the
# report is always written.
#
# Usage: scripts/gpu-check.sh [OUT]      (OUT defaults to $OUT, else ./gpu-check-out)
# Environment: REMAT (the binary; default the first of build/cli-only/app/remat,
# build-cuda/app/remat, build/default/app/remat under the repository; its CUDA plugin must sit
# at ../lib/remat/libremat_cuda.so beside it, or be named by REMAT_CUDA_PLUGIN), REMAT_DEVICE (profile
# id, default h200-141gb), GPU_CHECK_BUDGET_S, PYTHON (default python3).
set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
OUT=${1:-${OUT:-$PWD/gpu-check-out}}
DEVICE=${REMAT_DEVICE:-h200-141gb}
BUDGET=${GPU_CHECK_BUDGET_S:-230}
PYTHON=${PYTHON:-python3}
REPORT_RESERVE_S=20
START=$(date +%s)

if [[ -z "${REMAT:-}" ]]; then
    for c in "$ROOT/build/cli-only/app/remat" "$ROOT/build-cuda/app/remat" \
             "$ROOT/build/default/app/remat" "$ROOT/build/ci/app/remat"; do
        if [[ -x "$c" ]]; then REMAT=$c; break; fi
    done
fi
mkdir -p "$OUT/raw"
RAW=$OUT/raw
: > "$RAW/steps.tsv"
if [[ -z "${REMAT:-}" || ! -x "$REMAT" ]]; then
    echo "gpu-check: no remat binary (set REMAT=path/to/remat)" | tee "$RAW/fatal.txt" >&2
fi
# The CUDA backend is a plugin beside the build: <build>/lib/remat/libremat_cuda.so, found from
# the binary's folder (app/../lib/remat) unless REMAT_CUDA_PLUGIN names it. Carry both.
if [[ -n "${REMAT:-}" && -z "${REMAT_CUDA_PLUGIN:-}" && \
      ! -f "$(dirname "$REMAT")/../lib/remat/libremat_cuda.so" ]]; then
    echo "gpu-check: no CUDA plugin at $(dirname "$REMAT")/../lib/remat/libremat_cuda.so" \
         "(carry the build's lib/remat folder or set REMAT_CUDA_PLUGIN)" | tee -a "$RAW/fatal.txt" >&2
fi

elapsed() { echo $(( $(date +%s) - START )); }

# step NAME LIMIT_S CMD...: runs CMD with stdout to raw/NAME.out and stderr to raw/NAME.err,
# killed after LIMIT_S or when the budget (less the report's reserve) is spent; appends
# "NAME rc seconds" to raw/steps.tsv.
step() {
    local name=$1 limit=$2
    shift 2
    local left=$(( BUDGET - REPORT_RESERVE_S - $(elapsed) ))
    if (( left < 3 )); then
        printf '%s\tskipped\t0\n' "$name" >> "$RAW/steps.tsv"
        echo "gpu-check: $name skipped (time budget spent)" >&2
        return 124
    fi
    (( limit > left )) && limit=$left
    local t0
    t0=$(date +%s)
    timeout --kill-after=5 "$limit" "$@" > "$RAW/$name.out" 2> "$RAW/$name.err"
    local rc=$?
    printf '%s\t%s\t%s\n' "$name" "$rc" "$(( $(date +%s) - t0 ))" >> "$RAW/steps.tsv"
    echo "gpu-check: $name -> exit $rc ($(( $(date +%s) - t0 )) s, $(elapsed) s in)" >&2
    return $rc
}

# ---- 0. environment ----------------------------------------------------------------------------
{
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "host: $(uname -a)"
    echo "remat: ${REMAT:-none}"
    [[ -n "${REMAT:-}" ]] && "$REMAT" --version 2>&1
    command -v nvidia-smi > /dev/null && timeout 15 nvidia-smi \
        --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader 2>&1
    timeout 20 "$PYTHON" -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda)' 2>&1
} > "$RAW/env.txt"

# A llama-style model shrunk to fit the budget: grouped KV heads, SwiGLU, RMSNorm, no biases,
# causal flash attention (PyTorch: scaled_dot_product_attention), as llama-7b.
cat > "$RAW/llama-mini.json" <<'EOF'
{
  "format": "remat-model/1",
  "name": "llama-mini",
  "input": {"tokens": 512, "vocab": 32000},
  "tie_embeddings": false,
  "layers": [
    {"kind": "embedding", "dim": 1024, "positions": 0, "dropout": 0.0},
    {"kind": "transformer_block", "repeat": 8, "heads": 16, "kv_heads": 4, "mlp_hidden": 2816,
     "activation": "silu", "gated": true, "norm": "rmsnorm", "dropout": 0.0,
     "attention": "flash", "causal": true, "bias": false},
    {"kind": "rmsnorm"},
    {"kind": "linear", "out": 32000, "bias": false},
    {"kind": "cross_entropy"}
  ],
  "training": {"micro_batch": 8, "accumulation_steps": 1, "precision": "mixed-bf16",
               "optimizer": "adamw"}
}
EOF

# A ResNet shrunk the same way (resnet-101's layer kinds and structure: 7x7/2 stem, batch norm,
# in-place ReLU, max pool, bottleneck stages whose first block downsamples through a projection
# shortcut, global average pool, classifier) on 64 x 64 images.
cat > "$RAW/resnet-mini.json" <<'EOF'
{
  "format": "remat-model/1",
  "name": "resnet-mini",
  "input": {"shape": [3, 64, 64]},
  "layers": [
    {"kind": "conv2d", "out_channels": 64, "kernel": 7, "stride": 2, "padding": 3, "bias": false},
    {"kind": "batchnorm2d"},
    {"kind": "relu", "inplace": true},
    {"kind": "maxpool2d", "kernel": 3, "stride": 2, "padding": 1},
    {"kind": "residual_block", "variant": "bottleneck", "channels": 64, "stride": 1, "repeat": 2},
    {"kind": "residual_block", "variant": "bottleneck", "channels": 128, "stride": 2, "repeat": 1},
    {"kind": "residual_block", "variant": "bottleneck", "channels": 128, "stride": 1, "repeat": 1},
    {"kind": "residual_block", "variant": "bottleneck", "channels": 256, "stride": 2, "repeat": 1},
    {"kind": "residual_block", "variant": "bottleneck", "channels": 256, "stride": 1, "repeat": 2},
    {"kind": "global_avg_pool"},
    {"kind": "flatten"},
    {"kind": "linear", "out": 1000, "bias": true},
    {"kind": "cross_entropy"}
  ],
  "training": {"micro_batch": 32, "accumulation_steps": 1, "precision": "fp32",
               "optimizer": "momentum"}
}
EOF

# Dilated, grouped and depthwise convolutions (model format 3; the CUDA path is im2col + one
# strided-batched cuBLAS GEMM over the groups): a MobileNet-style separable pair after a dilated
# grouped 3x3.
cat > "$RAW/convmix-mini.json" <<'EOF'
{
  "format": "remat-model/3",
  "name": "convmix-mini",
  "input": {"shape": [3, 64, 64]},
  "layers": [
    {"kind": "conv2d", "out_channels": 64, "kernel": 3, "stride": 2, "padding": 1, "bias": false},
    {"kind": "batchnorm2d"},
    {"kind": "relu", "inplace": true},
    {"kind": "conv2d", "out_channels": 64, "kernel": 3, "padding": 2, "dilation": 2, "groups": 4, "bias": false},
    {"kind": "batchnorm2d"},
    {"kind": "relu", "inplace": true},
    {"kind": "conv2d", "out_channels": 64, "kernel": 3, "stride": 2, "padding": 1, "groups": 64, "bias": false},
    {"kind": "batchnorm2d"},
    {"kind": "relu", "inplace": true},
    {"kind": "conv2d", "out_channels": 128, "kernel": 1, "bias": false},
    {"kind": "batchnorm2d"},
    {"kind": "relu", "inplace": true},
    {"kind": "global_avg_pool"},
    {"kind": "flatten"},
    {"kind": "linear", "out": 1000, "bias": true},
    {"kind": "cross_entropy"}
  ],
  "training": {"micro_batch": 32, "accumulation_steps": 1, "precision": "fp32",
               "optimizer": "momentum"}
}
EOF

# model id | model file | extra remat flags | strategies
MODELS=(
    "mlp-3x1024|$ROOT/resources/models/mlp-3x1024.json||none full sqrt"
    "gpt2-tiny|$ROOT/resources/models/gpt2-tiny.json||none full sqrt selective:attention_core"
    "gpt2-small|$ROOT/resources/models/gpt2-small.json|-b 8|none full sqrt selective:attention_core"
    "llama-mini|$RAW/llama-mini.json||none full selective:attention_core"
    "resnet-mini|$RAW/resnet-mini.json||none full sqrt"
    "convmix-mini|$RAW/convmix-mini.json||none full"
)

# ---- 1. selftest ---------------------------------------------------------------------------------
[[ -n "${REMAT:-}" ]] && step selftest 60 "$REMAT" selftest --backend cuda --json

# ---- 2. our runs ---------------------------------------------------------------------------------
for entry in "${MODELS[@]}"; do
    IFS='|' read -r id file flags strategies <<< "$entry"
    for s in $strategies; do
        tag=${s//[:,]/_}
        # shellcheck disable=SC2086
        [[ -n "${REMAT:-}" ]] && step "run_${id}_${tag}" 40 "$REMAT" run "$file" --backend cuda \
            --device "$DEVICE" --strategy "$s" $flags --json
    done
done

# ---- 3. calibration on the no-checkpoint plan, 4. re-simulation --------------------------------
for entry in "${MODELS[@]}"; do
    IFS='|' read -r id file flags strategies <<< "$entry"
    [[ -z "${REMAT:-}" ]] && continue
    # shellcheck disable=SC2086
    step "calibrate_${id}" 45 "$REMAT" calibrate "$file" --backend cuda --device "$DEVICE" \
        --out "$RAW/calibrated_${id}.json" $flags --json || continue
    for s in $strategies; do
        tag=${s//[:,]/_}
        # shellcheck disable=SC2086
        step "simulate_${id}_${tag}" 10 "$REMAT" simulate "$file" \
            --device "$RAW/calibrated_${id}.json" --strategy "$s" $flags --json
    done
done

# ---- 5. PyTorch ----------------------------------------------------------------------------------
{
    echo "["
    first=1
    for entry in "${MODELS[@]}"; do
        IFS='|' read -r id file flags strategies <<< "$entry"
        mb=""
        [[ "$flags" == "-b "* ]] && mb=${flags#-b }
        for s in $strategies; do
            (( first )) || echo ","
            first=0
            printf '  {"name": "%s", "model_file": "%s", "strategy": "%s"%s}' "$id" "$file" "$s" \
                "${mb:+, \"micro_batch\": $mb}"
        done
    done
    echo
    echo "]"
} > "$RAW/torch_configs.json"
torch_budget=$(( BUDGET - REPORT_RESERVE_S - $(elapsed) - 10 ))
(( torch_budget < 5 )) && torch_budget=5
step torch $(( torch_budget + 10 )) "$PYTHON" "$HERE/torch_reference.py" \
    --configs "$RAW/torch_configs.json" --out "$RAW/torch.json" --budget-s "$torch_budget"

# ---- 6. the report -------------------------------------------------------------------------------
timeout 20 "$PYTHON" - "$OUT" "$DEVICE" <<'PYEOF'
import json, os, sys, glob, statistics

out, device = sys.argv[1], sys.argv[2]
raw = os.path.join(out, "raw")

def load(name):
    try:
        with open(os.path.join(raw, name)) as f:
            return json.load(f)
    except Exception:
        return None

def text(name):
    try:
        with open(os.path.join(raw, name)) as f:
            return f.read()
    except Exception:
        return ""

steps = {}
for line in text("steps.tsv").splitlines():
    parts = line.split("\t")
    if len(parts) == 3:
        steps[parts[0]] = {"rc": parts[1], "seconds": parts[2]}

def total(t):
    if isinstance(t, dict):
        return t.get("total")
    return t

def pct(a, b):
    return None if a is None or b in (None, 0) else 100.0 * (a - b) / b

def mib(b):
    return "-" if b is None else f"{b / 2**20:.1f}"

def ms(s):
    return "-" if s is None else f"{s * 1e3:.2f}"

def num(x, fmt="{:.1f}"):
    return "-" if x is None else fmt.format(x)

report = {"device_profile": device, "environment": text("env.txt"), "steps": steps,
          "no_gpu_result_claimed_unless_listed_here": True}

# ---- selftest
st = load("selftest.out")
report["selftest"] = None
if st:
    fails = [c for c in st.get("cases", []) if not c.get("pass")]
    worst = {}
    for c in st.get("cases", []):
        if c.get("error") is None or not c.get("tolerance"):
            continue
        key = (c["kind"], c["dtype"], c["direction"])
        r = c["error"] / c["tolerance"]
        if r >= worst.get(key, (-1, None))[0]:
            worst[key] = (r, c)
    report["selftest"] = {"device": st.get("device"), "passed": st.get("passed"),
                          "failed": st.get("failed"), "failures": fails,
                          "worst_error_over_tolerance": {"/".join(k): v[0] for k, v in worst.items()}}

# ---- runs, calibration, torch
torch = load("torch.json") or {}
torch_by = {(r.get("name"), r.get("strategy")): r for r in torch.get("results", [])}
rows = []
for path in sorted(glob.glob(os.path.join(raw, "run_*.out"))):
    base = os.path.basename(path)[:-4]
    run = load(os.path.basename(path))
    name = base[len("run_"):]
    row = {"run": name, "rc": steps.get(base, {}).get("rc")}
    if not run:
        row["error"] = text(base + ".err").strip()[-400:]
        rows.append(row)
        continue
    model = run.get("model") or run.get("name") or name.split("_")[0]
    strat = run.get("strategy")
    mid = name.split("_")[0] if "_" in name else name
    for entry in ("mlp-3x1024", "gpt2-tiny", "gpt2-small", "llama-mini", "resnet-mini", "convmix-mini"):
        if name.startswith(entry + "_"):
            mid = entry
    tag = name[len(mid) + 1:]
    m = run.get("measured", {})
    row.update({
        "model": mid, "strategy": strat, "tag": tag,
        "predicted_peak_bytes": run.get("peak_bytes"),
        "measured_peak_bytes": m.get("peak_bytes"),
        "tracked_equals_predicted": run.get("peak_bytes") == m.get("peak_bytes")
                                    and run.get("max_live_bytes_difference") == 0,
        "max_live_bytes_difference": run.get("max_live_bytes_difference"),
        "device_peak_bytes": m.get("device_peak_bytes"),
        "device_used_peak_bytes": m.get("device_used_peak_bytes"),
        "device_used_before_bytes": m.get("device_used_before_bytes"),
        "device_used_after_bytes": m.get("device_used_after_bytes"),
        "predicted_time_s": total(run.get("time_s")),
        "predicted_forward_s": (run.get("time_s") or {}).get("forward"),
        "measured_time_s": total(m.get("time_s")),
        "measured_forward_s": (m.get("time_s") or {}).get("forward"),
        "measured_recompute_s": (m.get("time_s") or {}).get("recompute"),
        "measured_memory_ops_s": m.get("memory_ops_s"),
        "grad_check": run.get("grad_check"),
    })
    if row["device_peak_bytes"] and row["predicted_peak_bytes"]:
        row["device_over_predicted_pct"] = pct(row["device_peak_bytes"], row["predicted_peak_bytes"])
    sim = load(f"simulate_{mid}_{tag}.out")
    row["calibrated_predicted_time_s"] = total(sim.get("time_s")) if sim else None
    row["calibrated_error_pct"] = pct(row["calibrated_predicted_time_s"], row["measured_time_s"])
    t = torch_by.get((mid, strat))
    if t and "error" not in t:
        row["torch_max_allocated_bytes"] = t["max_allocated_bytes"]
        row["torch_max_reserved_bytes"] = t["max_reserved_bytes"]
        row["torch_step_s"] = t["step_s_median"]
        row["torch_forward_s"] = t["forward_s_median"]
        if row["measured_time_s"]:
            row["ours_over_torch"] = row["measured_time_s"] / t["step_s_median"]
    elif t:
        row["torch_error"] = t["error"]
    rows.append(row)
report["runs"] = rows

cal = {}
for path in glob.glob(os.path.join(raw, "calibrate_*.out")):
    mid = os.path.basename(path)[len("calibrate_"):-4]
    c = load(os.path.basename(path))
    if c:
        cal[mid] = {"gemm_share": c.get("gemm_share"), "gemm_time_s": c.get("gemm_time_s"),
                    "measured_time_s": c.get("measured_time_s"), "ops": c.get("ops")}
report["calibration"] = cal

# Recompute overhead of `full`: measured against the one-extra-forward expectation.
overhead = []
for mid in sorted({r.get("model") for r in rows if r.get("model")}):
    none = next((r for r in rows if r.get("model") == mid and r.get("strategy") == "none"), None)
    full = next((r for r in rows if r.get("model") == mid and r.get("strategy") == "full"), None)
    if not none or not full or not none.get("measured_time_s") or not full.get("measured_time_s"):
        continue
    o = {"model": mid,
         "ours_measured": (full["measured_time_s"] - none["measured_time_s"]) / none["measured_time_s"],
         "ours_one_extra_forward": (none.get("measured_forward_s") or 0) / none["measured_time_s"]}
    if none.get("torch_step_s") and full.get("torch_step_s"):
        o["torch_measured"] = (full["torch_step_s"] - none["torch_step_s"]) / none["torch_step_s"]
        o["torch_one_extra_forward"] = (none.get("torch_forward_s") or 0) / none["torch_step_s"]
    overhead.append(o)
report["recompute_overhead_full"] = overhead
report["torch"] = {k: torch.get(k) for k in ("torch_version", "device", "error", "wall_s")}

with open(os.path.join(out, "report.json"), "w") as f:
    json.dump(report, f, indent=2, default=str)

# ---- Markdown
md = []
md.append("# GPU check report\n")
md.append("Every figure below was produced by `scripts/gpu-check.sh` on the machine named in the "
          "environment section; a dash means the step did not produce it (see Steps).\n")
md.append("## Environment\n\n```\n" + report["environment"].strip() + "\n```\n")
md.append("## Steps\n\n| step | exit | seconds |\n|---|---|---|")
for k, v in steps.items():
    md.append(f"| {k} | {v['rc']} | {v['seconds']} |")
md.append("")
s = report["selftest"]
md.append("## Selftest (CUDA vs CPU reference)\n")
if s:
    md.append(f"{s['passed']} passed, {s['failed']} failed on {s['device']}.\n")
    for c in s["failures"][:40]:
        md.append(f"- FAIL {c.get('network')} {c.get('op')} {c.get('dtype')} {c.get('direction')}: "
                  f"error {c.get('error')} > {c.get('tolerance')} {c.get('failure', '')}")
else:
    md.append("No selftest result (see raw/selftest.err).\n")
md.append("\n## Memory: predicted vs measured (MiB)\n")
md.append("| run | predicted peak | tracked peak | tracked = predicted | pool reserved peak | pool used peak | reserved vs predicted | PyTorch max allocated | PyTorch max reserved |")
md.append("|---|---|---|---|---|---|---|---|---|")
for r in rows:
    if "error" in r:
        md.append(f"| {r['run']} | failed: {r['error'][:120]} | | | | | | | |")
        continue
    md.append(f"| {r['run']} | {mib(r['predicted_peak_bytes'])} | {mib(r['measured_peak_bytes'])} | "
              f"{'yes' if r['tracked_equals_predicted'] else 'NO'} | {mib(r['device_peak_bytes'])} | "
              f"{mib(r['device_used_peak_bytes'])} | {num(r.get('device_over_predicted_pct'), '{:+.1f}%')} | "
              f"{mib(r.get('torch_max_allocated_bytes'))} | {mib(r.get('torch_max_reserved_bytes'))} |")
md.append("\n## Time: predicted vs measured (ms per step, compute instructions)\n")
md.append("| run | roofline | calibrated | measured | calibrated error | PyTorch step | ours / PyTorch | alloc+init (ours) |")
md.append("|---|---|---|---|---|---|---|---|")
for r in rows:
    if "error" in r:
        continue
    md.append(f"| {r['run']} | {ms(r['predicted_time_s'])} | {ms(r['calibrated_predicted_time_s'])} | "
              f"{ms(r['measured_time_s'])} | {num(r.get('calibrated_error_pct'), '{:+.1f}%')} | "
              f"{ms(r.get('torch_step_s'))} | {num(r.get('ours_over_torch'), '{:.2f}x')} | "
              f"{ms(r.get('measured_memory_ops_s'))} |")
md.append("\nOur measured step sums the compute instructions (CUDA events around each); alloc/free "
          "instructions are listed apart because they include the host-side initialisation of "
          "weights and data from the seed, which a PyTorch training loop does not do per step.\n")
md.append("## Recompute overhead of `full`\n")
md.append("| model | ours measured | ours: one extra forward | PyTorch measured | PyTorch: one extra forward |")
md.append("|---|---|---|---|---|")
for o in overhead:
    md.append(f"| {o['model']} | {num(100 * o['ours_measured'], '{:.1f}%')} | "
              f"{num(100 * o['ours_one_extra_forward'], '{:.1f}%')} | "
              f"{num(100 * o['torch_measured'] if 'torch_measured' in o else None, '{:.1f}%')} | "
              f"{num(100 * o['torch_one_extra_forward'] if 'torch_one_extra_forward' in o else None, '{:.1f}%')} |")
md.append("\n## GEMM share of our step (no-checkpoint plan, from calibration)\n")
md.append("| model | GEMM time (ms) | share of step |")
md.append("|---|---|---|")
for mid, c in sorted(cal.items()):
    md.append(f"| {mid} | {ms(c['gemm_time_s'])} | {num(100 * c['gemm_share'] if c['gemm_share'] is not None else None, '{:.1f}%')} |")
md.append("\n## Gradient check against the no-checkpoint plan\n")
md.append("| run | max abs diff | bitwise equal |")
md.append("|---|---|---|")
for r in rows:
    g = r.get("grad_check") or {}
    if g:
        md.append(f"| {r['run']} | {g.get('max_abs_diff')} | {g.get('bitwise_equal')} |")
if report["torch"].get("error"):
    md.append(f"\nPyTorch: {report['torch']['error']}\n")
with open(os.path.join(out, "report.md"), "w") as f:
    f.write("\n".join(md) + "\n")
print(f"report: {os.path.join(out, 'report.md')}")
PYEOF
echo "gpu-check: done in $(elapsed) s; report in $OUT/report.md" >&2
