#!/usr/bin/env python3
"""Re-statement (not a copy) of NCCL 2.30.7 (nccl@5067397) src/graph/tuning.cc ncclTopoTuneModel +
ncclTopoGetAlgoTime + enqueue.cc updateCollCostTable/topoGetAlgoInfo, evaluated for
N nodes x 8 H100 (sm90), 8 x 400G NICs (PIX, 1 per GPU), NVSwitch, Intel host, latencyInter = 0.
Graph inputs (nChannels, bwIntra, bwInter) are what search.cc would produce; see the note
i22-nccl-scale-research.md section 1.2 (ring graph 8 x 48 seen in a log; the rest derived, UNVERIFIED).
Usage: python3 i22_nccl_tuning_model.py  -> prints the selection tables."""
import math

LL, LL128, SIMPLE = 0, 1, 2
PN = ["LL", "LL128", "Simple"]
TREE, RING, CND, CNC, NVLS, NVLST = "Tree", "Ring", "CollNetDirect", "CollNetChain", "NVLS", "NVLSTree"
base = {TREE: [6.8, 14.0, 8.4], RING: [6.6, 14.0, 8.4], CND: [0, 0, 0], CNC: [0, 0, 0], NVLS: [0, 0, 0], NVLST: [0, 0, 0]}
hw_nvl = {TREE: [.6, 1.25, 4.0], RING: [.6, 1.9, 3.4], CND: [0, 0, 3.7], CNC: [0, 0, 2.8], NVLS: [0, 0, 25], NVLST: [0, 0, 25]}
hw_net = {TREE: [5.0, 8.5, 14], RING: [2.7, 4.0, 14.0], CND: [0, 0, 31], CNC: [0, 0, 30], NVLS: [0, 0, 18], NVLST: [0, 0, 20.9]}
# Hopper rows, index2 = 0/1/2 for 1/2/>=3 nodes; llMaxBws row: 1 node -> GPU row (Hopper 141), multi-node Intel row 0
LLMAX_1N = 141.0
LLMAX_INTEL = [39.0, 39.0, 20.4]
PERCH_RING_LL128 = [36.7, 36.7, 36.7]
PERCH_TREE_LL128 = [36.7, 36.7, 29.0]
PERCH_TREE = [38.7, 41.4, 36.0]
PERCH_NVLSTREE = [0.0, 57.7, 45.5]
NVLS_EFF = 0.85
TREE_CORR = [
    [1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0, 1.0, 1.0, 1.0],
    [1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9, .9, .9, 1.0, 1.0, 1.0],
    [.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9, .9]]
NET_OVERHEAD_INTEL = 1.0


def log2i(x):
    return int(x).bit_length() - 1 if x > 0 else -1


def graphs(nnodes, ngpus=8, tree_bw_intra=None):
    """(nChannels, bwIntra, bwInter) per algorithm, GB/s per channel (search.cc results, see note)."""
    if nnodes == 1:
        ring = (12, 30.0, 30.0)           # 6 x 60 found, DupChannels -> 12 x 30 (UNVERIFIED derivation)
        tree = (12, 30.0, 30.0)           # forced to the ring's channel count (init.cc: min(tree, ring))
        nvls = (8, 40.0, 60.0)            # 8 heads, 9*bw <= 370.8 -> 40; pass 2 raises bwInter to 60
    else:
        ring = (8, 48.0, 48.0)            # "Pattern 4, crossNic 2, nChannels 8, bw 48/48, type NVL/PIX" (log)
        tree = (8, tree_bw_intra or 48.0, 48.0)
        nvls = (8, 40.0, 48.0)            # 8 heads (one per NIC), NVLink-limited 40 intra, NIC/PCI 48 inter
    collnet = (8, 48.0, 48.0)             # UNVERIFIED assumption for both CollNet graphs
    return {RING: ring, TREE: tree, NVLS: nvls, NVLST: nvls, CND: collnet, CNC: collnet}


def model(coll, nnodes, ngpus=8, collnet=False, nvls_ok=True, tree_pattern_tree=False, ll128=True):
    """Returns {(algo, proto): (lat_us, algbw_GBps)} as ncclTopoTuneModel fills comm->latencies/bandwidths."""
    n = nnodes * ngpus
    ppn = ngpus
    g = graphs(nnodes, ngpus)
    idx2 = min(nnodes, 3) - 1
    llmax = LLMAX_1N if nnodes == 1 else LLMAX_INTEL[idx2]
    nsteps = 2 * (n - 1) if coll == "allreduce" else (n - 1)
    out = {}
    for a in [TREE, RING, CND, CNC, NVLS, NVLST]:
        if coll in ("allgather", "reducescatter") and a not in (RING, NVLS, CND):
            continue
        # enable rules (tuning.cc + enqueue.cc updateCollCostTable)
        if a == NVLST and nnodes == 1: continue
        if a in (CND, CNC) and not collnet: continue
        if a == NVLS and nnodes > 1 and not collnet: continue
        if a in (NVLS, NVLST) and not nvls_ok: continue
        nch, bwi, bwo = g[a]
        for p in (LL, LL128, SIMPLE):
            if a in (NVLS, NVLST, CND, CNC) and p != SIMPLE: continue
            if p == LL128 and not ll128: continue
            is_cn = a in (CND, CNC)
            bw = bwi if (nnodes <= 2 or is_cn) else bwo
            if a in (NVLS, NVLST):
                intra = bwi * NVLS_EFF * (nch - 1) / nch
                intra *= 2.0 if coll == "allreduce" else (ppn - 1) / ppn
                inter = bwo * (2 if (nnodes <= 2 and a == NVLST) else 1)
                bw = min(intra, inter, PERCH_NVLSTREE[idx2] if a == NVLST else 1e30)
            bus = nch * bw
            if a == RING and p == LL: bus = min(llmax, bus * .5)
            if a == RING and p == LL128: bus = min(bus * .92, nch * PERCH_RING_LL128[idx2])
            if a == TREE and coll == "allreduce": bus = min(bus * .92, nch * PERCH_TREE[idx2])
            if a == TREE and p == LL: bus = min(bus / 3.8, llmax)
            if a == TREE and p == LL128: bus = min(bus * (7 / 9 if nnodes == 1 else 120 / 128), nch * PERCH_TREE_LL128[idx2])
            if a == TREE and tree_pattern_tree: bus *= .85
            if a == CND:
                if coll in ("allgather", "reducescatter"):
                    bus = ppn * min(bwi, bwo * .9)
                else:
                    f = ppn / nch
                    f -= (f - 1) / 2
                    bus /= f
                    bus *= .85
            if a in (NVLS, CND) and coll in ("allgather", "reducescatter") and nnodes > 1:
                bus = 0.0  # needs collnet iallgather/ireducescatter + 1:1 heads; treat as unavailable here
            if not (a != RING and coll in ("allgather", "reducescatter")):
                bus *= (n / nsteps) if a in (RING, NVLS, NVLST) else .5
            if bus <= 0: continue
            lat = base[a][p]
            intra_lat = (hw_nvl[a][p])
            inter_lat = hw_net[TREE][p] if ppn == 1 else hw_net[a][p]
            if a == RING:
                if nnodes > 1:
                    ov = NET_OVERHEAD_INTEL * (3 if p == SIMPLE else 1)
                    intra_lat = max(intra_lat, ov)
                if nnodes == 1:
                    intra_lat = hw_nvl[a][p]
                ninter = 0 if nnodes == 1 else (2 * (nnodes - 1) if coll == "allreduce" else nnodes - 1)
                lat += (nsteps - ninter) * intra_lat + ninter * inter_lat
            elif a == TREE:
                if coll == "allreduce":
                    lat += 2 * ((ppn - 1) * intra_lat + log2i(nnodes) * inter_lat)
            elif a == CND:
                lat += 2 * (min(1, ppn - 1) * intra_lat + (ppn - 1) * 0.4) + inter_lat
            elif a == CNC:
                lat += 2 * (ppn - 1) * intra_lat + inter_lat
            elif a == NVLS:
                lat = intra_lat + (inter_lat if nnodes > 1 else 0)
            elif a == NVLST:
                lat += intra_lat + 2 * log2i(nnodes) * inter_lat
            out[(a, p)] = (lat, bus)
    return out


def algo_time(coll, nnodes, a, p, lat, bw, nbytes, nch_ring, ngpus=8):
    logsize = log2i(nbytes >> 6)
    if a == TREE and coll == "allreduce" and 0 <= logsize < 23:
        bw *= TREE_CORR[p][logsize]
    if a == RING and p == SIMPLE and nnodes > 1 and coll == "allreduce" and nbytes // (nch_ring * nnodes * ngpus) >= 64:
        lat *= 1.4
    return lat + nbytes / (1000 * bw)


def choose(coll, nnodes, nbytes, **kw):
    m = model(coll, nnodes, **kw)
    nch_comm = graphs(nnodes)[RING][0] * 2  # comm->nChannels after ncclTopoPostset doubling
    best = None
    for (a, p), (lat, bw) in m.items():
        t = algo_time(coll, nnodes, a, p, lat, bw, nbytes, nch_comm)
        if best is None or t < best[0]:
            best = (t, a, p)
    return best


SIZES = [1 << k for k in range(10, 33, 2)]  # 1 KiB .. 4 GiB


def fmt(b):
    for u, s in ((1 << 30, "G"), (1 << 20, "M"), (1 << 10, "K")):
        if b >= u: return f"{b // u}{s}"
    return str(b)


def abbrev(a, p):
    return {TREE: "T", RING: "R", CND: "CD", CNC: "CC", NVLS: "NV", NVLST: "NVT"}[a] + "/" + {LL: "LL", LL128: "128", SIMPLE: "S"}[p]


if __name__ == "__main__":
    NODES = [1, 2, 4, 8, 16, 32, 64, 128]
    for coll in ("allreduce", "allgather", "reducescatter"):
        for title, kw in (("NVLS off, CollNet off", dict(nvls_ok=False)),
                          ("NVLS on (default H100), CollNet off", dict()),
                          ("NVLS on, CollNet (SHARP) on", dict(collnet=True)),
                          ("NVLS off, CollNet off, tree pattern TREE (x0.85)", dict(nvls_ok=False, tree_pattern_tree=True))):
            if coll != "allreduce" and "0.85" in title: continue
            print(f"\n### {coll}: {title}  (nodes x 8 H100; T=tree R=ring NV=NVLS NVT=NVLSTree CD/CC=CollNet Direct/Chain)")
            print("| size | " + " | ".join(str(x) for x in NODES) + " |")
            print("|---" * (len(NODES) + 1) + "|")
            for s in SIZES:
                row = []
                for nn in NODES:
                    t, a, p = choose(coll, nn, s, **kw)
                    row.append(abbrev(a, p))
                print(f"| {fmt(s)} | " + " | ".join(row) + " |")
    print("\n### model latencies (us) and algBw (GB/s) per (algo, proto), all-reduce, everything enabled (CollNet rows assume collnet graph 8 x 48, UNVERIFIED; CollNet is not used on 1 node)")
    for nn in (1, 2, 4, 16, 128):
        m = model("allreduce", nn, nvls_ok=True, collnet=True)
        print(nn, {f"{a}/{PN[p]}": (round(l, 1), round(b, 1)) for (a, p), (l, b) in m.items()})
    # crossovers on 16 nodes
    print("\n### 16 nodes all-reduce, time (us) at 1 GiB per candidate")
    for kw in (dict(nvls_ok=False), dict()):
        m = model("allreduce", 16, **kw)
        print(kw, {f"{a}/{PN[p]}": round(algo_time('allreduce', 16, a, p, l, b, 1 << 30, 16), 1) for (a, p), (l, b) in m.items()})


def fabricsim_choice(nnodes, nbytes, nch=16, bus=370.8):
    """What /work/main src/workload/nccl_model.cpp + collective_engine.cpp resolve() feed the same formulas:
    channels = collective.channels (16), channel bw = min(NVLink 370.8, NIC payload x min(16, 8)) / 16."""
    n = nnodes * 8
    ch = max(1, min(nch, nbytes // n))
    idx2 = min(nnodes, 3) - 1
    llmax = LLMAX_1N if nnodes == 1 else LLMAX_INTEL[idx2]
    best = None
    for a in (RING, TREE):
        for p in (LL, LL128, SIMPLE):
            b = bus  # channels x per-channel bw = bus
            if a == RING:
                if p == LL: b = min(llmax, .5 * b)
                if p == LL128: b = min(.92 * b, ch * PERCH_RING_LL128[idx2])
            else:
                b = min(.92 * b, ch * PERCH_TREE[idx2])
                if p == LL: b = min(b / 3.8, llmax)
                if p == LL128: b = min(b * (7 / 9 if nnodes == 1 else 120 / 128), ch * PERCH_TREE_LL128[idx2])
            alg = b * .5 if a == TREE else b * n / (2 * (n - 1))
            lat = base[a][p]
            intra = hw_nvl[a][p]
            inter = hw_net[a][p]
            if a == RING:
                if nnodes > 1: intra = max(intra, 3 if p == SIMPLE else 1)
                ni = 2 * (nnodes - 1) if nnodes > 1 else 0
                lat += (2 * (n - 1) - ni) * intra + ni * inter
                if nnodes > 1 and p == SIMPLE and nbytes // (ch * n) >= 64: lat *= 1.4
            else:
                lat += 2 * (7 * intra + log2i(nnodes) * inter)
            bw = alg
            ls = log2i(nbytes >> 6)
            if a == TREE and 0 <= ls < 23: bw *= TREE_CORR[p][ls]
            t = lat + nbytes / (1000 * bw)
            if best is None or t < best[0]: best = (t, a, p)
    return best


if __name__ == "__main__":
    NODES = [1, 2, 4, 8, 16, 32, 64, 128]
    print("\n### allreduce: what fabricsim's auto picks today (16 channels x 370.8/16 GB/s)")
    print("| size | " + " | ".join(str(x) for x in NODES) + " |")
    print("|---" * (len(NODES) + 1) + "|")
    for s in SIZES:
        print(f"| {fmt(s)} | " + " | ".join(abbrev(*fabricsim_choice(nn, s)[1:]) for nn in NODES) + " |")
    t16 = {k: round(fabricsim_choice(16, 1 << 30)[0], 1) for k in [0]}
    print("fabricsim 16 nodes 1 GiB best:", fabricsim_choice(16, 1 << 30))
    # crossover sizes ring vs tree (NCCL model, NVLS off) per node count
    print("\n### NCCL model (NVLS off): largest power-of-2-ish size where Tree still wins, and first where Ring/Simple wins")
    for nn in NODES[1:]:
        lo = None
        s = 1 << 20
        while s <= 1 << 34:
            t, a, p = choose("allreduce", nn, s, nvls_ok=False)
            if a == RING and lo is None: lo = s
            s = int(s * 1.05)
        print(nn, "ring from ~", round(lo / 2**20) if lo else None, "MiB")
    print("\n### fabricsim model: ring-from size per node count")
    for nn in NODES[1:]:
        lo = None
        s = 1 << 20
        while s <= 1 << 34:
            t, a, p = fabricsim_choice(nn, s)
            if a == RING and lo is None: lo = s
            s = int(s * 1.05)
        print(nn, "ring from ~", round(lo / 2**20) if lo else None, "MiB")
    print("\n### NCCL model (NVLS on): ring-from / NVLSTree range")
    for nn in NODES[1:]:
        picks = []
        s = 1 << 20
        last = None
        while s <= 1 << 34:
            t, a, p = choose("allreduce", nn, s)
            if (a, p) != last:
                picks.append((round(s / 2**20, 2), a, PN[p])); last = (a, p)
            s = int(s * 1.05)
        print(nn, picks)
