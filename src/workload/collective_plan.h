// The engine's internal form of one running collective (workload/collective_engine.h): a set of
// connections (one sender GPU, one receiver GPU, NCCL_STEPS credits), each carrying an ordered
// stream of messages (slices / chunks), with two kinds of dependencies between connections:
//   dep:  message m of a connection needs message m' of each predecessor connection to have
//         arrived at its sender (ring forwarding, tree reduce/broadcast, chains);
//   gate: a connection starts only when each gate connection has delivered everything
//         (halving-doubling steps, hierarchical phases).
// The algorithm builders (collective_ring.cpp, collective_tree.cpp, collective_hd.cpp,
// collective_p2p.cpp) fill a Plan; the engine runs it. Internal to src/workload.
#pragma once

#include <array>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

#include "workload/collective.h"
#include "workload/collective_config.h"

namespace fabricsim::workload::detail {

// One loop of a ring: nRanks blocks of at most a chunk each, every block cut into `slices`.
struct RingLoop {
  int64_t first_msg = 0;
  int64_t loop_bytes = 0;
  int32_t slices = 1;
};

// Message layout shared by the connections of one ring, or owned by one chunked connection.
struct Stream {
  bool ring = false;
  // Chunked: `total_bytes` cut into `messages` near-equal messages of at most chunk bytes.
  int64_t total_bytes = 0;
  // Ring: `n` ranks, `steps` steps per loop (2(n-1) all-reduce, n-1 all-gather/reduce-scatter).
  int n = 0;
  int steps = 0;
  std::vector<RingLoop> loops;
  int64_t messages = 0;
};

// Ring stream over `data_bytes` (>= n): loops of at most n x chunk_bytes, near-equal blocks.
Stream make_ring_stream(int64_t data_bytes, int n, int steps, int64_t chunk_bytes,
                        int64_t slice_bytes);
// The ring streams of `channels` channels splitting `data_bytes` (channel c: split_part), folded
// into one whose loop l carries every channel's loop l, or an empty stream (messages 0) when
// the channels' loops or slices differ. On one node every channel's ring crosses the same
// NVLink pairs (ring_order only rotates where each starts) with the same credits, latencies and
// layout, so the channels move in lockstep: one connection per pair with weight = channels
// (weighted max-min, node/fluid_ps.h) ends when they would, a few bytes apart per message
// (each folded block is split evenly, not as the sum of the channels' blocks).
// Channels first .. first + count - 1 of them only (a lane, BuildParams::fold_net_lanes).
Stream fold_ring_channels(int64_t data_bytes, int channels, int first, int count, int n,
                          int steps, int64_t chunk_bytes, int64_t slice_bytes);
// Chunked stream of `total_bytes` (>= 1) in messages of at most chunk_bytes.
Stream make_chunked_stream(int64_t total_bytes, int64_t chunk_bytes);
// Data bytes of message m of `s` sent by ring position `pos` (ignored for chunked streams).
int64_t message_bytes(const Stream& s, uint32_t pos, int64_t m);
// Index of the predecessor's message that message m needs, or -1 (ring step 0 of a loop).
int64_t required_index(const Stream& s, int64_t m);
// Index of the successor's message that arrival m enables, or -1 (ring last step of a loop).
int64_t dependent_index(const Stream& s, int64_t m);

inline constexpr int kSlotRing = 64;  // > 2 x the largest credit window (nccl_steps <= 32)

// How a connection's messages move: GPU to GPU, or through the NVSwitch's NVLS engine (reduce
// from a group into one GPU, or multicast from one GPU into a group; Plan::groups).
// kNvlsReduceMulticast is one-node NVLS all-reduce: the head's warps load-reduce a few bytes and
// multicast-store them at once (all_reduce.h NCCL_ALGO_NVLS, directRecvDirectSend over the
// multimem addresses), so a chunk's reduce and its multicast run together, not one after the
// other; each message is both flows, arrived when both are.
enum class ConnKind : uint8_t { kUnicast, kNvlsReduce, kNvlsMulticast, kSharp, kNvlsReduceMulticast };

struct Conn {
  // kNvlsReduce and kNvlsReduceMulticast: dst is the head and src another GPU of the group (for
  // latency and the trace);
  // kNvlsMulticast: src is the head and dst another GPU of the group; kSharp: src = dst = the
  // GPU whose buffer goes through the switches and comes back reduced (group: the SHARP group).
  uint32_t src = 0;
  uint32_t dst = 0;
  ConnKind kind = ConnKind::kUnicast;
  uint32_t group = 0;  // index into Plan::groups (NVLS kinds)
  uint32_t stream = 0;
  uint32_t ring_pos = 0;
  int64_t messages = 0;
  int64_t next_send = 0;
  int64_t arrived = 0;
  int32_t outstanding = 0;
  int32_t window = 8;
  // Channels folded into this connection (build_ring): each message stands for `weight`
  // channels' messages moving in lockstep, sent with that weight (RankTransport::send).
  int32_t weight = 1;
  bool net_folded = false;  // weight > 1 across nodes (Plan::moving_ps)
  // NCCL channel the connection belongs to: across nodes each channel has its own network
  // connection, so its own queue pair (RankTransport::send).
  uint32_t channel = 0;
  int32_t gates_pending = 0;
  int32_t halves_pending = 0;  // kNvlsReduceMulticast: flows of the message in flight not yet done
  // A P2P connection across nodes folded into one message (collective.fold_p2p): the chunk
  // its messages would have had (0: not folded), and (finalize) the rate its chunks' credit
  // loop allows them and how many would be in flight.
  int64_t folded_chunk_bytes = 0;
  double rate_cap_bps = 0;
  int32_t chunks_in_flight = 0;
  int32_t slot = -1;      // index into Plan::sat / Plan::cons, -1 = no deps either way
  int64_t delay_ps = 0;   // per-step software overhead charged before each send
  int64_t credit_ps = 0;  // one-way time of the credit (head update) back to the sender
  uint32_t preds_at = 0, npreds = 0;
  uint32_t succs_at = 0, nsuccs = 0;
  uint32_t gated_at = 0, ngated = 0;
};

struct Plan {
  int protocol = kProtoSimple;
  CollAlgorithm latency_algorithm = CollAlgorithm::kRing;  // which tuning.cc table
  bool multi_node = false;         // ring across nodes: intra hops floored at the net overhead
  bool one_rank_per_node = false;  // NET hops take the tree's latency (tuning.cc, ppn = 1)
  std::vector<Stream> streams;
  std::vector<Conn> conns;
  std::vector<std::vector<uint32_t>> groups;  // GPUs of NVLS reduce / multicast connections
  std::vector<std::pair<uint32_t, uint32_t>> dep_edges;   // (pred, succ), built then indexed
  std::vector<std::pair<uint32_t, uint32_t>> gate_edges;  // (gate, gated)
  std::vector<uint32_t> adj;
  // Per connection with deps: arrivals counted for each of its next messages (sat) and, for
  // arrived messages, dependents not yet posted (cons); both indexed by message & 63.
  std::vector<std::array<uint8_t, kSlotRing>> sat;
  std::vector<std::array<uint8_t, kSlotRing>> cons;
  // Folded connections across nodes (Conn::weight > 1, fold_net), per slot and message & 63:
  // when the message started moving (posted, after its per-step overhead), and once arrived,
  // how long before its arrival the first of its `weight` channels' messages would have
  // arrived (the head start of the step it enables, CollectiveEngine::on_arrived). Empty
  // without such connections.
  std::vector<std::array<int64_t, kSlotRing>> moving_ps;
  std::vector<std::array<int64_t, kSlotRing>> early_ps;
  int64_t remaining = 0;  // messages not yet arrived
  int64_t messages = 0;   // every connection's messages: `remaining` when the plan starts
  // The builders' current NCCL channel: add_conn gives it to the connections it adds.
  uint32_t channel = 0;

  uint32_t add_stream(Stream s) {
    streams.push_back(std::move(s));
    return static_cast<uint32_t>(streams.size() - 1);
  }
  uint32_t add_conn(uint32_t src, uint32_t dst, uint32_t stream, int window, uint32_t pos = 0) {
    Conn c;
    c.src = src;
    c.dst = dst;
    c.stream = stream;
    c.window = window;
    c.ring_pos = pos;
    c.channel = channel;
    conns.push_back(c);
    return static_cast<uint32_t>(conns.size() - 1);
  }
  // The heap this plan holds while its collective runs (after finalize: the edge lists freed),
  // each vector at its capacity plus glibc's 16-byte chunk header: the memory pre-flight.
  int64_t held_bytes() const {
    auto vec = [](const auto& v) {
      using T = typename std::decay_t<decltype(v)>::value_type;
      return v.capacity() == 0 ? int64_t{0}
                               : static_cast<int64_t>(v.capacity() * sizeof(T)) + 16;
    };
    int64_t bytes = static_cast<int64_t>(sizeof(Plan)) + 16 + vec(streams) + vec(conns) +
                    vec(groups) + vec(adj) + vec(sat) + vec(cons) + vec(moving_ps) +
                    vec(early_ps);
    for (const Stream& st : streams) bytes += vec(st.loops);
    for (const std::vector<uint32_t>& g : groups) bytes += vec(g);
    return bytes;
  }
  void dep(uint32_t pred, uint32_t succ) { dep_edges.emplace_back(pred, succ); }
  void gate(uint32_t gate_conn, uint32_t gated) { gate_edges.emplace_back(gate_conn, gated); }
};

// What the builders need besides the spec: resolved protocol, channels and sizes.
struct BuildParams {
  int protocol = kProtoSimple;
  int channels = 1;
  int window = 8;               // nccl_steps credits per connection
  int64_t step_data_bytes = 0;  // data bytes of one FIFO step for the protocol
  int ring_chunk_steps = 1;     // Simple ring all-reduce/all-gather/reduce-scatter: 4
  int ring_slice_steps = 1;     // and 2
  int64_t p2p_nvl_chunk_bytes = 0;
  int64_t p2p_net_chunk_bytes = 0;
  uint32_t gpus_per_node = 1;
  int64_t nvls_chunk_bytes = 0;  // NVLS / NVLS-tree chunk (per head and channel)
  int nvls_heads = 0;            // NVLS-tree: heads per node (one per NIC)
  int sharp_group = -1;          // CollNet / NVLS across nodes: the RankTransport SHARP group
  // The rank transport takes weighted sends inside a node (RankTransport::weighted_sends) and
  // nothing records per-channel messages: a ring on one node may fold its channels into one.
  bool fold_channels = false;
  // ... and takes them across nodes too (RankTransport::weighted_net_sends, flow mode): a ring
  // with one rank per node folds its channels as well.
  bool fold_net = false;
  // Across nodes, into this many connections (collective.fold_lanes).
  int fold_net_lanes = 1;
  // ... and a P2P connection across nodes is one message (collective.fold_p2p).
  bool fold_net_p2p = false;
  int64_t collnet_chunk_bytes = 0;
  int collnet_window = 8;
};

// The NVLS heads of one node (communicator indices in `node`, sorted by GPU): head h is the GPU
// on NIC h's rail, one per NIC (at most one per GPU).
std::vector<uint32_t> nvls_head_gpus(const CollectiveSpec& spec, const std::vector<uint32_t>& node,
                                     int heads);

// Node-major order of the communicator's ranks (communicator indices), nodes in order of first
// appearance, each node's ranks rotated so channel c starts at its (c mod count)-th rank.
std::vector<std::vector<uint32_t>> nodes_of(const std::vector<uint32_t>& ranks,
                                            uint32_t gpus_per_node);
std::vector<uint32_t> ring_order(const std::vector<std::vector<uint32_t>>& nodes, int channel);

inline bool is_p2p(CollOp op) {
  return op == CollOp::kSend || op == CollOp::kSendRecv || op == CollOp::kAllToAll;
}
// Index of a protocol in the per-protocol arrays (collective_config.h), and back.
inline int proto_index(Protocol p) {
  return p == Protocol::kLL ? kProtoLL : p == Protocol::kLL128 ? kProtoLL128 : kProtoSimple;
}
inline Protocol proto_enum(int i) {
  return i == kProtoLL ? Protocol::kLL : i == kProtoLL128 ? Protocol::kLL128 : Protocol::kSimple;
}

// Near-equal split of `total` into `parts`: part i.
inline int64_t split_part(int64_t total, int64_t parts, int64_t i) {
  return total / parts + (i < total % parts ? 1 : 0);
}

void build_ring(Plan& plan, const CollectiveSpec& spec, const BuildParams& bp);
void build_chain(Plan& plan, const CollectiveSpec& spec, const BuildParams& bp);
void build_tree(Plan& plan, const CollectiveSpec& spec, const BuildParams& bp);
void build_halving_doubling(Plan& plan, const CollectiveSpec& spec, const BuildParams& bp);
void build_hierarchical(Plan& plan, const CollectiveSpec& spec, const BuildParams& bp);
void build_p2p(Plan& plan, const CollectiveSpec& spec, const BuildParams& bp);
void build_nvls(Plan& plan, const CollectiveSpec& spec, const BuildParams& bp);
void build_nvls_tree(Plan& plan, const CollectiveSpec& spec, const BuildParams& bp);
// NVLS across nodes through IB SHARP (NCCL's NVLS with CollNet): per head, reduce in the node,
// the switches' sum over the nodes, multicast back.
void build_nvls_sharp(Plan& plan, const CollectiveSpec& spec, const BuildParams& bp);
// CollNet with one rank per node: each rank's buffer through the switches.
void build_collnet(Plan& plan, const CollectiveSpec& spec, const BuildParams& bp);

// NCCL's binary tree on ranks 0..n-1 (trees.cc ncclGetBtree): parent (-1 = root) and up to two
// children (-1 = none) of `rank`. Tree 2 of the double binary tree (ncclGetDtree) is the mirror
// (n-1-rank) for even n, the tree shifted by one rank for odd n.
struct TreeLinks {
  int parent = -1;
  int child0 = -1;
  int child1 = -1;
};
TreeLinks btree(int n, int rank);
TreeLinks dtree(int n, int rank, int which);

}  // namespace fabricsim::workload::detail
