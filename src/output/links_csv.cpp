#include "output/links_csv.h"

#include <algorithm>
#include <cstdio>

#include "core/units.h"
#include "results/hottest_links.h"

namespace fabricsim::output {

std::string links_csv_text(const std::vector<scenario::LinkRow>& rows) {
  // Built by appending: `std::string(header) + "\n"` drew a gcc 12 -Warray-bounds false
  // positive from inside libstdc++ at -O2.
  std::string out(kLinksCsvHeader);
  out += '\n';
  char util[64];
  for (const scenario::LinkRow& r : rows) {
    std::snprintf(util, sizeof util, "%.9f", r.utilization);
    // Labels are "nic<i>", "sw<i>" and "<from>:<port>-><to>": no comma or quote to escape.
    out += std::to_string(r.port) + "," + r.link + "," + r.from + "," + r.to + "," +
           std::to_string(r.from_tier) + "," + std::to_string(r.to_tier) + "," + r.direction +
           "," + std::to_string(r.rate_bps) + "," + std::to_string(r.tx_bytes) + "," + util + "," +
           std::to_string(r.peak_queue_bytes) + "," + std::to_string(r.drops) + "," +
           std::to_string(r.pause_frames_sent) + "," + std::to_string(r.pause_frames_received) +
           "," + std::to_string(r.paused_ps) + "," + std::to_string(r.ecn_marks) + "," +
           std::to_string(r.credit_waits) + "," + std::to_string(r.trimmed) + "," +
           (r.down ? "1" : "0") + "\n";
  }
  return out;
}

std::string hottest_links_text(const std::vector<scenario::LinkRow>& rows, size_t n) {
  const std::vector<scenario::LinkRow> hot = scenario::hottest_links(rows, n);
  if (hot.empty()) return "";
  size_t width = 4;
  for (const scenario::LinkRow& r : hot) width = std::max(width, r.link.size());
  std::string out = "  hottest links (links.csv has every port):\n";
  char line[320];
  std::snprintf(line, sizeof line, "    %-*s %7s %11s %8s %8s %8s %8s\n", static_cast<int>(width),
                "link", "util", "peak queue", "drops", "pause rx", "ECN", "cr.wait");
  out += line;
  for (const scenario::LinkRow& r : hot) {
    std::snprintf(line, sizeof line, "    %-*s %6.1f%% %11s %8lld %8lld %8lld %8lld%s\n",
                  static_cast<int>(width), r.link.c_str(), r.utilization * 100.0,
                  format_bytes(r.peak_queue_bytes).c_str(), static_cast<long long>(r.drops),
                  static_cast<long long>(r.pause_frames_received),
                  static_cast<long long>(r.ecn_marks), static_cast<long long>(r.credit_waits),
                  r.down ? "  DOWN" : "");
    out += line;
  }
  return out;
}

}  // namespace fabricsim::output
