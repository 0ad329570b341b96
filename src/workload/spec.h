// What traffic to generate.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace fabricsim::workload {

enum class WorkloadKind : uint8_t { kPattern, kCollective };
enum class PatternKind : uint8_t { kPermutation, kIncast, kAllToAll, kPoisson, kFlows };
enum class CollectiveOp : uint8_t { kAllReduce };
enum class CollectiveAlgorithm : uint8_t { kRing };

// A flow-size distribution as a piecewise-linear CDF: (size_bytes, cumulative probability)
// points with probabilities non-decreasing from >0 to exactly 1.
struct SizeCdfPoint {
  int64_t size_bytes = 0;
  double cumulative = 0.0;
};

// One flow of an explicit list (pattern: flows): an RDMA WRITE of size_bytes from src to dst
// NIC, posted at start_ps.
struct ExplicitFlow {
  int src = 0;
  int dst = 0;
  int64_t size_bytes = 0;
  int64_t start_ps = 0;
  int sl = -1;  // InfiniBand service level; -1 = the fabric's (fabric.ib.sl)
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
  std::vector<ExplicitFlow> flows;    // flows: the list, posted at their start times

  // kCollective
  CollectiveOp op = CollectiveOp::kAllReduce;
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::kRing;
  int64_t size_bytes = 64ll << 20;  // S: the buffer each rank all-reduces (nccl-tests "size")
  // Each ring step's chunk (S/n) is cut into slices of at most this many bytes, each sent as one
  // RDMA WRITE; a slice moves on to the next step as soon as it arrives (NCCL pipelines the
  // same way: its ring uses 8 slices per 4 MiB buffer, i.e. 512 KiB, NCCL_BUFFSIZE default).
  int64_t slice_bytes = 512 << 10;
};

}  // namespace fabricsim::workload
