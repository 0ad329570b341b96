// The bill of materials (resolve/cost/bom.h) against closed forms derived here, not against its own
// output: a non-blocking k-ary fat-tree of N NICs has 3N/k switches and 2N cables in 2 tiers,
// 5N/k switches and 3N cables in 3 (Al-Fares et al., SIGCOMM 2008; the count rules of
// ../shared/reference/cost-power.md s3); its total is the sum of its itemised rows; and the
// per-GPU power reproduces the sheet's own derivation (s5: "2-tier ~ 25 NIC + 8 + 1.5 x 16 +
// 3/64 x 747 ~ 92 W").
#include <gtest/gtest.h>

#include <string>

#include "resolve/cost/bom.h"
#include "spec/load.h"

namespace fabricsim::scenario {
namespace bom_test {

Bom bom_of(const std::string& yaml) {
  return bill_of_materials(load_scenario_string(yaml, "bom.yaml").scenario);
}

int64_t total_switches(const Bom& b) {
  int64_t n = 0;
  for (int64_t s : b.switches_per_tier) n += s;
  return n;
}

int64_t count_of(const Bom& b, const std::string& item_prefix) {
  int64_t n = 0;
  for (const BomRow& r : b.rows) {
    if (r.item.rfind(item_prefix, 0) == 0) n += r.count;
  }
  return n;
}

TEST(Bom, TwoTierFatTreeHasThreeNOverKSwitches) {
  // k = 16, N = k^2/2 = 128.
  const Bom b = bom_of("fabric: {technology: ib}\ntopology: {kind: fat_tree, tiers: 2, radix: 16}\n"
                       "hosts: {count: 128}\n");
  EXPECT_EQ(total_switches(b), 3 * 128 / 16);
  ASSERT_EQ(b.switches_per_tier.size(), 2u);
  EXPECT_EQ(b.switches_per_tier[0], 128 / 8) << "leaves: N / (k/2)";
  EXPECT_EQ(b.cables, 2 * 128);
  EXPECT_EQ(b.nics, 128);
  EXPECT_EQ(b.switch_model, "qm9700");
}

TEST(Bom, ThreeTierFatTreeHasFiveNOverKSwitches) {
  for (const int k : {8, 16}) {
    const int n = k * k * k / 4;
    const Bom b = bom_of("fabric: {technology: roce}\ntopology: {kind: fat_tree, tiers: 3, radix: " +
                         std::to_string(k) + "}\nhosts: {count: " + std::to_string(n) + "}\n");
    EXPECT_EQ(total_switches(b), 5 * n / k) << "k=" << k;
    ASSERT_EQ(b.switches_per_tier.size(), 3u);
    EXPECT_EQ(b.switches_per_tier[2], k * k / 4) << "cores: (k/2)^2";
    EXPECT_EQ(b.cables, 3 * n);
    EXPECT_EQ(b.switch_model, "tomahawk5");
    // Host links at the default 3 m are DACs (within cost.dac.reach); every switch-to-switch
    // cable is optical, a transceiver at each end.
    EXPECT_EQ(count_of(b, "host links: DAC"), n);
    EXPECT_EQ(count_of(b, "tier 1-2 links"), 2 * n);
    EXPECT_EQ(count_of(b, "tier 2-3 links"), 2 * n);
  }
}

TEST(Bom, MultiPlaneFabricIsPPlanesAndNoSelectorSwitches) {
  // P planes are P copies of the single fabric's shape (docs/topologies.md): a 2-tier k = 16
  // tree of 128 NICs per plane has 3 x 128 / 16 = 24 switches, so P = 2 and 4 planes have 48 and
  // 96, in 2 tiers. The plane selector inside each NIC is not a switch to buy, and its 0 m cable
  // to the NIC is not a cable: each NIC has P host links (its plane ports), each plane 128
  // leaf-spine cables. On RoCE and on InfiniBand alike.
  for (const char* tech : {"roce", "ib"}) {
    for (const int planes : {2, 4}) {
      const Bom b = bom_of(std::string("fabric: {technology: ") + tech +
                           "}\ntopology: {kind: fat_tree, tiers: 2, radix: 16, planes: " +
                           std::to_string(planes) + "}\nhosts: {count: 128}\n");
      ASSERT_EQ(b.switches_per_tier.size(), 2u) << tech << " " << planes;
      EXPECT_EQ(total_switches(b), planes * 3 * 128 / 16) << tech << " " << planes;
      EXPECT_EQ(b.switches_per_tier[0], planes * 128 / 8) << tech << " " << planes;
      EXPECT_EQ(count_of(b, "host links"), planes * 128) << tech << " " << planes;
      EXPECT_EQ(b.cables, planes * 2 * 128) << tech << " " << planes;
      EXPECT_EQ(b.nics, 128);
    }
  }
}

TEST(Bom, TotalIsTheSumOfTheItemisedRows) {
  const Bom b = bom_of("fabric: {technology: uet}\ntopology: {kind: fat_tree, tiers: 3, radix: 8}\n"
                       "hosts: {count: 128}\n");
  double price = 0, power = 0;
  for (const BomRow& r : b.rows) {
    EXPECT_GT(r.count, 0) << r.item;
    EXPECT_FALSE(r.price_confidence.empty()) << r.item;
    EXPECT_FALSE(r.source.empty()) << r.item;
    price += static_cast<double>(r.count) * r.unit_price_usd;
    power += static_cast<double>(r.count) * r.unit_power_w;
  }
  EXPECT_DOUBLE_EQ(b.total_price_usd(), price);
  EXPECT_DOUBLE_EQ(b.total_power_w(), power);
  // Itemised by hand from the sheet's rows: 80 Tomahawk 5 boxes at 45k / 913 W, 128 UEC NICs at
  // 2.2k / 50 W, 128 DACs at 200 / 0.1 W, 2 x 256 SR4 modules at 700 / 8 W.
  EXPECT_DOUBLE_EQ(price, 80 * 45'000.0 + 128 * 2'200.0 + 128 * 200.0 + 512 * 700.0);
  EXPECT_NEAR(power, 80 * 913.0 + 128 * 50.0 + 128 * 0.1 + 512 * 8.0, 1e-6);
}

// The sheet's per-GPU network power, derived from its part rows: NIC 24.9 W; an optical host link
// (8 W at each end) and one optical link per GPU per switch tier above the leaves (8 W at each
// end); switches: (3N/k or 5N/k) x 747 W / N. 2-tier k=64 (N = 2048): 24.9 + 16 + 16 + 3/64 x 747
// = 91.9 W, the sheet's "~92 W". 3-tier k=16 (N = 1024): 24.9 + 16 + 32 + 5/16 x 747.
TEST(Bom, PerGpuPowerMatchesTheSheetsDerivation) {
  const Bom two = bom_of("fabric: {technology: ib, link: {cable: 10m}}\n"
                         "topology: {kind: fat_tree, tiers: 2, radix: 64}\nhosts: {count: 2048}\n");
  EXPECT_NEAR(two.total_power_w() / 2048, 24.9 + 16 + 16 + 3.0 / 64 * 747, 1e-9);
  EXPECT_NEAR(two.total_power_w() / 2048, 92, 0.5) << "cost-power.md s5";
  const Bom three = bom_of("fabric: {technology: ib, link: {cable: 10m}}\n"
                           "topology: {kind: fat_tree, tiers: 3, radix: 16}\nhosts: {count: 1024}\n");
  EXPECT_NEAR(three.total_power_w() / 1024, 24.9 + 16 + 32 + 5.0 / 16 * 747, 1e-9);
}

TEST(Bom, GpuNodesArePricedPerGpuAndOverridesSayTheyWereSet) {
  const Bom b = bom_of("fabric: {technology: roce}\ntopology: {kind: fat_tree, tiers: 2, radix: 16}\n"
                       "hosts: {count: 16, nics_per_host: 8}\nnode: {gpus_per_node: 8}\n"
                       "cost: {switch: {model: sn5600, price_usd: 10000}, optic: {power_w: 12}}\n");
  EXPECT_TRUE(b.per_gpu);
  EXPECT_EQ(b.gpus, 128);
  EXPECT_EQ(b.switch_model, "sn5600");
  for (const BomRow& r : b.rows) {
    if (r.item.find("switches") != std::string::npos) {
      EXPECT_EQ(r.unit_price_usd, 10'000);
      EXPECT_EQ(r.price_confidence, "set");
      EXPECT_EQ(r.unit_power_w, 940) << "SN5600 typical (cost-power.md s1)";
      EXPECT_EQ(r.power_confidence, "M");
    }
    if (r.item.find("transceiver") != std::string::npos || r.item.find("2 per cable") != std::string::npos) {
      EXPECT_EQ(r.unit_power_w, 12);
      EXPECT_EQ(r.power_confidence, "set");
    }
  }
}

TEST(Bom, UnderusedSwitchesAndTooLongCablesAreSaid) {
  const Bom b = bom_of("fabric: {technology: ib}\ntopology: {kind: fat_tree, tiers: 2, radix: 16}\n"
                       "hosts: {count: 128}\n");
  ASSERT_FALSE(b.notes.empty());
  EXPECT_NE(b.notes[0].find("use at most 16 of a qm9700's 64 ports"), std::string::npos) << b.notes[0];
  try {
    bom_of("fabric: {link: {cable: 3km}}\ntopology: {kind: fat_tree, tiers: 2, radix: 8}\n"
           "hosts: {count: 8}\n");
    FAIL() << "a 3 km cable was priced";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key_path(), "fabric.link.cable");
  }
  EXPECT_THROW(load_scenario_string("cost: {nic: {price_usd: -1}}\n", "neg.yaml"), LoadError);
}

}  // namespace bom_test
}  // namespace fabricsim::scenario
