// Dragonfly builder (topo/dragonfly.cpp): the built graph against Kim et al.'s closed forms
// (ISCA 2008 §3): a·g switches, p·a·g NICs, g·a·(a-1)/2 local and g·a·h/2 global cables, every
// switch with p NIC, a-1 local and h global ports, every pair of groups joined by a·h/(g-1)
// global links; and impossible shapes refused with the key (file:line through the loader).
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>

#include "core/error.h"
#include "core/scheduler.h"
#include "net/network.h"
#include "spec/load.h"
#include "topo/topology.h"

namespace fabricsim::topo {
namespace dragonfly_test {

struct Fabric {
  Scheduler sched;
  net::Network net{sched};
  BuiltTopology topo;
};

TopologySpec dfly(int p, int a = 0, int h = 0, int g = 0,
                  DragonflyArrangement arr = DragonflyArrangement::kAbsolute) {
  TopologySpec spec;
  spec.kind = TopologyKind::kDragonfly;
  spec.dfly_p = p;
  spec.dfly_a = a;
  spec.dfly_h = h;
  spec.dfly_groups = g;
  spec.dfly_arrangement = arr;
  return spec;
}

struct Case {
  TopologySpec spec;
  int p, a, h, g;  // the shape expected (balanced / maximal resolved by hand)
};

void check_closed_forms(const Case& c) {
  SCOPED_TRACE("a=" + std::to_string(c.a) + " p=" + std::to_string(c.p) +
               " h=" + std::to_string(c.h) + " g=" + std::to_string(c.g));
  Fabric f;
  FabricParams params;
  params.link.cable_m = 2.0;
  f.topo = build(c.spec, params, f.net);
  const int switches = c.a * c.g;
  const int nics = c.p * c.a * c.g;
  const int local = c.g * c.a * (c.a - 1) / 2;
  const int global = c.g * c.a * c.h / 2;
  EXPECT_EQ(f.topo.switches, switches);
  EXPECT_EQ(f.topo.nics, nics);
  EXPECT_EQ(f.topo.cables, nics + local + global);
  // Classify every switch-switch cable by the groups of its ends (switch s in group s / a).
  int local_seen = 0, global_seen = 0;
  std::map<std::pair<int, int>, int> pair_links;
  std::map<uint32_t, int> nic_ports, local_ports, global_ports;
  const int64_t global_prop_ps = f.net.port(0).delay_ps;  // unused unless a global is found
  (void)global_prop_ps;
  for (uint32_t i = 0; i < f.net.num_cables(); ++i) {
    const net::Node& na = f.net.node(f.net.cable_node_a(i));
    const net::Node& nb = f.net.node(f.net.cable_node_b(i));
    if (na.kind == net::NodeKind::kNic || nb.kind == net::NodeKind::kNic) {
      const net::Node& s = na.kind == net::NodeKind::kSwitch ? na : nb;
      const net::Node& n = na.kind == net::NodeKind::kNic ? na : nb;
      EXPECT_EQ(s.index, n.index / static_cast<uint32_t>(c.p)) << "NIC n on switch n / p";
      ++nic_ports[s.index];
      continue;
    }
    const int ga = static_cast<int>(na.index) / c.a;
    const int gb = static_cast<int>(nb.index) / c.a;
    if (ga == gb) {
      ++local_seen;
      ++local_ports[na.index];
      ++local_ports[nb.index];
      EXPECT_DOUBLE_EQ(f.net.cable_link(i).cable_m, 2.0) << "local cables: fabric.link.cable";
    } else {
      ++global_seen;
      ++global_ports[na.index];
      ++global_ports[nb.index];
      ++pair_links[{std::min(ga, gb), std::max(ga, gb)}];
      EXPECT_DOUBLE_EQ(f.net.cable_link(i).cable_m, 30.0) << "global cables: the optical default";
    }
  }
  EXPECT_EQ(local_seen, local);
  EXPECT_EQ(global_seen, global);
  for (int s = 0; s < switches; ++s) {
    EXPECT_EQ(nic_ports[s], c.p) << "switch " << s;
    EXPECT_EQ(local_ports[s], c.a - 1) << "switch " << s << ": all-to-all in its group";
    EXPECT_EQ(global_ports[s], c.h) << "switch " << s;
    EXPECT_EQ(static_cast<int>(f.net.switch_at(s).num_ports), c.p + c.a - 1 + c.h)
        << "radix p + a - 1 + h";
  }
  // Every pair of groups: a·h / (g - 1) links (1 at g = a·h + 1).
  EXPECT_EQ(static_cast<int>(pair_links.size()), c.g * (c.g - 1) / 2);
  for (const auto& [pair, n] : pair_links) {
    EXPECT_EQ(n, c.a * c.h / (c.g - 1)) << "groups " << pair.first << "-" << pair.second;
  }
}

TEST(Dragonfly, CountsEqualTheClosedForms) {
  // Balanced a = 2p = 2h, g = a·h + 1 (Kim et al. §3.1): p = 1, 2, 3.
  check_closed_forms({dfly(1), 1, 2, 1, 3});
  check_closed_forms({dfly(2), 2, 4, 2, 9});   // 72 NICs, the example's fabric
  check_closed_forms({dfly(3), 3, 6, 3, 19});  // 342 NICs
  // Custom: fewer groups, several links per pair (a·h / (g - 1) = 2 and 4).
  check_closed_forms({dfly(2, 4, 2, 5), 2, 4, 2, 5});
  check_closed_forms({dfly(1, 4, 1, 2), 1, 4, 1, 2});
  // Unbalanced a, h.
  check_closed_forms({dfly(2, 3, 4, 13), 2, 3, 4, 13});
  // The palmtree arrangement pairs the same counts differently.
  check_closed_forms({dfly(2, 4, 2, 0, DragonflyArrangement::kPalmtree), 2, 4, 2, 9});
  check_closed_forms({dfly(2, 4, 2, 5, DragonflyArrangement::kPalmtree), 2, 4, 2, 5});
}

// The two arrangements differ: absolute sends group i's global ports 0, 1 (on its switch 0) to
// groups 0, 1 (skipping i); palmtree to groups i - 1, i - 2 (mod g).
TEST(Dragonfly, ArrangementsWireGroupsAsNamed) {
  for (const auto arr : {DragonflyArrangement::kAbsolute, DragonflyArrangement::kPalmtree}) {
    Fabric f;
    f.topo = build(dfly(2, 4, 2, 0, arr), FabricParams{}, f.net);
    const uint32_t a = 4, g = 9;
    for (uint32_t group = 0; group < g; ++group) {
      // Switch group·a's global ports: local indices p + a - 1 = 5 and 6.
      const net::Switch& sw = f.net.switch_at(group * a);
      std::set<uint32_t> got;
      for (uint32_t k = 5; k < 7; ++k) got.insert(f.net.port(sw.first_port + k).far_index / a);
      std::set<uint32_t> want;
      for (uint32_t t = 0; t < 2; ++t) {
        want.insert(arr == DragonflyArrangement::kAbsolute ? (t < group ? t : t + 1)
                                                           : (group + g - t - 1) % g);
      }
      EXPECT_EQ(got, want) << "group " << group;
    }
  }
}

void expect_refused(const TopologySpec& spec, const std::string& key, const std::string& says) {
  try {
    check_shape(spec);
    FAIL() << "shape should be refused at " << key;
  } catch (const InputError& e) {
    EXPECT_EQ(e.key_path(), key) << e.what();
    EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
  }
}

TEST(Dragonfly, ImpossibleShapesNameTheKey) {
  expect_refused(dfly(2, 4, 2, 10), "topology.dragonfly.groups", "at most a·h + 1 = 9");
  expect_refused(dfly(2, 4, 2, 4), "topology.dragonfly.groups", "split evenly over the 3");
  expect_refused(dfly(2, 4, 2, 1), "topology.dragonfly.groups", "at least 2 groups");
  TopologySpec odd = dfly(2);
  odd.nics_per_host = 5;
  expect_refused(odd, "hosts.nics_per_host", "72 NICs");
}

TEST(Dragonfly, LoaderReportsFileLineAndSizesHosts) {
  const std::string yaml =
      "topology:\n"
      "  kind: dragonfly\n"
      "  dragonfly:\n"
      "    p: 2\n"
      "    groups: 20\n";
  try {
    scenario::load_scenario_string(yaml, "df.yaml");
    FAIL() << "g = 20 > a·h + 1 = 9 must be refused";
  } catch (const scenario::LoadError& e) {
    EXPECT_EQ(e.key_path(), "topology.dragonfly.groups");
    EXPECT_EQ(e.where().line, 5) << e.what();
    EXPECT_NE(std::string(e.what()).find("df.yaml:5"), std::string::npos) << e.what();
  }
  const scenario::LoadedScenario ok =
      scenario::load_scenario_string("topology: {kind: dragonfly, dragonfly: {p: 2}}\n", "ok.yaml");
  EXPECT_EQ(ok.scenario.topology.hosts, 72) << "hosts.count = p·a·g";
  EXPECT_THROW(scenario::load_scenario_string(
                   "topology: {kind: dragonfly}\nhosts: {count: 10}\n", "h.yaml"),
               scenario::LoadError);
  EXPECT_THROW(scenario::load_scenario_string(
                   "topology: {kind: fat_tree, dragonfly: {p: 2}}\n", "k.yaml"),
               scenario::LoadError)
      << "topology.dragonfly.* only with kind: dragonfly";
}

}  // namespace dragonfly_test
}  // namespace fabricsim::topo
