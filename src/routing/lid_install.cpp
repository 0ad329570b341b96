#include "routing/lid_install.h"

#include <map>
#include <stdexcept>
#include <vector>

namespace fabricsim::routing {

void install_lid_routes(net::Network& net, const LidRoutes& routes, bool adaptive,
                        const SweepScope& scope) {
  const auto [first, end] = scope_range(scope, net.num_switches());
  for (uint32_t sw = first; sw < end; ++sw) {
    net::Switch& s = net.switch_at(sw);
    s.route_by_lid = true;
    s.lb = adaptive ? net::kLbIbAdaptive : net::kLbHash;
    s.group_of_key.assign(routes.num_lids, net::kNoRoute);
    s.group_offsets.assign(1, 0);
    s.group_ports.clear();
    // Identical port sets share one group, so the per-switch table stays one 16-bit id per LID.
    std::map<std::vector<uint32_t>, uint16_t> group_ids;
    std::vector<uint32_t> members;
    for (uint32_t lid = 1; lid < routes.num_lids; ++lid) {
      members.clear();
      if (adaptive) {
        const std::vector<uint32_t>& off = routes.ar_offsets[sw];
        for (uint32_t i = off[lid]; i < off[lid + 1]; ++i) members.push_back(routes.ar_ports[sw][i]);
      } else if (routes.lft[sw][lid] != net::kNoPort) {
        members.push_back(routes.lft[sw][lid]);
      }
      if (members.empty()) continue;
      auto [it, inserted] = group_ids.emplace(members, static_cast<uint16_t>(group_ids.size()));
      if (inserted) {
        if (group_ids.size() >= net::kNoRoute) throw std::logic_error("too many LFT groups");
        s.group_ports.insert(s.group_ports.end(), members.begin(), members.end());
        s.group_offsets.push_back(static_cast<uint32_t>(s.group_ports.size()));
      }
      s.group_of_key[lid] = it->second;
    }
  }
}

}  // namespace fabricsim::routing
