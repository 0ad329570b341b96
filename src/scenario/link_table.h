// links.csv's rows: every port (one direction of a cable) of a finished run with its totals,
// named as every per-link output names them (scenario/link_load.h node_label/port_label).
#pragma once

#include <vector>

#include "net/network.h"
#include "scenario/result.h"

namespace fabricsim::scenario {

// One row per port, in port-index order. Utilization is over loads.span_ps (0 when the span
// is 0: no traffic). Call after Network::finish_pause_accounting (paused_ps is then closed).
std::vector<LinkRow> link_table(const net::Network& net, const LinkLoads& loads);

// How many hottest links the summary and result.json show (issue 13: "the top 10").
inline constexpr size_t kHottestLinks = 10;

// The `n` busiest rows by utilization (ties: the lower port index first), busiest first.
// Rows that sent nothing are left out, so an idle fabric has no hottest link.
std::vector<LinkRow> hottest_links(const std::vector<LinkRow>& rows, size_t n);

}  // namespace fabricsim::scenario
