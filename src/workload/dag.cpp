#include "workload/dag.h"

namespace fabricsim::workload {

const char* name(Phase p) {
  switch (p) {
    case Phase::kForward: return "forward";
    case Phase::kInputGrad: return "input_grad";
    case Phase::kWeightGrad: return "weight_grad";
    case Phase::kUpdate: return "update";
    case Phase::kDataParallel: return "data_parallel";
    case Phase::kTensorParallel: return "tensor_parallel";
    case Phase::kPipelineParallel: return "pipeline_parallel";
    case Phase::kExpertParallel: return "expert_parallel";
    case Phase::kOther: return "other";
  }
  return "?";
}

}  // namespace fabricsim::workload
