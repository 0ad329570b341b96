// The size-sweep table under `fabricsim compare`'s (output/compare.h): one row per size as
// nccl-tests prints it.
#pragma once

#include <string>
#include <vector>

#include "output/compare.h"

namespace fabricsim::output {

// Each run's time (us) and busbw (GB/s) per size, and with two runs the busbw ratio. Sizes are
// the union over the runs (a variant's --set may change the sweep), ascending; "-" where a run
// has no such size or did not finish it. "" when no run is a sweep.
std::string sweep_table_text(const FabricRuns& runs, const std::vector<CompareMetrics>& ms);

}  // namespace fabricsim::output
