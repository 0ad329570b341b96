#include "output/csv.h"

#include <cstdio>

namespace fabricsim::output {

std::string flows_csv_text(const std::vector<scenario::FlowRecord>& flows, bool with_path) {
  std::string out;
  scenario::append_flows_csv_header(out, with_path);
  for (const scenario::FlowRecord& f : flows) scenario::append_flows_csv_row(out, f, with_path);
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
