// UET (NSCC, RCCC, trimming, spraying) against the outputs uet-htsim publishes for its own
// validation runs (docs/reference/uet-sim.md §7: htsim/sim/datacenter/validate_outputs/
// validate_uec_{sender,rcv,both}.out @ 40ccb05). Every figure is the tail FCT of 2 MB flows
// starting at t = 0, on htsim's reference network (§0), which fabricsim reproduces key by key:
//
//   htsim                                    fabricsim
//   3-tier fat-tree, K=4, 16 hosts           topology {fat_tree, tiers 3, radix 4}, 16 hosts
//     (host i on edge i/2)                     (NICs cabled to leaves in order: the same)
//   100 Gb/s everywhere                      fabric.link.rate 100Gbps
//   1 us per hop, switch latency 0           cable 200 m (5 ns/m), switch latency 0
//   store-and-forward queues                 fabric.switch.forwarding store_and_forward
//   no NIC/host latency                      fabric.nic.profile zero
//   MTU 4150 B = 4086 B payload + 64 B hdr   fabric.uet {mtu 4086B, header_bytes 64B}
//   1 x BDP queue per port (43 x 4150 B)     fabric.switch.port_queue 178450B
//   trimming to 64 B, 50/50 arrival/newest   fabric.uet.trimming, fabric.trim.victim htsim
//   ECN 0.2/0.8 BDP, mixed LB over 64 EVs    (UET defaults), REPS over 64 EVs
//   no SACK-inferred loss (SLEEK off)        fabric.uet.sack_loss false
//   maxwnd = 1.5 x BDP of the minimum RTT    fabric.uet.nscc_rescale_max_window true
//     (uec.cpp update_base_rtt)
//
// What fabricsim adds that htsim lacks: 20 B of preamble/SFD + IFG per frame (4170 instead of
// 4150 wire bytes per full packet, +0.48 % on every serialization).
//
// Hand figures: 2 MB = 490 packets (489 x 4086 + 1946 B). At 100 Gb/s a 4170-byte frame takes
// 333.6 ns, so the 490 frames take 163.3 us (htsim: 162.5 us); the path is 6 hops of 1 us and,
// store-and-forward, 5 switch re-serializations of 333.6 ns.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "calibration.h"
#include "spec/load.h"
#include "engine/run.h"

namespace fabricsim {
namespace uet_test {

using calibration::check_figure;
using calibration::Figure;

constexpr int64_t kFlowBytes = 2'000'000;

std::string htsim_network(const std::string& extra_uet) {
  return "seed: 13\n"
         "fabric:\n"
         "  technology: uet\n"
         "  link: {rate: 100Gbps, cable: 200m}\n"
         "  switch: {latency: 0ns, forwarding: store_and_forward, port_queue: 178450B}\n"
         "  nic: {profile: zero}\n"
         "  trim: {victim: htsim}\n"
         "  uet: {mtu: 4086B, header_bytes: 64B, trimming: true, sack_loss: false,"
         " nscc_rescale_max_window: true" +
         extra_uet +
         "}\n"
         "topology: {kind: fat_tree, tiers: 3, radix: 4}\n"
         "hosts: {count: 16}\n"
         "workload:\n"
         "  kind: pattern\n"
         "  pattern: flows\n";
}

std::string flows(const std::vector<std::pair<int, int>>& pairs) {
  std::string s = "  flows: [";
  for (size_t i = 0; i < pairs.size(); ++i) {
    s += (i ? ", [" : "[") + std::to_string(pairs[i].first) + ", " +
         std::to_string(pairs[i].second) + ", 2000000B, 0us]";
  }
  return s + "]\n";
}

scenario::RunResult run(const std::string& yaml) {
  const scenario::LoadedScenario s = scenario::load_scenario_string(yaml, "htsim.yaml");
  return scenario::run_scenario(s.scenario);
}

// Tail FCT in us; every flow delivered exactly once (delivered = its size: the receiver counts
// a packet's payload only the first time it is placed).
double tail_fct_us(const scenario::RunResult& r) {
  EXPECT_TRUE(r.completed);
  int64_t tail = 0;
  for (const scenario::FlowRecord& f : r.flows) {
    EXPECT_EQ(f.delivered_bytes, kFlowBytes) << "flow " << f.id << " exactly once";
    tail = std::max(tail, f.fct_ps());
  }
  return static_cast<double>(tail) / 1e6;
}

const std::vector<std::pair<int, int>> kIncast = [] {
  std::vector<std::pair<int, int>> v;
  for (int i = 0; i < 15; ++i) v.emplace_back(i, 15);  // incast.cm
  return v;
}();

// perm_16n_16c_2MB.cm, in its order.
const std::vector<std::pair<int, int>> kPermutation = {
    {13, 6}, {1, 4},  {6, 0},   {2, 13}, {10, 5}, {15, 1}, {8, 14}, {14, 2},
    {5, 15}, {4, 12}, {12, 11}, {0, 8},  {9, 7},  {7, 9},  {3, 10}, {11, 3}};

std::string one_decimal(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

Figure htsim_figure(const std::string& name, double published_us, const std::string& out,
                    const std::string& scenario, double value) {
  return Figure{.name = name,
                .published = one_decimal(published_us) + " us",
                .source = "uet-htsim validate_outputs/" + out + " (docs/reference/uet-sim.md §7)",
                .scenario = scenario,
                .unit = "us",
                .value = value,
                .lo = 0.9 * published_us,
                .hi = 1.1 * published_us};
}

TEST(UetCalibration, OneFlow) {
  // one.cm (0 -> 13, 6 hops). Ideal here: 163.3 + 6 x 1 + 5 x 0.3336 = 171.0 us; htsim's
  // 176.2 us is 3.4 % above its own ideal (170.3 us) with 124 ACKs and no retransmission.
  const scenario::RunResult r = run(htsim_network("") + flows({{0, 13}}));
  const double fct = tail_fct_us(r);
  EXPECT_EQ(r.counters.retransmitted_packets, 0) << "htsim: 0 retransmits";
  EXPECT_NEAR(fct, 163.3 + 6.0 + 5 * 0.3336, 0.5) << "an idle path: serialization + latency";
  check_figure(htsim_figure("UET one 2 MB flow, NSCC (K=4 fat-tree, 100G)", 176.2,
                            "validate_uec_sender.out",
                            "UetCalibration.OneFlow: one.cm on htsim's network", fct));
}

TEST(UetCalibration, Incast15To1Nscc) {
  // incast.cm: 15 x 2 MB into host 15. The bottleneck (its downlink) must carry 15 x 490
  // frames: 15 x 490 x 4170 B at 100 Gb/s = 2452.3 us (htsim's ideal, 4150-B frames:
  // 2437.6 us; its 2478.5 us is 1.7 % above). htsim: 811 NACKs (trims).
  const scenario::RunResult r = run(htsim_network("") + flows(kIncast));
  const double fct = tail_fct_us(r);
  EXPECT_GT(r.counters.trimmed_packets, 0);
  EXPECT_GE(fct, 15 * 490 * 4170 * 8 / 100e3) << "no faster than the bottleneck's wire time";
  check_figure(htsim_figure("UET 15->1 incast 2 MB, NSCC", 2478.5, "validate_uec_sender.out",
                            "UetCalibration.Incast15To1Nscc: incast.cm, trimming, 1 x BDP queues",
                            fct));
}

TEST(UetCalibration, Incast15To1Rccc) {
  // The same with receiver credit only (-receiver_cc_only): 2464.4 us, 762 NACKs.
  const scenario::RunResult r = run(htsim_network(", nscc: false, rccc: true") + flows(kIncast));
  const double fct = tail_fct_us(r);
  EXPECT_GT(r.counters.trimmed_packets, 0);
  check_figure(htsim_figure("UET 15->1 incast 2 MB, RCCC", 2464.4, "validate_uec_rcv.out",
                            "UetCalibration.Incast15To1Rccc: incast.cm, RCCC only", fct));
}

TEST(UetCalibration, Incast15To1NsccAndRccc) {
  const scenario::RunResult r = run(htsim_network(", nscc: true, rccc: true") + flows(kIncast));
  check_figure(htsim_figure("UET 15->1 incast 2 MB, NSCC + RCCC", 2462.9, "validate_uec_both.out",
                            "UetCalibration.Incast15To1NsccAndRccc: incast.cm, both CCs",
                            tail_fct_us(r)));
}

// incast_128.cm: every other host of a K=8 fat-tree (128 hosts, same links, hops and queues)
// sends 2 MB to host 33. The bottleneck carries 127 x 490 frames: 127 x 490 x 4170 B at
// 100 Gb/s = 20 758 us here (htsim, 4150-B frames: 20 640 us). htsim: NSCC 21 029 us with
// 72 623 retransmits; RCCC 20 891 us with 6218.
std::string incast_128(const std::string& extra_uet) {
  std::string yaml = htsim_network(extra_uet);
  yaml.replace(yaml.find("radix: 4"), 8, "radix: 8");
  yaml.replace(yaml.find("count: 16"), 9, "count: 128");
  std::vector<std::pair<int, int>> pairs;
  for (int i = 0; i < 128; ++i) {
    if (i != 33) pairs.emplace_back(i, 33);
  }
  return yaml + flows(pairs);
}

TEST(UetCalibration, Incast127To1Nscc) {
  const scenario::RunResult r = run(incast_128(""));
  const double fct = tail_fct_us(r);
  EXPECT_GE(fct, 127 * 490 * 4170 * 8 / 100e3) << "no faster than the bottleneck's wire time";
  check_figure(
      htsim_figure("UET 127->1 incast 2 MB, NSCC (K=8)", 21029.0, "validate_uec_sender.out",
                   "UetCalibration.Incast127To1Nscc: incast_128.cm on a K=8 fat-tree", fct));
}

TEST(UetCalibration, Incast127To1Rccc) {
  const scenario::RunResult r = run(incast_128(", nscc: false, rccc: true"));
  check_figure(htsim_figure("UET 127->1 incast 2 MB, RCCC (K=8)", 20891.0, "validate_uec_rcv.out",
                            "UetCalibration.Incast127To1Rccc: incast_128.cm, RCCC only",
                            tail_fct_us(r)));
}

TEST(UetCalibration, PermutationSprayed) {
  // perm_16n_16c_2MB.cm with -paths 128: spraying spreads every flow over all core paths, so
  // the tail is close to one flow's 171 us.
  const scenario::RunResult r = run(htsim_network(", paths: 128") + flows(kPermutation));
  check_figure(htsim_figure(
      "UET 16-host permutation 2 MB, 128 EVs, NSCC", 194.0, "validate_uec_sender.out",
      "UetCalibration.PermutationSprayed: perm_16n_16c_2MB.cm, REPS 128", tail_fct_us(r)));
}

TEST(UetCalibration, PermutationSinglePath) {
  // -paths 1: each flow keeps one hashed path, and the tail is set by the most flows the hash
  // puts on one link (k flows: about k x 163 us). htsim's 527.8 us is one draw of its hash
  // (about 3 flows on the worst link); fabricsim's hash differs, so a single seed can land
  // anywhere between 2 and 4 colliding flows (371-679 us over seeds 1-16). The comparable
  // figure is the mean over seeds (docs/calibration.md).
  double sum = 0;
  constexpr int kSeeds = 16;
  for (int seed = 1; seed <= kSeeds; ++seed) {
    std::string yaml =
        htsim_network(", paths: 1, load_balancing: single_path") + flows(kPermutation);
    yaml.replace(0, yaml.find('\n'), "seed: " + std::to_string(seed));
    const double fct = tail_fct_us(run(yaml));
    EXPECT_GE(fct, 171.0 - 0.5) << "seed " << seed << ": no faster than one flow alone";
    sum += fct;
  }
  check_figure(htsim_figure("UET 16-host permutation 2 MB, 1 EV (ECMP-like), NSCC", 527.8,
                            "validate_uec_sender.out",
                            "UetCalibration.PermutationSinglePath: mean tail FCT over seeds "
                            "1-16 (hash draws)",
                            sum / kSeeds));
}

// perm_1024n_1024c_0u_2000000b.cm on K=16 (1024 hosts), -paths 128, NSCC, by load-balancing
// algorithm (validate_load_balancing_snd.out): oblivious 212.8 us, REPS 198.2 us (run with
// -sack_threshold 4000: an ACK per packet, so every EV comes back to be recycled). fabricsim draws
// its own permutation (seed 13); with spraying the tail hardly depends on which one (every flow
// uses every core path). Each run is about 1 s.
std::string htsim_1024(const std::string& extra_uet) {
  std::string yaml = htsim_network(", paths: 128" + extra_uet);
  yaml.replace(yaml.find("radix: 4}"), 9, "radix: 16}");
  yaml.replace(yaml.find("count: 16}"), 10, "count: 1024}");
  yaml.replace(yaml.find("  pattern: flows\n"), 16, "  pattern: permutation\n  flow_size: 2000000B\n");
  return yaml;
}

TEST(UetCalibration, Permutation1024Oblivious) {
  const scenario::RunResult r = run(htsim_1024(", load_balancing: oblivious"));
  ASSERT_EQ(r.flows.size(), 1024u);
  check_figure(htsim_figure("UET 1024-host permutation 2 MB, oblivious spraying 128 EVs", 212.8,
                            "validate_load_balancing_snd.out",
                            "UetCalibration.Permutation1024Oblivious: K=16, a seed-13 permutation",
                            tail_fct_us(r)));
}

TEST(UetCalibration, Permutation1024Reps) {
  const scenario::RunResult r = run(htsim_1024(", load_balancing: reps, ack_every: 4000B"));
  ASSERT_EQ(r.flows.size(), 1024u);
  check_figure(htsim_figure("UET 1024-host permutation 2 MB, REPS 128 EVs, ACK per packet", 198.2,
                            "validate_load_balancing_snd.out",
                            "UetCalibration.Permutation1024Reps: K=16, ack_every 4000 B "
                            "(-sack_threshold 4000)",
                            tail_fct_us(r)));
}

}  // namespace uet_test
}  // namespace fabricsim
