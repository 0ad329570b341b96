// Multi-plane fabrics (topo/multi_plane.h): the counts of P planes against the closed forms of
// one plane, the rates of a NIC's plane ports, the selector ports, topology.planes: 1 exactly
// as before, and the refused combinations with their file:line errors.
//
// Closed forms, N NICs, P planes, one plane of a leaf-spine of radix R (down d = up u = R/2):
//   per plane  L = ceil(N / d) leaves, S = u spines, N + L x S cables
//   P planes   switches = N selectors + P (L + S); cables = N (NIC - selector) + P (N + L S)
// 3-tier k-ary fat-tree per plane (N = k^3/4): k^2/2 edges + k^2/2 aggs + k^2/4 cores and
// 3 N cables (NIC-edge, edge-agg, agg-core).
// Rail, H hosts x K rails, radix R: L = K ceil(H / d) leaves, S = the smallest divisor of u that
// is >= ceil(L u / R), N + L u cables (topo/rail.cpp).
#include <gtest/gtest.h>

#include <string>

#include "core/error.h"
#include "core/scheduler.h"
#include "net/network.h"
#include "resolve/resolve.h"
#include "output/json.h"
#include "routing/ecmp.h"
#include "spec/load.h"
#include "preflight/resources.h"
#include "engine/run.h"
#include "engine/packet/simulation.h"
#include "topo/multi_plane.h"
#include "topo/topology.h"

namespace fabricsim::topo {
namespace multi_plane_test {

struct Fabric {
  Scheduler sched;
  net::Network net{sched};
  BuiltTopology topo;
};

TopologySpec spec_of(TopologyKind kind, int tiers, int radix, int hosts, int nics_per_host,
                     int planes) {
  TopologySpec s;
  s.kind = kind;
  s.tiers = tiers;
  s.radix = radix;
  s.hosts = hosts;
  s.nics_per_host = nics_per_host;
  s.planes = planes;
  return s;
}

void expect_counts(const TopologySpec& spec, int nics, int per_plane_switches,
                   int per_plane_cables) {
  for (int planes : {2, 4}) {
    TopologySpec s = spec;
    s.planes = planes;
    Fabric f;
    f.topo = build(s, FabricParams{}, f.net);
    SCOPED_TRACE(f.topo.description);
    EXPECT_EQ(f.topo.nics, nics);
    EXPECT_EQ(static_cast<int>(f.net.num_nics()), nics);
    EXPECT_EQ(f.topo.switches, nics + planes * per_plane_switches) << "selectors + P planes";
    EXPECT_EQ(static_cast<int>(f.net.num_switches()), f.topo.switches);
    EXPECT_EQ(f.topo.cables, nics + planes * per_plane_cables) << "NIC-selector + P planes";
    for (uint32_t i = 0; i < static_cast<uint32_t>(nics); ++i) {
      // NIC i's selector is switch i, tier 0, with the NIC's port and one port per plane.
      const net::Switch& sel = f.net.switch_at(i);
      EXPECT_EQ(sel.tier, 0);
      ASSERT_EQ(static_cast<int>(sel.num_ports), 1 + planes) << "NIC " << i;
      EXPECT_EQ(f.net.port(f.net.port(f.net.nic_port(i)).peer).switch_index,
                static_cast<int32_t>(i));
      EXPECT_EQ(sel.lb, net::kLbPlane);
      // Plane port p goes to a leaf of plane p.
      for (int p = 0; p < planes; ++p) {
        const PlaneSwitches ps = plane_switches(f.net, s, p);
        const net::Port& far = f.net.port(f.net.port(sel.first_port + 1 + p).peer);
        EXPECT_GE(static_cast<uint32_t>(far.switch_index), ps.first);
        EXPECT_LT(static_cast<uint32_t>(far.switch_index), ps.first + ps.count);
        EXPECT_EQ(f.net.switch_at(static_cast<uint32_t>(far.switch_index)).tier, 1);
      }
    }
    // plane_cable_ports lists each of the plane's cables once.
    EXPECT_EQ(static_cast<int>(plane_cable_ports(f.net, s, planes - 1).size()),
              per_plane_cables);
  }
}

TEST(MultiPlaneTopology, LeafSpineCountsArePTimesOnePlane) {
  // 8 NICs, radix 8: d = u = 4, L = 2, S = smallest divisor of 4 >= ceil(2 x 4 / 8) = 1, so
  // 1 spine with 4 cables per leaf (topo/fat_tree.cpp); 8 + 2 x 4 = 16 cables per plane.
  expect_counts(spec_of(TopologyKind::kFatTree, 2, 8, 8, 1, 1), 8, 2 + 1, 8 + 2 * 4);
}

TEST(MultiPlaneTopology, FatTreeCountsArePTimesOnePlane) {
  // k = 4: 16 NICs, 8 edges + 8 aggs + 4 cores, 3 x 16 cables per plane.
  expect_counts(spec_of(TopologyKind::kFatTree, 3, 4, 16, 1, 1), 16, 8 + 8 + 4, 3 * 16);
}

TEST(MultiPlaneTopology, RailCountsArePTimesOnePlane) {
  // 4 hosts x 2 rails, radix 8: d = u = 4, L = 2 x ceil(4/4) = 2, S = smallest divisor of 4
  // >= ceil(2 x 4 / 8) = 1, so 1 spine with 4 cables per leaf; 8 + 2 x 4 = 16 cables.
  expect_counts(spec_of(TopologyKind::kRail, 2, 8, 4, 2, 1), 8, 2 + 1, 8 + 2 * 4);
}

TEST(MultiPlaneTopology, PlanePortsRunAtTheNicRateOverP) {
  // An 800 Gb/s NIC as 4 x 200 Gb/s planes (the ConnectX-8 split, docs/topologies.md).
  TopologySpec s = spec_of(TopologyKind::kFatTree, 2, 8, 8, 1, 4);
  FabricParams params;
  params.link.rate_bps = 800'000'000'000;
  Fabric f;
  f.topo = build(s, params, f.net);
  EXPECT_EQ(f.net.port(f.net.nic_port(3)).rate_bps, 800'000'000'000) << "the NIC's aggregate";
  const net::Switch& sel = f.net.switch_at(3);
  for (uint32_t p = 1; p <= 4; ++p) {
    EXPECT_EQ(f.net.port(sel.first_port + p).rate_bps, 200'000'000'000) << "plane port " << p;
  }
  for (uint32_t sw = 8; sw < f.net.num_switches(); ++sw) {  // every link inside the planes
    const net::Switch& x = f.net.switch_at(sw);
    for (uint32_t k = 0; k < x.num_ports; ++k) {
      EXPECT_EQ(f.net.port(x.first_port + k).rate_bps, 200'000'000'000);
    }
  }
  // topology.plane_rate overrides the split (a 2 x 400G NIC whose planes run 400G links).
  s.plane_rate_bps = 400'000'000'000;
  Fabric g;
  g.topo = build(s, params, g.net);
  EXPECT_EQ(g.net.port(g.net.switch_at(0).first_port + 1).rate_bps, 400'000'000'000);
}

TEST(MultiPlaneTopology, OnePlaneIsTheSingleFabric) {
  // topology.planes: 1 takes the single-fabric builder: no selector, the classic counts.
  Fabric f;
  f.topo = build(spec_of(TopologyKind::kFatTree, 2, 8, 8, 1, 1), FabricParams{}, f.net);
  EXPECT_EQ(f.topo.switches, 2 + 1) << "2 leaves, 1 spine with 4 cables to each";
  EXPECT_EQ(f.topo.cables, 8 + 2 * 4);
  EXPECT_EQ(f.net.switch_at(0).tier, 1);
  // And a run with the key written out is byte-identical to one without it.
  const std::string base =
      "name: p1\nseed: 7\nfabric: {link: {rate: 100Gbps}}\n"
      "topology: {kind: leaf_spine, radix: 8";
  const std::string tail =
      "}\nhosts: {count: 8}\nworkload: {kind: pattern, pattern: permutation, flow_size: 256KB}\n";
  const auto run = [](const std::string& yaml) {
    scenario::RunResult r =
        scenario::run_scenario(scenario::load_scenario_string(yaml, "p1.yaml").scenario);
    r.run = {};  // wall-clock time and memory are not results
    return output::result_to_json(r).dump();
  };
  EXPECT_EQ(run(base + tail), run(base + ", planes: 1" + tail));
}

TEST(MultiPlaneTopology, EcmpNeverCrossesPlanesThroughAnotherNic) {
  // 2 planes of a leaf-spine (8 NICs, radix 8: leaves 8, 9 and spines 10-13 in plane 0). Leaf 8
  // loses its 4 uplinks: its NICs' selectors are still cabled to plane 1, so a shortest path
  // leaf 8 -> selector 1 -> plane 1 exists, but a NIC does not forward: leaf 8 must have no
  // route to the other leaf's NICs (they are reached over plane 1 by the NICs themselves).
  TopologySpec s = spec_of(TopologyKind::kFatTree, 2, 8, 8, 1, 2);
  Fabric f;
  f.topo = build(s, FabricParams{}, f.net);
  const uint32_t leaf = plane_switches(f.net, s, 0).first;
  const net::Switch& l = f.net.switch_at(leaf);
  ASSERT_EQ(l.tier, 1);
  ASSERT_EQ(l.num_ports, 8u);  // 4 selectors, then 4 spines
  for (uint32_t k = 4; k < 8; ++k) f.net.fail_link(l.first_port + k);
  routing::EcmpRoutes routes;
  routes.install(f.net, routing::EcmpConfig{}, 1);
  net::Packet pkt;
  pkt.src_nic = 0;
  pkt.dst_nic = 6;  // on the other leaf
  EXPECT_EQ(f.net.egress_port(leaf, pkt), net::kNoPort) << "no transit through a selector";
  // NIC 0's selector still reaches NIC 6 over plane 1 only.
  const net::Switch& sel = f.net.switch_at(0);
  for (int i = 0; i < 8; ++i) {
    EXPECT_EQ(f.net.egress_port(0, pkt), sel.first_port + 2) << "plane 1's port";
  }
}

TEST(MultiPlaneTopology, PreflightCountsMatchTheBuiltFabric) {
  // fabricsim validate's closed forms (preflight/resources.cpp) against what is built.
  for (const char* topo : {"{kind: leaf_spine, radix: 8, planes: 4}",
                           "{kind: fat_tree, tiers: 3, radix: 4, planes: 2}",
                           "{kind: rail, radix: 8, planes: 3}"}) {
    const std::string yaml = std::string("topology: ") + topo +
                             "\nhosts: {count: 4, nics_per_host: 2}\n"
                             "workload: {kind: pattern, pattern: permutation, flow_size: 8KB}\n";
    const scenario::Scenario sc = scenario::load_scenario_string(yaml, "mp.yaml").scenario;
    const scenario::ResourceEstimate e = scenario::estimate_resources(sc);
    scenario::Simulation sim(sc);
    EXPECT_EQ(e.switches, sim.network().num_switches()) << topo;
    EXPECT_EQ(e.cables, sim.network().num_cables()) << topo;
  }
}

// The one-line error a user sees: file:line: key: message (cli does the same).
std::string load_error(const std::string& yaml) {
  scenario::LoadedScenario s;
  try {
    s = scenario::load_scenario_string(yaml, "mp.yaml");
  } catch (const scenario::LoadError& e) {
    return e.what();
  }
  try {
    (void)scenario::resolve(s.scenario);
    scenario::run_scenario(s.scenario);
  } catch (const InputError& e) {
    return scenario::format_input_error(s, e);
  }
  return "";
}

TEST(MultiPlaneTopology, CombinationsThatCannotWorkAreRefused) {
  const std::string head =
      "topology: {kind: leaf_spine, radix: 8, planes: 2}\nhosts: {count: 8}\n"
      "workload: {kind: pattern, pattern: permutation, flow_size: 64KB}\n";
  // A go-back-N RoCE responder cannot take packets sprayed over planes: refused at the key.
  const std::string sprayed = load_error(head + "fabric: {planes: {split: packet}}\n");
  EXPECT_EQ(sprayed.rfind("mp.yaml:4: fabric.planes.split: packet: ", 0), 0u) << sprayed;
  EXPECT_NE(load_error(head + "fabric: {planes: {split: message}}\n").find("out_of_order"),
            std::string::npos);
  EXPECT_EQ(load_error(head + "fabric: {planes: {split: packet}, roce: {out_of_order: true}}\n"),
            "");
  // InfiniBand: a subnet per plane and a QP per port; only the per-connection split exists
  // (tests/engine/multi_plane_ib_test.cpp).
  EXPECT_EQ(load_error(head + "fabric: {technology: ib}\n"), "");
  EXPECT_NE(load_error(head + "fabric: {technology: ib, planes: {split: packet}}\n")
                .find("fabric.planes.split: packet: on InfiniBand"),
            std::string::npos);
  EXPECT_NE(load_error(head + "faults: {plane_down: {plane: 2}}\n").find("faults.plane_down.plane"),
            std::string::npos)
      << "planes 0 and 1 only";
  EXPECT_EQ(load_error("topology: {kind: file, file: " + std::string(FABRICSIM_SOURCE_DIR) +
                       "/tests/topo/data/hpcc_topology.txt, planes: 2}\n"
                       "workload: {kind: pattern, pattern: permutation, flow_size: 64KB}\n"),
            "mp.yaml:1: topology.planes: a topology file describes every plane itself; planes > 1 "
            "needs topology.kind fat_tree, leaf_spine or rail");
  EXPECT_NE(load_error("topology: {kind: leaf_spine, radix: 8, planes: 17}\nhosts: {count: 8}\n")
                .find("mp.yaml:1: topology.planes"),
            std::string::npos)
      << "the bound, with file:line";
}

}  // namespace multi_plane_test
}  // namespace fabricsim::topo
