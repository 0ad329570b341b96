// The rail-optimized builder (topo/rail.cpp) against the component counts NVIDIA publishes for
// its DGX SuperPOD reference architectures (docs/topologies.md has the full tables; the topology
// unit tests in tests/topo/rail_test.cpp check every row and the cabling itself). The counts are
// exact, so the band is the published figure alone.
#include <gtest/gtest.h>

#include "calibration.h"
#include "core/scheduler.h"
#include "net/network.h"
#include "topo/topology.h"

namespace fabricsim {
namespace rail_test {

using calibration::check_figure;
using calibration::Figure;

struct Counts {
  int leaves = 0, spines = 0, leaf_spine_cables = 0;
};

// Builds N nodes x 8 rails at radix R and counts tiers and leaf-spine cables from the ports.
Counts build_superpod(int nodes, int radix) {
  Scheduler sched;
  net::Network net(sched);
  topo::TopologySpec spec;
  spec.kind = topo::TopologyKind::kRail;
  spec.hosts = nodes;
  spec.nics_per_host = 8;
  spec.radix = radix;
  topo::build(spec, topo::FabricParams{}, net);
  Counts c;
  for (uint32_t sw = 0; sw < net.num_switches(); ++sw) {
    const net::Switch& s = net.switch_at(sw);
    if (s.tier == 2) {
      ++c.spines;
      continue;
    }
    ++c.leaves;
    for (uint32_t p = s.first_port; p < s.first_port + s.num_ports; ++p) {
      if (!net.port(net.port(p).peer).is_nic) ++c.leaf_spine_cables;
    }
  }
  return c;
}

constexpr const char* kB200Source =
    "NVIDIA DGX SuperPOD B200 reference architecture, DGX SuperPOD Architecture, larger "
    "SuperPOD component counts (4 SU: 128 nodes, 32 leaf, 16 spine, 1,024 node-leaf, 1,024 "
    "leaf-spine cables)";

TEST(RailCalibration, B200FourSuSwitches) {
  const Counts c = build_superpod(128, 64);
  check_figure(Figure{
      .name = "DGX SuperPOD B200, 4 SU (128 nodes x 8 rails): leaf + spine switches",
      .published = "32 leaf + 16 spine",
      .source = kB200Source,
      .scenario = "rail_test B200FourSuSwitches: topology.kind rail, 128 hosts x 8 NICs, "
                  "radix 64 (32 nodes per rail leaf, non-blocking: 32 down / 32 up)",
      .unit = "switches",
      .value = static_cast<double>(c.leaves + c.spines),
      .lo = 48,
      .hi = 48});
  EXPECT_EQ(c.leaves, 32);
  EXPECT_EQ(c.spines, 16);
}

TEST(RailCalibration, B200FourSuLeafSpineCables) {
  check_figure(Figure{
      .name = "DGX SuperPOD B200, 4 SU: leaf-spine cables",
      .published = "1,024",
      .source = kB200Source,
      .scenario = "rail_test B200FourSuLeafSpineCables: as above, cables counted at the leaves",
      .unit = "cables",
      .value = static_cast<double>(build_superpod(128, 64).leaf_spine_cables),
      .lo = 1024,
      .hi = 1024});
}

// 32 leaves x 72 uplinks would fit 16 spines of 144 ports, but NVIDIA builds 18 so that every
// leaf spreads its 72 uplinks evenly (4 per spine): the figure that fixes the builder's spine rule.
TEST(RailCalibration, B300XdrFourSuSpines) {
  check_figure(Figure{
      .name = "DGX SuperPOD B300 XDR, 4 SU (288 nodes x 8 rails): spine switches",
      .published = "18",
      .source = "NVIDIA DGX SuperPOD B300 Quantum-X800 (XDR) reference architecture, table 3 "
                "(4 SU: 288 nodes, 32 leaf, 18 spine, 2,304 + 2,304 cables)",
      .scenario = "rail_test B300XdrFourSuSpines: topology.kind rail, 288 hosts x 8 NICs, radix "
                  "144 (72 nodes per rail leaf, non-blocking; inferred)",
      .unit = "switches",
      .value = static_cast<double>(build_superpod(288, 144).spines),
      .lo = 18,
      .hi = 18});
}

}  // namespace rail_test
}  // namespace fabricsim
