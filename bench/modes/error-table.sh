#!/usr/bin/env bash
# The flow engine against the packet engine (docs/modes.md "Error table"): each scenario runs in
# both modes; the table gives the step or collective time (jobs / collectives) or the FCT p50 and
# p99 (patterns) of each, the flow mode's error against packet, and the wall-time speed-up.
#   bench/modes/error-table.sh [FABRICSIM] [OUTDIR]     (default build/fabricsim, /tmp/modes)
# Regenerates the table in docs/modes.md; figures depend on the machine only in the wall times.
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN=${1:-build/fabricsim}
OUT=${2:-/tmp/modes}
mkdir -p "$OUT"
# label | file | extra --set arguments
CASES=(
  "permutation k=8, ECMP (RoCE)|examples/permutation.yaml|"
  "permutation k=16, ECMP (RoCE)|bench/permutation-k16.yaml|"
  "permutation k=8, sprayed (RoCE + PFC)|examples/permutation.yaml|--set fabric.roce.spray=true --set fabric.pfc.enabled=true"
  "permutation k=16, UET REPS spraying|bench/uet-permutation-k16.yaml|"
  "incast 16:1, PFC|examples/incast.yaml|--set outputs.pcap.frames=0"
  "incast 32:1, PFC + DCQCN|examples/incast.yaml|--set outputs.pcap.frames=0 --set workload.senders=32 --set fabric.roce.cc=dcqcn"
  "all-to-all 32 hosts, 2:1 (RoCE)|examples/all-to-all.yaml|"
  "ring all-reduce 128 ranks 64 MiB (RoCE)|examples/default.yaml|"
  "all-reduce ring 16x8 GPUs 256 MiB (IB)|examples/nccl-tests-sweep-16x8.yaml|--set workload.size=256MiB --set workload.max_size=0B --set workload.algorithm=ring --set workload.protocol=simple"
  "all-reduce tree 16x8 GPUs 256 MiB (IB)|examples/nccl-tests-sweep-16x8.yaml|--set workload.size=256MiB --set workload.max_size=0B --set workload.algorithm=tree --set workload.protocol=simple"
  "gpt-step (32 GPUs)|examples/gpt-step.yaml|"
  "two jobs|examples/two-jobs.yaml|"
  "resnet50 data-parallel|examples/resnet50-dp.yaml|"
  "link failure during a training step|examples/link-flap-training.yaml|"
)
metric() {  # result.json -> "time_ps" for jobs/collectives, else "p50 p99"
  python3 - "$1" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
if j.get("jobs"):
    print("step", max(x["time_ps"] for x in j["jobs"]))
elif j.get("collective") and j["collective"].get("time_ps", -1) >= 0:
    print("coll", j["collective"]["time_ps"])
else:
    f = j["flows"]
    print("fct", f["fct_p50_ps"], f["fct_p99_ps"])
PY
}
wall() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['wall_seconds'])" "$1"; }
printf '| scenario | measure | packet | flow | error | wall packet | wall flow | speed-up |\n'
printf '|---|---|---|---|---|---|---|---|\n'
for c in "${CASES[@]}"; do
  IFS='|' read -r label file extra <<<"$c"
  tag=$(echo "$label" | tr -c 'a-zA-Z0-9' '_')
  # shellcheck disable=SC2086
  "$BIN" run "$file" $extra --out "$OUT/p_$tag" >/dev/null 2>&1 || { echo "| $label | packet run failed |"; continue; }
  # shellcheck disable=SC2086
  "$BIN" run "$file" $extra --set mode=flow --out "$OUT/f_$tag" >/dev/null 2>&1 || { echo "| $label | flow run refused or failed |"; continue; }
  read -r kind p1 p2 <<<"$(metric "$OUT/p_$tag/result.json")"
  read -r _ f1 f2 <<<"$(metric "$OUT/f_$tag/result.json")"
  wp=$(wall "$OUT/p_$tag/run.json"); wf=$(wall "$OUT/f_$tag/run.json")
  python3 - "$label" "$kind" "$p1" "${p2:-}" "$f1" "${f2:-}" "$wp" "$wf" <<'PY'
import sys
label, kind, p1, p2, f1, f2, wp, wf = sys.argv[1:]
def us(ps): return f"{int(ps)/1e6:,.1f} us" if int(ps) < 1e9 else f"{int(ps)/1e9:,.3f} ms"
def err(f, p): return f"{(int(f)-int(p))/int(p)*100:+.1f} %"
sp = float(wp) / max(float(wf), 1e-3)
if kind == "fct":
    print(f"| {label} | FCT p50 / p99 | {us(p1)} / {us(p2)} | {us(f1)} / {us(f2)} | {err(f1,p1)} / {err(f2,p2)} | {float(wp):.2f} s | {float(wf):.2f} s | {sp:.0f}x |")
else:
    m = "step time" if kind == "step" else "collective time"
    print(f"| {label} | {m} | {us(p1)} | {us(f1)} | {err(f1,p1)} | {float(wp):.2f} s | {float(wf):.2f} s | {sp:.0f}x |")
PY
done
