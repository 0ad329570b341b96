// PLB against plain ECMP on a permutation (issue 3; Qureshi et al., SIGCOMM 2022).
//
// 3-tier k=8 fat-tree, 128 NICs, each sends 20 MB to one other (a random single cycle), DCQCN
// and PFC on. Per-flow ECMP leaves some uplinks carrying two or more flows (SPEC §8: a fraction
// (1 - 1/n)^n of n paths stays idle), so those flows run at half rate or less for their whole
// life and set the tail. PLB moves a flow after 12 consecutive rounds in which at least half of
// its packets were CE-marked; a moved flow is likely to land on a less loaded path, so the
// slowest flow must finish sooner and the fabric must carry more.
//
// Switches mark as PLB's deployments do, DCTCP-style: every packet that finds the queue above
// K = 20 KiB (Alizadeh et al., SIGCOMM 2010, K > C x RTT / 7: about 9 KB at 100 Gb/s and a 5 us
// RTT). Under the NVIDIA RoCE defaults (RED from 150 KB to 1.5 MB, DCQCN byte counter 2 MB) no
// round of a colliding flow is half-marked (the queue would have to stay above ~825 KB) and PLB
// never repaths: measured on examples/plb.yaml, 0 repaths and results identical with PLB off.
#include <gtest/gtest.h>

#include "core/error.h"
#include "engine/run.h"
#include "../support/plb_scenario.h"

namespace fabricsim {
namespace plb_test {

using plb_scenario::max_fct;
using plb_scenario::permutation;

// One seed (the tail and throughput over seeds are tests/calibration/plb_test.cpp's: one seed is
// one draw of which flows collide, and under ASan four seeds took 320 s).
TEST(Plb, MovesCollidingFlowsAndStaysLossless) {
  const scenario::RunResult ecmp = scenario::run_scenario(permutation(false));
  const scenario::RunResult plb = scenario::run_scenario(permutation(true));
  ASSERT_TRUE(ecmp.completed && plb.completed);
  EXPECT_EQ(ecmp.counters.plb_repaths, 0) << "plain ECMP never moves a flow";
  EXPECT_GT(plb.counters.plb_repaths, 0) << "colliding flows must be moved";
  for (const scenario::RunResult* r : {&ecmp, &plb}) {
    EXPECT_EQ(r->counters.dropped_packets, 0) << "PFC: lossless";
    for (const scenario::FlowRecord& f : r->flows) {
      ASSERT_EQ(f.sent_bytes, f.delivered_bytes + f.dropped_bytes) << "flow " << f.id;
    }
  }
}

TEST(Plb, RefusedWithoutEcnMarks) {
  scenario::Scenario sc = permutation(true);
  sc.roce.cc = transport::CongestionControl::kNone;  // no DCQCN, marking left on auto = off
  try {
    scenario::run_scenario(sc);
    FAIL() << "PLB without ECN must be refused";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key_path(), "fabric.roce.plb.enabled") << e.what();
  }
}

}  // namespace plb_test
}  // namespace fabricsim
