// NCCL's double binary tree all-reduce (docs/reference/nccl.md §3; nccl@5067397
// src/graph/trees.cc ncclGetBtree / ncclGetDtree, described there, not copied): two
// complementary binary trees over the nodes, a chain through the GPUs inside each node, each tree
// carrying half of every channel's data, reduced up to the root and broadcast back down,
// pipelined by chunks of one FIFO step.
#include <algorithm>

#include "workload/collective_plan.h"

namespace fabricsim::workload::detail {

TreeLinks btree(int n, int rank) {
  TreeLinks t;
  // The lowest set bit of `rank` gives its level; rank 0 sits above the largest power of two
  // below n and has that single child.
  int bit = 1;
  while (bit < n && (bit & rank) == 0) bit <<= 1;
  if (rank == 0) {
    t.child1 = n > 1 ? bit >> 1 : -1;
    return t;
  }
  t.parent = (rank ^ bit) | (bit << 1);
  if (t.parent >= n) t.parent = rank ^ bit;
  int low = bit >> 1;
  if (low == 0) return t;  // leaves: odd ranks
  t.child0 = rank - low;
  while (low > 0 && rank + low >= n) low >>= 1;
  t.child1 = low > 0 ? rank + low : -1;
  return t;
}

TreeLinks dtree(int n, int rank, int which) {
  if (which == 0) return btree(n, rank);
  TreeLinks t;
  if (n % 2 == 0) {  // mirror: every interior rank of tree 0 is a leaf of tree 1
    const TreeLinks m = btree(n, n - 1 - rank);
    auto f = [n](int r) { return r < 0 ? -1 : n - 1 - r; };
    t = {f(m.parent), f(m.child0), f(m.child1)};
  } else {  // odd n: shift by one rank
    const TreeLinks m = btree(n, (rank - 1 + n) % n);
    auto f = [n](int r) { return r < 0 ? -1 : (r + 1) % n; };
    t = {f(m.parent), f(m.child0), f(m.child1)};
  }
  return t;
}

void build_tree(Plan& plan, const CollectiveSpec& spec, const BuildParams& bp) {
  const int n = static_cast<int>(spec.ranks.size());
  const auto nodes = nodes_of(spec.ranks, bp.gpus_per_node);
  const int n_nodes = static_cast<int>(nodes.size());
  constexpr uint32_t kNone = UINT32_MAX;
  for (int c = 0; c < bp.channels; ++c) {
    const int64_t data = split_part(spec.size_bytes, bp.channels, c);
    for (int which = 0; which < 2; ++which) {
      // NCCL duplicates channel c as c + nChannels for the second tree (connect.cc).
      plan.channel = static_cast<uint32_t>(c + which * bp.channels);
      const uint32_t stream =
          plan.add_stream(make_chunked_stream(split_part(data, 2, which), bp.step_data_bytes));
      // Chain of each node for channel c, rotated to start at its (c mod G)-th GPU so channels
      // leave each node through different GPUs (and so NICs). Both trees of a channel share the
      // chain, as NCCL's duplicated channels c and c + nChannels do (connect.cc
      // ncclTopoPreset). chain[0] is the node's head: it talks to the parent node and, as in
      // NCCL_TOPO_PATTERN_TREE, to the child nodes.
      std::vector<std::vector<uint32_t>> chain(n_nodes);
      for (int x = 0; x < n_nodes; ++x) chain[x] = ring_order({nodes[x]}, c);
      std::vector<std::vector<uint32_t>> up_in(n);  // per communicator index
      std::vector<uint32_t> down_in(n, kNone);
      std::vector<uint32_t> up_conns, down_conns;
      auto link = [&](uint32_t child, uint32_t parent) {
        const uint32_t up = plan.add_conn(spec.ranks[child], spec.ranks[parent], stream, bp.window);
        const uint32_t down =
            plan.add_conn(spec.ranks[parent], spec.ranks[child], stream, bp.window);
        up_in[parent].push_back(up);
        down_in[child] = down;
        up_conns.push_back(up);
        down_conns.push_back(down);
      };
      int root_node = 0;
      for (int x = 0; x < n_nodes; ++x) {
        for (size_t k = chain[x].size() - 1; k >= 1; --k) link(chain[x][k], chain[x][k - 1]);
        const TreeLinks t = dtree(n_nodes, x, which);
        if (t.parent >= 0) {
          link(chain[x][0], chain[t.parent][0]);
        } else {
          root_node = x;
        }
      }
      const uint32_t root = chain[root_node][0];
      // Reduce: a rank sends up once all its children's message m is in. Broadcast: a rank
      // sends down once its parent's message m is in; the root once its reduction is complete.
      for (uint32_t e : up_conns) {
        const uint32_t sender = plan.conns[e].src;
        const uint32_t idx = static_cast<uint32_t>(
            std::find(spec.ranks.begin(), spec.ranks.end(), sender) - spec.ranks.begin());
        for (uint32_t in : up_in[idx]) plan.dep(in, e);
      }
      for (uint32_t e : down_conns) {
        const uint32_t sender = plan.conns[e].src;
        const uint32_t idx = static_cast<uint32_t>(
            std::find(spec.ranks.begin(), spec.ranks.end(), sender) - spec.ranks.begin());
        if (idx == root) {
          for (uint32_t in : up_in[idx]) plan.dep(in, e);
        } else {
          plan.dep(down_in[idx], e);
        }
      }
    }
  }
}

}  // namespace fabricsim::workload::detail
