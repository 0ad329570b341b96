#include "workload/nccl_model.h"

#include <algorithm>
#include <bit>

namespace fabricsim::workload {
namespace {

// Hopper (sm90) rows of the tuning.cc bandwidth caps, GB/s, indexed by min(nodes, 3) - 1
// (tuning.cc index2 = nNodes <= 2 ? nNodes - 1 : 2). docs/reference/nccl.md §2.3.
constexpr double kPerChMaxRingLL128Bw[3] = {36.7, 36.7, 36.7};
constexpr double kPerChMaxTreeLL128Bw[3] = {36.7, 36.7, 29.0};
constexpr double kPerChMaxTreeBw[3] = {38.7, 41.4, 36.0};
// llMaxBws: a single node reads the GPU row (Hopper 141.0); several nodes read the CPU row
// (Intel = row 0: 39.0 / 39.0 / 20.4).
constexpr double kLLMaxBwHopperOneNode = 141.0;
constexpr double kLLMaxBwIntel[3] = {39.0, 39.0, 20.4};

// Tree all-reduce bandwidth correction by message size (tuning.cc treeCorrectionFactor, applied
// in ncclTopoGetAlgoTime at index floor(log2(bytes / 64)) when that is in [0, 23)).
constexpr double kTreeCorrection[3][24] = {
    {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7,  .7,  .7,  .6,  .5,
     .4,  .4,  .5,  .6,  .7, .8, .9, 1.0, 1.0, 1.0, 1.0, 1.0},
    {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7,  .6,  .6,
     .6,  .6,  .6,  .6,  .8,  .9, .9, .9, .9, 1.0, 1.0, 1.0},
    {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5,
     .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9, .9}};

// perChMaxNVLSTreeBws, Hopper row (N1/N2/N4).
constexpr double kPerChMaxNvlsTreeBw[3] = {0.0, 57.7, 45.5};

double ps_to_us(int64_t ps) { return static_cast<double>(ps) / 1e6; }

// NVLS and NVLS-tree (tuning.cc, Simple only). All-reduce only here: NCCL's NVLS all-gather /
// reduce-scatter lose to the ring on one node in its own model (8 x 40 x 0.85 x 7/8 x 7/8 = 208
// against 360 GB/s) and need CollNet across nodes.
NcclPrediction predict_nvls(const CollectiveConfig& cfg, const NcclModelInput& in) {
  NcclPrediction p;
  const bool tree = in.algorithm == CollAlgorithm::kNvlsTree;
  if (in.op != CollOp::kAllReduce || in.protocol != kProtoSimple || in.channels < 2) return p;
  // NVLS-tree is disabled on one node; NVLS across nodes needs CollNet (updateCollCostTable).
  if (tree ? in.nodes < 2 : in.nodes != 1 && !in.collnet) return p;
  p.supported = true;
  const int idx = std::min(in.nodes, 3) - 1;
  const double nch = in.channels;
  // "AllReduce pipelines two operations": x 2 on the NVLink side.
  const double intra = in.bw_intra_gbps * cfg.nvls_model_efficiency * (nch - 1) / nch * 2.0;
  const double inter = in.bw_inter_gbps * (tree && in.nodes <= 2 ? 2.0 : 1.0);
  double bw = std::min(intra, inter);
  if (tree) bw = std::min(bw, kPerChMaxNvlsTreeBw[idx]);
  p.bus_bw_gbps = nch * bw;
  const int n = in.ranks;
  p.alg_bw_gbps = n > 1 ? p.bus_bw_gbps * n / (2.0 * (n - 1)) : p.bus_bw_gbps;
  const int log2_nodes = std::bit_width(static_cast<unsigned>(in.nodes)) - 1;
  p.latency_us = ps_to_us(cfg.nvls_intra_latency_ps) +
                 (tree ? 2 * log2_nodes * ps_to_us(cfg.nvls_tree_net_latency_ps)
                  : in.nodes > 1 ? ps_to_us(cfg.nvls_net_latency_ps)
                                 : 0.0);
  p.time_us = p.latency_us + static_cast<double>(in.size_bytes) / (1000.0 * p.alg_bw_gbps);
  return p;
}

// CollNet Direct and CollNet Chain (tuning.cc, Simple, all-reduce): the faster of the two, as
// NCCL's choice between them. The CollNet graph is taken as the ring's (UNVERIFIED: not derived,
// docs/reference/nccl-at-scale.md §1.2).
NcclPrediction predict_collnet(const CollectiveConfig& cfg, const NcclModelInput& in) {
  NcclPrediction p;
  if (!in.collnet || in.op != CollOp::kAllReduce || in.protocol != kProtoSimple) return p;
  if (in.nodes < 2 || in.channels < 1) return p;
  const int ppn = in.ranks / in.nodes;
  if (ppn > 8) return p;  // NCCL_MAX_DIRECT_ARITY + 1
  p.supported = true;
  const double nch = in.channels;
  const double bus = nch * in.bw_intra_gbps;
  // Direct: "requires all GPUs to have a local NIC to work at full speed" (factor), x 0.85 on
  // sm90; Chain: no factor.
  double factor = ppn / nch;
  factor -= (factor - 1) / 2;
  const double direct_bus = bus / factor * 0.85;
  const double chain_bus = bus;
  const double net_tree = ps_to_us(cfg.tree.hop_ps[kLinkNet][kProtoSimple]);
  const double direct_lat =
      2 * (std::min(1, ppn - 1) * ps_to_us(cfg.collnet_direct_nvlink_latency_ps) +
           (ppn - 1) * 0.4) +
      (ppn == 1 ? net_tree : ps_to_us(cfg.collnet_direct_net_latency_ps));
  const double chain_lat = 2 * (ppn - 1) * ps_to_us(cfg.collnet_chain_nvlink_latency_ps) +
                           (ppn == 1 ? net_tree : ps_to_us(cfg.collnet_chain_net_latency_ps));
  const double bytes = static_cast<double>(in.size_bytes);
  const double t_direct = direct_lat + bytes / (1000.0 * direct_bus * 0.5);
  const double t_chain = chain_lat + bytes / (1000.0 * chain_bus * 0.5);
  const bool direct = t_direct <= t_chain;
  p.bus_bw_gbps = direct ? direct_bus : chain_bus;
  p.alg_bw_gbps = p.bus_bw_gbps * 0.5;
  p.latency_us = direct ? direct_lat : chain_lat;
  p.time_us = direct ? t_direct : t_chain;
  return p;
}

}  // namespace

int64_t nccl_base_latency_ps(const CollectiveConfig& cfg, CollAlgorithm algorithm, int protocol) {
  const AlgoLatencies& t = algorithm == CollAlgorithm::kTree ? cfg.tree : cfg.ring;
  return t.base_ps[protocol];
}

int64_t nccl_hop_latency_ps(const CollectiveConfig& cfg, CollAlgorithm algorithm, int protocol,
                            int link_class, bool multi_node, bool one_rank_per_node) {
  const bool tree = algorithm == CollAlgorithm::kTree;
  const AlgoLatencies& t =
      tree || (one_rank_per_node && link_class == kLinkNet) ? cfg.tree : cfg.ring;
  int64_t lat = t.hop_ps[link_class][protocol];
  // tuning.cc: for rings across nodes every intra-node step waits at least for the proxy's
  // network overhead (getNetOverhead), three times over for Simple.
  if (!tree && multi_node && link_class != kLinkNet) {
    lat = std::max(lat, cfg.net_overhead_ps * (protocol == kProtoSimple ? 3 : 1));
  }
  return lat;
}

NcclPrediction nccl_predict(const CollectiveConfig& cfg, const NcclModelInput& in) {
  if (in.algorithm == CollAlgorithm::kNvls || in.algorithm == CollAlgorithm::kNvlsTree) {
    return in.ranks >= 1 && in.nodes >= 1 ? predict_nvls(cfg, in) : NcclPrediction{};
  }
  if (in.algorithm == CollAlgorithm::kCollnet) {
    return in.ranks >= 1 && in.nodes >= 1 ? predict_collnet(cfg, in) : NcclPrediction{};
  }
  NcclPrediction p;
  const bool tree = in.algorithm == CollAlgorithm::kTree;
  if (in.algorithm != CollAlgorithm::kRing && !tree) return p;
  if (tree && in.op != CollOp::kAllReduce) return p;  // NCCL's tree is all-reduce only
  if (in.ranks < 1 || in.nodes < 1 || in.channels < 1) return p;
  p.supported = true;
  const int n = in.ranks;
  const int idx = std::min(in.nodes, 3) - 1;
  const double ll_max_bw = in.nodes == 1 ? kLLMaxBwHopperOneNode : kLLMaxBwIntel[idx];
  double bus_bw = in.channels * in.channel_bw_gbps;
  if (!tree) {
    if (in.protocol == kProtoLL) bus_bw = std::min(ll_max_bw, 0.5 * bus_bw);
    if (in.protocol == kProtoLL128) {
      bus_bw = std::min(0.92 * bus_bw, in.channels * kPerChMaxRingLL128Bw[idx]);
    }
  } else {
    bus_bw = std::min(0.92 * bus_bw, in.channels * kPerChMaxTreeBw[idx]);
    if (in.protocol == kProtoLL) bus_bw = std::min(bus_bw / 3.8, ll_max_bw);
    if (in.protocol == kProtoLL128) {
      bus_bw = std::min(bus_bw * (in.nodes == 1 ? 7.0 / 9.0 : 120.0 / 128.0),
                        in.channels * kPerChMaxTreeLL128Bw[idx]);
    }
  }
  int nsteps = n;
  if (in.op == CollOp::kAllReduce) nsteps = 2 * (n - 1);
  if (in.op == CollOp::kAllGather || in.op == CollOp::kReduceScatter) nsteps = n - 1;
  p.bus_bw_gbps = bus_bw;
  p.alg_bw_gbps = tree ? bus_bw * 0.5 : (nsteps > 0 ? bus_bw * n / nsteps : bus_bw);

  const bool multi = in.nodes > 1;
  const double base = ps_to_us(nccl_base_latency_ps(cfg, in.algorithm, in.protocol));
  const double intra =
      ps_to_us(nccl_hop_latency_ps(cfg, in.algorithm, in.protocol, cfg.intra_link_class, multi));
  // latencyInter is 0 for the IB and socket plugins (net_ib/init.cc props->latency = 0), so the
  // Simple flush term adds nothing.
  const int ppn = n / in.nodes;
  const double inter =
      ps_to_us(nccl_hop_latency_ps(cfg, in.algorithm, in.protocol, kLinkNet, multi, ppn == 1));
  if (!tree && (in.op == CollOp::kBroadcast || in.op == CollOp::kReduce)) {
    // tuning.cc: broadcast/reduce rings without sameChannels pay nsteps hops of the ring's own
    // hardware latency (NET across nodes), Simple taking the tree's entry.
    const int link = multi ? kLinkNet : cfg.intra_link_class;
    const AlgoLatencies& t = in.protocol == kProtoSimple ? cfg.tree : cfg.ring;
    p.latency_us = base + nsteps * ps_to_us(t.hop_ps[link][in.protocol]);
  } else if (!tree) {
    const int inter_steps = in.op == CollOp::kAllReduce ? 2 * (in.nodes - 1) : in.nodes - 1;
    p.latency_us = base + (nsteps - inter_steps) * intra + inter_steps * inter;
    // "Plateau effect of ring" on sm >= 80: multi-node Simple all-reduce latency x 1.4 once each
    // rank's per-channel share reaches 64 B.
    if (in.op == CollOp::kAllReduce && multi && in.protocol == kProtoSimple &&
        in.size_bytes / (static_cast<int64_t>(in.runtime_channels > 0 ? in.runtime_channels
                                                                      : in.channels) *
                         n) >=
            64) {
      p.latency_us *= 1.4;
    }
  } else {
    const int log2_nodes = std::bit_width(static_cast<unsigned>(in.nodes)) - 1;
    p.latency_us = base + 2 * ((ppn - 1) * intra + log2_nodes * inter);
  }
  double alg_bw = p.alg_bw_gbps;
  if (tree && in.size_bytes >= 64) {
    const int log_size = std::bit_width(static_cast<uint64_t>(in.size_bytes >> 6)) - 1;
    if (log_size < 23) alg_bw *= kTreeCorrection[in.protocol][log_size];
  }
  p.time_us =
      p.latency_us + (alg_bw > 0 ? static_cast<double>(in.size_bytes) / (1000.0 * alg_bw) : 0.0);
  return p;
}

}  // namespace fabricsim::workload
