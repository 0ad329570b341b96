#include "output/flow_stats.h"

namespace fabricsim::output {

FlowStats compute_flow_stats(const std::vector<scenario::FlowRecord>& flows) {
  return scenario::summarize_flows(flows).stats;
}

}  // namespace fabricsim::output
