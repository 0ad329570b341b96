// What traffic to generate.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "workload/collective.h"

namespace fabricsim::workload {

enum class WorkloadKind : uint8_t { kPattern, kCollective, kTraining };
// kGroupShift: NIC j of group i sends to NIC j of group i + 1 (mod groups), the Dragonfly's
// adversarial pattern (Kim et al. ISCA 2008 §4: "WC", worst case for minimal routing).
enum class PatternKind : uint8_t { kPermutation, kIncast, kAllToAll, kPoisson, kFlows, kPingPong, kGroupShift };

// A flow-size distribution as a piecewise-linear CDF: (size_bytes, cumulative probability)
// points with probabilities non-decreasing to exactly 1. A draw below the first point's
// probability is the first size, unless the first point is (0 B, 0) (the named tables of
// workload/size_distributions.h): then the first segment starts at 0 bytes.
struct SizeCdfPoint {
  int64_t size_bytes = 0;
  double cumulative = 0.0;
};

// workload.size_distribution (workload/size_distributions.h): a published flow-size table by
// name, or kCustom (workload.size_cdf, or every flow flow_size).
enum class SizeDistribution : uint8_t { kCustom, kWebSearch, kFbHadoop, kAliStorage };

// One flow of an explicit list (pattern: flows): an RDMA WRITE of size_bytes from src to dst
// NIC, posted at start_ps.
struct ExplicitFlow {
  int src = 0;
  int dst = 0;
  int64_t size_bytes = 0;
  int64_t start_ps = 0;
  int sl = -1;  // InfiniBand service level; -1 = the fabric's (fabric.ib.sl)
};

// pattern: ping_pong (workload/ping_pong.h): per pair, A posts size_bytes to B, B answers with
// size_bytes as soon as its application sees them, iterations + warmup times.
struct PingPongSpec {
  std::vector<int> pairs = {0, 1};  // NIC indices [a0, b0, a1, b1, ...]
  int64_t size_bytes = 2;               // perftest's default message size (2 B)
  int iterations = 1000;                // perftest's default for latency tests
  int warmup = 0;                       // leading round trips left out of the statistics
};

struct WorkloadSpec {
  WorkloadKind kind = WorkloadKind::kCollective;

  // kPattern
  PatternKind pattern = PatternKind::kPermutation;
  int64_t flow_size_bytes = 1 << 20;  // permutation, incast, all-to-all: bytes per flow
  int incast_senders = 16;            // incast: N senders into one receiver
  int incast_receiver = 0;            // incast: receiving NIC index
  double load = 0.5;                  // poisson: offered load as a fraction of NIC line rate
  int64_t duration_ps = 0;            // poisson: arrivals are generated in [0, duration)
  std::vector<SizeCdfPoint> size_cdf; // poisson: flow sizes; empty = fixed flow_size_bytes
  SizeDistribution size_distribution = SizeDistribution::kCustom;  // poisson: a named table
  std::vector<ExplicitFlow> flows;    // flows: the list, posted at their start times
  PingPongSpec ping_pong;             // ping_pong: the pairs and their round trips
  int group_nics = 0;  // group_shift: NICs per group (0 = the Dragonfly's p·a, set at build)

  // kCollective
  // Without GPUs (node.gpus_per_node 0) the NICs are the ranks and only the ring all-reduce
  // below runs; with GPUs the collective engine (workload/collective_engine.h) runs every op.
  CollOp op = CollOp::kAllReduce;
  CollAlgorithm algorithm = CollAlgorithm::kAuto;  // NCCL picks by its cost model by default
  Protocol protocol = Protocol::kAuto;
  int channels = 0;  // 0 = the collective engine's default (collective.channels)
  int root = 0;      // broadcast / reduce: the root rank
  int64_t size_bytes = 64ll << 20;  // S: nccl-tests "size" (workload/collective.h)
  // nccl-tests -e / -f: when max_size_bytes > size_bytes, sizes size, size x factor, ... up to
  // max_size_bytes run one after another (each starts when the previous has finished), one row
  // each in the nccl-tests table.
  int64_t max_size_bytes = 0;
  int step_factor = 2;
  // nccl-tests -d: the element type, for the count column (count = size / element bytes).
  std::string data_type = "float";
  // Each ring step's chunk (S/n) is cut into slices of at most this many bytes, each sent as one
  // RDMA WRITE; a slice moves on to the next step as soon as it arrives (NCCL pipelines the
  // same way: its ring uses 8 slices per 4 MiB buffer, i.e. 512 KiB, NCCL_BUFFSIZE default).
  int64_t slice_bytes = 512 << 10;
};

}  // namespace fabricsim::workload
