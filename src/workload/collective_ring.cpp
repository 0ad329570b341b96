// Ring-shaped plans: the ring (all-reduce = reduce-scatter + all-gather, all-gather,
// reduce-scatter), the pipelined chain of broadcast/reduce, the hierarchical all-reduce built
// from rings, and the stream layout all of them share. docs/collectives.md describes each.
#include <algorithm>
#include <utility>

#include "workload/collective_plan.h"

namespace fabricsim::workload::detail {

Stream make_ring_stream(int64_t data_bytes, int n, int steps, int64_t chunk_bytes,
                        int64_t slice_bytes) {
  Stream s;
  s.ring = true;
  s.n = n;
  s.steps = steps;
  s.total_bytes = data_bytes;
  // NCCL's loop covers nRanks x chunk per channel (enqueue.cc calcCollChunking, loopSize); here
  // the channel's share is cut into that many near-equal loops so no block is ever empty.
  const int64_t per_loop = static_cast<int64_t>(n) * chunk_bytes;
  const int64_t loops = std::max<int64_t>(1, (data_bytes + per_loop - 1) / per_loop);
  for (int64_t l = 0; l < loops; ++l) {
    RingLoop loop;
    loop.first_msg = s.messages;
    loop.loop_bytes = split_part(data_bytes, loops, l);
    const int64_t max_block = (loop.loop_bytes + n - 1) / n;
    loop.slices =
        static_cast<int32_t>(std::max<int64_t>(1, (max_block + slice_bytes - 1) / slice_bytes));
    s.messages += static_cast<int64_t>(steps) * loop.slices;
    s.loops.push_back(loop);
  }
  return s;
}

Stream make_chunked_stream(int64_t total_bytes, int64_t chunk_bytes) {
  Stream s;
  s.total_bytes = total_bytes;
  s.messages = std::max<int64_t>(1, (total_bytes + chunk_bytes - 1) / chunk_bytes);
  return s;
}

namespace {
const RingLoop& loop_of(const Stream& s, int64_t m) {
  auto it = std::upper_bound(s.loops.begin(), s.loops.end(), m,
                             [](int64_t v, const RingLoop& l) { return v < l.first_msg; });
  return *(it - 1);
}
}  // namespace

int64_t message_bytes(const Stream& s, uint32_t pos, int64_t m) {
  if (!s.ring) return split_part(s.total_bytes, s.messages, m);
  const RingLoop& l = loop_of(s, m);
  const int64_t local = m - l.first_msg;
  const int64_t step = local / l.slices;
  const int64_t slice = local % l.slices;
  // Position p sends block (p - step) mod n at `step`: the block it received at step-1 moves
  // on, so every block travels the whole ring (reduce-scatter, then all-gather).
  const int64_t block = ((static_cast<int64_t>(pos) - step) % s.n + s.n) % s.n;
  return split_part(split_part(l.loop_bytes, s.n, block), l.slices, slice);
}

int64_t required_index(const Stream& s, int64_t m) {
  if (!s.ring) return m;
  const RingLoop& l = loop_of(s, m);
  return (m - l.first_msg) / l.slices > 0 ? m - l.slices : -1;
}

int64_t dependent_index(const Stream& s, int64_t m) {
  if (!s.ring) return m;
  const RingLoop& l = loop_of(s, m);
  return (m - l.first_msg) / l.slices < s.steps - 1 ? m + l.slices : -1;
}

std::vector<std::vector<uint32_t>> nodes_of(const std::vector<uint32_t>& ranks,
                                            uint32_t gpus_per_node) {
  std::vector<std::vector<uint32_t>> nodes;
  std::vector<uint32_t> node_ids;
  for (uint32_t i = 0; i < ranks.size(); ++i) {
    const uint32_t node = ranks[i] / gpus_per_node;
    auto it = std::find(node_ids.begin(), node_ids.end(), node);
    if (it == node_ids.end()) {
      node_ids.push_back(node);
      nodes.push_back({i});
    } else {
      nodes[it - node_ids.begin()].push_back(i);
    }
  }
  return nodes;
}

std::vector<uint32_t> ring_order(const std::vector<std::vector<uint32_t>>& nodes, int channel) {
  std::vector<uint32_t> order;
  for (const std::vector<uint32_t>& node : nodes) {
    const size_t start = static_cast<size_t>(channel) % node.size();
    for (size_t k = 0; k < node.size(); ++k) order.push_back(node[(start + k) % node.size()]);
  }
  return order;
}

void build_ring(Plan& plan, const CollectiveSpec& spec, const BuildParams& bp) {
  const int n = static_cast<int>(spec.ranks.size());
  const int steps = spec.op == CollOp::kAllReduce ? 2 * (n - 1) : n - 1;
  const int64_t chunk = bp.step_data_bytes * bp.ring_chunk_steps;
  const int64_t slice = bp.step_data_bytes * bp.ring_slice_steps;
  // A credit frees sliceSteps FIFO slots, so NCCL_STEPS / sliceSteps slices may be in flight.
  const int window = std::max(1, bp.window / bp.ring_slice_steps);
  const auto nodes = nodes_of(spec.ranks, bp.gpus_per_node);
  // On one node every channel's ring crosses the same NVLink pairs. With one rank per node
  // every channel's ring is the same sequence of NIC pairs too (ring_order rotates nothing),
  // which flow mode's fabric serves as one connection per pair (fold_net).
  const bool one_order = nodes.size() == 1 || (bp.fold_net && nodes.size() == spec.ranks.size());
  if (bp.fold_channels && one_order && bp.channels > 1) {
    // Across nodes the channels fold into `lanes` connections of channels / lanes each (the
    // last takes the remainder), below.
    const int lanes = nodes.size() == 1 ? 1 : std::clamp(bp.fold_net_lanes, 1, bp.channels);
    const int per_lane = bp.channels / lanes;
    auto lane_channels = [&](int l) {  // the last lane takes the remainder
      return l + 1 < lanes ? per_lane : bp.channels - l * per_lane;
    };
    std::vector<Stream> folded;
    for (int l = 0; l < lanes; ++l) {
      folded.push_back(fold_ring_channels(spec.size_bytes, bp.channels, l * per_lane,
                                          lane_channels(l), n, steps, chunk, slice));
      if (folded.back().messages == 0) break;
    }
    if (folded.back().messages > 0) {
      const auto order = ring_order(nodes, 0);
      for (int l = 0; l < lanes; ++l) {
        const int count = lane_channels(l);
        plan.channel = static_cast<uint32_t>(l * per_lane);
        const uint32_t stream = plan.add_stream(std::move(folded[l]));
        const uint32_t first = static_cast<uint32_t>(plan.conns.size());
        for (int p = 0; p < n; ++p) {
          const uint32_t e = plan.add_conn(spec.ranks[order[p]], spec.ranks[order[(p + 1) % n]],
                                           stream, window, p);
          plan.conns[e].weight = count;
        }
        for (int p = 0; p < n; ++p) plan.dep(first + (p + n - 1) % n, first + p);
      }
      return;
    }
  }
  for (int c = 0; c < bp.channels; ++c) {
    plan.channel = static_cast<uint32_t>(c);
    const auto order = ring_order(nodes, c);
    const uint32_t stream = plan.add_stream(
        make_ring_stream(split_part(spec.size_bytes, bp.channels, c), n, steps, chunk, slice));
    const uint32_t first = static_cast<uint32_t>(plan.conns.size());
    for (int p = 0; p < n; ++p) {
      plan.add_conn(spec.ranks[order[p]], spec.ranks[order[(p + 1) % n]], stream, window, p);
    }
    for (int p = 0; p < n; ++p) plan.dep(first + (p + n - 1) % n, first + p);
  }
}

Stream fold_ring_channels(int64_t data_bytes, int channels, int first, int count, int n,
                          int steps, int64_t chunk_bytes, int64_t slice_bytes) {
  // Each channel's own stream, as the unfolded plan lays it out; their loops must match one to
  // one (a channel one byte larger can need one loop or one slice more at a boundary), and the
  // folded loop carries all of theirs.
  Stream folded = make_ring_stream(split_part(data_bytes, channels, first), n, steps,
                                   chunk_bytes, slice_bytes);
  int64_t total = split_part(data_bytes, channels, first);
  for (int c = first + 1; c < first + count; ++c) {
    const int64_t part = split_part(data_bytes, channels, c);
    const Stream s = make_ring_stream(part, n, steps, chunk_bytes, slice_bytes);
    if (s.loops.size() != folded.loops.size()) return Stream{};
    for (size_t l = 0; l < s.loops.size(); ++l) {
      if (s.loops[l].slices != folded.loops[l].slices) return Stream{};
      folded.loops[l].loop_bytes += s.loops[l].loop_bytes;
    }
    total += part;
  }
  folded.total_bytes = total;
  return folded;
}

void build_chain(Plan& plan, const CollectiveSpec& spec, const BuildParams& bp) {
  const int n = static_cast<int>(spec.ranks.size());
  const auto nodes = nodes_of(spec.ranks, bp.gpus_per_node);
  for (int c = 0; c < bp.channels; ++c) {
    plan.channel = static_cast<uint32_t>(c);
    const auto order = ring_order(nodes, c);
    const int root_pos = static_cast<int>(
        std::find(order.begin(), order.end(), static_cast<uint32_t>(spec.root)) - order.begin());
    // Broadcast flows root -> ... ; reduce flows ... -> root, starting after the root.
    const int first_pos = spec.op == CollOp::kBroadcast ? root_pos : root_pos + 1;
    const uint32_t stream = plan.add_stream(
        make_chunked_stream(split_part(spec.size_bytes, bp.channels, c), bp.step_data_bytes));
    for (int i = 0; i + 1 < n; ++i) {
      const uint32_t e =
          plan.add_conn(spec.ranks[order[(first_pos + i) % n]],
                        spec.ranks[order[(first_pos + i + 1) % n]], stream, bp.window);
      if (i > 0) plan.dep(e - 1, e);
    }
  }
}

void build_hierarchical(Plan& plan, const CollectiveSpec& spec, const BuildParams& bp) {
  const auto nodes = nodes_of(spec.ranks, bp.gpus_per_node);
  const int n_nodes = static_cast<int>(nodes.size());
  const int g = static_cast<int>(nodes[0].size());  // the engine checked every node has g
  const int64_t chunk = bp.step_data_bytes * bp.ring_chunk_steps;
  const int64_t slice = bp.step_data_bytes * bp.ring_slice_steps;
  const int window = std::max(1, bp.window / bp.ring_slice_steps);
  constexpr uint32_t kNone = UINT32_MAX;
  using Matrix = std::vector<std::vector<uint32_t>>;  // [node][position] -> connection
  for (int c = 0; c < bp.channels; ++c) {
    plan.channel = static_cast<uint32_t>(c);
    const int64_t data = split_part(spec.size_bytes, bp.channels, c);
    // order[x][p]: communicator index at position p of node x's channel-c ring; position p is
    // the same local GPU on every node, i.e. the same rail.
    Matrix order(n_nodes);
    for (int x = 0; x < n_nodes; ++x) order[x] = ring_order({nodes[x]}, c);
    // prev[x][p]: the connection into (x, p) of the previous phase; a rank starts a phase once
    // that connection has delivered everything.
    Matrix prev(n_nodes, std::vector<uint32_t>(g, kNone));
    // A ring over `len` members; member i sends to member i+1. Records the connection into
    // each member in `prev` for the next phase.
    auto ring = [&](int len, int steps, int64_t bytes, auto member) {
      if (len < 2) return;
      const uint32_t stream = plan.add_stream(make_ring_stream(bytes, len, steps, chunk, slice));
      const uint32_t first = static_cast<uint32_t>(plan.conns.size());
      for (int i = 0; i < len; ++i) {
        const auto [x, p] = member(i);
        const auto [nx, np] = member((i + 1) % len);
        const uint32_t e =
            plan.add_conn(spec.ranks[order[x][p]], spec.ranks[order[nx][np]], stream, window, i);
        if (prev[x][p] != kNone) plan.gate(prev[x][p], e);
      }
      for (int i = 0; i < len; ++i) plan.dep(first + (i + len - 1) % len, first + i);
      for (int i = 0; i < len; ++i) {
        const auto [x, p] = member(i);
        prev[x][p] = first + (i + len - 1) % len;
      }
    };
    // NVLink ring inside every node over the channel's whole share (reduce-scatter or
    // all-gather: g-1 steps, blocks of ~data/g). Each ring reads and updates only its own
    // members' entries of `prev`, so the rings of one phase do not see each other.
    auto intra = [&]() {
      for (int x = 0; x < n_nodes; ++x) {
        ring(g, g - 1, data, [x](int i) { return std::pair<int, int>{x, i}; });
      }
    };
    // Per rail p, a ring across the nodes over position p's share (~data/g).
    auto rails = [&](int steps) {
      for (int p = 0; p < g; ++p) {
        ring(n_nodes, steps, split_part(data, g, p), [p](int i) {
          return std::pair<int, int>{i, p};
        });
      }
    };
    switch (spec.op) {
      case CollOp::kAllReduce:  // NVLink reduce-scatter, per-rail all-reduce, NVLink all-gather
        intra();
        rails(2 * (n_nodes - 1));
        intra();
        break;
      case CollOp::kReduceScatter:  // NVLink reduce-scatter, then per-rail reduce-scatter
        intra();
        rails(n_nodes - 1);
        break;
      case CollOp::kAllGather:  // per-rail all-gather, then NVLink all-gather
        rails(n_nodes - 1);
        intra();
        break;
      default:
        break;
    }
  }
}

}  // namespace fabricsim::workload::detail
