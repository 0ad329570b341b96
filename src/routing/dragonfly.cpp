#include "routing/dragonfly.h"

#include <stdexcept>
#include <vector>

namespace fabricsim::routing {

namespace {

// Switch `s`'s port to switch `r` of its group (the group is all-to-all: exactly one cable).
uint32_t local_port(const net::Network& net, uint32_t s, uint32_t r) {
  const net::Switch& sw = net.switch_at(s);
  for (uint32_t k = 0; k < sw.num_ports; ++k) {
    const net::Port& port = net.port(sw.first_port + k);
    if (!port.far_is_nic && port.far_index == r) return sw.first_port + k;
  }
  throw std::logic_error("install_dragonfly: no local link");
}

// The Dragonfly-minimal forwarding of switch `s` (at most one global hop): towards a switch of
// its own group the local port; towards group t every global port it has to t, else the local
// ports to every switch of its group that has one, the DragonflySwitch's choice first (the
// static LFT port on InfiniBand; ECMP hashes over them on Ethernet). Shortest-path ECMP or
// OpenSM's minhop would also take two-global-hop paths where they are no longer (a global link
// that lands on the destination switch), which leaves the 2-class scheme and lets a Valiant
// packet re-enter its source group.
void program_minimal(net::Network& net, uint32_t s, uint32_t groups, uint32_t a,
                     const std::vector<std::vector<uint32_t>>& global_to,
                     const std::vector<uint16_t>& nic_lid) {
  net::Switch& sw = net.switch_at(s);
  const net::DragonflySwitch& d = sw.dfly;
  const uint32_t base = d.group * a;
  auto local_port_to = [&](uint32_t r) {
    const uint32_t direct = local_port(net, s, r);
    if (net.port(direct).up) return direct;
    // A failed local link: two local hops through the first switch of the group (from r on)
    // with both links working, as a shortest-path routing over the working links would take.
    for (uint32_t i = 1; i < a; ++i) {
      const uint32_t via = base + (r - base + i) % a;
      if (via == s) continue;
      const uint32_t first_hop = local_port(net, s, via);
      if (net.port(first_hop).up && net.port(local_port(net, via, r)).up) return first_hop;
    }
    return direct;  // no working path inside the group: packets die on the failed link
  };
  const bool ib = sw.route_by_lid;
  if (!ib) {
    sw.group_offsets.assign(1, 0);
    sw.group_ports.clear();
  }
  // Group ids: [0, a) towards the switches of this group (its own unused), then one per group.
  const uint32_t first = static_cast<uint32_t>(sw.group_offsets.size() - 1);
  if (first + a + groups >= net::kNoRoute) {
    throw std::logic_error("install_dragonfly: too many forwarding groups");
  }
  for (uint32_t i = 0; i < a; ++i) {
    if (base + i != s) sw.group_ports.push_back(local_port_to(base + i));
    else sw.group_ports.push_back(sw.group_ports.empty() ? 0 : sw.group_ports.back());
    sw.group_offsets.push_back(static_cast<uint32_t>(sw.group_ports.size()));
  }
  for (uint32_t t = 0; t < groups; ++t) {
    if (t != d.group) {
      sw.group_ports.push_back(d.port_to_group[t]);  // the representative first
      const net::Port& rep = net.port(d.port_to_group[t]);
      for (uint32_t k = 0; k < sw.num_ports; ++k) {
        const uint32_t id = sw.first_port + k;
        const net::Port& port = net.port(id);
        if (id == d.port_to_group[t] || port.far_is_nic || !port.up) continue;
        const uint32_t r = port.far_index;
        const bool to_t = r / a == t;                                   // a copy of the link
        const bool via = r / a == d.group && global_to[r][t] != net::kNoPort;  // another owner
        if ((rep.far_index / a == t) ? to_t : via) sw.group_ports.push_back(id);
      }
    } else {
      sw.group_ports.push_back(sw.group_ports.back());  // unused
    }
    sw.group_offsets.push_back(static_cast<uint32_t>(sw.group_ports.size()));
  }
  // Keys: Ethernet, the destination leaf slot (every Dragonfly switch is a leaf, slot = switch
  // index); InfiniBand, the NICs' LIDs (switch LIDs keep the SM's entries).
  const uint32_t nics = net.num_nics();
  if (!ib) sw.group_of_key.assign(net.num_leaf_slots(), net::kNoRoute);
  for (uint32_t n = 0; n < nics; ++n) {
    const uint32_t t_sw = net.leaf_switch(net.leaf_slot_of_nic(n));
    uint32_t key = ib ? nic_lid[n] : net.leaf_slot_of_nic(n);
    if (t_sw == s) continue;  // Ethernet: the NIC port directly; IB: the SM's entry is that
    const uint32_t g = t_sw / a == d.group ? first + (t_sw - base) : first + a + t_sw / a;
    if (key >= sw.group_of_key.size()) sw.group_of_key.resize(key + 1, net::kNoRoute);
    sw.group_of_key[key] = static_cast<uint16_t>(g);
  }
}

// After failures: groups that switch `s` no longer reaches minimally (every working global link
// to them gone, or the local links to their owners) are reached through an intermediate group
// that has a working link to them, as shortest-path routing over the working links would (two
// global hops, a Valiant path; under lossless classes it uses the last class twice, outside the
// deadlock-freedom argument above, which covers the intact fabric only). With no such group
// either, the intact fabric's port is kept and packets die on the failed link.
void reroute_cut_groups(const net::Network& net, uint32_t s, uint32_t a, uint32_t groups,
                        const std::vector<std::vector<uint32_t>>& global_to,
                        std::vector<uint32_t>& port_to_group) {
  const uint32_t own = s / a;
  auto group_reaches = [&](uint32_t m, uint32_t t) {
    for (uint32_t r = m * a; r < (m + 1) * a; ++r) {
      if (global_to[r][t] != net::kNoPort) return true;
    }
    return false;
  };
  for (uint32_t t = 0; t < groups; ++t) {
    if (t == own || port_to_group[t] != net::kNoPort) continue;
    for (uint32_t i = 1; i < groups && port_to_group[t] == net::kNoPort; ++i) {
      const uint32_t m = (t + i) % groups;
      if (m == own || port_to_group[m] == net::kNoPort || !group_reaches(m, t)) continue;
      const net::Port& first = net.port(port_to_group[m]);
      // Through a direct global link to m only: a local hop first would need the owner's view.
      if (first.far_index / a == m) port_to_group[t] = port_to_group[m];
    }
    if (port_to_group[t] == net::kNoPort) {
      // The intact fabric's choice: this switch's first global port to t, else the local port
      // to the first switch of the group that has one (both possibly down).
      const net::Switch& sw = net.switch_at(s);
      for (uint32_t k = 0; k < sw.num_ports && port_to_group[t] == net::kNoPort; ++k) {
        const net::Port& port = net.port(sw.first_port + k);
        if (!port.far_is_nic && port.far_index / a == t) port_to_group[t] = sw.first_port + k;
      }
      for (uint32_t r = own * a; r < (own + 1) * a && port_to_group[t] == net::kNoPort; ++r) {
        if (r == s) continue;
        const net::Switch& owner = net.switch_at(r);
        for (uint32_t k = 0; k < owner.num_ports; ++k) {
          const net::Port& port = net.port(owner.first_port + k);
          if (!port.far_is_nic && port.far_index / a == t) port_to_group[t] = local_port(net, s, r);
        }
      }
      if (port_to_group[t] == net::kNoPort) {
        throw std::logic_error("install_dragonfly: group without a link to another group");
      }
    }
  }
}

}  // namespace

void install_dragonfly(net::Network& net, const topo::DragonflyShape& shape,
                       const DragonflyInstall& cfg, const std::vector<uint16_t>& nic_lid) {
  const uint32_t groups = static_cast<uint32_t>(shape.groups);
  const uint32_t a = static_cast<uint32_t>(shape.a);
  if (net.num_switches() != a * groups || net.num_nics() != static_cast<uint32_t>(shape.nics())) {
    throw std::logic_error("install_dragonfly: the network is not this Dragonfly");
  }
  auto group_of = [&](uint32_t sw) { return sw / a; };
  const uint32_t first_global = static_cast<uint32_t>(shape.p + shape.a - 1);
  // Per switch, per group: the global ports this switch has towards it (several when
  // g < a·h + 1 gives a group pair more than one link).
  std::vector<std::vector<uint32_t>> global_to(net.num_switches(),
                                               std::vector<uint32_t>(groups, net::kNoPort));
  for (uint32_t s = 0; s < net.num_switches(); ++s) {
    const net::Switch& sw = net.switch_at(s);
    for (uint32_t k = 0; k < sw.num_ports; ++k) {
      const net::Port& port = net.port(sw.first_port + k);
      const bool is_global = !port.far_is_nic && group_of(port.far_index) != group_of(s);
      // The builder's port order (topo/dragonfly.cpp): NICs, locals, then globals.
      if (is_global != (k >= first_global) || (port.far_is_nic != (k < uint32_t(shape.p)))) {
        throw std::logic_error("install_dragonfly: unexpected port order");
      }
      // The first link towards each group; with several, the copy whose index matches the
      // switch's local index spreads the groups' switches over them.
      // Only working links count (after faults.link_down the routes are recomputed without it).
      uint32_t& slot = global_to[s][group_of(port.far_index)];
      if (is_global && slot == net::kNoPort && port.up) slot = sw.first_port + k;
    }
  }
  std::vector<uint16_t> nic_group(net.num_nics());
  for (uint32_t n = 0; n < net.num_nics(); ++n) {
    nic_group[n] = static_cast<uint16_t>(group_of(n / static_cast<uint32_t>(shape.p)));
  }
  uint8_t remark = 0;
  if (cfg.lossless) {
    // The classes that move up one at a global arrival: all but the scheme's last.
    remark = static_cast<uint8_t>(dragonfly_class_mask(cfg.routing, cfg.base_class) &
                                  ~(1u << (cfg.base_class + dragonfly_classes(cfg.routing) - 1)));
  }
  for (uint32_t s = 0; s < net.num_switches(); ++s) {
    net::Switch& sw = net.switch_at(s);
    net::DragonflySwitch& d = sw.dfly;
    d.group = static_cast<uint16_t>(group_of(s));
    d.first_global = static_cast<uint16_t>(first_global);
    d.mode = static_cast<uint8_t>(cfg.routing);
    d.remark_mask = remark;
    d.ib_adaptive = sw.route_by_lid && sw.lb == net::kLbIbAdaptive;
    d.port_to_group.assign(groups, net::kNoPort);
    const uint32_t base = d.group * a;
    for (uint32_t t = 0; t < groups; ++t) {
      if (t == d.group) continue;
      if (global_to[s][t] != net::kNoPort) {
        d.port_to_group[t] = global_to[s][t];
        continue;
      }
      // A local hop to a switch of this group that has a link to t: the owners are taken in
      // turn from this switch's own index, so the group's switches spread over them.
      for (uint32_t i = 1; i < a; ++i) {
        const uint32_t r = base + (s - base + i) % a;
        if (global_to[r][t] == net::kNoPort || !net.port(local_port(net, s, r)).up) continue;
        d.port_to_group[t] = local_port(net, s, r);
        break;
      }
      // The local link to every owner failed: two local hops, through a switch that still has
      // working links to this one and to an owner (one global hop, as before the failure).
      for (uint32_t i = 1; i < a && d.port_to_group[t] == net::kNoPort; ++i) {
        const uint32_t r = base + (s - base + i) % a;
        if (global_to[r][t] == net::kNoPort) continue;
        for (uint32_t j = 1; j < a; ++j) {
          const uint32_t v = base + (s - base + j) % a;
          if (v == r || !net.port(local_port(net, s, v)).up || !net.port(local_port(net, v, r)).up) {
            continue;
          }
          d.port_to_group[t] = local_port(net, s, v);
          break;
        }
      }
    }
    reroute_cut_groups(net, s, a, groups, global_to, d.port_to_group);
    program_minimal(net, s, groups, a, global_to, nic_lid);
    sw.lb = net::kLbDragonfly;
  }
  net.set_dragonfly(std::move(nic_group), groups, cfg.seed);
}

}  // namespace fabricsim::routing
