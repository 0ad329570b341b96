// NVLS all-reduce (NVLink SHARP) on one node and NVLS-tree across nodes, as NCCL runs them
// (nccl@5067397 src/device/all_reduce.h NCCL_ALGO_NVLS / NCCL_ALGO_NVLS_TREE,
// src/graph/connect.cc connectNvls; docs/reference/nccl-at-scale.md §4, read for the data
// movement, not copied):
//   - each channel's share is split over the node's NVLS heads; head h owns part h;
//   - reduce: head h's multimem.ld_reduce makes the NVSwitch read part h from every GPU of the
//     node and return one reduced copy to h (RankTransport::nvls_reduce);
//   - one node: head h multicasts the result into every GPU (multimem.st, nvls_multicast), the
//     same warps as the reduce, a few bytes after them: a chunk's two flows run together;
//   - NVLS-tree: the heads of rail h (one per node) form NCCL's double binary tree over the
//     nodes (channel c on tree c mod 2); a head sends its node's partial sum, plus its children's,
//     up over the network, the root's result comes back down, and each head multicasts it.
//   - NVLS across nodes with IB SHARP (NCCL's NVLS when CollNet is on): each head's node sum goes
//     through the switches' aggregation tree of its rail and comes back as the global sum;
//   - CollNet with one rank per node: each rank's buffer goes through the switches.
// Every stage is pipelined by chunks of collective.nvls_chunk (128 KiB; 64 KiB for NVLS-tree on
// >= 4 nodes), NCCL_STEPS credits per connection.
#include <algorithm>

#include "workload/collective_plan.h"

namespace fabricsim::workload::detail {
namespace {

// A reduce into `head` and a multicast out of it, over `group` (GPU ids of one node).
struct NodeStage {
  uint32_t reduce = 0;
  uint32_t multicast = 0;
};

NodeStage add_node_stage(Plan& plan, const std::vector<uint32_t>& group, size_t head_index,
                         uint32_t stream, int window) {
  const uint32_t g = static_cast<uint32_t>(plan.groups.size());
  plan.groups.push_back(group);
  const uint32_t head = group[head_index];
  const uint32_t other = group[(head_index + 1) % group.size()];
  NodeStage s;
  s.reduce = plan.add_conn(other, head, stream, window);
  plan.conns[s.reduce].kind = ConnKind::kNvlsReduce;
  plan.conns[s.reduce].group = g;
  s.multicast = plan.add_conn(head, other, stream, window);
  plan.conns[s.multicast].kind = ConnKind::kNvlsMulticast;
  plan.conns[s.multicast].group = g;
  return s;
}

std::vector<uint32_t> gpus_of(const CollectiveSpec& spec, const std::vector<uint32_t>& node) {
  std::vector<uint32_t> g;
  g.reserve(node.size());
  for (uint32_t idx : node) g.push_back(spec.ranks[idx]);
  return g;
}

}  // namespace

void build_nvls(Plan& plan, const CollectiveSpec& spec, const BuildParams& bp) {
  const auto nodes = nodes_of(spec.ranks, bp.gpus_per_node);
  const std::vector<uint32_t> group = gpus_of(spec, nodes[0]);
  const int heads = static_cast<int>(group.size());
  const uint32_t g = static_cast<uint32_t>(plan.groups.size());
  plan.groups.push_back(group);
  for (int c = 0; c < bp.channels; ++c) {
    plan.channel = static_cast<uint32_t>(c);
    const int64_t data = split_part(spec.size_bytes, bp.channels, c);
    for (int h = 0; h < heads; ++h) {
      const int64_t part = std::max<int64_t>(1, split_part(data, heads, h));
      const uint32_t stream = plan.add_stream(make_chunked_stream(part, bp.nvls_chunk_bytes));
      // One node: the head's reduce and multicast of a chunk run together (ConnKind
      // kNvlsReduceMulticast). Chained chunk by chunk they left a chunk's time (~50 us at 128
      // streams of 128 KiB) of pipeline fill and drain that NCCL's kernel does not have.
      const uint32_t head = group[static_cast<size_t>(h)];
      const uint32_t other = group[static_cast<size_t>(h + 1) % group.size()];
      const uint32_t e = plan.add_conn(other, head, stream, bp.window);
      plan.conns[e].kind = ConnKind::kNvlsReduceMulticast;
      plan.conns[e].group = g;
    }
  }
}

std::vector<uint32_t> nvls_head_gpus(const CollectiveSpec& spec, const std::vector<uint32_t>& node,
                                     int heads) {
  std::vector<uint32_t> g = gpus_of(spec, node);
  std::sort(g.begin(), g.end());  // local order, so head h sits on rail h
  const int local = static_cast<int>(g.size());
  heads = std::clamp(heads, 1, local);
  std::vector<uint32_t> out;
  for (int h = 0; h < heads; ++h) out.push_back(g[static_cast<size_t>(h) * (local / heads)]);
  return out;
}

void build_nvls_sharp(Plan& plan, const CollectiveSpec& spec, const BuildParams& bp) {
  const auto nodes = nodes_of(spec.ranks, bp.gpus_per_node);
  const int local = static_cast<int>(nodes[0].size());
  const int heads = std::clamp(bp.nvls_heads, 1, local);
  // One stream per head for all channels: a SHARP group's members must issue their reductions
  // in the same order (RankTransport::sharp_allreduce), which per-channel streams progressing
  // at different speeds on different nodes would not.
  for (int h = 0; h < heads; ++h) {
    const int64_t part = std::max<int64_t>(1, split_part(spec.size_bytes, heads, h));
    const uint32_t stream = plan.add_stream(make_chunked_stream(part, bp.collnet_chunk_bytes));
    for (const auto& node : nodes) {
      std::vector<uint32_t> group = gpus_of(spec, node);
      std::sort(group.begin(), group.end());
      const size_t head_index = static_cast<size_t>(h) * static_cast<size_t>(local / heads);
      const NodeStage s = add_node_stage(plan, group, head_index, stream, bp.collnet_window);
      const uint32_t head = group[head_index];
      const uint32_t sharp = plan.add_conn(head, head, stream, bp.collnet_window);
      plan.conns[sharp].kind = ConnKind::kSharp;
      plan.conns[sharp].group = static_cast<uint32_t>(bp.sharp_group);
      plan.dep(s.reduce, sharp);
      plan.dep(sharp, s.multicast);
    }
  }
}

void build_collnet(Plan& plan, const CollectiveSpec& spec, const BuildParams& bp) {
  const uint32_t stream =
      plan.add_stream(make_chunked_stream(spec.size_bytes, bp.collnet_chunk_bytes));
  for (uint32_t gpu : spec.ranks) {
    const uint32_t sharp = plan.add_conn(gpu, gpu, stream, bp.collnet_window);
    plan.conns[sharp].kind = ConnKind::kSharp;
    plan.conns[sharp].group = static_cast<uint32_t>(bp.sharp_group);
  }
}

void build_nvls_tree(Plan& plan, const CollectiveSpec& spec, const BuildParams& bp) {
  const auto nodes = nodes_of(spec.ranks, bp.gpus_per_node);
  const int n_nodes = static_cast<int>(nodes.size());
  const int local = static_cast<int>(nodes[0].size());
  const int heads = std::clamp(bp.nvls_heads, 1, local);
  std::vector<std::vector<uint32_t>> groups;
  for (const auto& node : nodes) {
    std::vector<uint32_t> g = gpus_of(spec, node);
    std::sort(g.begin(), g.end());  // local order, so head h sits on rail h
    groups.push_back(std::move(g));
  }
  for (int c = 0; c < bp.channels; ++c) {
    plan.channel = static_cast<uint32_t>(c);
    const int64_t data = split_part(spec.size_bytes, bp.channels, c);
    const int which = c % 2;
    for (int h = 0; h < heads; ++h) {
      const int64_t part = std::max<int64_t>(1, split_part(data, heads, h));
      const uint32_t stream = plan.add_stream(make_chunked_stream(part, bp.nvls_chunk_bytes));
      // Head h of every node: the GPU on NIC h's rail (one head per NIC).
      const size_t head_index = static_cast<size_t>(h) * static_cast<size_t>(local / heads);
      std::vector<NodeStage> stage(n_nodes);
      for (int x = 0; x < n_nodes; ++x) {
        stage[x] = add_node_stage(plan, groups[x], head_index, stream, bp.window);
      }
      auto head = [&](int x) { return groups[x][head_index]; };
      // up[x]: x's head -> its parent's; down[x]: the parent's head -> x's.
      std::vector<uint32_t> up(n_nodes, UINT32_MAX), down(n_nodes, UINT32_MAX);
      std::vector<std::vector<int>> children(n_nodes);
      int root = 0;
      for (int x = 0; x < n_nodes; ++x) {
        const TreeLinks t = dtree(n_nodes, x, which);
        if (t.parent < 0) {
          root = x;
          continue;
        }
        children[t.parent].push_back(x);
        up[x] = plan.add_conn(head(x), head(t.parent), stream, bp.window);
        down[x] = plan.add_conn(head(t.parent), head(x), stream, bp.window);
      }
      for (int x = 0; x < n_nodes; ++x) {
        // What x's head knows once its own node is reduced and its children's sums are in.
        std::vector<uint32_t> partial{stage[x].reduce};
        for (int y : children[x]) partial.push_back(up[y]);
        if (x != root) {
          for (uint32_t p : partial) plan.dep(p, up[x]);
        }
        // The full result at x: the root's partial sum, or what came down from the parent.
        const std::vector<uint32_t> result = x == root ? partial : std::vector<uint32_t>{down[x]};
        for (uint32_t p : result) plan.dep(p, stage[x].multicast);
        for (int y : children[x]) {
          for (uint32_t p : result) plan.dep(p, down[y]);
        }
      }
    }
  }
}

}  // namespace fabricsim::workload::detail
