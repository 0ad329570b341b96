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

#include <algorithm>

#include "core/error.h"
#include "engine/run.h"

namespace fabricsim {
namespace plb_test {

scenario::Scenario permutation(bool plb, uint64_t seed = 1) {
  scenario::Scenario sc;
  sc.seed = seed;
  sc.topology.tiers = 3;
  sc.topology.radix = 8;
  sc.topology.hosts = 128;
  sc.link.rate_bps = 100'000'000'000;
  sc.switch_config.pfc.enabled = true;
  sc.roce.cc = transport::CongestionControl::kDcqcn;
  sc.roce.plb.enabled = plb;
  sc.ecn.kmin_bytes = 20 << 10;  // step marking at K (kmin = kmax, pmax 1)
  sc.ecn.kmax_bytes = 20 << 10;
  sc.ecn.pmax = 1.0;
  sc.workload.kind = workload::WorkloadKind::kPattern;
  sc.workload.pattern = workload::PatternKind::kPermutation;
  sc.workload.flow_size_bytes = 20'000'000;
  return sc;
}

int64_t max_fct(const scenario::RunResult& r) {
  int64_t worst = 0;
  for (const scenario::FlowRecord& f : r.flows) worst = std::max(worst, f.fct_ps());
  return worst;
}

// Which flows collide, and where a repathed flow lands, is chance: one seed is one draw. At
// seed 1 this read max FCT 10.86 -> 8.10 ms and 1.89 -> 2.53 Tb/s until issue 21 item 3 (a new
// event order and QP entropy hashed from the QP's identity); then 8.92 -> 9.29 ms and 2.30 ->
// 2.20 Tb/s, while over seeds 1-6 PLB's slowest flow averaged 8.56 against 9.33 ms (-8%) and its
// throughput 2.40 against 2.22 Tb/s (+8%), better on four seeds of six. So the claim is checked
// on the mean of four seeds (1-4: -5.6% and +5.2%).
TEST(Plb, RepathingShortensTheTailOfAnEcmpPermutation) {
  const int seeds = 4;
  double ecmp_max = 0, plb_max = 0, ecmp_gbps = 0, plb_gbps = 0;
  for (int seed = 1; seed <= seeds; ++seed) {
    const scenario::RunResult ecmp = scenario::run_scenario(permutation(false, seed));
    const scenario::RunResult plb = scenario::run_scenario(permutation(true, seed));
    ASSERT_TRUE(ecmp.completed && plb.completed);
    EXPECT_EQ(ecmp.counters.plb_repaths, 0) << "plain ECMP never moves a flow";
    EXPECT_GT(plb.counters.plb_repaths, 0) << "colliding flows must be moved (seed " << seed << ")";
    ecmp_max += static_cast<double>(max_fct(ecmp)) / seeds;
    plb_max += static_cast<double>(max_fct(plb)) / seeds;
    ecmp_gbps += ecmp.aggregate_throughput_gbps / seeds;
    plb_gbps += plb.aggregate_throughput_gbps / seeds;
    for (const scenario::RunResult* r : {&ecmp, &plb}) {
      EXPECT_EQ(r->counters.dropped_packets, 0) << "PFC: lossless";
      for (const scenario::FlowRecord& f : r->flows) {
        ASSERT_EQ(f.sent_bytes, f.delivered_bytes + f.dropped_bytes) << "flow " << f.id;
      }
    }
  }
  EXPECT_LT(plb_max, ecmp_max) << "mean slowest flow: " << ecmp_max * 1e-9 << " ms with ECMP, "
                               << plb_max * 1e-9 << " ms with PLB";
  EXPECT_GT(plb_gbps, ecmp_gbps) << ecmp_gbps << " vs " << plb_gbps << " Gb/s";
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
