// links.csv's rows: every port (one direction of a cable) of a finished run with its totals,
// named as every per-link output names them (engine/packet/link_load.h node_label/port_label).
#pragma once

#include <vector>

#include "net/network.h"
#include "results/result.h"

namespace fabricsim::scenario {

// One row per port, in port-index order. Utilization is over loads.span_ps (0 when the span
// is 0: no traffic). Call after Network::finish_pause_accounting (paused_ps is then closed).
std::vector<LinkRow> link_table(const net::Network& net, const LinkLoads& loads);

}  // namespace fabricsim::scenario
