#include "output/csv.h"

#include <cstdio>

namespace fabricsim::output {

std::string flows_csv_text(const std::vector<scenario::FlowRecord>& flows, bool with_path) {
  std::string out = std::string(kFlowsCsvHeader) + (with_path ? ",path\n" : "\n");
  char slowdown[64];
  for (const scenario::FlowRecord& f : flows) {
    const bool done = f.finish_ps >= 0;
    std::snprintf(slowdown, sizeof slowdown, "%.6f", f.slowdown());
    out += std::to_string(f.id) + "," + std::to_string(f.src_nic) + "," +
           std::to_string(f.dst_nic) + "," + std::to_string(f.size_bytes) + "," +
           std::to_string(f.start_ps) + "," + (done ? std::to_string(f.finish_ps) : "") + "," +
           (done ? std::to_string(f.fct_ps()) : "") + "," + std::to_string(f.ideal_fct_ps) + "," +
           (done ? slowdown : "") + "," + std::to_string(f.sent_bytes) + "," +
           std::to_string(f.delivered_bytes) + "," + std::to_string(f.dropped_bytes) + "," +
           std::to_string(f.retransmitted_packets) + "," + std::to_string(f.traffic_class) +
           "," + std::to_string(f.qp);
    // A path is port labels, '>', " | " and "(+N more)": never a comma or quote to escape.
    if (with_path) out += "," + f.path;
    out += "\n";
  }
  return out;
}

std::string routes_csv_text(const std::vector<scenario::PortRoutes>& routes) {
  std::string out = "switch,tier,port,direction,far,routes\n";
  for (const scenario::PortRoutes& r : routes) {
    out += std::to_string(r.switch_index) + "," + std::to_string(r.tier) + "," +
           std::to_string(r.port) + "," + (r.up ? "up" : "down") + "," +
           (r.far_is_nic ? "nic " : "switch ") + std::to_string(r.far_index) + "," +
           std::to_string(r.routes) + "\n";
  }
  return out;
}

}  // namespace fabricsim::output
