// The run-time estimate (preflight/runtime_estimate.h): its packet count and path length against
// closed forms derived here, and against the data packet-hops measured for the k=16 benchmark
// (docs/performance.md: 3,018,000 for bench/permutation-k16.yaml).
#include <gtest/gtest.h>

#include <string>

#include "spec/load.h"
#include "preflight/runtime_estimate.h"

namespace fabricsim::scenario {
namespace runtime_estimate_test {

RuntimeEstimate of(const std::string& yaml) {
  return estimate_runtime(load_scenario_string(yaml, "rt.yaml").scenario);
}

TEST(RuntimeEstimate, PermutationOnAKSixteenFatTree) {
  const RuntimeEstimate r =
      of("fabric: {roce: {mtu: 4000B}}\ntopology: {kind: fat_tree, tiers: 3, radix: 16}\n"
         "hosts: {count: 1024}\nworkload: {kind: pattern, pattern: permutation, flow_size: 2000000B}\n");
  ASSERT_TRUE(r.estimated) << r.why_not;
  // Of 1023 other NICs: 7 under the same leaf (2 links), 56 in the same pod (4), 960 elsewhere (6).
  const double links = (7 * 2.0 + 56 * 4.0 + 960 * 6.0) / 1023;
  EXPECT_DOUBLE_EQ(r.mean_links, links);
  EXPECT_DOUBLE_EQ(r.packet_hops, 1024 * 500 * links);
  EXPECT_NEAR(r.packet_hops, 3'018'000, 0.02 * 3'018'000) << "measured, docs/performance.md";
  EXPECT_DOUBLE_EQ(r.slowest_s, r.packet_hops / kSlowestHopsPerSecond);
}

TEST(RuntimeEstimate, RingAllReduceAndLeafSpine) {
  // 16 NICs, radix 8 leaf-spine (4 per leaf): 3 of 15 others share the leaf. 1 MiB ring:
  // chunk 65536 B = 16 slices of 4096 B = 16 packets at MTU 4096; 16 x 2 x 15 chunks.
  const RuntimeEstimate r =
      of("fabric: {roce: {mtu: 4096B}}\ntopology: {kind: fat_tree, tiers: 2, radix: 8}\n"
         "hosts: {count: 16}\nworkload: {kind: collective, op: all_reduce, algorithm: ring, "
         "size: 1MiB, slice: 4KiB}\n");
  ASSERT_TRUE(r.estimated) << r.why_not;
  EXPECT_DOUBLE_EQ(r.mean_links, (3 * 2.0 + 12 * 4.0) / 15);
  EXPECT_DOUBLE_EQ(r.packet_hops, 16 * 2 * 15 * 16 * r.mean_links);
}

TEST(RuntimeEstimate, SaysWhatItCannotEstimate) {
  const LoadedScenario s =
      load_scenario(std::string(FABRICSIM_SOURCE_DIR) + "/examples/topology-file.yaml");
  const RuntimeEstimate r = estimate_runtime(s.scenario);
  EXPECT_FALSE(r.estimated);
  EXPECT_NE(r.why_not.find("topology files"), std::string::npos) << r.why_not;
}

}  // namespace runtime_estimate_test
}  // namespace fabricsim::scenario
