// FCT and slowdown broken down by flow size and by class (issue 13 item 2): the summary's two
// short tables and result.json's fct_by_size / fct_by_class.
//
// Size buckets, in payload bytes (decimal units, as flow-size CDFs in the literature use):
//   (0, 10 KB], (10 KB, 100 KB], (100 KB, 1 MB], (1 MB, 10 MB], (10 MB, inf).
// Why these edges: pFabric (Alizadeh et al., SIGCOMM 2013, §5) reports "small" flows as
// (0, 100 KB] and "large" as (10 MB, inf), and DCTCP's measured datacenter traffic (Alizadeh et
// al., SIGCOMM 2010, §2) separates queries (~KB) from short messages (50 KB-1 MB) and background
// flows (1 MB and up); one bucket per decade between those keeps every class of that literature
// apart while giving an AI fabric's large collectives (MB to GB) their own top bucket. The
// pFabric edges are as recalled from the paper's figures, UNVERIFIED against its text here.
// HPCC's own analysis (alibaba-edu/High-Precision-Congestion-Control analysis/fct_analysis.py)
// groups differently: flows sorted by size into equal-count bins of 5% each, slowdown floored
// at 1, percentile = sorted[floor(n x p)]. We keep fixed edges, because bins that move with the
// workload cannot be compared across runs or fabrics; flows.csv has what HPCC-style bins need.
//
// Percentiles are nearest-rank (output/flow_stats.h): p50, p99, p99.9 are always one of the
// measured values, never interpolated.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "results/result.h"

namespace fabricsim::output {

// Upper edges of the size buckets (inclusive); the last bucket has no upper edge.
inline constexpr int64_t kFctBucketEdgesBytes[] = {10'000, 100'000, 1'000'000, 10'000'000};
inline constexpr int kFctBuckets = 5;

struct FctGroup {
  std::string label;      // "<=10KB", "10KB-100KB", ..., ">10MB"; or "class 3"
  int64_t min_bytes = 0;  // size bucket: sizes in (min_bytes, max_bytes]; max -1 = no limit
  int64_t max_bytes = -1;
  int traffic_class = -1;  // class group: the IB SL / 802.1p priority; -1 for a size bucket
  int64_t flows = 0;       // flows in the group
  int64_t completed = 0;   // of which finished (FCT percentiles are over these)
  int64_t fct_p50_ps = 0, fct_p99_ps = 0, fct_p999_ps = 0;
  // Over completed flows with a known ideal FCT; 0 when there are none (with_slowdown false).
  bool with_slowdown = false;
  double slowdown_p50 = 0, slowdown_p99 = 0, slowdown_p999 = 0;
};

// The bucket (0 .. kFctBuckets - 1) a flow of `size_bytes` falls in.
int fct_bucket(int64_t size_bytes);

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
