// NCCL-style collectives over GPU ranks (node::RankTransport): what to run and the engine that
// runs it. The engine moves data per slice/step message, never per packet: the fabric below
// (node/gpu_net.h -> transport -> net) does the packets.
//
// Sizes follow nccl-tests exactly (docs/reference/nccl.md §1.1): `size_bytes` is the value of
// nccl-tests' "size" column, so algbw = size / time and busbw = algbw x busbw_factor(op, n).
//   all_reduce, broadcast, reduce, send_recv: the per-rank buffer
//   all_gather: the total gathered buffer (each rank contributes size/n)
//   reduce_scatter: the total input buffer (each rank ends with size/n)
//   all_to_all: the total per-rank send buffer (size/n to each peer)
//   send: one point-to-point message ranks[0] -> ranks[1] (pipeline parallelism)
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "node/rank_transport.h"

namespace fabricsim::workload {

enum class CollOp : uint8_t {
  kAllReduce,
  kAllGather,
  kReduceScatter,
  kAllToAll,
  kBroadcast,
  kReduce,
  kSendRecv,  // nccl-tests sendrecv: every rank sends size to the next and receives from the previous
  kSend,      // one message ranks[0] -> ranks[1]
};
enum class CollAlgorithm : uint8_t {
  kAuto,             // NCCL's choice: the lowest predicted time (tuning.cc model)
  kRing,
  kTree,             // NCCL double binary tree (all-reduce)
  kHalvingDoubling,  // recursive halving-doubling (Thakur, Rabenseifner, Gropp 2005)
  kHierarchical,     // NVLink reduce-scatter, per-rail inter-node all-reduce, NVLink all-gather
  kDirect,           // all-to-all / send: one message per peer (NCCL's P2P expansion)
  kNvls,             // NVLink SHARP: the NVSwitch reduces and multicasts (one node, all-reduce)
  kNvlsTree,         // NVLS inside each node, a double binary tree of NVLS heads across nodes
  kCollnet,          // NCCL CollNet over IB SHARP, one rank per node: the switches reduce
};
enum class Protocol : uint8_t { kAuto, kSimple, kLL128, kLL };

const char* name(CollOp op);
const char* name(CollAlgorithm a);
const char* name(Protocol p);

// nccl-tests' busbw factor (docs/reference/nccl.md §1.1): 2(n-1)/n all-reduce; (n-1)/n all-gather,
// reduce-scatter, all-to-all; 1 broadcast, reduce, send_recv, send.
double busbw_factor(CollOp op, int ranks);

struct CollectiveSpec {
  CollOp op = CollOp::kAllReduce;
  CollAlgorithm algorithm = CollAlgorithm::kAuto;
  Protocol protocol = Protocol::kAuto;
  int channels = 0;  // 0 = the engine's default (CollectiveConfig)
  int64_t size_bytes = 0;
  int root = 0;  // broadcast / reduce: index into `ranks`
  // GPUs in communicator rank order. Ring order, tree shape and the hierarchical split follow
  // it together with RankTransport::node_of.
  std::vector<uint32_t> ranks;
};

// What a started collective resolved to (kAuto replaced) and when it ran.
struct CollectiveRecord {
  CollOp op = CollOp::kAllReduce;
  CollAlgorithm algorithm = CollAlgorithm::kRing;
  Protocol protocol = Protocol::kSimple;
  int channels = 1;
  int ranks = 0;
  int64_t size_bytes = 0;
  int64_t start_ps = -1;
  int64_t end_ps = -1;  // -1 = not finished
  int64_t messages = 0;   // transfers posted
  int64_t wire_bytes = 0;  // bytes moved, protocol overhead included
  // NCCL's tuning model (workload/nccl_model.h) for the algorithm and protocol chosen: the time
  // nccl-tests would approach on an uncontended fabric. -1 = no model (point-to-point, or an
  // algorithm NCCL's model does not cover and no ring prediction was made).
  int64_t predicted_ps = -1;
};

// Starts collectives and reports when they end. CollectiveEngine (workload/collective_engine.h)
// runs them over a node::RankTransport; tests of the layers above may use a closed-form runner.
// Called per collective, not per packet.
class CollectiveRunner {
 public:
  virtual ~CollectiveRunner() = default;
  // Starts `spec` now; done(id) is called once, when every rank has finished its part.
  virtual uint32_t start(const CollectiveSpec& spec, std::function<void(uint32_t id)> done) = 0;
  virtual const CollectiveRecord& record(uint32_t id) const = 0;
};

// Cookies of node::RankTransport: the collective engine uses values below kForeignCookie; the
// training engine (timers of compute phases) uses kForeignCookie and above.
inline constexpr uint64_t kForeignCookie = 1ull << 63;

}  // namespace fabricsim::workload
