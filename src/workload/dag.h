// A training step (or any job) as a dependency graph of compute phases and collectives over GPU
// ranks, the form Chakra execution traces also take. Importers (workload/astra_import.h) and the
// transformer generator (workload/transformer.h) build one; the training engine
// (workload/training.h) runs it on a CollectiveEngine. An op starts when all its dependencies
// have finished; a compute op occupies its rank's compute stream for `duration_ps`.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "workload/collective.h"

namespace fabricsim::workload {

// What an op is for: reports break time down by it.
enum class Phase : uint8_t {
  kForward,
  kInputGrad,   // backward: gradient w.r.t. activations
  kWeightGrad,  // backward: gradient w.r.t. weights
  kUpdate,      // optimizer step
  kDataParallel,      // gradient all-reduce (or reduce-scatter/all-gather) across DP replicas
  kTensorParallel,    // TP collectives on the critical path
  kPipelineParallel,  // activations/gradients between stages
  kExpertParallel,    // MoE all-to-all
  kOther,
};
const char* name(Phase p);

struct DagOp {
  enum class Kind : uint8_t { kCompute, kCollective };
  Kind kind = Kind::kCompute;
  Phase phase = Phase::kOther;
  uint32_t rank = 0;         // kCompute: the job-local rank whose compute stream runs it
  int64_t duration_ps = 0;   // kCompute
  uint32_t collective = 0;   // kCollective: index into Dag::collectives
  uint32_t first_dep = 0;    // dependencies: Dag::deps[first_dep, first_dep + num_deps)
  uint32_t num_deps = 0;
  uint32_t layer = 0;        // the model layer it belongs to (reports, trace)
};

// A collective of the DAG. Ranks are job-local (0 .. Dag::ranks-1) through `group`.
struct DagCollective {
  CollOp op = CollOp::kAllReduce;
  CollAlgorithm algorithm = CollAlgorithm::kAuto;
  Protocol protocol = Protocol::kAuto;
  int64_t size_bytes = 0;  // nccl-tests "size" semantics (workload/collective.h)
  int root = 0;
  uint32_t group = 0;  // index into Dag::groups
};

struct Dag {
  std::string name;
  uint32_t ranks = 0;  // job-local ranks; the job's placement maps them to GPUs
  std::vector<DagOp> ops;
  std::vector<uint32_t> deps;  // op indices, each < the op that depends on it
  std::vector<DagCollective> collectives;
  std::vector<std::vector<uint32_t>> groups;  // communicators: job-local ranks in rank order

  uint32_t add_group(std::vector<uint32_t> ranks_in_order) {
    groups.push_back(std::move(ranks_in_order));
    return static_cast<uint32_t>(groups.size() - 1);
  }
  uint32_t add_compute(uint32_t rank, int64_t duration_ps, Phase phase, uint32_t layer,
                       const std::vector<uint32_t>& after) {
    DagOp op;
    op.kind = DagOp::Kind::kCompute;
    op.rank = rank;
    op.duration_ps = duration_ps;
    op.phase = phase;
    op.layer = layer;
    return push(op, after);
  }
  uint32_t add_collective(const DagCollective& c, Phase phase, uint32_t layer,
                          const std::vector<uint32_t>& after) {
    collectives.push_back(c);
    DagOp op;
    op.kind = DagOp::Kind::kCollective;
    op.collective = static_cast<uint32_t>(collectives.size() - 1);
    op.phase = phase;
    op.layer = layer;
    return push(op, after);
  }

 private:
  uint32_t push(DagOp op, const std::vector<uint32_t>& after) {
    op.first_dep = static_cast<uint32_t>(deps.size());
    op.num_deps = static_cast<uint32_t>(after.size());
    deps.insert(deps.end(), after.begin(), after.end());
    ops.push_back(op);
    return static_cast<uint32_t>(ops.size() - 1);
  }
};

}  // namespace fabricsim::workload
