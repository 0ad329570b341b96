#!/bin/bash
# The htsim side-by-side of issue 24 (docs/performance.md, "htsim side by side"): the same
# permutation as bench/permutation-kK.yaml on htsim's RoCE main (Broadcom/csg-htsim,
# sim/datacenter/main_roce.cpp: lossless input queues with PFC, one ACK per packet, no congestion
# control), with fabricsim's own source->destination pairs, alternating the two simulators and
# recording the load before each run. htsim is not a Debian package and is not bundled: build it
# from its repository (`cd sim && make libhtsim.a && make -C datacenter htsim_roce`) and pass
# its binary.
#
# Usage: bench/htsim/side-by-side.sh HTSIM_ROCE K REPS [BUILD_DIR] [OUT_DIR]
set -euo pipefail
ht=$1; k=$2; reps=$3; build=${4:-build}; out=${5:-out/htsim-side-by-side}
cd "$(dirname "$0")/../.."
n=$((k * k * k / 4))
# htsim's PFC thresholds are per ingress port, in packets of 4,064 bytes (4,000 payload + its
# 64-byte header): the 64 MiB switch buffer shared by the k ports, XON 4 packets below XOFF.
hi=$((67108864 / k / 4064))
lo=$((hi - 4))
mkdir -p "$out"
"$build/fabricsim" run "bench/permutation-k$k.yaml" --out "$out/pairs-k$k" >/dev/null
python3 bench/htsim/flows_to_htsim_cm.py "$out/pairs-k$k/flows.csv" "$k" "$out/tm-k$k.cm"
for r in $(seq 1 "$reps"); do
  o="$out/k$k-r$r-fabricsim"
  echo "fabricsim k=$k rep $r, load $(cut -d' ' -f1 /proc/loadavg)"
  /usr/bin/time -f "wall %e s, peak %M KiB" "$build/fabricsim" run "bench/permutation-k$k.yaml" \
      --out "$o" >/dev/null
  o="$out/k$k-r$r-htsim"
  mkdir -p "$o"
  echo "htsim k=$k rep $r, load $(cut -d' ' -f1 /proc/loadavg)"
  (cd "$o" && /usr/bin/time -f "wall %e s, peak %M KiB" "$ht" -nodes "$n" -tiers 3 \
      -tm "../tm-k$k.cm" -strat ecmp_host -paths 256 -linkspeed 100000 -mtu 4000 \
      -hop_latency 0.015 -switch_latency 0.45 -queue_type lossless_input -q 1000000 \
      -pfc_thresholds "$lo" "$hi" -seed 1 -end 100000 -o logout.dat >stdout.txt)
done
