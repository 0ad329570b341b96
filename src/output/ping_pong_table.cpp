#include "output/ping_pong_table.h"

#include <cstdio>

#include "core/units.h"

namespace fabricsim::output {

namespace {

// One-way latencies are half an integer-ps RTT: print them exactly, to 0.5 ps.
std::string half_ps(double v) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

std::string us(double ps) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.3f us", ps * 1e-6);
  return buf;
}

}  // namespace

nlohmann::ordered_json ping_pong_json(const std::vector<workload::PingPongStats>& pairs) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const workload::PingPongStats& s : pairs) {
    const bool measured = s.iterations > 0;
    auto value = [measured](double v) { return measured ? nlohmann::ordered_json(v) : nullptr; };
    out.push_back({{"a", s.a},
                   {"b", s.b},
                   {"size_bytes", s.size_bytes},
                   {"iterations", s.iterations},
                   {"warmup", s.warmup},
                   // perftest ib_*_lat: half of each round trip; typical = the median.
                   {"one_way_min_ps", value(s.one_way_min_ps)},
                   {"one_way_typical_ps", value(s.one_way_typical_ps)},
                   {"one_way_avg_ps", value(s.one_way_avg_ps)},
                   {"one_way_p99_ps", value(s.one_way_p99_ps)},
                   {"one_way_p999_ps", value(s.one_way_p999_ps)},
                   {"one_way_max_ps", value(s.one_way_max_ps)},
                   // netperf TCP_RR: round trips per second.
                   {"transactions_per_s", value(s.transactions_per_s)}});
  }
  return out;
}

void ping_pong_summary_rows(const std::vector<workload::PingPongStats>& pairs,
                            std::vector<std::pair<std::string, std::string>>& rows) {
  for (const workload::PingPongStats& s : pairs) {
    const std::string who = "NIC " + std::to_string(s.a) + " <-> " + std::to_string(s.b) + ", " +
                            format_bytes(s.size_bytes) + ", " + std::to_string(s.iterations) +
                            " round trips";
    if (s.iterations == 0) {
      rows.emplace_back("ping-pong", who + ": none finished");
      continue;
    }
    rows.emplace_back("ping-pong", who + ": one-way typical " + us(s.one_way_typical_ps) +
                                       ", p99 " + us(s.one_way_p99_ps) + " (RTT / 2)");
  }
}

std::string ping_pong_csv_text(const std::vector<workload::PingPongStats>& pairs) {
  std::string out = "pair,a,b,size_bytes,iteration,rtt_ps,one_way_ps\n";
  for (size_t p = 0; p < pairs.size(); ++p) {
    const workload::PingPongStats& s = pairs[p];
    for (size_t i = 0; i < s.rtt_ps.size(); ++i) {
      out += std::to_string(p) + "," + std::to_string(s.a) + "," + std::to_string(s.b) + "," +
             std::to_string(s.size_bytes) + "," + std::to_string(i) + "," +
             std::to_string(s.rtt_ps[i]) + "," + half_ps(static_cast<double>(s.rtt_ps[i]) / 2) +
             "\n";
    }
  }
  return out;
}

}  // namespace fabricsim::output
