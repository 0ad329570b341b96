// The human summary table `fabricsim run` prints on stdout.
#pragma once

#include <ostream>
#include <string>

#include "results/result.h"

namespace fabricsim::output {

// Two aligned columns (what, value): scenario, topology, simulated time, flows, collective time
// with algbw/busbw (when the workload is a collective), FCT percentiles (nearest rank, see
// flow_stats.h) and mean slowdown, aggregate throughput, drops, retransmissions, then the host's
// run statistics. Ends with a newline.
std::string format_summary(const scenario::RunResult& result);
void print_summary(std::ostream& out, const scenario::RunResult& result);

}  // namespace fabricsim::output
