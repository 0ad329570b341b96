// Dragonfly (Kim, Dally, Scott, Abts, "Technology-Driven, Highly-Scalable Dragonfly Topology",
// ISCA 2008 §3): g groups of a switches; every switch has p NICs, a-1 local links (the group is
// all-to-all) and h global links to other groups.
//
//   radix k = p + (a - 1) + h;  N = p·a·g NICs;  g <= a·h + 1 (one global link per group pair at
//   g = a·h + 1). Balanced (§3.1, "a = 2p = 2h" balances the load on local and global links under
//   uniform traffic): a = 2p, h = p. Closed forms checked by tests/topo/dragonfly_test.cpp:
//   a·g switches, g·a·(a-1)/2 local and g·a·h/2 global cables.
//
// Numbering: switch s is in group s / a (local index s % a); NIC n is on switch n / p. Each
// switch's ports, in finalize()'s connection order: p NIC ports, a-1 local ports (peers in
// increasing local index), then h global ports (routing/dragonfly.cpp relies on locals before
// globals).
//
// Global link arrangement: group i's global ports are numbered x = 0 .. a·h-1, port x on switch
// x / h. With c = a·h / (g-1) links per group pair, port x carries copy x / (g-1) of the link to
// the group at offset t = x mod (g-1):
//   absolute ("consecutive", Kim et al. Fig. 4's wiring; the name is Hastings et al., "Comparing
//     global link arrangements for Dragonfly networks", IEEE Cluster 2015): port t leads to
//     group t if t < i, else t + 1. The default: it is the arrangement of the original paper,
//     so published Dragonfly results are comparable.
//   palmtree (Camarero, Vallejo, Beivide, "Topological characterization of Hamming and dragonfly
//     networks and its implications on routing", ACM TACO 2014): port t leads to group
//     (i - t - 1) mod g; every switch of a group then reaches a spread of groups at offsets
//     that differ by one, which Camarero et al. use for their routing analysis.
// Both pair port x of group i with exactly one port of the other group (checked below).
//
// Global cables are optical and longer than the in-cabinet local ones: "inter-group connections
// are based on optical equipment capable of spanning inter-cabinet distances in the range of
// tens of meters" (Hastings et al., "Comparing global link arrangements", and the survey in
// doi:10.1007/978-3-319-67630-2_5; Kim et al. §3 place local links inside a cabinet, global
// links between cabinets over optical cables). Default 30 m, the middle of that range
// (UNVERIFIED as a measured figure); local links take fabric.link.cable.
#include <cstdint>
#include <string>
#include <vector>

#include "core/error.h"
#include "topo/topology.h"

namespace fabricsim::topo {

DragonflyShape dragonfly_shape(const TopologySpec& spec) {
  DragonflyShape s;
  s.p = spec.dfly_p;
  if (s.p < 1) throw InputError("topology.dragonfly.p", "must be at least 1 NIC per switch");
  s.a = spec.dfly_a == 0 ? 2 * s.p : spec.dfly_a;  // balanced: a = 2p (Kim et al. §3.1)
  s.h = spec.dfly_h == 0 ? s.p : spec.dfly_h;      // balanced: h = p
  if (s.a < 1) throw InputError("topology.dragonfly.a", "must be at least 1 switch per group");
  if (s.h < 1) throw InputError("topology.dragonfly.h", "must be at least 1 global link");
  const int64_t max_groups = int64_t{s.a} * s.h + 1;
  if (spec.dfly_groups != 0 && spec.dfly_groups > max_groups) {
    throw InputError("topology.dragonfly.groups",
                     std::to_string(spec.dfly_groups) + " groups need at least " +
                         std::to_string(spec.dfly_groups - 1) +
                         " global links per group to reach every other group, but a group of " +
                         std::to_string(s.a) + " switches x " + std::to_string(s.h) +
                         " global links has " + std::to_string(int64_t{s.a} * s.h) +
                         " (at most a·h + 1 = " + std::to_string(max_groups) + " groups)");
  }
  if (max_groups > 65535) {
    throw InputError("topology.dragonfly.h", "a·h + 1 = " + std::to_string(max_groups) +
                                                 " groups is beyond the 65535 modelled");
  }
  s.groups = spec.dfly_groups == 0 ? static_cast<int>(max_groups) : spec.dfly_groups;
  if (s.groups < 2) {
    throw InputError("topology.dragonfly.groups", "a Dragonfly needs at least 2 groups");
  }
  if ((s.a * s.h) % (s.groups - 1) != 0) {
    throw InputError("topology.dragonfly.groups",
                     "the a·h = " + std::to_string(s.a * s.h) +
                         " global links of a group must split evenly over the " +
                         std::to_string(s.groups - 1) +
                         " other groups (the same number of links per group pair); use a "
                         "group count g with g - 1 dividing a·h");
  }
  if (int64_t{s.p} * s.a * s.groups > 16'777'216) {
    throw InputError("topology.dragonfly.groups", "p·a·g = " +
                                                      std::to_string(int64_t{s.p} * s.a * s.groups) +
                                                      " NICs is beyond the 2^24 hosts modelled");
  }
  if (spec.nics_per_host < 1 || s.nics() % spec.nics_per_host != 0) {
    throw InputError("hosts.nics_per_host",
                     "must divide the p·a·g = " + std::to_string(s.nics()) + " NICs");
  }
  return s;
}

namespace {

// The group that global port x of group i leads to, and the port it arrives on there.
struct GlobalEnd {
  int group = 0;
  int port = 0;
};

GlobalEnd global_peer(const DragonflyShape& s, DragonflyArrangement arr, int i, int x) {
  const int others = s.groups - 1;
  const int copy = x / others;
  const int t = x % others;
  GlobalEnd e;
  int back = 0;  // the offset index, at the far group, of the port leading back to i
  if (arr == DragonflyArrangement::kAbsolute) {
    e.group = t < i ? t : t + 1;
    back = i < e.group ? i : i - 1;
  } else {
    e.group = ((i - t - 1) % s.groups + s.groups) % s.groups;
    back = ((e.group - i - 1) % s.groups + s.groups) % s.groups;
  }
  e.port = copy * others + back;
  return e;
}

}  // namespace

namespace detail {

void check_dragonfly(const TopologySpec& spec) { dragonfly_shape(spec); }

BuiltTopology build_dragonfly(const TopologySpec& spec, const FabricParams& params,
                              net::Network& net) {
  const DragonflyShape s = dragonfly_shape(spec);
  BuiltTopology out;
  out.tiers = 1;
  out.nics = s.nics();
  out.hosts = out.nics / spec.nics_per_host;
  std::vector<uint32_t> sw(static_cast<size_t>(s.switches()));
  for (int i = 0; i < s.switches(); ++i) sw[i] = net.add_switch(params.switch_config, 1);
  out.host_of_nic.reserve(static_cast<size_t>(out.nics));
  for (int n = 0; n < out.nics; ++n) {
    const uint32_t nic = net.add_nic(params.nic);
    net.connect(net.nic_node(nic), net.switch_node(sw[n / s.p]), params.link);
    out.host_of_nic.push_back(n / spec.nics_per_host);
  }
  for (int g = 0; g < s.groups; ++g) {  // local links: each group all-to-all
    for (int i = 0; i < s.a; ++i) {
      for (int j = i + 1; j < s.a; ++j) {
        net.connect(net.switch_node(sw[g * s.a + i]), net.switch_node(sw[g * s.a + j]),
                    params.link);
      }
    }
  }
  net::LinkConfig global = params.link;
  global.cable_m = spec.dfly_global_cable_m;
  const int ports = s.a * s.h;
  for (int g = 0; g < s.groups; ++g) {
    for (int x = 0; x < ports; ++x) {
      const GlobalEnd e = global_peer(s, spec.dfly_arrangement, g, x);
      // A consistent pairing: the far port leads back here (a defect otherwise, not bad input).
      const GlobalEnd back = global_peer(s, spec.dfly_arrangement, e.group, e.port);
      if (back.group != g || back.port != x || e.group == g) {
        throw std::logic_error("dragonfly: inconsistent global link arrangement");
      }
      if (g > e.group) continue;  // cabled once, from the lower group
      net.connect(net.switch_node(sw[g * s.a + x / s.h]),
                  net.switch_node(sw[e.group * s.a + e.port / s.h]), global);
    }
  }
  out.description = "dragonfly a=" + std::to_string(s.a) + " p=" + std::to_string(s.p) +
                    " h=" + std::to_string(s.h) + " g=" + std::to_string(s.groups) + " (" +
                    (spec.dfly_arrangement == DragonflyArrangement::kAbsolute ? "absolute"
                                                                              : "palmtree") +
                    " global links), radix " + std::to_string(s.p + s.a - 1 + s.h);
  net.finalize();
  out.switches = static_cast<int>(net.num_switches());
  out.cables = static_cast<int>(net.num_cables());
  return out;
}

}  // namespace detail
}  // namespace fabricsim::topo
