// ECMP hash polarization on examples/ecmp-polarization.yaml: all-to-all of one-packet flows on a
// non-blocking 3-tier k=8 fat-tree (128 NICs, 100 Gb/s).
//
//   core     c0..c3   c4..c7   c8..c11  c12..c15     cores j*4 .. j*4+3 serve agg j of each pod
//              \  |  /   ...                         n2 = k/2 = 4 core ports per agg
//   agg      a0  a1  a2  a3   (x 8 pods)
//              \ | \ / | /                           n1 = k/2 = 4 agg ports per edge
//   edge     e0  e1  e2  e3   (x 8 pods)
//            4 NICs each
//
// Why identical seeds polarize (shared/reference/rocev2.md §4): a switch picks member
// H(5-tuple, seed) mod n. The edge sends a flow to agg j iff H = j (mod n1). With the same
// function and seed at the agg, every flow there has H = j (mod n1) and so H mod n2 can only take
// the n2 / gcd(n1, n2) values congruent to j mod gcd(n1, n2): each agg uses n2 / gcd(n1, n2) of
// its n2 core ports. Here n1 = n2 = 4, so exactly one: a 1/(k/2) fraction of the agg->core
// (tier-2 uplink) ports carries everything. The count is exact, not a bound, because each agg
// receives hundreds of flows, so every reachable residue class is hit. ACKs are hashed by the
// same rule (their own 5-tuple), so the idle ports send nothing at all. By pigeonhole the busiest
// used port carries at least the mean of the used ones, so imbalance = max / mean >= ports / used.
// With per-switch seeds the tiers hash independently and every core port is used.
#include <gtest/gtest.h>

#include <cstdio>
#include <numeric>
#include <string>
#include <vector>

#include "spec/load.h"
#include "engine/run.h"
#include "engine/packet/simulation.h"

namespace fabricsim {
namespace polarization_test {

const std::string kExample = std::string(FABRICSIM_SOURCE_DIR) + "/examples/ecmp-polarization.yaml";

scenario::Scenario load(const std::string& hash, const std::string& seed) {
  return scenario::load_scenario_file(kExample,
                                      {"routing.ecmp.hash=" + hash, "routing.ecmp.seed=" + seed});
}

const scenario::LinkGroupLoad& group(const scenario::RunResult& r, int tier,
                                     scenario::LinkDirection dir) {
  for (const scenario::LinkGroupLoad& g : r.links.groups) {
    if (g.tier == tier && g.direction == dir) return g;
  }
  static const scenario::LinkGroupLoad none;
  ADD_FAILURE() << "no link group for tier " << tier;
  return none;
}

// Size of the ECMP group switch `sw` uses towards the leaf of `dst_nic`.
uint32_t group_size(const net::Network& net, uint32_t sw, uint32_t dst_nic) {
  const net::Switch& s = net.switch_at(sw);
  const uint16_t g = s.group_of_key[net.leaf_slot_of_nic(dst_nic)];
  return s.group_offsets[g + 1] - s.group_offsets[g];
}

struct Shape {
  int k = 0;
  uint32_t n1 = 0, n2 = 0;  // edge->agg and agg->core group sizes towards another pod
  int aggs = 0;
};

Shape shape_of(const scenario::Scenario& sc) {
  scenario::Simulation sim(sc);
  const net::Network& net = sim.network();
  Shape s;
  s.k = sc.topology.radix;
  const uint32_t other_pod_nic = net.num_nics() - 1;  // NIC 0 is in pod 0, the last in pod k-1
  for (uint32_t sw = 0; sw < net.num_switches(); ++sw) {
    const net::Switch& x = net.switch_at(sw);
    if (x.tier == 2) ++s.aggs;
    if (x.tier == 1 && s.n1 == 0) s.n1 = group_size(net, sw, other_pod_nic);
    if (x.tier == 2 && s.n2 == 0) s.n2 = group_size(net, sw, other_pod_nic);
  }
  return s;
}

std::string figures(const char* what, const scenario::LinkGroupLoad& g) {
  char buf[200];
  std::snprintf(buf, sizeof buf, "%s: imbalance %.2f, max %.1f%%, mean %.1f%%, %d of %d used", what,
                g.imbalance, g.max_utilization * 100, g.mean_utilization * 100,
                g.ports - g.idle_ports, g.ports);
  return buf;
}

class SameSeedPolarization : public ::testing::TestWithParam<std::string> {};

// Identical seeds: the agg->core ports used are exactly the derivation's count, for either hash
// (the argument needs only that every switch computes the same H).
TEST_P(SameSeedPolarization, UsesOneCorePortPerAgg) {
  const std::string hash = GetParam();
  const scenario::Scenario sc = load(hash, "same");
  const Shape s = shape_of(sc);
  ASSERT_EQ(s.n1, static_cast<uint32_t>(s.k / 2)) << "an edge has k/2 aggs towards another pod";
  ASSERT_EQ(s.n2, static_cast<uint32_t>(s.k / 2)) << "an agg has k/2 cores towards another pod";
  const int per_agg = static_cast<int>(s.n2 / std::gcd(s.n1, s.n2));
  const int expected_used = s.aggs * per_agg;

  const scenario::RunResult r = scenario::run_scenario(sc);
  ASSERT_TRUE(r.completed) << "every flow of the example finishes";
  ASSERT_EQ(r.counters.dropped_packets, 0) << "no drops: only the paths differ";
  const scenario::LinkGroupLoad& up2 = group(r, 2, scenario::LinkDirection::kUp);
  const int used = up2.ports - up2.idle_ports;
  const std::string fig = figures((hash + " seed same, agg->core").c_str(), up2);
  std::printf("[ polarization ] %s\n", fig.c_str());
  ASSERT_EQ(up2.ports, s.aggs * static_cast<int>(s.n2)) << "agg->core ports: " << fig;
  EXPECT_EQ(used, expected_used) << "n2/gcd(n1,n2) = " << per_agg << " core port(s) per agg, "
                                 << s.aggs << " aggs; " << fig;
  EXPECT_EQ(used * (s.k / 2), up2.ports)
      << "a 1/(k/2) fraction of the core uplinks is used; " << fig;
  EXPECT_GE(up2.imbalance, static_cast<double>(up2.ports) / used - 1e-9)
      << "pigeonhole: max >= mean of the used ports = mean x ports / used; " << fig;

  // The cores are polarized too: every pod's agg j lists cores j*(k/2) .. j*(k/2)+k/2-1 in the
  // same order and picks the same member(s), so only per_agg of each group of k/2 cores ever
  // receives, and each of those sends down to every pod.
  const scenario::LinkGroupLoad& down3 = group(r, 2, scenario::LinkDirection::kDown);
  const int cores_used = s.k / 2 * per_agg;
  EXPECT_EQ(down3.ports - down3.idle_ports, cores_used * s.k)
      << cores_used << " cores used, each sending to all " << s.k << " pods; "
      << figures("core->agg", down3);
}

INSTANTIATE_TEST_SUITE_P(Hashes, SameSeedPolarization, ::testing::Values("crc32", "xor_fold"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

// Per-switch seeds against identical ones (CRC-32): a measurably lower agg->core imbalance,
// every core port used, and a shorter run. Not compared for xor_fold: the 16-bit fold of this
// traffic has constant bits (the UDP source port is 0xC000 | 14 bits, addresses are in
// 10.0.0.0/8), and a switch whose seed-dependent bit offset (net/hash.h) selects them sends every
// flow to one or two members, so xor_fold with per-switch seeds is not better than polarized here.
TEST(Polarization, PerSwitchSeedsSpreadTheCoreUplinks) {
  const scenario::RunResult same = scenario::run_scenario(load("crc32", "same"));
  const scenario::RunResult spread = scenario::run_scenario(load("crc32", "per_switch"));
  ASSERT_TRUE(same.completed && spread.completed) << "both runs finish";
  const scenario::LinkGroupLoad& a = group(same, 2, scenario::LinkDirection::kUp);
  const scenario::LinkGroupLoad& b = group(spread, 2, scenario::LinkDirection::kUp);
  const std::string fig =
      figures("crc32 same, agg->core", a) + "; " + figures("crc32 per_switch, agg->core", b);
  std::printf("[ polarization ] %s\n", fig.c_str());
  EXPECT_GT(a.imbalance, 1.5 * b.imbalance)
      << "identical seeds must give a clearly higher agg->core imbalance: " << fig;
  EXPECT_EQ(b.idle_ports, 0) << "per-switch seeds reach every core port: " << fig;
  EXPECT_LT(spread.sim_time_ps, same.sim_time_ps)
      << "the polarized core links are the bottleneck: " << spread.sim_time_ps << " ps vs "
      << same.sim_time_ps << " ps";
}

}  // namespace polarization_test
}  // namespace fabricsim
