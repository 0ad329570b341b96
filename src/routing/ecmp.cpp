#include "routing/ecmp.h"

#include <algorithm>
#include <limits>
#include <map>
#include <string>

#include "core/error.h"
#include "core/rng.h"
#include "net/load_balance.h"
#include "net/plane_choice.h"

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
  const uint32_t leaves = net.num_leaf_slots();
  nic_slot_.resize(net.num_nics());
  nic_switch_.resize(net.num_nics());
  for (uint32_t nic = 0; nic < net.num_nics(); ++nic) {
    nic_slot_[nic] = net.leaf_slot_of_nic(nic);
    nic_switch_[nic] = net.leaf_switch(nic_slot_[nic]);
  }
  // The switch at the far end of each port, or -1 for a NIC or a failed link. Read once into a
  // dense array: the searches below visit every switch port once per leaf, and reading two
  // 64-byte Ports each time (3 MiB of them at k=32) missed the 2 MiB L2 on nearly every read
  // (cachegrind: 31 M of the k=32 run's LL misses).
  std::vector<int32_t> far_switch(net.num_ports());
  for (uint32_t port = 0; port < net.num_ports(); ++port) {
    far_switch[port] = net.port(port).up ? net.port(net.port(port).peer).switch_index : -1;
  }
  auto neighbour = [&far_switch](uint32_t port) -> int32_t { return far_switch[port]; };
  // Breadth-first search from every leaf over the switch graph.
  dist_.assign(leaves, std::vector<uint16_t>(nsw, kUnreached));
  std::vector<std::vector<uint32_t>> order(leaves);  // per leaf, switches in BFS order
  for (uint32_t slot = 0; slot < leaves; ++slot) {
    std::vector<uint16_t>& dist = dist_[slot];
    const uint32_t root = net.leaf_switch(slot);
    dist[root] = 0;
    std::vector<uint32_t>& frontier = order[slot];
    frontier.assign(1, root);
    for (size_t head = 0; head < frontier.size(); ++head) {
      const net::Switch& s = net.switch_at(frontier[head]);
      // A multi-plane NIC's selector (net/plane_choice.h) is inside a NIC: reached, never a
      // transit hop between planes (a NIC does not forward).
      if (net::is_plane_selector(s) && frontier[head] != root) continue;
      for (uint32_t k = 0; k < s.num_ports; ++k) {
        const int32_t n = neighbour(s.first_port + k);
        if (n < 0 || dist[n] != kUnreached) continue;
        dist[n] = dist[frontier[head]] + 1;
        frontier.push_back(static_cast<uint32_t>(n));
      }
    }
  }
  fill_path_links(net, order);
  // Connectivity: every leaf must reach every other leaf.
  for (uint32_t a = 0; a < leaves; ++a) {
    for (uint32_t b = 0; b < leaves; ++b) {
      if (dist_[b][net.leaf_switch(a)] == kUnreached) {
        throw InputError("topology", "switch " + std::to_string(net.leaf_switch(a)) +
                                         " cannot reach switch " +
                                         std::to_string(net.leaf_switch(b)) +
                                         ": the topology is not connected");
      }
    }
  }
  // Forwarding tables: per switch, per destination leaf, the ports one hop closer.
  for (uint32_t sw = 0; sw < nsw; ++sw) {
    net::Switch& s = net.switch_at(sw);
    s.hash = cfg.hash;
    s.hash_seed = ecmp_seed(cfg, scenario_seed, sw);
    // routing.load_balancing: how a multi-port group is resolved (net/load_balance.h). A TE
    // switch keeps its controller's rules across a recomputation (a rule for a failed port is
    // ignored until the controller replaces it).
    switch (net::is_plane_selector(s) ? LoadBalancing::kEcmp : cfg.load_balancing) {
      case LoadBalancing::kAdaptive:
        s.lb = net::kLbAdaptive;
        break;
      case LoadBalancing::kFlowlet:
        net::enable_flowlets(s, cfg.flowlet_gap_ps);
        break;
      default:  // a multi-plane NIC's selector keeps kLbPlane (net/plane_choice.h)
        if (!net::is_plane_selector(s)) s.lb = s.te_rule_count > 0 ? net::kLbTeRules : net::kLbHash;
        break;
    }
    s.group_of_key.assign(leaves, net::kNoRoute);
    s.group_offsets.assign(1, 0);
    s.group_ports.clear();
    std::map<std::vector<uint32_t>, uint16_t> group_ids;  // build time only
    std::vector<uint32_t> members;
    for (uint32_t slot = 0; slot < leaves; ++slot) {
      if (static_cast<int32_t>(slot) == s.leaf_slot) continue;  // local NICs: direct port
      const std::vector<uint16_t>& dist = dist_[slot];
      if (dist[sw] == kUnreached) continue;
      members.clear();
      for (uint32_t k = 0; k < s.num_ports; ++k) {
        const int32_t n = neighbour(s.first_port + k);
        if (n >= 0 && dist[n] + 1 == dist[sw]) members.push_back(s.first_port + k);
      }
      // Looked up before inserting: emplace would build (allocate) a node for every key, and
      // nearly every (switch, leaf) pair finds a group already there.
      auto it = group_ids.find(members);
      if (it == group_ids.end()) {
        it = group_ids.emplace(members, static_cast<uint16_t>(group_ids.size())).first;
        if (group_ids.size() >= net::kNoRoute) {
          throw InputError("topology", "switch " + std::to_string(sw) +
                                           " needs more than 65534 distinct ECMP groups");
        }
        s.group_ports.insert(s.group_ports.end(), members.begin(), members.end());
        s.group_offsets.push_back(static_cast<uint32_t>(s.group_ports.size()));
      }
      s.group_of_key[slot] = it->second;
    }
  }
}

int64_t auto_flowlet_gap_ps(const net::Network& net, int diameter_switch_hops,
                            uint32_t frame_bytes) {
  constexpr int64_t kQueueSpreadBytes = 62'500;  // 50 us x 10 Gb/s / 8 (routing/config.h)
  int64_t max_delay_ps = 0;
  int64_t min_rate_bps = 0;
  for (uint32_t p = 0; p < net.num_ports(); ++p) {
    const net::Port& port = net.port(p);
    max_delay_ps = std::max(max_delay_ps, port.delay_ps);
    if (port.rate_bps > 0 && (min_rate_bps == 0 || port.rate_bps < min_rate_bps)) {
      min_rate_bps = port.rate_bps;
    }
  }
  if (min_rate_bps == 0) return 0;
  auto serialize_ps = [&](int64_t bytes) { return bytes * 8 * 1'000'000'000'000 / min_rate_bps; };
  const int64_t links = diameter_switch_hops + 1;
  const int64_t rtt_ps = 2 * links * (max_delay_ps + serialize_ps(frame_bytes));
  return rtt_ps + serialize_ps(kQueueSpreadBytes);
}

int EcmpRoutes::diameter_switch_hops() const {
  int worst = 0;
  for (const std::vector<uint16_t>& dist : dist_) {
    for (uint32_t sw : nic_switch_) worst = std::max(worst, dist[sw] + 1);
  }
  return worst;
}

void EcmpRoutes::fill_path_links(const net::Network& net,
                                 const std::vector<std::vector<uint32_t>>& order) {
  nic_cable_.clear();
  best_.clear();
  bool uniform = true;
  for (uint32_t p = 1; p < net.num_ports() && uniform; ++p) {
    uniform = net.port(p).rate_bps == net.port(0).rate_bps &&
              net.queues(p).prop_ps == net.queues(0).prop_ps;
  }
  uniform_cable_ = {net.port(0).rate_bps, net.queues(0).prop_ps};
  if (uniform) return;
  nic_cable_.resize(net.num_nics());
  for (uint32_t nic = 0; nic < net.num_nics(); ++nic) {
    const uint32_t p = net.nic_port(nic);
    nic_cable_[nic] = {net.port(p).rate_bps, net.queues(p).prop_ps};
  }
  constexpr PathBest kNone{0, 0};
  best_.assign(order.size(), std::vector<PathBest>(net.num_switches(), kNone));
  for (size_t slot = 0; slot < order.size(); ++slot) {
    const std::vector<uint16_t>& dist = dist_[slot];
    std::vector<PathBest>& best = best_[slot];
    best[order[slot].front()] = {std::numeric_limits<int64_t>::max(), 0};
    // BFS order visits every switch after all switches one hop closer to the leaf.
    for (size_t i = 1; i < order[slot].size(); ++i) {
      const uint32_t sw = order[slot][i];
      const net::Switch& s = net.switch_at(sw);
      for (uint32_t k = 0; k < s.num_ports; ++k) {
        const uint32_t p = s.first_port + k;
        if (!net.port(p).up) continue;
        const int32_t n = net.port(net.port(p).peer).switch_index;
        if (n < 0 || dist[n] + 1 != dist[sw]) continue;
        const PathBest c{std::min(net.port(p).rate_bps, best[n].rate_bps),
                         net.queues(p).prop_ps + best[n].prop_ps};
        if (c.rate_bps > best[sw].rate_bps ||
            (c.rate_bps == best[sw].rate_bps && c.prop_ps < best[sw].prop_ps)) {
          best[sw] = c;
        }
      }
    }
  }
}

net::LinkConfig EcmpRoutes::path_link(uint32_t src_nic, uint32_t dst_nic,
                                      const net::LinkConfig& fabric_link) const {
  net::LinkConfig link = fabric_link;
  if (best_.empty()) {  // every cable alike: the fabric's link, or the file's one cable
    if (uniform_cable_.rate_bps == fabric_link.rate_bps &&
        uniform_cable_.prop_ps == fabric_link.propagation_ps()) {
      return fabric_link;
    }
    link.rate_bps = uniform_cable_.rate_bps;
    link.cable_m = static_cast<double>(uniform_cable_.prop_ps) / net::kPropagationPsPerMetre;
    return link;
  }
  const PathBest& mid = best_[nic_slot_[dst_nic]][nic_switch_[src_nic]];
  const PathBest& a = nic_cable_[src_nic];
  const PathBest& b = nic_cable_[dst_nic];
  link.rate_bps = std::min({a.rate_bps, b.rate_bps, mid.rate_bps});
  const int links = switch_hops(src_nic, dst_nic) + 1;
  link.cable_m = static_cast<double>(a.prop_ps + mid.prop_ps + b.prop_ps) /
                 (static_cast<double>(links) * net::kPropagationPsPerMetre);
  return link;
}

int EcmpRoutes::switch_hops(uint32_t src_nic, uint32_t dst_nic) const {
  return dist_[nic_slot_[dst_nic]][nic_switch_[src_nic]] + 1;
}

}  // namespace fabricsim::routing
