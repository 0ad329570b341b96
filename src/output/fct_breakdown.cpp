#include "output/fct_breakdown.h"

namespace fabricsim::output {

std::vector<FctGroup> fct_by_size(const std::vector<scenario::FlowRecord>& flows) {
  return scenario::summarize_flows(flows).by_size;
}

std::vector<FctGroup> fct_by_class(const std::vector<scenario::FlowRecord>& flows) {
  return scenario::summarize_flows(flows).by_class;
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
