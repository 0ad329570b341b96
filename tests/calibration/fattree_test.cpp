// The partial fat-tree builder (topo/fat_tree.cpp: the fewest spines/cores that take every
// uplink) against published switch counts: NVIDIA's DGX SuperPOD B200 RA component table and
// the cost sheet's count rule (../shared/reference/cost-power.md s3, which reproduces the
// Aug-2024 "H100 Freakonomics" sheet). Counts are exact, so each band is the figure alone. The
// SuperPOD is rail-optimized; a rail fabric and a fat-tree of the same radix and NIC count have
// the same tiers (docs/topologies.md), and 3 tiers are built by the fat-tree builder only.
#include <gtest/gtest.h>

#include <vector>

#include "calibration.h"
#include "core/scheduler.h"
#include "net/network.h"
#include "topo/topology.h"

namespace fabricsim {
namespace fattree_test {

using calibration::check_figure;
using calibration::Figure;

// Switches per tier of a non-blocking fat-tree of `tiers` tiers, radix `radix`, `nics` NICs.
std::vector<int> per_tier(int tiers, int radix, int hosts, int nics_per_host) {
  Scheduler sched;
  net::Network net(sched);
  topo::TopologySpec spec;
  spec.tiers = tiers;
  spec.radix = radix;
  spec.hosts = hosts;
  spec.nics_per_host = nics_per_host;
  topo::build(spec, topo::FabricParams{}, net);
  std::vector<int> n(static_cast<size_t>(tiers), 0);
  for (uint32_t s = 0; s < net.num_switches(); ++s) ++n[net.switch_at(s).tier - 1];
  return n;
}

int sum(const std::vector<int>& v) {
  int s = 0;
  for (int x : v) s += x;
  return s;
}

TEST(FatTreeCalibration, B200SixteenSuThreeTierSwitches) {
  const std::vector<int> n = per_tier(3, 64, 512, 8);
  check_figure(Figure{
      .name = "DGX SuperPOD B200, 16 SU (512 nodes x 8 NICs): leaf + spine + core switches",
      .published = "128 leaf + 128 spine + 64 core",
      .source = "NVIDIA DGX SuperPOD B200 reference architecture, DGX SuperPOD Architecture, "
                "larger SuperPOD component counts (16 SU: 512 nodes, 4,096 GPUs, 128 leaf, "
                "128 spine, 64 core; docs/reference/gpu-node.md s4)",
      .scenario = "fattree_test B200SixteenSuThreeTierSwitches: topology fat_tree, tiers 3, "
                  "radix 64, 512 hosts x 8 NICs (4 pods; 2 cores per agg group, 16 cables per "
                  "agg-core pair)",
      .unit = "switches",
      .value = static_cast<double>(sum(n)),
      .lo = 320,
      .hi = 320});
  EXPECT_EQ(n, (std::vector<int>{128, 128, 64}));
}

TEST(FatTreeCalibration, CostSheet1024GpusTwoTierSwitches) {
  const std::vector<int> n = per_tier(2, 64, 128, 8);
  check_figure(Figure{
      .name = "1,024 GPUs, one 400G NIC each, 64-port switches, 2 tiers: switches",
      .published = "48",
      .source = "cost-power.md s3 count rules (3N/k; reproduces the Aug-2024 H100 Freakonomics "
                "sheet: 1,024 GPUs -> 48 switches); SuperPOD B200 RA 4 SU: 32 leaf + 16 spine",
      .scenario = "fattree_test CostSheet1024GpusTwoTierSwitches: fat_tree, tiers 2, radix 64, "
                  "128 hosts x 8 NICs (32 leaves, 16 spines, 2 cables per pair); also "
                  "examples/describe-1024.yaml ib-2tier",
      .unit = "switches",
      .value = static_cast<double>(sum(n)),
      .lo = 48,
      .hi = 48});
  EXPECT_EQ(n, (std::vector<int>{32, 16}));
}

TEST(FatTreeCalibration, CostSheet32kGpusThreeTierSwitches) {
  const std::vector<int> n = per_tier(3, 64, 4096, 8);
  check_figure(Figure{
      .name = "32,768 GPUs, one 400G NIC each, 64-port switches, 3 tiers: switches",
      .published = "2,560",
      .source = "cost-power.md s3 count rules (5N/k; reproduces the Aug-2024 H100 Freakonomics "
                "sheet: 32,768 GPUs -> 2,560 switches)",
      .scenario = "fattree_test CostSheet32kGpusThreeTierSwitches: fat_tree, tiers 3, radix 64, "
                  "4,096 hosts x 8 NICs (32 pods of 32 edges and 32 aggs, 16 cores per agg "
                  "group, 2 cables per agg-core pair)",
      .unit = "switches",
      .value = static_cast<double>(sum(n)),
      .lo = 2560,
      .hi = 2560});
  EXPECT_EQ(n, (std::vector<int>{1024, 1024, 512}));
}

}  // namespace fattree_test
}  // namespace fabricsim
