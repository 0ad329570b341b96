// DCQCN reaction point: each expectation is worked out here from the equations in dcqcn.h
// (reference shared/reference/rocev2.md §1), never read back from the code under test.
#include "transport/dcqcn.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/time.h"

namespace fabricsim::transport {
namespace dcqcn_test {

constexpr int64_t kUs = kPsPerUs;
constexpr int64_t kG = 1'000'000'000;
constexpr int64_t kM = 1'000'000;

DcqcnRp make(const char* profile, int64_t line_bps) {
  return DcqcnRp(dcqcn_profile(profile, line_bps), line_bps);
}

// ceil((rt + rc) / 2): an increase step's new Rc.
int64_t half_way(int64_t rc, int64_t rt) { return (rc + rt + 1) / 2; }

TEST(DcqcnRp, StartsIdleAtLineRate) {
  DcqcnRp rp = make("nvidia-default", 400 * kG);
  EXPECT_EQ(rp.rate_bps(), 400 * kG) << "a QP starts at line rate";
  EXPECT_EQ(rp.next_timer_ps(), kNoTimer) << "nothing to time before the first CNP";
  rp.on_bytes_sent(1 << 20, 0);
  EXPECT_EQ(rp.rate_bps(), 400 * kG) << "bytes before any cut must not count";
  EXPECT_TRUE(rp.idle()) << "bytes alone must not wake the RP";
}

TEST(DcqcnRp, FirstCnpCutsByHalfAlpha) {
  // nvidia-default: alpha0 = 1023/1024, Rc = 400G x (1 - 1023/2048) = 400G x 1025/2048.
  DcqcnRp nv = make("nvidia-default", 400 * kG);
  nv.on_cnp(0);
  EXPECT_EQ(nv.rate_bps(), 200'195'312'500) << "400G x 1025/2048";
  EXPECT_EQ(nv.target_rate_bps(), 400 * kG) << "Rt takes the rate before the cut";
  EXPECT_DOUBLE_EQ(nv.alpha(), 1023.0 / 1024) << "initial_alpha_value 1023";
  EXPECT_EQ(nv.next_timer_ps(), 300 * kUs) << "increase timer T = 300 us starts at the cut";

  DcqcnRp paper = make("dcqcn-paper", 40 * kG);
  paper.on_cnp(0);
  EXPECT_EQ(paper.rate_bps(), 20 * kG) << "alpha0 = 1 halves the rate";
  DcqcnRp hpcc = make("hpcc-paper", 100 * kG);
  hpcc.on_cnp(0);
  EXPECT_EQ(hpcc.rate_bps(), 50 * kG) << "alpha0 = 1 halves the rate";

  DcqcnParams p = dcqcn_profile("nvidia-default", 400 * kG);
  p.min_decrease_factor = 0.75;  // 1 - alpha/2 ~ 0.5005 < 0.75: the floor wins
  DcqcnRp clamped(p, 400 * kG);
  clamped.on_cnp(0);
  EXPECT_EQ(clamped.rate_bps(), 300 * kG) << "one cut keeps min_decrease_factor of the rate";
}

TEST(DcqcnRp, AlphaDecaysOncePerIntervalWithoutCnp) {
  // Grid mode (nvidia-default): 1 us updates, (1 - g) = 1019/1024, +g = 5/1024 after a CNP.
  DcqcnRp rp = make("nvidia-default", 400 * kG);
  rp.on_cnp(0);
  double a = 1023.0 / 1024;
  for (int k = 1; k <= 5; ++k) {
    rp.on_timer(k * kUs);
    a *= 1019.0 / 1024;
    EXPECT_DOUBLE_EQ(rp.alpha(), a) << "after " << k << " us without CNP";
  }
  rp.on_cnp(5 * kUs + kUs / 2);
  EXPECT_DOUBLE_EQ(rp.alpha(), a) << "grid mode: a CNP changes alpha only at the period end";
  rp.on_timer(6 * kUs);
  a = a * (1019.0 / 1024) + 5.0 / 1024;
  EXPECT_DOUBLE_EQ(rp.alpha(), a) << "the period with a CNP adds g = 5/1024";
  rp.on_timer(7 * kUs);
  a *= 1019.0 / 1024;
  EXPECT_DOUBLE_EQ(rp.alpha(), a) << "the next period, without CNP, decays";

  // Per-CNP mode (dcqcn-paper): g = 1/256, 55 us timer restarted by every CNP.
  DcqcnRp paper = make("dcqcn-paper", 40 * kG);
  paper.on_cnp(0);
  paper.on_timer(55 * kUs);
  double b = 255.0 / 256;
  EXPECT_DOUBLE_EQ(paper.alpha(), b) << "one decay after 55 us without CNP";
  paper.on_cnp(60 * kUs);
  b = b * (255.0 / 256) + 1.0 / 256;
  EXPECT_DOUBLE_EQ(paper.alpha(), b) << "alpha <- (1-g)alpha + g at the CNP";
  paper.on_timer(114 * kUs);
  EXPECT_DOUBLE_EQ(paper.alpha(), b) << "the CNP at 60 us restarted the timer: no decay at 110";
  paper.on_timer(115 * kUs);
  EXPECT_DOUBLE_EQ(paper.alpha(), b * (255.0 / 256)) << "decay 55 us after the last CNP";
}

TEST(DcqcnRp, FastRecoveryHalvesTheGapAtEachTimerExpiry) {
  DcqcnRp rp = make("nvidia-default", 400 * kG);
  rp.on_cnp(0);
  const int64_t rc0 = 200'195'312'500;
  rp.on_timer(300 * kUs);  // F = 1: step 1 is fast recovery (Rt stays 400G)
  EXPECT_EQ(rp.rate_bps(), 300'097'656'250) << "ceil((Rc + Rt) / 2) after 1 expiry";
  EXPECT_EQ(rp.rate_bps(), half_way(rc0, 400 * kG)) << "gap to Rt halved";
  EXPECT_EQ(rp.next_timer_ps(), 600 * kUs) << "the timer re-arms every T";
  rp.on_timer(600 * kUs);  // step 2 is additive, but Rt + 5 Mb/s is capped at the line rate
  EXPECT_EQ(rp.target_rate_bps(), 400 * kG) << "Rt never above the line rate";
  EXPECT_EQ(rp.rate_bps(), 350'048'828'125) << "gap halved again after 2 expiries";
}

TEST(DcqcnRp, AdditiveThenConstantHyperIncrease) {
  // hpcc-paper at 25G: F = 1, AI = 5 Mb/s, HAI = 50 Mb/s, timer only. Alpha held at 1 (1 s
  // interval) and Rt clamped on every cut, so a second cut leaves Rt below the line rate.
  DcqcnParams p = dcqcn_profile("hpcc-paper", 25 * kG);
  p.alpha_interval_ps = kPsPerSecond;
  p.clamp_target_rate = true;
  DcqcnRp rp(p, 25 * kG);
  rp.on_cnp(0);        // Rc 12.5G, Rt 25G
  rp.on_cnp(4 * kUs);  // Rt 12.5G, Rc 6.25G; the increase timer restarts: 304, 604, ... us
  ASSERT_EQ(rp.target_rate_bps(), 12'500'000'000) << "Rt <- Rc at the second cut";
  ASSERT_EQ(rp.rate_bps(), 6'250'000'000) << "second cut halves again";
  const int64_t expected_rt_step[] = {0, 5 * kM, 50 * kM, 50 * kM};  // FR, AI, HAI, HAI
  int64_t rt = 12'500'000'000;
  int64_t rc = 6'250'000'000;
  for (int k = 0; k < 4; ++k) {
    rp.on_timer((304 + 300 * k) * kUs);
    rt += expected_rt_step[k];
    rc = half_way(rc, rt);
    EXPECT_EQ(rp.target_rate_bps(), rt) << "Rt after increase step " << k + 1;
    EXPECT_EQ(rp.rate_bps(), rc) << "Rc after increase step " << k + 1;
  }
}

TEST(DcqcnRp, ScaledHyperIncreaseAfterFastRecoveryAndAdditive) {
  // ConnectX counting (stage_counts_current_step false) with dcqcn-paper's F = 5, HAI x i and
  // the byte counter off to isolate the timer: F = 5 fast recovery steps, one additive (+40M),
  // then the i-th hyper step adds i x 200M (HPCC's timer-only rule, scaled as NS3RDMA scales).
  DcqcnParams p = dcqcn_profile("dcqcn-paper", 40 * kG);
  p.byte_counter_bytes = 0;
  p.stage_counts_current_step = false;
  DcqcnRp rp(p, 40 * kG);
  rp.on_cnp(0);
  rp.on_cnp(kUs);  // alpha stays 1: Rt 20G, Rc 10G; timer at 56 us, then every 55 us
  const int64_t expected_rt_step[] = {0, 0, 0, 0, 0, 40 * kM, 200 * kM, 400 * kM, 600 * kM};
  int64_t rt = 20 * kG;
  int64_t rc = 10 * kG;
  for (int k = 0; k < 9; ++k) {
    rp.on_timer((56 + 55 * k) * kUs);
    rt += expected_rt_step[k];
    rc = half_way(rc, rt);
    EXPECT_EQ(rp.target_rate_bps(), rt) << "Rt after step " << k + 1;
    EXPECT_EQ(rp.rate_bps(), rc) << "Rc after step " << k + 1;
  }
}

TEST(DcqcnRp, PaperProfileTimerOnlyDoesFMinusOneFastStepsAndNoHyper) {
  // NS3RDMA rpr_fast_time: TimeStage is incremented first and the step is fast recovery while
  // it is < F, so timer steps 1-4 are fast recovery and step 5 goes to rpr_active_select, which
  // needs ByteStage >= F too for hyper: with no byte steps every later timer step is additive.
  DcqcnParams p = dcqcn_profile("dcqcn-paper", 40 * kG);
  p.byte_counter_bytes = 0;
  DcqcnRp rp(p, 40 * kG);
  rp.on_cnp(0);
  rp.on_cnp(kUs);  // Rt 20G, Rc 10G
  const int64_t expected_rt_step[] = {0, 0, 0, 0, 40 * kM, 40 * kM, 40 * kM, 40 * kM};
  int64_t rt = 20 * kG;
  int64_t rc = 10 * kG;
  for (int k = 0; k < 8; ++k) {
    rp.on_timer((56 + 55 * k) * kUs);
    rt += expected_rt_step[k];
    rc = half_way(rc, rt);
    EXPECT_EQ(rp.target_rate_bps(), rt) << "Rt after step " << k + 1;
    EXPECT_EQ(rp.rate_bps(), rc) << "Rc after step " << k + 1;
  }
}

TEST(DcqcnRp, PaperProfileHyperIncreaseOnceBothCountersReachF) {
  // The NS3RDMA sequence, traced by hand through qbb-net-device.cc (F = 5, AI 40M, HAI 200M):
  // byte steps 1-4 rpr_fast_byte (fast recovery), byte step 5 rpr_active_select with
  // TimeStage 0 (additive); timer steps 1-4 rpr_active_time (additive, TimeStage < F); timer
  // step 5: both stages 5 >= F, rpr_hyper_increase adds HAI x (min 5 - F + 1) = 1 x HAI.
  DcqcnRp rp = make("dcqcn-paper", 40 * kG);  // B = 10 MB, T = 55 us
  rp.on_cnp(0);
  rp.on_cnp(kUs);                             // Rt 20G, Rc 10G
  rp.on_bytes_sent(5 * 10'000'000, 2 * kUs);  // byte steps 1-4 fast recovery, 5 additive
  EXPECT_EQ(rp.target_rate_bps(), 20 * kG + 40 * kM) << "one AI after 4 byte FR steps";
  for (int k = 0; k < 4; ++k) rp.on_timer((56 + 55 * k) * kUs);
  EXPECT_EQ(rp.target_rate_bps(), 20 * kG + 5 * 40 * kM)
      << "timer steps 1-4 are additive: the byte counter has reached F, the timer not yet";
  rp.on_timer((56 + 55 * 4) * kUs);
  EXPECT_EQ(rp.target_rate_bps(), 20 * kG + 5 * 40 * kM + 200 * kM)
      << "timer step 5: both counters at F, hyper increase x (min - F + 1) = x1";
  rp.on_timer((56 + 55 * 5) * kUs);
  EXPECT_EQ(rp.target_rate_bps(), 20 * kG + 5 * 40 * kM + 2 * 200 * kM)
      << "timer step 6: min(ByteStage 5, TimeStage 6) - F + 1 = 1";
  rp.on_bytes_sent(10'000'000, 340 * kUs);  // before timer step 7 at 386 us
  EXPECT_EQ(rp.target_rate_bps(), 20 * kG + 5 * 40 * kM + 4 * 200 * kM)
      << "byte step 6: min(6, 6) - F + 1 = 2 x HAI";
}

TEST(DcqcnRp, ConnectXRuleHyperIncreaseNeedsBothCountersPastF) {
  // isekai IncreaseRate: hyper when min(stage_by_timer, stage_by_byte) > threshold, both
  // counted before the current step; run with dcqcn-paper's numbers (F = 5).
  DcqcnParams p = dcqcn_profile("dcqcn-paper", 40 * kG);
  p.stage_counts_current_step = false;
  DcqcnRp rp(p, 40 * kG);
  rp.on_cnp(0);
  rp.on_cnp(kUs);                             // Rt 20G, Rc 10G
  rp.on_bytes_sent(6 * 10'000'000, 2 * kUs);  // byte steps 1-5 fast recovery, 6 additive
  EXPECT_EQ(rp.target_rate_bps(), 20 * kG + 40 * kM) << "one AI after 5 byte FR steps";
  for (int k = 0; k < 6; ++k) rp.on_timer((56 + 55 * k) * kUs);
  EXPECT_EQ(rp.target_rate_bps(), 20 * kG + 7 * 40 * kM)
      << "timer steps 1-6 are additive: the byte counter is past F, the timer not yet";
  rp.on_timer((56 + 55 * 6) * kUs);
  EXPECT_EQ(rp.target_rate_bps(), 20 * kG + 7 * 40 * kM + 200 * kM)
      << "both counters past F: hyper increase x (min stage - F) = x1";
}

TEST(DcqcnRp, RateNeverBelowMinRate) {
  DcqcnRp rp = make("dcqcn-paper", 40 * kG);  // min rate 100 Mb/s; alpha stays 1
  int64_t expected = 40 * kG;
  for (int k = 0; k < 10; ++k) {
    rp.on_cnp(k * kUs);
    expected = std::max<int64_t>(100 * kM, expected / 2);
    EXPECT_EQ(rp.rate_bps(), expected) << "cut " << k + 1 << " halves, floored at 100 Mb/s";
  }
  EXPECT_EQ(rp.rate_bps(), 100 * kM) << "40G / 2^9 = 78 Mb/s is below the floor";
}

TEST(DcqcnRp, RateDecreaseIntervalAllowsOneCutPer4us) {
  DcqcnRp nv = make("nvidia-default", 400 * kG);
  nv.on_cnp(0);
  const int64_t rc1 = 200'195'312'500;
  for (int k = 1; k <= 3; ++k) {
    nv.on_cnp(k * kUs);
    EXPECT_EQ(nv.rate_bps(), rc1) << "CNP at " << k << " us is within 4 us of the last cut";
  }
  EXPECT_EQ(nv.next_timer_ps(), 4 * kUs) << "the remembered CNP is served at 4 us";
  // Alpha at 4 us: the first CNP set alpha0 without a +g; the CNPs at 1-3 us land just after
  // the updates at those times, so the updates at 2, 3 and 4 us each add g.
  const double g = 5.0 / 1024;
  double a = 1023.0 / 1024 * (1 - g);
  for (int k = 2; k <= 4; ++k) a = a * (1 - g) + g;
  nv.on_timer(4 * kUs);
  const int64_t rc2 = std::llround(static_cast<double>(rc1) * std::max(1 - a / 2, 0.5));
  EXPECT_EQ(nv.rate_bps(), rc2) << "one cut at 4 us with the alpha of that time";
  EXPECT_EQ(nv.target_rate_bps(), 400 * kG)
      << "clamp_tgt_rate=0: no increase since the last cut, so Rt keeps the older rate";
  EXPECT_EQ(nv.next_timer_ps(), 304 * kUs) << "the cut restarted the increase timer";
  nv.on_cnp(5 * kUs);
  EXPECT_EQ(nv.rate_bps(), rc2) << "next cut not before 8 us";
  EXPECT_EQ(nv.next_timer_ps(), 8 * kUs) << "deferred to 4 us after the last cut";

  DcqcnRp hpcc = make("hpcc-paper", 100 * kG);
  hpcc.on_cnp(0);
  hpcc.on_cnp(2 * kUs);
  EXPECT_EQ(hpcc.rate_bps(), 50 * kG) << "hpcc-paper: no second cut within 4 us";
  hpcc.on_timer(4 * kUs);
  // g = 1/256; updates at 1, 2 us plain (the CNP at 2 us comes after the update), 3 us +g, 4 us
  // plain.
  double b = 1.0 * (255.0 / 256) * (255.0 / 256);
  b = b * (255.0 / 256) + 1.0 / 256;
  b *= 255.0 / 256;
  EXPECT_EQ(hpcc.rate_bps(), std::llround(50e9 * (1 - b / 2))) << "one cut at 4 us";

  DcqcnRp paper = make("dcqcn-paper", 40 * kG);
  for (int k = 0; k < 3; ++k) paper.on_cnp(k * kUs);
  EXPECT_EQ(paper.rate_bps(), 5 * kG) << "dcqcn-paper cuts on each of 3 CNPs 1 us apart";
}

TEST(DcqcnRp, ByteCounterRunsAStepEveryBBytes) {
  // nvidia-default: rpg_byte_reset 32767 in 64-byte units (isekai SentBytes), F = 1.
  constexpr int64_t kB = 32767 * 64;
  EXPECT_EQ(dcqcn_profile("nvidia-default", 400 * kG).byte_counter_bytes, 2'097'088);
  DcqcnRp rp = make("nvidia-default", 400 * kG);
  rp.on_cnp(kUs);
  const int64_t rc1 = 200'195'312'500;
  rp.on_bytes_sent(kB - 1, kUs);
  EXPECT_EQ(rp.rate_bps(), rc1) << "one byte short of B";
  rp.on_bytes_sent(1, kUs);
  EXPECT_EQ(rp.rate_bps(), half_way(rc1, 400 * kG)) << "B bytes: one fast recovery step";
  rp.on_bytes_sent(2 * kB, 2 * kUs);
  const int64_t expected = half_way(half_way(half_way(rc1, 400 * kG), 400 * kG), 400 * kG);
  EXPECT_EQ(rp.rate_bps(), expected) << "2B more bytes: two more steps";
  EXPECT_EQ(rp.rate_bps(), 375'024'414'063) << "the same, by hand";
}

TEST(DcqcnRp, GoesIdleAfterRecoveringToLineRate) {
  const int64_t line = 400 * kG;
  DcqcnRp rp = make("nvidia-default", line);
  rp.on_cnp(0);
  // Each step leaves floor(gap / 2): the number of steps is the bit length of the first gap.
  int expected_steps = 0;
  for (int64_t gap = line - rp.rate_bps(); gap > 0; gap /= 2) ++expected_steps;
  int steps = 0;
  int64_t now = 0;
  while (!rp.idle() && steps < 100) {
    now = rp.next_timer_ps();
    rp.on_timer(now);
    ++steps;
    EXPECT_LE(rp.rate_bps(), line) << "step " << steps;
    EXPECT_LE(rp.target_rate_bps(), line) << "step " << steps;
  }
  EXPECT_EQ(steps, expected_steps) << "recovery takes bit_length(gap) timer steps";
  EXPECT_EQ(rp.rate_bps(), line) << "back at line rate";
  EXPECT_EQ(rp.target_rate_bps(), line) << "Rt at line rate";
  EXPECT_EQ(rp.next_timer_ps(), kNoTimer) << "idle: no timer";
  rp.on_bytes_sent(1 << 30, now);
  EXPECT_TRUE(rp.idle()) << "bytes sent while idle are not counted";
  // 38 x 300 us = 11.4 ms of 1 us decays: (1019/1024)^11400 < 2^-40, so alpha reads 0.
  EXPECT_EQ(rp.alpha(), 0.0) << "alpha keeps decaying (lazily) while recovering and idle";
}

TEST(DcqcnRp, DeterministicAndIndependentOfHowOftenItIsPolled) {
  // The same CNPs and bytes, one RP polled every microsecond, the other only at its own timers:
  // lazy alpha and timer catch-up must give identical trajectories.
  const int64_t cnp_us[] = {3, 5, 9, 10, 40, 41, 47, 400, 401, 1300};
  auto run = [&](bool poll_every_us) {
    DcqcnRp rp = make("nvidia-default", 400 * kG);
    std::vector<int64_t> trace;
    size_t next_cnp = 0;
    for (int64_t us = 0; us <= 3000; ++us) {
      const int64_t now = us * kUs;
      if (poll_every_us || rp.next_timer_ps() <= now) rp.on_timer(now);
      if (next_cnp < std::size(cnp_us) && cnp_us[next_cnp] == us) {
        rp.on_cnp(now);
        ++next_cnp;
      }
      if (us % 7 == 0) rp.on_bytes_sent(9000, now);
      trace.push_back(rp.rate_bps());
      trace.push_back(rp.target_rate_bps());
    }
    rp.on_timer(3000 * kUs);
    trace.push_back(static_cast<int64_t>(rp.alpha() * 1e15));
    return trace;
  };
  const std::vector<int64_t> a = run(true);
  EXPECT_EQ(a, run(true)) << "same inputs, same trajectory";
  EXPECT_EQ(a, run(false)) << "polling frequency must not change the trajectory";
}

TEST(DcqcnProfile, HpccPaperScalesWithLinkRate) {
  const DcqcnParams p100 = dcqcn_profile("hpcc-paper", 100 * kG);
  const DcqcnParams p25 = dcqcn_profile("hpcc-paper", 25 * kG);
  EXPECT_EQ(p25.ecn.kmin_bytes, 100'000) << "Kmin 100 KB at 25G";
  EXPECT_EQ(p25.ecn.kmax_bytes, 400'000) << "Kmax 400 KB at 25G";
  EXPECT_EQ(p25.ai_rate_bps, 5 * kM) << "AI 5 Mb/s at 25G";
  EXPECT_EQ(p25.hai_rate_bps, 50 * kM) << "HAI 50 Mb/s at 25G";
  EXPECT_EQ(p100.ecn.kmin_bytes, 400'000) << "Kmin x4 at 100G";
  EXPECT_EQ(p100.ecn.kmax_bytes, 1'600'000) << "Kmax x4 at 100G";
  EXPECT_EQ(p100.ai_rate_bps, 20 * kM) << "AI x4 at 100G";
  EXPECT_EQ(p100.hai_rate_bps, 200 * kM) << "HAI x4 at 100G";
  EXPECT_DOUBLE_EQ(p100.ecn.pmax, 0.2) << "Pmax does not scale";
  EXPECT_EQ(p100.min_rate_bps, 1 * kG) << "MIN_RATE 1000Mb/s does not scale";
  EXPECT_EQ(p100.rate_increase_timer_ps, 300 * kUs) << "timers do not scale";
  EXPECT_EQ(dcqcn_profile("nvidia-default", 100 * kG).ai_rate_bps,
            dcqcn_profile("nvidia-default", 400 * kG).ai_rate_bps)
      << "only hpcc-paper depends on the link rate";
}

TEST(DcqcnProfile, EveryProfileIsValid) {
  for (const std::string& name : dcqcn_profile_names()) {
    for (int64_t rate : {25 * kG, 100 * kG, 400 * kG, 800 * kG}) {
      EXPECT_NO_THROW(validate_dcqcn_params(dcqcn_profile(name, rate), rate))
          << name << " at " << rate << " bps";
    }
  }
}

TEST(DcqcnProfile, UnknownNameListsTheAllowedNames) {
  try {
    dcqcn_profile("nvidia", 400 * kG);
    FAIL() << "an unknown profile must throw";
  } catch (const std::invalid_argument& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("'nvidia'"), std::string::npos) << msg;
    for (const char* name : {"nvidia-default", "dcqcn-paper", "hpcc-paper"}) {
      EXPECT_NE(msg.find(name), std::string::npos) << "message must list " << name << ": " << msg;
    }
  }
}

TEST(DcqcnProfile, InvalidParametersAreRejected) {
  DcqcnParams p = dcqcn_profile("hpcc-paper", 100 * kG);
  EXPECT_THROW((void)DcqcnRp(p, 500 * kM), std::invalid_argument)
      << "min rate 1G above a 500M line";
  p.g = 0;
  EXPECT_THROW((void)DcqcnRp(p, 100 * kG), std::invalid_argument) << "g = 0 never updates alpha";
}

}  // namespace dcqcn_test
}  // namespace fabricsim::transport
