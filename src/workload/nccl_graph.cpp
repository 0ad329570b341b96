#include "workload/nccl_graph.h"

#include <algorithm>
#include <cmath>

namespace fabricsim::workload {
namespace {

// search.cc sm90SpeedArrayIntra / sm90SpeedArrayInter (GB/s per channel), tried from the top.
constexpr double kSpeedIntra[] = {60.0, 50.0, 40.0, 30.0, 24.0, 20.0, 15.0, 12.0, 11.0, 6.0, 3.0};
constexpr double kSpeedInter[] = {48.0, 45.0, 42.0, 40.0, 30.0, 24.0, 22.0, 20.0, 17.5,
                                  15.0, 12.0, 6.0,  3.0,  2.4,  1.2,  0.24, 0.12};

// The largest speed of `table` not above `limit` (the search starts there: it skips speeds
// above the system's maxBw); the smallest entry when none is.
template <size_t N>
double largest_at_most(const double (&table)[N], double limit) {
  for (double s : table) {
    if (s <= limit) return s;
  }
  return table[N - 1];
}

// search.cc ncclTopoDupChannels: on sm90, a graph of more than 4 channels below 50 GB/s each
// is kept; any other is doubled at half the speed (the runtime doubles again, ncclTopoPostset).
NcclGraph dup_channels(NcclGraph g) {
  if (g.bw_intra_gbps < 50.0 && g.channels > 4) return g;
  g.channels *= 2;
  g.bw_intra_gbps /= 2;
  g.bw_inter_gbps /= 2;
  return g;
}

}  // namespace

NcclGraphs nccl_graphs(const node::NcclView& view, int nodes, int local_ranks,
                       int gpus_per_node) {
  NcclGraphs out;
  // NVLink per GPU; a node without it reaches its peers over PCIe.
  const double nvlink = view.nvlink_gbps > 0 ? view.nvlink_gbps : view.pcie_gbps;
  if (nodes <= 1) {
    // One node: from the first speed the NVLink carries, the search keeps the graph with the
    // most bandwidth (ties: the first found), at most MAXCHANNELS / 2 = 32 channels (init.cc),
    // and tries the next lower speed only while it is above 0.49 x the best graph's speed
    // (search.cc). 370.8 GB/s: 6 x 60 = 360, then 7 x 50, 9 x 40 and 12 x 30 do not beat it;
    // DupChannels gives 12 x 30 on an H100 node. UNVERIFIED against a log of one H100 node;
    // consistent with the 24 runtime channels NCCL commonly logs there.
    constexpr int kMaxChannels = 32;
    NcclGraph best;
    for (double s : kSpeedIntra) {
      if (s > nvlink) continue;
      if (best.channels > 0 && s / best.bw_intra_gbps <= 0.49) break;
      const int ch = std::min(kMaxChannels, static_cast<int>(std::floor(nvlink / s + 1e-9)));
      if (ch * s > best.channels * best.bw_intra_gbps + 1e-9) best = {ch, s, s};
    }
    if (best.channels == 0) best = {1, nvlink, nvlink};
    out.ring = dup_channels(best);
  } else {
    // Across nodes every channel leaves through a NIC at one speed: the largest inter speed the
    // GPU -> NIC path carries (min of the NIC port and PCIe; NCCL's maxBw), one channel per NIC
    // the communicator's GPUs reach on their own PCIe switches. 8 NICs of 400 Gb/s on Gen5 x16:
    // 8 x 48 GB/s, as "Pattern 4, crossNic 2, nChannels 8, bw 48.000000/48.000000, type
    // NVL/PIX" logged on 2 x 8 H100 (docs/reference/nccl-at-scale.md §1.2).
    const double path = std::min(view.nic_gbps, view.pcie_gbps > 0 ? view.pcie_gbps : 1e30);
    const double s = largest_at_most(kSpeedInter, path);
    const int gpn = std::max(1, gpus_per_node);
    const int nics =
        std::max(1, (std::max(1, view.nics_per_node) * std::clamp(local_ranks, 1, gpn)) / gpn);
    out.ring = dup_channels({nics, s, s});
  }
  // init.cc: the tree graph is searched with the ring's channel count (min = max = ring
  // nChannels) and both are then equalized; its speed is taken as the ring's (the per-channel
  // tree caps of the model bind before it matters).
  out.tree = out.ring;
  // NVLS: one head per GPU on one node, one per NIC across nodes (NCCL_MAX_NVLS_ARITY 32).
  // search.cc ncclTopoSearchTryNvls charges each GPU's NVLink once and the head's twice, so
  // (heads + 1) x bwIntra <= NVLink; on one node pass 2 raises bwInter to 60, across nodes the
  // NET path limits it like the ring's. 8 heads on H100: 40 / 60 and 40 / 48. UNVERIFIED
  // (derived, gives the 476 GB/s busbw nccl-tests#290 measures).
  const int heads = nodes <= 1 ? std::max(1, local_ranks) : std::max(1, view.nics_per_node);
  out.nvls.channels = heads;
  out.nvls.bw_intra_gbps = largest_at_most(kSpeedIntra, nvlink / (heads + 1));
  out.nvls.bw_inter_gbps = nodes <= 1 ? 60.0 : out.ring.bw_inter_gbps;
  return out;
}

}  // namespace fabricsim::workload
