#include "workload/collective.h"

namespace fabricsim::workload {

const char* name(CollOp op) {
  switch (op) {
    case CollOp::kAllReduce:
      return "all_reduce";
    case CollOp::kAllGather:
      return "all_gather";
    case CollOp::kReduceScatter:
      return "reduce_scatter";
    case CollOp::kAllToAll:
      return "all_to_all";
    case CollOp::kBroadcast:
      return "broadcast";
    case CollOp::kReduce:
      return "reduce";
    case CollOp::kSendRecv:
      return "send_recv";
    case CollOp::kSend:
      return "send";
  }
  return "?";
}

const char* name(CollAlgorithm a) {
  switch (a) {
    case CollAlgorithm::kAuto:
      return "auto";
    case CollAlgorithm::kRing:
      return "ring";
    case CollAlgorithm::kTree:
      return "tree";
    case CollAlgorithm::kHalvingDoubling:
      return "halving_doubling";
    case CollAlgorithm::kHierarchical:
      return "hierarchical";
    case CollAlgorithm::kDirect:
      return "direct";
    case CollAlgorithm::kNvls:
      return "nvls";
    case CollAlgorithm::kNvlsTree:
      return "nvls_tree";
    case CollAlgorithm::kCollnet:
      return "collnet";
  }
  return "?";
}

const char* name(Protocol p) {
  switch (p) {
    case Protocol::kAuto:
      return "auto";
    case Protocol::kSimple:
      return "simple";
    case Protocol::kLL128:
      return "ll128";
    case Protocol::kLL:
      return "ll";
  }
  return "?";
}

// nccl-tests@a0b82b2 src/<op>.cu <Op>GetBw (docs/reference/nccl.md §1.1).
double busbw_factor(CollOp op, int ranks) {
  const double n = ranks;
  if (ranks < 1) return 0;
  switch (op) {
    case CollOp::kAllReduce:
      return 2.0 * (n - 1) / n;
    case CollOp::kAllGather:
    case CollOp::kReduceScatter:
    case CollOp::kAllToAll:
      return (n - 1) / n;
    case CollOp::kBroadcast:
    case CollOp::kReduce:
    case CollOp::kSendRecv:
    case CollOp::kSend:
      return 1.0;
  }
  return 1.0;
}

}  // namespace fabricsim::workload
