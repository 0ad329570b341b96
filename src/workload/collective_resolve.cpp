// CollectiveEngine's checks and resolution of a spec (workload/collective_engine.h): what NCCL
// would run for it (algorithm, protocol, channels; `auto` chosen by NCCL's tuning model fed the
// graphs of workload/nccl_graph.h), and the SHARP groups CollNet and NVLS across nodes use.
#include <algorithm>
#include <string>
#include <vector>

#include "core/error.h"
#include "workload/collective_engine.h"
#include "workload/nccl_graph.h"
#include "workload/nccl_model.h"

namespace fabricsim::workload {
namespace {

using detail::is_p2p;
using detail::proto_enum;
using detail::proto_index;

constexpr int kMaxChannels = 64;  // device.h MAXCHANNELS

}  // namespace

void CollectiveEngine::validate(const CollectiveSpec& spec) const {
  const int64_t n = static_cast<int64_t>(spec.ranks.size());
  if (n < 2) throw InputError("workload.ranks", "a collective needs at least 2 ranks");
  std::vector<uint32_t> sorted = spec.ranks;
  std::sort(sorted.begin(), sorted.end());
  if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) {
    throw InputError("workload.ranks", "a GPU appears twice in the communicator");
  }
  if (sorted.back() >= rt_.gpus()) {
    throw InputError("workload.ranks", "GPU " + std::to_string(sorted.back()) +
                                           " does not exist (the machine has " +
                                           std::to_string(rt_.gpus()) + ")");
  }
  const bool p2p_op = spec.op == CollOp::kSend || spec.op == CollOp::kSendRecv;
  if (spec.size_bytes < 1) {
    throw InputError("workload.size", std::string(name(spec.op)) + " of " +
                                          std::to_string(spec.size_bytes) + " B over " +
                                          std::to_string(n) + " ranks: need at least " +
                                          (p2p_op ? std::string("1 B") : "1 B per rank"));
  }
  if ((spec.op == CollOp::kBroadcast || spec.op == CollOp::kReduce) &&
      (spec.root < 0 || spec.root >= n)) {
    throw InputError("workload.root", "root " + std::to_string(spec.root) +
                                          " is not a rank index in [0, " + std::to_string(n) + ")");
  }
  if (spec.channels < 0 || spec.channels > kMaxChannels) {
    throw InputError("workload.channels", "channels must be 0 (default) .. 64 (NCCL MAXCHANNELS)");
  }
  const CollAlgorithm a = spec.algorithm;
  const std::string op_name = name(spec.op);
  if (is_p2p(spec.op)) {
    if (a != CollAlgorithm::kAuto && a != CollAlgorithm::kDirect) {
      throw InputError("workload.algorithm",
                       op_name + " runs as point-to-point transfers: algorithm auto or direct");
    }
    if (spec.protocol == Protocol::kLL128) {
      throw InputError("workload.protocol", "NCCL point-to-point uses LL or Simple, not LL128");
    }
    return;
  }
  if (a == CollAlgorithm::kDirect) {
    throw InputError("workload.algorithm",
                     "direct is for all_to_all, send and send_recv, not " + op_name);
  }
  const bool all_reduce = spec.op == CollOp::kAllReduce;
  const bool ag_rs = spec.op == CollOp::kAllGather || spec.op == CollOp::kReduceScatter;
  if (a == CollAlgorithm::kHierarchical && !all_reduce && !ag_rs) {
    throw InputError("workload.algorithm",
                     "hierarchical implements all_reduce, all_gather and reduce_scatter; " +
                         op_name + " runs as ring");
  }
  if (!all_reduce && a != CollAlgorithm::kAuto && a != CollAlgorithm::kRing &&
      a != CollAlgorithm::kHierarchical) {
    throw InputError("workload.algorithm", std::string(name(a)) + " implements all_reduce only; " +
                                               op_name + " runs as ring");
  }
  if (a == CollAlgorithm::kNvls || a == CollAlgorithm::kNvlsTree) {
    const std::string an = name(a);
    if (!all_reduce) {
      throw InputError("workload.algorithm", an + " implements all_reduce only, not " + op_name);
    }
    if (spec.protocol != Protocol::kAuto && spec.protocol != Protocol::kSimple) {
      throw InputError("workload.protocol", an + " runs the Simple protocol only (tuning.cc)");
    }
    if (!rt_.nccl_view().nvls) {
      throw InputError("workload.algorithm",
                       an + " needs NVSwitch nodes with NVLink SHARP (node.nvls: true)");
    }
    if (!cfg_.nvls_enabled) {
      throw InputError("workload.algorithm", an + " is switched off by collective.nvls: false");
    }
    const auto nodes = detail::nodes_of(spec.ranks, rt_.gpus_per_node());
    if (a == CollAlgorithm::kNvls && nodes.size() > 1 && sharp_group_of(spec, a) < 0) {
      throw InputError("workload.algorithm",
                       "nvls across nodes needs NCCL's CollNet over IB SHARP (fabric.sharp, "
                       "collective.collnet) and a free aggregation tree; use nvls_tree");
    }
    if (a == CollAlgorithm::kNvlsTree && nodes.size() < 2) {
      throw InputError("workload.algorithm", "nvls_tree spans nodes; on one node use nvls");
    }
    for (const auto& node : nodes) {
      if (node.size() < 2 || node.size() != nodes[0].size()) {
        throw InputError("workload.algorithm",
                         an + " needs the same number (>= 2) of ranks on every node "
                              "(NCCL disables NVLS with one GPU per node)");
      }
    }
  }
  if (a == CollAlgorithm::kCollnet) {
    if (!all_reduce) {
      throw InputError("workload.algorithm", "collnet implements all_reduce only, not " + op_name);
    }
    if (spec.protocol != Protocol::kAuto && spec.protocol != Protocol::kSimple) {
      throw InputError("workload.protocol", "collnet runs the Simple protocol only (tuning.cc)");
    }
    const auto nodes = detail::nodes_of(spec.ranks, rt_.gpus_per_node());
    if (nodes.size() != spec.ranks.size()) {
      throw InputError("workload.algorithm",
                       "collnet is modelled with one rank per node; with several GPUs per node "
                       "use nvls (NVLS with CollNet across nodes)");
    }
    if (sharp_group_of(spec, a) < 0) {
      throw InputError("workload.algorithm",
                       "collnet needs IB SHARP (fabric.sharp, collective.collnet) and a free "
                       "aggregation tree on every port of the communicator");
    }
  }
  if (a == CollAlgorithm::kHalvingDoubling && (n & (n - 1)) != 0) {
    throw InputError("workload.algorithm",
                     "halving_doubling needs a power-of-two rank count, "
                     "not " +
                         std::to_string(n));
  }
  if (a == CollAlgorithm::kHierarchical) {
    const auto nodes = detail::nodes_of(spec.ranks, rt_.gpus_per_node());
    for (const auto& node : nodes) {
      if (node.size() != nodes[0].size()) {
        throw InputError("workload.algorithm",
                         "hierarchical needs the same number of ranks on every node");
      }
    }
  }
}

bool CollectiveEngine::nvls_available(const CollectiveSpec& spec) const {
  if (!cfg_.nvls_enabled || !rt_.nccl_view().nvls) return false;
  // nvls.cc: NVLS needs at least 2 GPUs of the communicator on a node; the engine's NVLS plans
  // also need the same count on every node.
  const auto nodes = detail::nodes_of(spec.ranks, rt_.gpus_per_node());
  for (const auto& node : nodes) {
    if (node.size() < 2 || node.size() != nodes[0].size()) return false;
  }
  return true;
}

int CollectiveEngine::sharp_group_of(const CollectiveSpec& spec, CollAlgorithm a) const {
  if (!cfg_.collnet_enabled) return -1;
  const auto nodes = detail::nodes_of(spec.ranks, rt_.gpus_per_node());
  if (nodes.size() < 2) return -1;
  // The GPUs whose NICs carry the reductions: every rank with one rank per node (CollNet), or
  // the NVLS heads of every node (one per NIC).
  std::vector<uint32_t> members;
  if (a == CollAlgorithm::kCollnet) {
    if (nodes.size() != spec.ranks.size()) return -1;
    members = spec.ranks;
  } else {
    for (const auto& node : nodes) {
      const auto heads =
          detail::nvls_head_gpus(spec, node, std::max(1, rt_.nccl_view().nics_per_node));
      members.insert(members.end(), heads.begin(), heads.end());
    }
  }
  std::sort(members.begin(), members.end());
  // A communicator sets up its CollNet once (NCCL: at init); later collectives over the same
  // GPUs reuse its trees.
  const auto it = sharp_groups_.find(members);
  if (it != sharp_groups_.end()) return it->second;
  const int g = rt_.sharp_group(members.data(), static_cast<int>(members.size()));
  sharp_groups_.emplace(std::move(members), g);
  return g;
}

CollectiveRecord CollectiveEngine::resolve(const CollectiveSpec& spec) const {
  validate(spec);
  CollectiveRecord r;
  r.op = spec.op;
  r.ranks = static_cast<int>(spec.ranks.size());
  r.size_bytes = spec.size_bytes;
  const int64_t n = r.ranks;
  if (is_p2p(spec.op)) {
    r.algorithm = CollAlgorithm::kDirect;
    const int64_t per_peer = spec.op == CollOp::kAllToAll ? spec.size_bytes / n : spec.size_bytes;
    r.channels = static_cast<int>(
        std::min<int64_t>(spec.channels > 0 ? spec.channels : cfg_.p2p_channels, per_peer));
    // enqueue.cc: P2P uses LL up to nChannels x NCCL_P2P_LL_THRESHOLD bytes.
    r.protocol = spec.protocol != Protocol::kAuto                       ? spec.protocol
                 : per_peer <= r.channels * cfg_.p2p_ll_threshold_bytes ? Protocol::kLL
                                                                        : Protocol::kSimple;
    return r;
  }
  // Every channel needs at least one byte per rank.
  r.channels = static_cast<int>(std::max<int64_t>(
      1,
      std::min<int64_t>(spec.channels > 0 ? spec.channels : cfg_.channels, spec.size_bytes / n)));
  // NCCL's model inputs: the channel count and per-channel speed of the graphs NCCL's topology
  // search finds for this communicator (workload/nccl_graph.h), not the channels the kernels
  // run with: the model caps bandwidth per graph channel (tree: 36 GB/s on Hopper), so feeding
  // it the runtime count would let the tree win where NCCL picks the ring.
  const auto nodes = detail::nodes_of(spec.ranks, rt_.gpus_per_node());
  size_t max_per_node = 1;
  for (const auto& node : nodes) max_per_node = std::max(max_per_node, node.size());
  const NcclGraphs graphs =
      nccl_graphs(rt_.nccl_view(), static_cast<int>(nodes.size()), static_cast<int>(max_per_node),
                  static_cast<int>(rt_.gpus_per_node()));
  NcclModelInput in;
  in.op = spec.op;
  in.ranks = r.ranks;
  in.nodes = static_cast<int>(nodes.size());
  in.runtime_channels = r.channels;
  in.size_bytes = spec.size_bytes;
  std::vector<CollAlgorithm> algos;
  if (spec.algorithm != CollAlgorithm::kAuto) {
    algos.push_back(spec.algorithm);
  } else {
    algos.push_back(CollAlgorithm::kRing);
    if (spec.op == CollOp::kAllReduce) algos.push_back(CollAlgorithm::kTree);
    if (spec.op == CollOp::kAllReduce && nvls_available(spec)) {
      algos.push_back(nodes.size() == 1 ? CollAlgorithm::kNvls : CollAlgorithm::kNvlsTree);
      // NVLS across nodes rides on CollNet (IB SHARP).
      if (nodes.size() > 1 && sharp_group_of(spec, CollAlgorithm::kNvls) >= 0) {
        algos.push_back(CollAlgorithm::kNvls);
      }
    }
    if (spec.op == CollOp::kAllReduce && nodes.size() > 1 && max_per_node == 1 &&
        sharp_group_of(spec, CollAlgorithm::kCollnet) >= 0) {
      algos.push_back(CollAlgorithm::kCollnet);
    }
  }
  std::vector<int> protos;
  if (spec.protocol != Protocol::kAuto) {
    protos.push_back(proto_index(spec.protocol));
  } else {
    protos = {kProtoLL, kProtoSimple};
    if (cfg_.ll128_enabled) protos.push_back(kProtoLL128);
  }
  double best = -1;
  for (CollAlgorithm a : algos) {
    for (int p : protos) {
      in.protocol = p;
      // Halving-doubling and hierarchical have no NCCL model: their protocol is chosen by the
      // ring's prediction.
      const bool nvls = a == CollAlgorithm::kNvls || a == CollAlgorithm::kNvlsTree;
      const bool modelled = a == CollAlgorithm::kTree || nvls || a == CollAlgorithm::kCollnet;
      in.algorithm = modelled ? a : CollAlgorithm::kRing;
      in.collnet = (a == CollAlgorithm::kCollnet || (a == CollAlgorithm::kNvls && in.nodes > 1)) &&
                   sharp_group_of(spec, a) >= 0;
      const NcclGraph& g = nvls                                 ? graphs.nvls
                           : in.algorithm == CollAlgorithm::kTree ? graphs.tree
                                                                  : graphs.ring;
      in.bw_intra_gbps = g.bw_intra_gbps;
      in.bw_inter_gbps = g.bw_inter_gbps;
      in.channels = g.channels;
      // tuning.cc: bwIntra on up to two nodes, bwInter beyond.
      in.channel_bw_gbps = in.nodes <= 2 ? g.bw_intra_gbps : g.bw_inter_gbps;
      const NcclPrediction pr = nccl_predict(cfg_, in);
      if (pr.supported && (best < 0 || pr.time_us < best)) {
        best = pr.time_us;
        r.algorithm = a;
        r.protocol = proto_enum(p);
        r.predicted_ps = static_cast<int64_t>(pr.time_us * 1e6 + 0.5);
      }
    }
  }
  if (r.algorithm == CollAlgorithm::kCollnet) {
    r.channels = 1;  // one SHARP stream per rank (collective_nvls.cpp)
  } else if (r.algorithm == CollAlgorithm::kNvls || r.algorithm == CollAlgorithm::kNvlsTree) {
    // enqueue.cc: NVLS runs comm->nvlsChannels whatever the size.
    r.channels = static_cast<int>(std::max<int64_t>(
        1, std::min<int64_t>(spec.channels > 0 ? spec.channels : cfg_.nvls_channels,
                             spec.size_bytes / n)));
  } else if (spec.channels == 0) {
    // enqueue.cc: with the default channel count, small messages use fewer channels.
    const int p = proto_index(r.protocol);
    int64_t threshold = cfg_.thread_threshold_bytes[p];
    if (r.algorithm != CollAlgorithm::kTree && p == kProtoLL) threshold *= n;
    while (r.channels >= 2 &&
           spec.size_bytes < r.channels * cfg_.threads_per_channel[p] * threshold) {
      --r.channels;
    }
  }
  return r;
}

}  // namespace fabricsim::workload
