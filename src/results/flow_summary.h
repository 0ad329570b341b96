// The statistics a run's flows give (flow count, FCT percentiles, slowdowns, by size and by
// class), accumulated one record at a time (issue 24 item 1): the packet engine's harvest feeds
// each message's record as it reads it and keeps none of them, so the figures cost the
// percentile digests (core/quantile_digest.h: exact up to 2^18 values each, a 0.1%-relative
// sketch beyond), not a record per message. The summary table, result.json and compare all
// read the one FlowSummary, so they always agree.
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
// Percentiles are nearest-rank (core/quantile_digest.h): p50, p99, p99.9 are one of the
// measured values while a group holds at most 2^18 flows, never interpolated.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/quantile_digest.h"

namespace fabricsim::scenario {

struct FlowRecord;

// Upper edges of the size buckets (inclusive); the last bucket has no upper edge.
inline constexpr int64_t kFctBucketEdgesBytes[] = {10'000, 100'000, 1'000'000, 10'000'000};
inline constexpr int kFctBuckets = 5;

// The bucket (0 .. kFctBuckets - 1) a flow of `size_bytes` falls in.
int fct_bucket(int64_t size_bytes);

struct FlowStats {
  int64_t total = 0;
  int64_t completed = 0;
  // Flow completion times over completed flows; 0 when none completed.
  int64_t fct_p50_ps = 0;
  int64_t fct_p99_ps = 0;
  int64_t fct_max_ps = 0;
  // Mean of FCT / ideal FCT over completed flows with a known ideal; 0 when there are none.
  double mean_slowdown = 0;
  // A percentile above came from the sketch (more than 2^18 completed flows): within 0.1%.
  bool sketched = false;
};

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

struct FlowSummary {
  FlowStats stats;
  std::vector<FctGroup> by_size;   // one group per size bucket holding a flow, smallest first
  std::vector<FctGroup> by_class;  // one group per class some flow used, lowest first
  int64_t first_start_ps = -1;     // earliest start over all flows (-1: no flow)
  int64_t last_finish_ps = -1;     // latest finish over finished flows (-1: none finished)
  int64_t finished_bytes = 0;      // payload of the finished flows
};

// Feed every flow once, in id order (the slowdown mean is summed in that order, so the figure is
// the same bit for bit however the records are stored), then take the summary.
class FlowSummaryBuilder {
 public:
  void add(const FlowRecord& f);
  FlowSummary summary() const;
  // Bytes its digests hold now (the pre-flight's "flow summary" part).
  size_t bytes() const;

 private:
  struct Group {
    int64_t flows = 0;
    QuantileDigest<int64_t> fct;
    QuantileDigest<double> slowdown;
  };
  static void fill(const Group& acc, FctGroup& g);

  FlowSummary head_;  // counts, span and the slowdown mean's parts
  QuantileDigest<int64_t> fct_;
  double slowdown_sum_ = 0;
  int64_t slowdown_count_ = 0;
  Group by_size_[kFctBuckets];
  std::map<int, Group> by_class_;
};

// Flows a trace of `flows` flows keeps at `max_flows`: the stride k = ceil(flows / max_flows)
// (1 = all) and the count kept, ceil(flows / k).
struct FlowSample {
  int64_t stride = 1;
  int64_t kept = 0;
};
FlowSample flow_sample(int64_t flows, int64_t max_flows);

// At most the resident bytes a FlowSummaryBuilder of `flows` flows holds (the pre-flight's "flow
// summary" part), when their sizes fall in at most `size_buckets` of the kFctBuckets and they
// use at most `classes` traffic classes: each completed flow adds one value to 5 digests (all
// FCTs; its size bucket's FCT and slowdown; its class's FCT and slowdown), a digest keeps at
// most kExactValues of them in a vector grown by push_back (whose capacity is resident at
// most: the old buffer plus the written part of the new one), then a sketch of buckets.
int64_t flow_summary_bytes_bound(int64_t flows, int size_buckets = kFctBuckets, int classes = 16);

// The summary of a whole list (a hand-built RunResult's, or a library caller's own records).
FlowSummary summarize_flows(const std::vector<FlowRecord>& flows);

}  // namespace fabricsim::scenario
