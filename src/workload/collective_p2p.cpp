// Point-to-point plans: send (ranks[0] -> ranks[1], pipeline parallelism), nccl-tests' sendrecv
// (every rank to the next) and all-to-all, which NCCL's enqueue layer expands into one send/recv
// pair per peer (docs/reference/nccl.md §3, enqueue.cc p2pTaskAppend). Each connection is cut
// into P2P chunks: NCCL_P2P_NVL_CHUNKSIZE inside a node, NCCL_P2P_NET_CHUNKSIZE across nodes.
#include <algorithm>
#include <map>
#include <utility>

#include "workload/collective_plan.h"

namespace fabricsim::workload::detail {

void build_p2p(Plan& plan, const CollectiveSpec& spec, const BuildParams& bp) {
  const int n = static_cast<int>(spec.ranks.size());
  // Connections with the same size and chunk share one stream (an all-to-all has n(n-1) of them
  // but at most a few distinct layouts).
  std::map<std::pair<int64_t, int64_t>, uint32_t> streams;
  auto add = [&](uint32_t src, uint32_t dst, int64_t bytes) {
    const bool same_node = src / bp.gpus_per_node == dst / bp.gpus_per_node;
    int64_t chunk = same_node ? bp.p2p_nvl_chunk_bytes : bp.p2p_net_chunk_bytes;
    // LL moves at most one LL step of data per FIFO slot.
    if (bp.protocol == kProtoLL) chunk = std::min(chunk, bp.step_data_bytes);
    for (int c = 0; c < bp.channels; ++c) {
      plan.channel = static_cast<uint32_t>(c);
      const int64_t part = split_part(bytes, bp.channels, c);
      // Flow mode: the connection's chunks would follow one another on its NIC pair's fluid
      // connection, each PCIe stage cut-through into the NIC: one message moves the same
      // fluid with one stage each way instead of one per chunk (collective.fold_p2p). What
      // the chunks' credit loop would have limited is a rate cap (finalize).
      const bool fold = !same_node && bp.fold_net_p2p && part > chunk;
      const int64_t unfolded_chunk = chunk;
      if (fold) chunk = part;
      auto [it, fresh] = streams.try_emplace({part, chunk}, 0);
      if (fresh) it->second = plan.add_stream(make_chunked_stream(part, chunk));
      const uint32_t e = plan.add_conn(src, dst, it->second, bp.window);
      if (fold) plan.conns[e].folded_chunk_bytes = unfolded_chunk;
    }
  };
  switch (spec.op) {
    case CollOp::kSend:
      add(spec.ranks[0], spec.ranks[1], spec.size_bytes);
      break;
    case CollOp::kSendRecv:
      for (int i = 0; i < n; ++i) add(spec.ranks[i], spec.ranks[(i + 1) % n], spec.size_bytes);
      break;
    case CollOp::kAllToAll:
      // nccl-tests: size is the whole per-rank send buffer, size/n to every peer; the block to
      // oneself is a local copy and never crosses a link.
      // Peers in NCCL's P2P schedule order: at round d every rank sends to rank + d, so no
      // receiver is everyone's first destination.
      for (int i = 0; i < n; ++i) {
        for (int d = 1; d < n; ++d)
          add(spec.ranks[i], spec.ranks[(i + d) % n], spec.size_bytes / n);
      }
      break;
    default:
      break;
  }
}

}  // namespace fabricsim::workload::detail
