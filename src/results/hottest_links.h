// The busiest links of a run, for the summary and result.json (issue 13: "the top 10"): a view
// of links.csv's rows (results/result.h LinkRow), whatever engine produced them.
#pragma once

#include <cstddef>
#include <vector>

#include "results/result.h"

namespace fabricsim::scenario {

// How many hottest links the summary and result.json show (issue 13: "the top 10").
inline constexpr size_t kHottestLinks = 10;

// The `n` busiest rows by utilization (ties: the lower port index first), busiest first.
// Rows that sent nothing are left out, so an idle fabric has no hottest link.
std::vector<LinkRow> hottest_links(const std::vector<LinkRow>& rows, size_t n);

}  // namespace fabricsim::scenario
