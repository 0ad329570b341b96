#!/usr/bin/env python3
"""Convert a fabricsim flows.csv into an htsim connection-matrix (.cm) file and
compute expected data packet-hops on a 3-tier k-ary fat-tree.

Usage: flows_to_htsim_cm.py FLOWS_CSV K OUT_CM [payload_bytes]

Part of the htsim side-by-side (bench/htsim/side-by-side.sh, docs/performance.md).

Host numbering assumed (htsim FatTreeTopology): edge(tor) = h // (k/2),
pod = h // (k*k/4).  Path links: same edge 2, same pod 4, else 6.
htsim cm format (connection_matrix.cpp, ConnectionMatrix::load(istream&)):
  Nodes N / Connections C / "src->dst id X start <ps> size <bytes>" lines.
"""
import csv, sys, math

flows_csv, k, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
payload = int(sys.argv[4]) if len(sys.argv) > 4 else 4000
n = k ** 3 // 4
half = k // 2
rows = list(csv.DictReader(open(flows_csv)))
hops = 0
npkts_total = 0
with open(out, "w") as f:
    f.write(f"Nodes {n}\nConnections {len(rows)}\n")
    for i, r in enumerate(rows):
        s, d, size = int(r["src"]), int(r["dst"]), int(r["size_bytes"])
        start = int(r["start_ps"])
        f.write(f"{s}->{d} id {i+1} start {start} size {size}\n")
        npk = math.ceil(size / payload)
        if s // half == d // half:
            links = 2
        elif s // (k * k // 4) == d // (k * k // 4):
            links = 4
        else:
            links = 6
        hops += npk * links
        npkts_total += npk
print(f"hosts={n} flows={len(rows)} packets={npkts_total} expected_data_packet_hops={hops}")
