#include "results/flow_summary.h"

#include <algorithm>
#include <bit>
#include <climits>
#include <cmath>

#include "results/result.h"

namespace fabricsim::scenario {
namespace {

const char* const kBucketLabels[kFctBuckets] = {"<=10KB", "10KB-100KB", "100KB-1MB", "1MB-10MB",
                                                ">10MB"};

}  // namespace

int fct_bucket(int64_t size_bytes) {
  int b = 0;
  while (b < kFctBuckets - 1 && size_bytes > kFctBucketEdgesBytes[b]) ++b;
  return b;
}

void FlowSummaryBuilder::add(const FlowRecord& f) {
  ++head_.stats.total;
  Group& size_group = by_size_[fct_bucket(f.size_bytes)];
  Group& class_group = by_class_[f.traffic_class];
  ++size_group.flows;
  ++class_group.flows;
  if (head_.first_start_ps < 0 || f.start_ps < head_.first_start_ps) head_.first_start_ps = f.start_ps;
  if (f.finish_ps < 0) return;
  ++head_.stats.completed;
  head_.finished_bytes += f.size_bytes;
  head_.last_finish_ps = std::max(head_.last_finish_ps, f.finish_ps);
  const int64_t fct = f.fct_ps();
  fct_.add(fct);
  size_group.fct.add(fct);
  class_group.fct.add(fct);
  if (f.ideal_fct_ps > 0) {
    const double s = f.slowdown();
    slowdown_sum_ += s;
    ++slowdown_count_;
    size_group.slowdown.add(s);
    class_group.slowdown.add(s);
  }
}

void FlowSummaryBuilder::fill(const Group& acc, FctGroup& g) {
  g.flows = acc.flows;
  g.completed = acc.fct.count();
  if (!acc.fct.empty()) {
    g.fct_p50_ps = acc.fct.percentile(50);
    g.fct_p99_ps = acc.fct.percentile(99);
    g.fct_p999_ps = acc.fct.percentile(99.9);
  }
  if (!acc.slowdown.empty()) {
    g.with_slowdown = true;
    g.slowdown_p50 = acc.slowdown.percentile(50);
    g.slowdown_p99 = acc.slowdown.percentile(99);
    g.slowdown_p999 = acc.slowdown.percentile(99.9);
  }
}

FlowSummary FlowSummaryBuilder::summary() const {
  FlowSummary s = head_;
  if (!fct_.empty()) {
    s.stats.fct_p50_ps = fct_.percentile(50);
    s.stats.fct_p99_ps = fct_.percentile(99);
    s.stats.fct_max_ps = fct_.max();
    s.stats.sketched = fct_.sketched();
  }
  if (slowdown_count_ > 0) s.stats.mean_slowdown = slowdown_sum_ / static_cast<double>(slowdown_count_);
  for (int b = 0; b < kFctBuckets; ++b) {
    if (by_size_[b].flows == 0) continue;
    FctGroup g;
    g.label = kBucketLabels[b];
    g.min_bytes = b == 0 ? 0 : kFctBucketEdgesBytes[b - 1];
    g.max_bytes = b == kFctBuckets - 1 ? -1 : kFctBucketEdgesBytes[b];
    fill(by_size_[b], g);
    s.by_size.push_back(std::move(g));
  }
  for (const auto& [cls, acc] : by_class_) {
    FctGroup g;
    g.label = "class " + std::to_string(cls);
    g.traffic_class = cls;
    fill(acc, g);
    s.by_class.push_back(std::move(g));
  }
  return s;
}

size_t FlowSummaryBuilder::bytes() const {
  size_t b = fct_.bytes();
  for (const Group& g : by_size_) b += g.fct.bytes() + g.slowdown.bytes();
  for (const auto& [cls, g] : by_class_) b += g.fct.bytes() + g.slowdown.bytes();
  return b;
}

FlowSample flow_sample(int64_t flows, int64_t max_flows) {
  FlowSample s;
  if (flows <= 0) return s;
  const int64_t cap = std::max<int64_t>(1, max_flows);
  s.stride = flows <= cap ? 1 : (flows + cap - 1) / cap;
  s.kept = (flows + s.stride - 1) / s.stride;
  return s;
}

int64_t flow_summary_bytes_bound(int64_t flows, int size_buckets, int classes) {
  if (flows <= 0) return 0;
  constexpr auto kExact = static_cast<int64_t>(QuantileDigest<int64_t>::kExactValues);
  const int64_t n = std::min<int64_t>(flows, int64_t{1} << 60);  // bit_ceil stays in range
  // Values one family of k digests holds between them (their vectors' capacities; each value
  // 8 bytes): one digest holds all n flows' values, bit_ceil(n) slots, at most kExact; several
  // hold n_1 + ... + n_k = n in bit_ceil(n_i) < 2 n_i slots, each at most kExact.
  auto family = [&](int64_t k) {
    if (k <= 1) return std::min(static_cast<int64_t>(std::bit_ceil(static_cast<uint64_t>(n))), kExact);
    return std::min(2 * n, k * kExact);
  };
  const int64_t ks = std::clamp(size_buckets, 1, kFctBuckets);
  const int64_t kc = std::max(classes, 1);
  int64_t values = family(1) + 2 * family(ks) + 2 * family(kc);
  if (n > kExact) {
    // A digest passing kExact values doubles its vector once more (kExact + 1 written) before
    // to_sketch frees it: one digest at a time, as add() feeds them one after another. Each
    // digest that did keeps its sketch: log(1e12) / log(gamma) buckets for values spanning 12
    // decades (1 ps to 1 s of FCT, or slowdowns of 1e-6 to 1e6), at most twice resident.
    const double gamma = (1 + QuantileDigest<int64_t>::kRelativeError) /
                         (1 - QuantileDigest<int64_t>::kRelativeError);
    const auto buckets = static_cast<int64_t>(std::log(1e12) / std::log(gamma)) + 1;
    values += kExact + 1 + 2 * (1 + 2 * ks + 2 * kc) * buckets;
  }
  return 8 * values;
}

FlowSummary summarize_flows(const std::vector<FlowRecord>& flows) {
  FlowSummaryBuilder b;
  for (const FlowRecord& f : flows) b.add(f);
  return b.summary();
}

}  // namespace fabricsim::scenario
