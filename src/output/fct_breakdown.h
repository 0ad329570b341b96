// FCT and slowdown broken down by flow size and by class (issue 13 item 2): the summary's two
// short tables and result.json's fct_by_size / fct_by_class. The groups, their size edges and
// their percentiles are results/flow_summary.h's (computed there once, as records are read).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "results/flow_summary.h"
#include "results/result.h"

namespace fabricsim::output {

using scenario::FctGroup;  // results/flow_summary.h
using scenario::fct_bucket;
using scenario::kFctBucketEdgesBytes;
using scenario::kFctBuckets;

// One group per size bucket that holds at least one flow, smallest first.
std::vector<FctGroup> fct_by_size(const std::vector<scenario::FlowRecord>& flows);
// One group per class that some flow used, lowest class first.
std::vector<FctGroup> fct_by_class(const std::vector<scenario::FlowRecord>& flows);

}  // namespace fabricsim::output

namespace fabricsim::output {

// The summary's table of `groups` under a heading line (two-space indent, one row per group):
// flows, completed, FCT p50/p99/p99.9 and slowdown p50/p99/p99.9 ("-" where there is none).
std::string fct_groups_text(const std::string& heading, const std::vector<FctGroup>& groups);

}  // namespace fabricsim::output
