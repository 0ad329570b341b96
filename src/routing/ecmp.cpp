#include "routing/ecmp.h"

#include <map>
#include <string>

#include "core/error.h"
#include "core/rng.h"

namespace fabricsim::routing {

namespace {
constexpr uint16_t kUnreached = 0xFFFF;
}

uint32_t ecmp_seed(const EcmpConfig& cfg, uint64_t scenario_seed, uint32_t switch_index) {
  if (cfg.seed_mode == EcmpSeedMode::kSame) return cfg.seed;
  uint64_t state = scenario_seed ^ (static_cast<uint64_t>(cfg.seed) << 32) ^
                   (0x5851F42D4C957F2Dull * (switch_index + 1));
  return static_cast<uint32_t>(splitmix64(state));
}

void EcmpRoutes::install(net::Network& net, const EcmpConfig& cfg, uint64_t scenario_seed) {
  const uint32_t nsw = net.num_switches();
  const uint32_t nnic = net.num_nics();
  attach_switch_.assign(nnic, 0);
  dest_slot_.assign(nsw, -1);
  dist_.clear();
  for (uint32_t nic = 0; nic < nnic; ++nic) {
    const uint32_t far = net.port(net.port(net.nic_port(nic)).peer).switch_index;
    attach_switch_[nic] = far;
    if (dest_slot_[far] < 0) {
      dest_slot_[far] = static_cast<int32_t>(dist_.size());
      dist_.emplace_back();
    }
  }
  // Neighbour switch of each switch port (or -1 for a NIC port).
  auto neighbour = [&](uint32_t port) -> int32_t {
    return net.port(net.port(port).peer).switch_index;
  };
  // BFS from every destination switch.
  std::vector<uint32_t> frontier;
  for (uint32_t d = 0; d < nsw; ++d) {
    if (dest_slot_[d] < 0) continue;
    std::vector<uint16_t>& dist = dist_[dest_slot_[d]];
    dist.assign(nsw, kUnreached);
    dist[d] = 0;
    frontier.assign(1, d);
    for (size_t head = 0; head < frontier.size(); ++head) {
      const net::Switch& s = net.switch_at(frontier[head]);
      for (uint32_t k = 0; k < s.num_ports; ++k) {
        const uint32_t port = s.first_port + k;
        const int32_t n = neighbour(port);
        if (n < 0 || !net.port(port).up || dist[n] != kUnreached) continue;
        dist[n] = dist[frontier[head]] + 1;
        frontier.push_back(static_cast<uint32_t>(n));
      }
    }
  }
  // Connectivity: every switch with NICs must reach every other such switch.
  for (uint32_t a = 0; a < nsw; ++a) {
    if (dest_slot_[a] < 0) continue;
    for (const std::vector<uint16_t>& dist : dist_) {
      if (dist[a] == kUnreached) {
        throw InputError("topology", "switch " + std::to_string(a) +
                                         " cannot reach every other leaf: the topology is not "
                                         "connected");
      }
    }
  }
  // Forwarding tables.
  for (uint32_t sw = 0; sw < nsw; ++sw) {
    net::Switch& s = net.switch_at(sw);
    s.hash = cfg.hash;
    s.hash_seed = ecmp_seed(cfg, scenario_seed, sw);
    s.group_of_dst.assign(nnic, net::kNoRoute);
    s.group_offsets.assign(1, 0);
    s.group_ports.clear();
    std::map<std::vector<uint32_t>, uint16_t> group_ids;  // build time only
    std::vector<uint32_t> members;
    for (uint32_t nic = 0; nic < nnic; ++nic) {
      members.clear();
      const uint32_t dsw = attach_switch_[nic];
      if (dsw == sw) {
        members.push_back(net.port(net.nic_port(nic)).peer);
      } else {
        const std::vector<uint16_t>& dist = dist_[dest_slot_[dsw]];
        if (dist[sw] == kUnreached) continue;
        for (uint32_t k = 0; k < s.num_ports; ++k) {
          const uint32_t port = s.first_port + k;
          const int32_t n = neighbour(port);
          if (n >= 0 && net.port(port).up && dist[n] + 1 == dist[sw]) members.push_back(port);
        }
      }
      auto [it, inserted] = group_ids.emplace(members, static_cast<uint16_t>(group_ids.size()));
      if (inserted) {
        if (group_ids.size() >= net::kNoRoute) {
          throw InputError("topology", "switch " + std::to_string(sw) +
                                           " needs more than 65534 distinct ECMP groups");
        }
        s.group_ports.insert(s.group_ports.end(), members.begin(), members.end());
        s.group_offsets.push_back(static_cast<uint32_t>(s.group_ports.size()));
      }
      s.group_of_dst[nic] = it->second;
    }
  }
}

int EcmpRoutes::switch_hops(uint32_t src_nic, uint32_t dst_nic) const {
  const uint32_t dsw = attach_switch_[dst_nic];
  return dist_[dest_slot_[dsw]][attach_switch_[src_nic]] + 1;
}

}  // namespace fabricsim::routing

