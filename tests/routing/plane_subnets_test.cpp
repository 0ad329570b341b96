// Multi-plane InfiniBand: one Subnet Manager per plane (routing/plane_subnets.h), checked against
// facts the test derives itself: the numbering of topo/multi_plane.h, the rule that every
// subnet's LID space starts at 1 with its CAs in NIC order, and the tables a single-plane fabric
// of the same shape gets.
//
//   NIC i ── selector i (switch i: the HCA) ──┬── plane 0: leaves, spines (switch N on)
//                                             ├── plane 1: ...
//                                             └── ...
// Leaf-spine radix 8, 16 NICs: per plane 4 leaves (4 HCA ports each) and 2 spines, 2 cables per
// leaf-spine pair, so per plane S = 6 switches and 16 + 6 = 22 LIDs (1 .. 22).
#include "routing/plane_subnets.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "core/scheduler.h"
#include "net/network.h"
#include "net/plane_choice.h"
#include "routing/lid_install.h"
#include "topo/multi_plane.h"
#include "topo/topology.h"

namespace fabricsim::routing {
namespace plane_subnets_test {

constexpr uint32_t kNics = 16;
constexpr uint32_t kPlaneSwitches = 6;

struct Fabric {
  Scheduler sched;
  net::Network net{sched};
  topo::TopologySpec spec;
  std::vector<SweepScope> scopes;
};

std::unique_ptr<Fabric> fabric(int planes) {
  auto f = std::make_unique<Fabric>();
  f->spec.tiers = 2;
  f->spec.radix = 8;
  f->spec.hosts = static_cast<int>(kNics);
  f->spec.planes = planes;
  topo::build(f->spec, topo::FabricParams{}, f->net);
  if (planes > 1) {
    for (uint32_t i = 0; i < kNics; ++i) net::make_hca_ports(f->net.switch_at(i));
    for (int p = 0; p < planes; ++p) {
      const topo::PlaneSwitches ps = topo::plane_switches(f->net, f->spec, p);
      f->scopes.push_back({ps.first, ps.count, kNics});
    }
  }
  return f;
}

uint32_t local_port(const net::Network& net, uint32_t sw, uint32_t port) {
  return port == net::kNoPort ? net::kNoPort : port - net.switch_at(sw).first_port;
}

TEST(PlaneSubnets, EveryHcaHasOneLidPerPlaneEachPlaneFromOne) {
  for (int planes : {2, 4}) {
    auto f = fabric(planes);
    SCOPED_TRACE(std::to_string(planes) + " planes");
    ASSERT_EQ(f->net.num_switches(), kNics + planes * kPlaneSwitches);
    for (int p = 0; p < planes; ++p) {
      SubnetManager sm(SmEngine::kFatTree, true, SmEngine::kUpDown, f->scopes[p]);
      const LidRoutes r = sm.sweep(f->net);
      // Each subnet numbers from 1: its CAs (the HCAs' ports on this plane) in NIC order, then
      // its own switches; nothing else has a LID in it.
      EXPECT_EQ(r.num_lids, kNics + kPlaneSwitches + 1) << "plane " << p;
      for (uint32_t nic = 0; nic < kNics; ++nic) EXPECT_EQ(r.nic_lid[nic], nic + 1);
      uint32_t next = kNics + 1;
      for (uint32_t s = 0; s < f->net.num_switches(); ++s) {
        const bool mine = s >= f->scopes[p].first_switch &&
                          s < f->scopes[p].first_switch + f->scopes[p].num_switches;
        EXPECT_EQ(r.switch_lid[s], mine ? next++ : 0u) << "switch " << s;
        // The SM holds tables for its own switches only: none for a selector (the HCA) or
        // another plane's switch.
        EXPECT_EQ(r.lft[s].empty(), !mine) << "switch " << s;
      }
      EXPECT_EQ(r.unreachable_pairs, 0);
      // Per-plane ftree sees a uniform tree: no fallback.
      EXPECT_EQ(r.engine_used, SmEngine::kFatTree) << r.fallback_reason;
      EXPECT_TRUE(r.fallback_reason.empty()) << r.fallback_reason;
    }
  }
}

TEST(PlaneSubnets, NoLftLeavesItsPlaneOrTransitsAnHca) {
  for (const SmEngine engine : {SmEngine::kMinHop, SmEngine::kUpDown, SmEngine::kFatTree}) {
    auto f = fabric(4);
    const net::Network& net = f->net;
    SCOPED_TRACE(sm_engine_name(engine));
    for (int p = 0; p < 4; ++p) {
      const SweepScope& sc = f->scopes[p];
      SubnetManager sm(engine, true, SmEngine::kUpDown, sc);
      const LidRoutes r = sm.sweep(net);
      for (uint32_t s = sc.first_switch; s < sc.first_switch + sc.num_switches; ++s) {
        for (uint32_t lid = 1; lid < r.num_lids; ++lid) {
          std::vector<uint32_t> ports{r.lft[s][lid]};
          for (uint32_t port : r.ar_group(s, lid)) ports.push_back(port);
          for (uint32_t port : ports) {
            if (port == net::kNoPort) continue;  // the switch's own LID
            ASSERT_EQ(net.port(port).switch_index, static_cast<int32_t>(s));
            const auto far = static_cast<uint32_t>(net.port(net.port(port).peer).switch_index);
            if (far < kNics) {
              // Down to an HCA only for that HCA's own LID on this plane, by its plane port.
              EXPECT_EQ(lid, far + 1) << "switch " << s << " sends LID " << lid
                                      << " into the HCA of NIC " << far;
              EXPECT_EQ(net.port(port).peer, net.switch_at(far).first_port + 1 + p);
            } else {
              EXPECT_GE(far, sc.first_switch) << "plane " << p << " switch " << s;
              EXPECT_LT(far, sc.first_switch + sc.num_switches) << "plane " << p;
            }
          }
        }
      }
    }
  }
}

TEST(PlaneSubnets, EachPlaneGetsTheSingleFabricsTables) {
  // One plane's subnet is the single-plane fabric of the same shape, switch for switch (plane
  // switch first + s is single-fabric switch s, port for port), so every engine must program
  // the same local ports for the same LIDs.
  for (const SmEngine engine : {SmEngine::kMinHop, SmEngine::kUpDown, SmEngine::kFatTree}) {
    auto single = fabric(1);
    SubnetManager one(engine);
    const LidRoutes r1 = one.sweep(single->net);
    auto f = fabric(2);
    for (int p = 0; p < 2; ++p) {
      SubnetManager sm(engine, true, SmEngine::kUpDown, f->scopes[p]);
      const LidRoutes rp = sm.sweep(f->net);
      ASSERT_EQ(rp.num_lids, r1.num_lids);
      const uint32_t first = f->scopes[p].first_switch;
      for (uint32_t s = 0; s < kPlaneSwitches; ++s) {
        for (uint32_t lid = 1; lid < r1.num_lids; ++lid) {
          EXPECT_EQ(local_port(f->net, first + s, rp.lft[first + s][lid]),
                    local_port(single->net, s, r1.lft[s][lid]))
              << sm_engine_name(engine) << " plane " << p << " switch " << s << " LID " << lid;
        }
      }
    }
  }
}

TEST(PlaneSubnets, AResweepRecomputesOnlyItsPlane) {
  auto f = fabric(2);
  net::Network& net = f->net;
  PlaneSubnets subnets(SmEngine::kFatTree, false, SmEngine::kUpDown, f->scopes);
  subnets.sweep_and_install(net, PlaneSubnets::kAllPlanes);
  ASSERT_EQ(subnets.routes().unreachable_pairs, 0);
  EXPECT_TRUE(subnets.routes().fallback_reason.empty());
  auto tables = [&](uint32_t sw) { return net.switch_at(sw).group_of_key; };
  std::vector<std::vector<uint16_t>> before;
  for (uint32_t s = 0; s < net.num_switches(); ++s) before.push_back(tables(s));
  // Plane 1's first leaf loses an uplink: its tree is no longer uniform, so its ftree falls
  // back to up/down; plane 0's SM sees nothing (no trap in its subnet) and is not run.
  const uint32_t leaf1 = f->scopes[1].first_switch;
  const net::Switch& l = net.switch_at(leaf1);
  net.fail_link(l.first_port + 4);  // ports 0-3 face HCAs, 4-7 the spines
  // What Simulation::program_routes does around its ECMP install, here a stand-in that wipes
  // every switch's table.
  subnets.stash_tables(net, 1u << 1);
  for (uint32_t s = 0; s < net.num_switches(); ++s) net.switch_at(s).group_of_key.clear();
  subnets.sweep_and_install(net, 1u << 1);
  subnets.restore_tables(net);
  for (uint32_t s = f->scopes[0].first_switch; s < f->scopes[1].first_switch; ++s) {
    EXPECT_EQ(tables(s), before[s]) << "plane 0's switch " << s << " keeps its LFT";
  }
  EXPECT_NE(tables(leaf1), before[leaf1]) << "plane 1's leaf stops using the failed port";
  EXPECT_EQ(subnets.sweeps(0), 1u);
  EXPECT_EQ(subnets.sweeps(1), 2u);
  EXPECT_EQ(subnets.plane_routes(0).engine_used, SmEngine::kFatTree);
  EXPECT_EQ(subnets.plane_routes(1).engine_used, SmEngine::kUpDown);
  EXPECT_EQ(subnets.routes().fallback_reason.rfind("plane 1: ", 0), 0u)
      << subnets.routes().fallback_reason;
  // LIDs persist across the re-sweep (guid2lid), every plane's from 1.
  const std::vector<uint16_t> lids = subnets.nic_lids();
  ASSERT_EQ(lids.size(), 2 * kNics);
  for (uint32_t nic = 0; nic < kNics; ++nic) {
    EXPECT_EQ(lids[nic], nic + 1);
    EXPECT_EQ(lids[kNics + nic], nic + 1);
  }
  // The selectors were never programmed by any SM: they keep forwarding by the QP's port.
  for (uint32_t i = 0; i < kNics; ++i) {
    EXPECT_FALSE(net.switch_at(i).route_by_lid);
    EXPECT_EQ(net.switch_at(i).lb, net::kLbHcaPorts);
  }
}

}  // namespace plane_subnets_test
}  // namespace fabricsim::routing
