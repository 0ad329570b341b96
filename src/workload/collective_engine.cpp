#include "workload/collective_engine.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>

#include "core/error.h"
#include "workload/nccl_model.h"

namespace fabricsim::workload {
namespace {

using detail::Conn;
using detail::ConnKind;
using detail::Plan;
using detail::RingLoop;
using detail::Stream;
using detail::is_p2p;
using detail::proto_index;

// Cookie layout (all < kForeignCookie = 2^63): [61,63) kind, [37,61) collective id,
// [17,37) connection, [0,17) message index modulo 2^17 (at most nccl_steps <= 32 messages of a
// connection are in flight, so the low bits identify the message).
constexpr uint64_t kArrive = 0, kCredit = 1, kStart = 2;
constexpr int kIdShift = 37, kConnShift = 17;
constexpr uint64_t kIdLimit = 1ull << 24, kConnLimit = 1ull << 20, kMsgMask = (1ull << 17) - 1;
// Size of the message whose idle transfer time stands for "what the transport already
// simulates" of a hop (a credit / flag write).
constexpr int64_t kTinyBytes = 8;

uint64_t cookie(uint64_t kind, uint32_t id, uint32_t conn, int64_t m) {
  return (kind << 61) | (static_cast<uint64_t>(id) << kIdShift) |
         (static_cast<uint64_t>(conn) << kConnShift) | (static_cast<uint64_t>(m) & kMsgMask);
}

// The algorithms whose latency is NVLS's or CollNet's own (tuning.cc), not the ring's or tree's.
bool nvls_family(CollAlgorithm a) {
  return a == CollAlgorithm::kNvls || a == CollAlgorithm::kNvlsTree || a == CollAlgorithm::kCollnet;
}

}  // namespace

CollectiveEngine::CollectiveEngine(node::RankTransport& rt, const CollectiveConfig& cfg)
    : rt_(rt), cfg_(cfg) {}

detail::BuildParams CollectiveEngine::build_params(const CollectiveRecord& r) const {
  detail::BuildParams bp;
  bp.protocol = proto_index(r.protocol);
  bp.channels = r.channels;
  bp.window = cfg_.nccl_steps;
  // A FIFO step holds buffer/NCCL_STEPS wire bytes, i.e. that x efficiency of data
  // (enqueue.cc calcCollChunking: LL stepSize/2, LL128 x DATAELEMS/LINEELEMS).
  bp.step_data_bytes = std::max<int64_t>(
      1, static_cast<int64_t>(static_cast<double>(cfg_.buffer_bytes[bp.protocol]) /
                              cfg_.nccl_steps * cfg_.efficiency[bp.protocol]));
  const bool ring_family =
      r.op == CollOp::kAllReduce || r.op == CollOp::kAllGather || r.op == CollOp::kReduceScatter;
  if (bp.protocol == kProtoSimple && ring_family &&
      (r.algorithm == CollAlgorithm::kRing || r.algorithm == CollAlgorithm::kHierarchical)) {
    bp.ring_chunk_steps = cfg_.ring_chunk_steps;
    bp.ring_slice_steps = cfg_.ring_slice_steps;
  }
  bp.p2p_nvl_chunk_bytes = cfg_.p2p_nvl_chunk_bytes;
  bp.p2p_net_chunk_bytes = cfg_.p2p_net_chunk_bytes;
  bp.gpus_per_node = rt_.gpus_per_node();
  if (r.algorithm == CollAlgorithm::kNvlsTree) {
    // nvls.cc: the NVLS-tree chunk is capped at NCCL_NVLSTREE_MAX_CHUNKSIZE (64 KiB) on >= 4
    // nodes; one NVLS head per NIC.
    const int64_t n_nodes = (r.ranks + rt_.gpus_per_node() - 1) / rt_.gpus_per_node();
    bp.nvls_chunk_bytes =
        n_nodes >= 4 ? std::min(cfg_.nvls_chunk_bytes, cfg_.nvls_tree_chunk_bytes)
                     : cfg_.nvls_chunk_bytes;
    bp.nvls_heads = std::max(1, rt_.nccl_view().nics_per_node);
  } else {
    bp.nvls_chunk_bytes = cfg_.nvls_chunk_bytes;
    bp.nvls_heads = std::max(1, rt_.nccl_view().nics_per_node);
  }
  bp.collnet_chunk_bytes = cfg_.collnet_chunk_bytes;
  bp.collnet_window = cfg_.collnet_window;
  return bp;
}

void CollectiveEngine::finalize(Plan& plan) const {
  const uint32_t nc = static_cast<uint32_t>(plan.conns.size());
  // Adjacency as three counting-sorted lists in plan.adj: preds, succs, gated.
  std::vector<uint32_t> npred(nc, 0), nsucc(nc, 0), ngated(nc, 0);
  for (auto [p, s] : plan.dep_edges) ++npred[s], ++nsucc[p];
  for (auto [g, s] : plan.gate_edges) ++ngated[g], ++plan.conns[s].gates_pending;
  uint32_t at = 0;
  for (uint32_t e = 0; e < nc; ++e) {
    Conn& c = plan.conns[e];
    c.preds_at = at, at += npred[e];
    c.succs_at = at, at += nsucc[e];
    c.gated_at = at, at += ngated[e];
  }
  plan.adj.assign(at, 0);
  for (auto [p, s] : plan.dep_edges) {
    plan.adj[plan.conns[s].preds_at + plan.conns[s].npreds++] = p;
    plan.adj[plan.conns[p].succs_at + plan.conns[p].nsuccs++] = s;
  }
  for (auto [g, s] : plan.gate_edges) plan.adj[plan.conns[g].gated_at + plan.conns[g].ngated++] = s;
  plan.dep_edges.clear();
  plan.dep_edges.shrink_to_fit();
  plan.gate_edges.clear();
  plan.gate_edges.shrink_to_fit();

  const uint32_t gpn = rt_.gpus_per_node();
  bool net_folded = false;
  for (Conn& c : plan.conns) {
    c.net_folded = c.weight > 1 && c.src / gpn != c.dst / gpn;
    net_folded = net_folded || c.net_folded;
  }
  for (Conn& c : plan.conns) {
    c.messages = plan.streams[c.stream].messages;
    plan.remaining += c.messages;
    plan.messages += c.messages;
    if (c.npreds > 0 || c.nsuccs > 0) {
      c.slot = static_cast<int32_t>(plan.sat.size());
      plan.sat.emplace_back();
      plan.cons.emplace_back();
      plan.sat.back().fill(0);
      plan.cons.back().fill(0);
    }
    // NCCL's per-hop latency minus what the transport already simulates for the hop, so that
    // idle small-message time matches NCCL's model (docs/collectives.md "Latency").
    const int link = c.src / gpn == c.dst / gpn ? cfg_.intra_link_class : kLinkNet;
    int64_t hop = 0;
    if (c.kind == ConnKind::kSharp) {
      // The NET latency of NVLS across nodes (18 us) or CollNet with one rank per node (the
      // tree's NET entry, 14 us), less one idle network crossing the fabric simulates.
      const uint32_t far = (c.src + gpn) % rt_.gpus();
      const int64_t net = plan.latency_algorithm == CollAlgorithm::kNvls
                              ? cfg_.nvls_net_latency_ps
                              : cfg_.tree.hop_ps[kLinkNet][kProtoSimple];
      c.delay_ps = std::max<int64_t>(0, net - rt_.idle_transfer_ps(c.src, far, kTinyBytes));
      c.credit_ps = 0;  // the result comes back to the same GPU
      continue;
    }
    if (plan.latency_algorithm == CollAlgorithm::kNvls ||
        plan.latency_algorithm == CollAlgorithm::kNvlsTree) {
      // NVLS: the NVLink part (25 us) is charged once at the start; NVLS-tree charges its NET
      // latency per tree hop (tuning.cc: 2 x log2(nodes) x 20.9 us along the critical path).
      hop = c.kind == ConnKind::kUnicast && link == kLinkNet ? cfg_.nvls_tree_net_latency_ps : 0;
    } else {
      hop = nccl_hop_latency_ps(cfg_, plan.latency_algorithm, plan.protocol, link,
                                plan.multi_node, plan.one_rank_per_node);
    }
    c.delay_ps = std::max<int64_t>(0, hop - rt_.idle_transfer_ps(c.src, c.dst, kTinyBytes));
    c.credit_ps = rt_.idle_transfer_ps(c.dst, c.src, kTinyBytes);
    if (c.folded_chunk_bytes > 0) {
      // The folded chunks (collective.fold_p2p): with `window` FIFO slots, a slot is reused one
      // credit loop after its chunk was posted (the per-step overhead, the chunk's idle
      // transfer, the credit back), so the stream moves at most window chunks per loop. More
      // chunks than slots: that rate caps the folded message (tests/engine/folded_p2p_test.cpp:
      // with 32 KiB chunks on 400 Gb/s InfiniBand it binds, and the folded send ends within
      // 0.2 % of packet mode's chunks; with 128 KiB it is above the NIC).
      const Stream& st = plan.streams[c.stream];
      const int64_t chunks = (st.total_bytes + c.folded_chunk_bytes - 1) / c.folded_chunk_bytes;
      c.chunks_in_flight = static_cast<int32_t>(std::min<int64_t>(chunks, c.window));
      if (chunks > c.window) {
        const double eff = cfg_.efficiency[plan.protocol];
        const auto wire = std::max<int64_t>(
            1, static_cast<int64_t>(
                   std::ceil(static_cast<double>(c.folded_chunk_bytes) / eff - 1e-9)));
        const int64_t loop_ps =
            c.delay_ps + rt_.idle_transfer_ps(c.src, c.dst, wire) + c.credit_ps;
        c.rate_cap_bps = static_cast<double>(c.window) * static_cast<double>(wire) * 8e12 /
                         static_cast<double>(std::max<int64_t>(1, loop_ps));
      }
    }
  }
  if (net_folded) {
    plan.moving_ps.assign(plan.sat.size(), {});
    plan.early_ps.assign(plan.sat.size(), {});
  }
}

std::unique_ptr<Plan> CollectiveEngine::build_plan(const CollectiveSpec& spec,
                                                   const CollectiveRecord& r,
                                                   bool bind_sharp) const {
  auto plan = std::make_unique<Plan>();
  plan->protocol = proto_index(r.protocol);
  const bool chain = spec.op == CollOp::kBroadcast || spec.op == CollOp::kReduce;
  const bool nvls = nvls_family(r.algorithm);
  // tuning.cc: Simple broadcast/reduce take the tree's hwLatency per step; neither they nor the
  // tree floor intra-node hops at the net overhead.
  plan->latency_algorithm =
      nvls ? r.algorithm
      : r.algorithm == CollAlgorithm::kTree || (chain && plan->protocol == kProtoSimple)
          ? CollAlgorithm::kTree
          : CollAlgorithm::kRing;
  const auto nodes = detail::nodes_of(spec.ranks, rt_.gpus_per_node());
  plan->multi_node = nodes.size() > 1 && r.algorithm == CollAlgorithm::kRing && !chain;
  plan->one_rank_per_node = nodes.size() == spec.ranks.size();
  detail::BuildParams bp = build_params(r);
  bp.fold_channels = cfg_.fold_channels && rt_.weighted_sends() && trace_ == nullptr;
  bp.fold_net = bp.fold_channels && rt_.weighted_net_sends();
  bp.fold_net_lanes = cfg_.fold_lanes;
  bp.fold_net_p2p = bp.fold_net && cfg_.fold_p2p && rt_.stages_keep_up_with_nic();
  if (r.algorithm == CollAlgorithm::kDirect) {
    detail::build_p2p(*plan, spec, bp);
  } else if (chain) {
    detail::build_chain(*plan, spec, bp);
  } else if (r.algorithm == CollAlgorithm::kTree) {
    detail::build_tree(*plan, spec, bp);
  } else if (r.algorithm == CollAlgorithm::kNvls && nodes.size() > 1) {
    bp.sharp_group = bind_sharp ? sharp_group_of(spec, r.algorithm) : 0;
    detail::build_nvls_sharp(*plan, spec, bp);
  } else if (r.algorithm == CollAlgorithm::kCollnet) {
    bp.sharp_group = bind_sharp ? sharp_group_of(spec, r.algorithm) : 0;
    detail::build_collnet(*plan, spec, bp);
  } else if (r.algorithm == CollAlgorithm::kNvls) {
    detail::build_nvls(*plan, spec, bp);
  } else if (r.algorithm == CollAlgorithm::kNvlsTree) {
    detail::build_nvls_tree(*plan, spec, bp);
  } else if (r.algorithm == CollAlgorithm::kHalvingDoubling) {
    detail::build_halving_doubling(*plan, spec, bp);
  } else if (r.algorithm == CollAlgorithm::kHierarchical) {
    detail::build_hierarchical(*plan, spec, bp);
  } else {
    detail::build_ring(*plan, spec, bp);
  }
  return plan;
}

CollectiveEngine::CrossNodeTraffic CollectiveEngine::cross_node_traffic(
    const CollectiveSpec& spec) const {
  const std::unique_ptr<Plan> plan = build_plan(spec, resolve(spec), false);
  finalize(*plan);
  const uint32_t gpn = rt_.gpus_per_node();
  CrossNodeTraffic t;
  t.plan_bytes = plan->held_bytes();
  // A second bound from the dependencies. A message with predecessors is posted only after an
  // arrival on each of them, and when no connection has more than one successor an arrival
  // enables at most one message. So a posted message not yet arrived holds a token that started
  // at a message without dependencies (a ring loop's first step, slices of it per connection;
  // every message of a connection without predecessors) and is passed on, never copied: no
  // more are ever in flight than those messages. A ring of n connections, one loop, one slice:
  // n, where the credit windows allow n x NCCL_STEPS.
  int64_t tokens = 0;
  bool single_successor = true;
  for (const Conn& c : plan->conns) {
    if (c.nsuccs > 1) single_successor = false;
    const Stream& s = plan->streams[c.stream];
    if (c.npreds == 0 || !s.ring) {
      tokens += c.npreds == 0 ? s.messages : 0;
      continue;
    }
    for (const RingLoop& l : s.loops) tokens += l.slices;  // required_index: -1 at step 0
  }
  for (const Conn& c : plan->conns) {
    // A SHARP connection's src = dst (its GPU): it crosses the fabric to the switches and back.
    if (c.kind == ConnKind::kSharp) t.window += c.window;
    if (c.kind != ConnKind::kSharp && c.kind != ConnKind::kUnicast) {
      t.node_messages += plan->streams[c.stream].messages;  // NVLS: through the NVSwitch
    }
    if (c.kind != ConnKind::kUnicast) continue;
    if (c.src / gpn == c.dst / gpn) {
      t.node_messages += plan->streams[c.stream].messages;
      continue;
    }
    // A connection posts no more at once than its whole stream holds.
    const int64_t messages = plan->streams[c.stream].messages;
    t.window += std::min<int64_t>(c.window, messages);
    t.messages += messages;
  }
  if (single_successor) t.window = std::min(t.window, tokens);
  return t;
}

uint32_t CollectiveEngine::start(const CollectiveSpec& spec,
                                 std::function<void(uint32_t id)> done) {
  CollectiveRecord r = resolve(spec);
  if (records_.size() >= kIdLimit) {
    throw InputError("workload", "more than 2^24 collectives in one run");
  }
  const uint32_t id = static_cast<uint32_t>(records_.size());
  auto plan = build_plan(spec, r, true);
  const auto nodes = detail::nodes_of(spec.ranks, rt_.gpus_per_node());
  const bool nvls = nvls_family(r.algorithm);
  if (plan->conns.size() >= kConnLimit) {
    throw InputError("workload.ranks", "collective needs " + std::to_string(plan->conns.size()) +
                                           " connections; at most 2^20 are supported");
  }
  r.start_ps = rt_.now_ps();
  if (trace_) trace_->begin(id, r, spec, *plan);  // before finalize drops the edge lists
  finalize(*plan);
  records_.push_back(r);
  running_.push_back({std::move(plan), std::move(done),
                      progress_units(spec.op, spec.ranks.size(), r.size_bytes, nodes.size() > 1)});
  // NCCL's baseLatency is charged once, before the first step (P2P operations have none in
  // tuning.cc).
  // NVLS and NVLS-tree: base 0 plus the NVLink hwLatency (25 us), once; CollNet base 0.
  const int64_t base = is_p2p(spec.op)                         ? 0
                       : r.algorithm == CollAlgorithm::kCollnet ? 0
                       : nvls                                   ? cfg_.nvls_intra_latency_ps
                                       : nccl_base_latency_ps(cfg_,
                                                              running_[id].plan->latency_algorithm,
                                                              running_[id].plan->protocol);
  rt_.timer(base, cookie(kStart, id, 0, 0));
  return id;
}

void CollectiveEngine::kick(uint32_t id) {
  Plan& plan = *running_[id].plan;
  for (uint32_t e = 0; e < plan.conns.size(); ++e) try_send(id, plan, e);
  if (plan.remaining == 0) finish(id);
}

void CollectiveEngine::try_send(uint32_t id, Plan& plan, uint32_t e) {
  Conn& c = plan.conns[e];
  const detail::Stream& st = plan.streams[c.stream];
  CollectiveRecord& rec = records_[id];
  const double eff = cfg_.efficiency[plan.protocol];
  // An NVLS connection is one group of warps working chunk after chunk (all_reduce.h): its next
  // reduce or multicast starts when the previous one is done, while the FIFO credits still let
  // the next stage run behind it. Posted all at once, the fluid NVSwitch would share them to
  // finish together, and every stream's reduce and multicast would alternate in lockstep.
  const bool one_at_a_time = c.kind == ConnKind::kNvlsReduce ||
                             c.kind == ConnKind::kNvlsMulticast ||
                             c.kind == ConnKind::kNvlsReduceMulticast;
  while (c.gates_pending == 0 && c.next_send < c.messages && c.outstanding < c.window &&
         (!one_at_a_time || c.next_send == c.arrived)) {
    const int64_t m = c.next_send;
    const int64_t req = c.npreds > 0 ? detail::required_index(st, m) : -1;
    if (req >= 0 && plan.sat[c.slot][m & (detail::kSlotRing - 1)] < c.npreds) break;
    if (c.slot >= 0) plan.sat[c.slot][m & (detail::kSlotRing - 1)] = 0;
    // A step after a folded one across nodes: its channels' first message arrived earlier
    // than the folded whole (on_arrived), and its per-step overhead runs from then.
    int64_t delay_ps = c.delay_ps;
    if (req >= 0 && !plan.early_ps.empty()) {
      int64_t early = std::numeric_limits<int64_t>::max();
      for (uint32_t k = 0; k < c.npreds; ++k) {
        const Conn& pc = plan.conns[plan.adj[c.preds_at + k]];
        early = std::min(early, pc.net_folded
                                    ? plan.early_ps[pc.slot][req & (detail::kSlotRing - 1)]
                                    : int64_t{0});
      }
      delay_ps = std::max<int64_t>(0, delay_ps - early);
    }
    if (c.net_folded) {
      plan.moving_ps[c.slot][m & (detail::kSlotRing - 1)] = rt_.now_ps() + delay_ps;
    }
    const int64_t data = detail::message_bytes(st, c.ring_pos, m);
    const int64_t wire = std::max<int64_t>(
        1, static_cast<int64_t>(std::ceil(static_cast<double>(data) / eff - 1e-9)));
    ++c.outstanding;
    ++c.next_send;
    rec.messages += c.weight;
    rec.wire_bytes += c.kind == ConnKind::kNvlsReduceMulticast ? 2 * wire : wire;
    if (trace_) trace_->sent(id, plan, e, m, data, rt_.now_ps());
    const uint64_t ck = cookie(kArrive, id, e, m);
    if (c.kind == ConnKind::kUnicast) {
      // The connection: this collective's plan connection (NCCL's channel), so one
      // connection's steps go in order and channels share NVLink (RankTransport::send).
      rt_.send(c.src, c.dst, wire, ck, delay_ps, (static_cast<uint64_t>(id) << 32 | e) + 1,
               c.weight, c.channel, node::FoldedStream{c.rate_cap_bps, c.chunks_in_flight});
    } else if (c.kind == ConnKind::kSharp) {
      rt_.sharp_allreduce(static_cast<int>(c.group), c.src, wire, ck);
    } else {
      const std::vector<uint32_t>& g = plan.groups[c.group];
      const int gn = static_cast<int>(g.size());
      if (c.kind == ConnKind::kNvlsReduceMulticast) {
        c.halves_pending = 2;
        rt_.nvls_reduce(g.data(), gn, c.dst, wire, ck);
        rt_.nvls_multicast(c.dst, g.data(), gn, wire, ck);
      } else if (c.kind == ConnKind::kNvlsReduce) {
        rt_.nvls_reduce(g.data(), gn, c.dst, wire, ck);
      } else {
        rt_.nvls_multicast(c.src, g.data(), gn, wire, ck);
      }
    }
    // The inputs of this message are consumed once it is posted: their FIFO slots free and the
    // credit (head update) travels back to their senders.
    if (req < 0) continue;
    for (uint32_t k = 0; k < c.npreds; ++k) {
      const uint32_t p = plan.adj[c.preds_at + k];
      Conn& pc = plan.conns[p];
      if (--plan.cons[pc.slot][req & (detail::kSlotRing - 1)] == 0) {
        rt_.timer(delay_ps + pc.credit_ps, cookie(kCredit, id, p, 0));
      }
    }
  }
}

void CollectiveEngine::on_arrived(uint64_t ck) {
  const uint32_t id = static_cast<uint32_t>((ck >> kIdShift) & (kIdLimit - 1));
  const uint32_t e = static_cast<uint32_t>((ck >> kConnShift) & (kConnLimit - 1));
  Plan& plan = *running_[id].plan;
  Conn& c = plan.conns[e];
  // Both flows of a reduce-multicast message carry its cookie; one message is in flight at a
  // time on such a connection, so the first of the two to finish only counts down.
  if (c.kind == ConnKind::kNvlsReduceMulticast && --c.halves_pending > 0) return;
  const int64_t m = c.next_send - 1 -
                    static_cast<int64_t>((static_cast<uint64_t>(c.next_send - 1) - ck) & kMsgMask);
  if (trace_) trace_->arrived(id, plan, e, m, rt_.now_ps());
  ++c.arrived;
  --plan.remaining;
  if (c.net_folded) {
    // The folded message stands for `weight` channels' messages, which one connection per NIC
    // pair would have carried one after another: the first of them would have arrived
    // (weight - 1) / weight of its bytes' time before this whole one, and NCCL starts that
    // channel's next step then. So the next step's overhead is charged from then (try_send);
    // without it each folded step would pay the per-step latency after all its bytes, where the
    // channels overlap it with each other's bytes (docs/collectives.md "Folded channels across
    // nodes"). The bytes' time is the span less the path's idle latency (credit_ps: the same
    // path back).
    const size_t i = static_cast<size_t>(m & (detail::kSlotRing - 1));
    const int64_t bytes_ps =
        std::max<int64_t>(0, rt_.now_ps() - plan.moving_ps[c.slot][i] - c.credit_ps);
    plan.early_ps[c.slot][i] = bytes_ps / c.weight * (c.weight - 1);
  }
  const detail::Stream& st = plan.streams[c.stream];
  const int64_t dm = c.nsuccs > 0 ? detail::dependent_index(st, m) : -1;
  if (dm >= 0) {
    plan.cons[c.slot][m & (detail::kSlotRing - 1)] = static_cast<uint8_t>(c.nsuccs);
    for (uint32_t k = 0; k < c.nsuccs; ++k) {
      const Conn& s = plan.conns[plan.adj[c.succs_at + k]];
      ++plan.sat[s.slot][dm & (detail::kSlotRing - 1)];
    }
  } else {
    // Nothing forwards this message: the receiving GPU consumes it from the FIFO at once and
    // the credit (head update) travels back. The per-step overhead (NCCL's hwLatency) is a
    // latency along the pipeline, already charged to the send; charging it again here would
    // make each FIFO slot cost two overheads and cap a P2P stream at window x chunk / (2 x
    // 14 us) = 37 GB/s across nodes, below the NIC rate NCCL's sendrecv_perf reaches.
    rt_.timer(c.credit_ps, cookie(kCredit, id, e, 0));
  }
  if (c.arrived == c.messages) {
    for (uint32_t k = 0; k < c.ngated; ++k) {
      const uint32_t g = plan.adj[c.gated_at + k];
      --plan.conns[g].gates_pending;
      try_send(id, plan, g);
    }
  }
  if (dm >= 0) {
    for (uint32_t k = 0; k < c.nsuccs; ++k) try_send(id, plan, plan.adj[c.succs_at + k]);
  }
  // NVLS connections post one chunk at a time: the arrival lets the next one go.
  if (c.kind == ConnKind::kNvlsReduce || c.kind == ConnKind::kNvlsMulticast ||
      c.kind == ConnKind::kNvlsReduceMulticast) {
    try_send(id, plan, e);
  }
  if (plan.remaining == 0) finish(id);
}

void CollectiveEngine::on_timer(uint64_t ck) {
  const uint64_t kind = ck >> 61;
  const uint32_t id = static_cast<uint32_t>((ck >> kIdShift) & (kIdLimit - 1));
  if (!running_[id].plan) return;  // a credit returning after the collective ended
  if (kind == kStart) {
    kick(id);
    return;
  }
  const uint32_t e = static_cast<uint32_t>((ck >> kConnShift) & (kConnLimit - 1));
  Plan& plan = *running_[id].plan;
  --plan.conns[e].outstanding;
  try_send(id, plan, e);
}

void CollectiveEngine::finish(uint32_t id) {
  records_[id].end_ps = rt_.now_ps();
  finished_units_ += running_[id].units;
  if (trace_) trace_->finish(id, records_[id]);
  std::function<void(uint32_t)> done = std::move(running_[id].done);
  running_[id].plan.reset();
  if (done) done(id);
}

double CollectiveEngine::progress_units(CollOp op, size_t ranks, int64_t size_bytes,
                                        bool spans_nodes) {
  if (!spans_nodes) return kIntraNodeCollectiveUnits;
  const double n = static_cast<double>(ranks);
  const double sends = op == CollOp::kAllReduce                          ? 2 * (n - 1)
                       : op == CollOp::kSend || op == CollOp::kSendRecv ? 1
                                                                         : n - 1;
  return 1 + static_cast<double>(size_bytes) * sends / kProgressPacketBytes;
}

double CollectiveEngine::work_done() const {
  double done = finished_units_;
  // Collectives mostly end in the order they start: skip the finished prefix once.
  while (first_live_ < running_.size() && !running_[first_live_].plan) ++first_live_;
  for (size_t id = first_live_; id < running_.size(); ++id) {
    const detail::Plan* plan = running_[id].plan.get();
    if (!plan || plan->messages == 0) continue;
    // A message on its way is on average half done: with every channel on its own queue pair
    // (Transport::post_channel) a step's messages are in flight together for most of its events
    // and arrive together at its end.
    int64_t in_flight = 0;
    for (const detail::Conn& c : plan->conns) in_flight += c.outstanding;
    done += running_[id].units *
            (static_cast<double>(plan->messages - plan->remaining) + 0.5 * in_flight) /
            static_cast<double>(plan->messages);
  }
  return done;
}

}  // namespace fabricsim::workload
