#include "output/fct_breakdown.h"

#include <algorithm>
#include <map>

#include "output/flow_stats.h"

namespace fabricsim::output {
namespace {

const char* const kBucketLabels[kFctBuckets] = {"<=10KB", "10KB-100KB", "100KB-1MB", "1MB-10MB",
                                                ">10MB"};

// Fills the counts and percentiles of `g` from the flows `in` selects.
template <typename Pred>
void summarize(const std::vector<scenario::FlowRecord>& flows, Pred in, FctGroup& g) {
  std::vector<int64_t> fcts;
  std::vector<double> slowdowns;
  for (const scenario::FlowRecord& f : flows) {
    if (!in(f)) continue;
    ++g.flows;
    if (f.finish_ps < 0) continue;
    fcts.push_back(f.fct_ps());
    if (f.ideal_fct_ps > 0) slowdowns.push_back(f.slowdown());
  }
  g.completed = static_cast<int64_t>(fcts.size());
  if (!fcts.empty()) {
    std::sort(fcts.begin(), fcts.end());
    g.fct_p50_ps = percentile_nearest_rank(fcts, 50);
    g.fct_p99_ps = percentile_nearest_rank(fcts, 99);
    g.fct_p999_ps = percentile_nearest_rank(fcts, 99.9);
  }
  if (!slowdowns.empty()) {
    std::sort(slowdowns.begin(), slowdowns.end());
    g.with_slowdown = true;
    g.slowdown_p50 = slowdowns[nearest_rank_index(slowdowns.size(), 50)];
    g.slowdown_p99 = slowdowns[nearest_rank_index(slowdowns.size(), 99)];
    g.slowdown_p999 = slowdowns[nearest_rank_index(slowdowns.size(), 99.9)];
  }
}

}  // namespace

int fct_bucket(int64_t size_bytes) {
  int b = 0;
  while (b < kFctBuckets - 1 && size_bytes > kFctBucketEdgesBytes[b]) ++b;
  return b;
}

std::vector<FctGroup> fct_by_size(const std::vector<scenario::FlowRecord>& flows) {
  std::vector<FctGroup> out;
  for (int b = 0; b < kFctBuckets; ++b) {
    FctGroup g;
    g.label = kBucketLabels[b];
    g.min_bytes = b == 0 ? 0 : kFctBucketEdgesBytes[b - 1];
    g.max_bytes = b == kFctBuckets - 1 ? -1 : kFctBucketEdgesBytes[b];
    summarize(flows, [b](const scenario::FlowRecord& f) { return fct_bucket(f.size_bytes) == b; },
              g);
    if (g.flows > 0) out.push_back(std::move(g));
  }
  return out;
}

std::vector<FctGroup> fct_by_class(const std::vector<scenario::FlowRecord>& flows) {
  std::map<int, bool> classes;
  for (const scenario::FlowRecord& f : flows) classes[f.traffic_class] = true;
  std::vector<FctGroup> out;
  for (const auto& [cls, unused] : classes) {
    FctGroup g;
    g.label = "class " + std::to_string(cls);
    g.traffic_class = cls;
    summarize(flows, [c = cls](const scenario::FlowRecord& f) { return f.traffic_class == c; }, g);
    out.push_back(std::move(g));
  }
  return out;
}

}  // namespace fabricsim::output

#include <cstdio>

#include "core/units.h"

namespace fabricsim::output {

std::string fct_groups_text(const std::string& heading, const std::vector<FctGroup>& groups) {
  std::string out = "  " + heading + "\n";
  char line[256];
  std::snprintf(line, sizeof line, "    %-11s %8s %8s %10s %10s %10s %8s %8s %8s\n", "", "flows",
                "done", "FCT p50", "p99", "p99.9", "slow p50", "p99", "p99.9");
  out += line;
  auto t = [](bool ok, int64_t ps) { return ok ? format_time(ps) : std::string("-"); };
  auto x = [](bool ok, double v) {
    char b[32];
    std::snprintf(b, sizeof b, "%.2f", v);
    return ok ? std::string(b) : std::string("-");
  };
  for (const FctGroup& g : groups) {
    const bool done = g.completed > 0;
    std::snprintf(line, sizeof line, "    %-11s %8lld %8lld %10s %10s %10s %8s %8s %8s\n",
                  g.label.c_str(), static_cast<long long>(g.flows),
                  static_cast<long long>(g.completed), t(done, g.fct_p50_ps).c_str(),
                  t(done, g.fct_p99_ps).c_str(), t(done, g.fct_p999_ps).c_str(),
                  x(g.with_slowdown, g.slowdown_p50).c_str(),
                  x(g.with_slowdown, g.slowdown_p99).c_str(),
                  x(g.with_slowdown, g.slowdown_p999).c_str());
    out += line;
  }
  return out;
}

}  // namespace fabricsim::output
