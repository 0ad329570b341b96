#!/usr/bin/env bash
# The flow and hybrid engines against the packet engine (docs/modes.md "Error table"): each
# scenario runs in the three modes; the table gives the step or collective time (jobs /
# collectives) or the FCT p50 and p99 (patterns) of each, the flow and hybrid modes' errors
# against packet, the share of payload hybrid skipped, and the wall-time speed-ups. A mode that
# refuses a scenario shows the key it named.
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
  "1,024-GPU training step (RoCE)|bench/training-1024.yaml|"
  "incast 4:1 25 MB, PFC + DCQCN|examples/dcqcn-fairness.yaml|"
  "incast 4:1 25 MB, PFC|examples/dcqcn-fairness.yaml|--unset fabric.roce.dcqcn_profile --set fabric.roce.cc=none"
  "weak scaling, training step on 1-16 nodes (RoCE)|examples/scaling.yaml|"
  "permutation k=8 16 MB, PFC + DCQCN|bench/permutation-k8.yaml|--set workload.flow_size=16MB --set fabric.roce.cc=dcqcn"
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
skipped() { python3 -c "import json,sys; print(json.load(open(sys.argv[1])).get('hybrid',{}).get('skipped_fraction',0))" "$1"; }
printf '| scenario | measure | packet | flow | error | hybrid | error | skipped | wall packet | wall flow | wall hybrid | flow speed-up | hybrid speed-up |\n'
printf '|---|---|---|---|---|---|---|---|---|---|---|---|---|\n'
for c in "${CASES[@]}"; do
  IFS='|' read -r label file extra <<<"$c"
  tag=$(echo "$label" | tr -c 'a-zA-Z0-9' '_')
  # shellcheck disable=SC2086
  "$BIN" run "$file" $extra --out "$OUT/p_$tag" >/dev/null 2>&1 || { echo "| $label | packet run failed |"; continue; }
  read -r kind p1 p2 <<<"$(metric "$OUT/p_$tag/result.json")"
  wp=$(wall "$OUT/p_$tag/run.json")
  cols=()
  for m in flow hybrid; do
    # shellcheck disable=SC2086
    if "$BIN" run "$file" $extra --set mode=$m --out "$OUT/${m}_$tag" >/dev/null 2>"$OUT/${m}_$tag.err"; then
      read -r _ v1 v2 <<<"$(metric "$OUT/${m}_$tag/result.json")"
      cols+=("$v1" "${v2:--}" "$(wall "$OUT/${m}_$tag/run.json")" "$(skipped "$OUT/${m}_$tag/result.json")")
    else
      key=$(head -1 "$OUT/${m}_$tag.err" | sed -E 's/^[^:]*:[0-9]*: ([^:]*):.*/\1/')
      cols+=("refused:$key" "-" "-" "-")
    fi
  done
  python3 - "$label" "$kind" "$p1" "${p2:--}" "$wp" "${cols[@]}" <<'PY'
import sys
label, kind, p1, p2, wp, f1, f2, wf, _, h1, h2, wh, hs = sys.argv[1:]
def us(ps): return f"{int(ps)/1e6:,.1f} us" if int(ps) < 1e9 else f"{int(ps)/1e9:,.3f} ms"
def err(f, p): return f"{(int(f)-int(p))/int(p)*100:+.1f} %"
def show(v1, v2):
    if v1.startswith("refused"): return (v1.replace("refused:", "refused (") + ")", "")
    if kind == "fct": return (f"{us(v1)} / {us(v2)}", f"{err(v1,p1)} / {err(v2,p2)}")
    return (us(v1), err(v1, p1))
def speed(w): return "" if w == "-" else f"{float(wp) / max(float(w), 1e-3):.0f}x"
def secs(w): return "-" if w == "-" else f"{float(w):.2f} s"
m = {"fct": "FCT p50 / p99", "step": "step time", "coll": "collective time"}[kind]
pv = f"{us(p1)} / {us(p2)}" if kind == "fct" else us(p1)
fv, fe = show(f1, f2)
hv, he = show(h1, h2)
sk = "" if hs == "-" else f"{float(hs)*100:.0f} %"
print(f"| {label} | {m} | {pv} | {fv} | {fe} | {hv} | {he} | {sk} | {float(wp):.2f} s | {secs(wf)} | {secs(wh)} | {speed(wf)} | {speed(wh)} |")
PY
done
