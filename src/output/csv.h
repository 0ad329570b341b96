// flows.csv: one row per flow, for plotting FCT distributions outside the simulator.
#pragma once

#include <string>
#include <vector>

#include "results/flows_csv.h"
#include "results/result.h"

namespace fabricsim::output {

using scenario::kFlowsCsvHeader;  // results/flows_csv.h

// routes.csv (InfiniBand): switch,tier,port,direction,far,routes, one row per switch port, the
// CA LIDs the Subnet Manager's LFT sends out of each (`far` is "nic N" or "switch N").
std::string routes_csv_text(const std::vector<scenario::PortRoutes>& routes);

// Header line, then one line per flow in the given order (results/flows_csv.h's rows); `with_path`
// (outputs.flows.path) adds a last column, path.
std::string flows_csv_text(const std::vector<scenario::FlowRecord>& flows, bool with_path = false);

}  // namespace fabricsim::output
