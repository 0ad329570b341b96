// PLB against plain ECMP: the slowest flow and the aggregate over seeds (Qureshi et al., SIGCOMM
// 2022: PLB repaths flows that see congestion rounds, and the tail shortens). The scenario and
// its reasoning are tests/support/plb_scenario.h's; tests/validation/plb_test.cpp checks one
// seed's mechanics. Here, in the calibration label, because the multi-seed runs are long (the
// sanitizer pass skips this label).
//
// Which flows collide, and where a repathed flow lands, is chance: one seed is one draw. At
// seed 1 this read max FCT 10.86 -> 8.10 ms and 1.89 -> 2.53 Tb/s until issue 21 item 3 (a new
// event order and QP entropy hashed from the QP's identity); then 8.92 -> 9.29 ms and 2.30 ->
// 2.20 Tb/s, while over seeds 1-6 PLB's slowest flow averaged 8.56 against 9.33 ms (-8%) and its
// throughput 2.40 against 2.22 Tb/s (+8%), better on four seeds of six. So the claim is checked
// on the mean of four seeds (1-4: -5.6% and +5.2%). Issue 22 item 5 made a round with a CNP
// congested as well (docs/load-balancing.md "PLB"): more repaths (38-57 against 13-20 per seed)
// and a smaller mean gain, 8.89 against 9.05 ms (-1.8%) and 2.31 against 2.29 Tb/s (+1.0%).
#include <gtest/gtest.h>

#include "engine/run.h"
#include "../support/plb_scenario.h"

namespace fabricsim {
namespace plb_test {

using plb_scenario::max_fct;
using plb_scenario::permutation;

TEST(PlbCalibration, RepathingShortensTheTailOfAnEcmpPermutationOnAverage) {
  const int seeds = 4;
  double ecmp_max = 0, plb_max = 0, ecmp_gbps = 0, plb_gbps = 0;
  for (int seed = 1; seed <= seeds; ++seed) {
    const scenario::RunResult ecmp = scenario::run_scenario(permutation(false, seed));
    const scenario::RunResult plb = scenario::run_scenario(permutation(true, seed));
    ASSERT_TRUE(ecmp.completed && plb.completed);
    EXPECT_GT(plb.counters.plb_repaths, 0) << "colliding flows must be moved (seed " << seed << ")";
    ecmp_max += static_cast<double>(max_fct(ecmp)) / seeds;
    plb_max += static_cast<double>(max_fct(plb)) / seeds;
    ecmp_gbps += ecmp.aggregate_throughput_gbps / seeds;
    plb_gbps += plb.aggregate_throughput_gbps / seeds;
  }
  EXPECT_LT(plb_max, ecmp_max) << "mean slowest flow: " << ecmp_max * 1e-9 << " ms with ECMP, "
                               << plb_max * 1e-9 << " ms with PLB";
  EXPECT_GT(plb_gbps, ecmp_gbps) << ecmp_gbps << " vs " << plb_gbps << " Gb/s";
}

}  // namespace plb_test
}  // namespace fabricsim
