// NCCL's analytic time model (src/graph/tuning.cc ncclTopoTuneModel + ncclTopoGetAlgoTime at
// nccl@5067397, as restated in docs/reference/nccl.md §2.3 and nccl-at-scale.md §1.3): time =
// latency + bytes / algbw, for Ring, Tree, NVLS and NVLS-tree on a Hopper GPU with an Intel host. The collective engine uses it to resolve
// algorithm/protocol `auto` the way NCCL does (the lowest predicted time); tests use it as the
// independent analytic reference for NCCL's latencies.
#pragma once

#include <cstdint>

#include "workload/collective.h"
#include "workload/collective_config.h"

namespace fabricsim::workload {

struct NcclModelInput {
  CollOp op = CollOp::kAllReduce;
  CollAlgorithm algorithm = CollAlgorithm::kRing;  // kRing, kTree, kNvls or kNvlsTree
  int protocol = kProtoSimple;                     // kProtoLL, kProtoLL128, kProtoSimple
  int ranks = 1;
  int nodes = 1;
  // The graph's channels (workload/nccl_graph.h), not the runtime ones.
  int channels = 1;
  // Bandwidth of one graph channel in GB/s (10^9 B/s): NCCL's graph bwIntra when nodes <= 2,
  // else bwInter. busbw starts at channels x this.
  double channel_bw_gbps = 0;
  // NVLS / NVLS-tree: the NVLS graph's bwIntra and bwInter (both used).
  double bw_intra_gbps = 0;
  double bw_inter_gbps = 0;
  // IB SHARP usable (NCCL_COLLNET_ENABLE and a SHARP group): CollNet and NVLS across nodes.
  bool collnet = false;
  // The channels the kernels run with (comm->nChannels, for the ring plateau rule); 0 = channels.
  int runtime_channels = 0;
  int64_t size_bytes = 0;
};

struct NcclPrediction {
  bool supported = false;  // false: NCCL would not run this (algorithm, op) pair
  double latency_us = 0;
  double bus_bw_gbps = 0;
  double alg_bw_gbps = 0;
  double time_us = 0;
};

NcclPrediction nccl_predict(const CollectiveConfig& cfg, const NcclModelInput& in);

// Per-hop latency NCCL's model charges for one ring/tree step over `link_class`, in ps: the
// hwLatencies entry, and for a ring spanning nodes the intra-node hop floored at the network
// overhead (x3 for Simple). `algorithm` kTree uses the tree table, everything else the ring one;
// with one rank per node a NET hop uses the tree's NET latency ("with ppn=1 latencies are fully
// exposed", tuning.cc).
int64_t nccl_hop_latency_ps(const CollectiveConfig& cfg, CollAlgorithm algorithm, int protocol,
                            int link_class, bool multi_node, bool one_rank_per_node = false);
// baseLatencies entry for the algorithm (tree table for kTree, ring table otherwise).
int64_t nccl_base_latency_ps(const CollectiveConfig& cfg, CollAlgorithm algorithm, int protocol);

}  // namespace fabricsim::workload
