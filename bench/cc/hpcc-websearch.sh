#!/usr/bin/env bash
# DCQCN against HPCC on HPCC's own large-scale setting (bench/cc/hpcc-websearch.yaml): the FCT
# slowdown (FCT / the flow's FCT alone on an idle fabric, at least 1) per flow-size bucket, as
# the HPCC authors' analysis/fct_analysis.py computes it (alibaba-edu/High-Precision-Congestion-
# Control @9f4be2a): flows sorted by size, cut into groups of an equal count of flows, per group
# its largest size and the 50th/95th/99th percentile slowdown (index int(n x p) of the sorted
# group). docs/calibration.md "HPCC against DCQCN" holds the table and reads it against the
# paper.
#   bench/cc/hpcc-websearch.sh [FABRICSIM] [OUTDIR] [STEP_PERCENT]   (build/fabricsim, /tmp/hpcc-ws, 10)
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN=${1:-build/fabricsim}
OUT=${2:-/tmp/hpcc-ws}
STEP=${3:-10}
mkdir -p "$OUT"
for cc in dcqcn hpcc; do
  extra=()
  # HPCC's T for this file (its longest host-to-host path: 6 links of 1 us, 5 switches at
  # fabric.switch.latency 450 ns, the NICs' 180 + 180 ns): 2 x 8.61 us + one 1,104-byte frame
  # per link (2 at 100 Gb/s, 4 at 400 Gb/s: 0.26 us) = 17.5 us. The authors' third.cc computes
  # 12.3 us for the same file: their switches and NICs add no latency.
  [ "$cc" = hpcc ] && extra=(--unset fabric.roce.dcqcn_profile --set fabric.roce.cc=hpcc
                             --set fabric.roce.hpcc.base_rtt=17.5us)
  /usr/bin/time -f "$cc: %e s wall, %M KB peak" "$BIN" run bench/cc/hpcc-websearch.yaml \
    "${extra[@]}" --out "$OUT/$cc" > "$OUT/$cc.log"
done
python3 - "$OUT" "$STEP" <<'PY'
import csv, sys
out, step = sys.argv[1], int(sys.argv[2])
def groups(cc):
    rows = [r for r in csv.DictReader(open(f"{out}/{cc}/flows.csv")) if r["finish_ps"] not in ("", "-1")]
    flows = sorted(((int(r["size_bytes"]), max(1.0, float(r["slowdown"]))) for r in rows))
    n, res = len(flows), []
    for i in range(0, 100, step):
        g = flows[i * n // 100:(i + step) * n // 100]
        s = sorted(x[1] for x in g)
        pct = lambda p: s[int(len(s) * p)]
        res.append((g[-1][0], pct(0.5), pct(0.95), pct(0.99)))
    return n, res
nd, d = groups("dcqcn")
nh, h = groups("hpcc")
print(f"flows finished: dcqcn {nd}, hpcc {nh}")
print("| flow-size group (largest size) | DCQCN p50 / p95 / p99 | HPCC p50 / p95 / p99 |")
print("|---|---|---|")
for (sd, *a), (sh, *b) in zip(d, h):
    print(f"| {sd:,} B | {a[0]:.2f} / {a[1]:.2f} / {a[2]:.2f} | {b[0]:.2f} / {b[1]:.2f} / {b[2]:.2f} |")
PY
