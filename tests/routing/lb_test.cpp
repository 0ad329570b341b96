// Ethernet load balancing beyond the ECMP hash (routing.load_balancing): adaptive routing,
// flowlets and the centralized TE controller, on a k=8 fat-tree permutation of long RoCE flows.
//
// The physics checked: a non-blocking fat-tree carries a permutation at line rate when no two
// flows share a link, so (a) a placement with a global view must find such a routing (checked
// hop by hop against the switches' forwarding, not against the controller's own record), and
// (b) adaptive routing and TE must raise the slowest flow's goodput above ECMP's, where hash
// collisions leave some flows at half rate or less (SPEC §8: a fraction (1 - 1/n)^n of n paths
// stays idle). The TE rules must take effect exactly install_delay after the flows were posted,
// and flowlets whose gap exceeds the paths' delay spread must not reorder.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <map>

#include "core/error.h"
#include "net/load_balance.h"
#include "engine/packet/simulation.h"

namespace fabricsim {
namespace lb_test {

using routing::LoadBalancing;

constexpr int64_t kRate = 100'000'000'000;

// No congestion control, PFC on: what limits a flow is only the links it shares (FIFO queues
// share a link by arrival rate), so the figures isolate load balancing. DCQCN adds its own rate
// dynamics on top; its figures are printed too.
scenario::Scenario permutation(LoadBalancing lb, int64_t flow_bytes = 2'000'000,
                               bool dcqcn = false) {
  scenario::Scenario sc;
  sc.topology.tiers = 3;
  sc.topology.radix = 8;
  sc.topology.hosts = 128;
  sc.link.rate_bps = kRate;
  sc.switch_config.pfc.enabled = true;
  sc.roce.cc = dcqcn ? transport::CongestionControl::kDcqcn : transport::CongestionControl::kNone;
  sc.workload.kind = workload::WorkloadKind::kPattern;
  sc.workload.pattern = workload::PatternKind::kPermutation;
  sc.workload.flow_size_bytes = flow_bytes;
  sc.ecmp.load_balancing = lb;
  sc.roce.out_of_order = lb == LoadBalancing::kAdaptive;  // AR needs a reordering receiver
  sc.ecmp.te.install_delay_ps = 2'000'000;                // 2 us: well inside a 160 us flow
  return sc;
}

struct Goodput {
  double min_pct = 0;
  double mean_pct = 0;
  int64_t out_of_order = 0;
  int64_t retransmitted = 0;
};

// Per-flow goodput = payload bits / (last byte seen - post), in % of the line rate.
Goodput run_goodput(scenario::Simulation& sim) {
  sim.start_workload();
  EXPECT_TRUE(sim.run());
  const transport::Transport& t = sim.transport();
  Goodput g;
  g.min_pct = 1e9;
  for (uint32_t m = 0; m < t.num_messages(); ++m) {
    const transport::MessageRecord& r = t.message(m);
    EXPECT_GE(r.rx_done_ps, 0) << "message " << m << " unfinished";
    const double pct = 100.0 * static_cast<double>(r.size_bytes) * 8.0 /
                       (static_cast<double>(r.rx_done_ps - r.post_ps) * 1e-12) / kRate;
    g.min_pct = std::min(g.min_pct, pct);
    g.mean_pct += pct / t.num_messages();
  }
  g.out_of_order = t.counters().out_of_order_packets;
  g.retransmitted = t.counters().retransmitted_packets;
  return g;
}

// Follows the switches' forwarding from `src` to `dst` (data packets of the flow's QP entropy
// are irrelevant under TE rules; ECMP uses `entropy`): the egress switch ports.
std::vector<uint32_t> forwarded_path(const net::Network& net, uint32_t src, uint32_t dst,
                                     uint16_t entropy = 0xC001) {
  std::vector<uint32_t> ports;
  uint32_t port = net.nic_port(src);
  net::Packet pkt;
  pkt.src_nic = src;
  pkt.dst_nic = dst;
  pkt.entropy = entropy;
  for (int guard = 0; guard < 16; ++guard) {
    const uint32_t in = net.port(port).peer;
    const int32_t sw = net.port(in).switch_index;
    if (sw < 0) return ports;
    port = net.egress_port(static_cast<uint32_t>(sw), pkt);
    if (port == net::kNoPort) return {};
    ports.push_back(port);
  }
  return {};
}

TEST(LoadBalancing, AdaptiveAndTeRaiseTheSlowestFlowOverEcmp) {
  const LoadBalancing modes[] = {LoadBalancing::kEcmp, LoadBalancing::kAdaptive,
                                 LoadBalancing::kTe, LoadBalancing::kFlowlet};
  const char* names[] = {"ecmp", "adaptive", "te", "flowlet"};
  std::map<LoadBalancing, Goodput> g;
  for (const bool dcqcn : {false, true}) {
    for (int i = 0; i < 4; ++i) {
      scenario::Simulation sim(permutation(modes[i], 2'000'000, dcqcn));
      const Goodput r = run_goodput(sim);
      std::printf("k=8 permutation, 2 MB flows, 100G RoCE %s+PFC, %-8s: min %5.1f%%  mean %5.1f%% "
                  "of line rate, %lld out-of-order, %lld retransmitted\n",
                  dcqcn ? "DCQCN" : "no CC", names[i], r.min_pct, r.mean_pct,
                  static_cast<long long>(r.out_of_order), static_cast<long long>(r.retransmitted));
      if (!dcqcn) g[modes[i]] = r;
    }
  }
  // ECMP: 128 flows over 16 core paths per pod pair collide, and a flow that shares two links
  // in a row with FIFO queues keeps well under half the line rate.
  EXPECT_LT(g[LoadBalancing::kEcmp].min_pct, 50.0);
  EXPECT_GT(g[LoadBalancing::kAdaptive].min_pct, 1.5 * g[LoadBalancing::kEcmp].min_pct);
  EXPECT_GT(g[LoadBalancing::kTe].min_pct, 1.5 * g[LoadBalancing::kEcmp].min_pct);
  EXPECT_GT(g[LoadBalancing::kTe].mean_pct, g[LoadBalancing::kEcmp].mean_pct);
  EXPECT_EQ(g[LoadBalancing::kEcmp].out_of_order, 0);
  EXPECT_GT(g[LoadBalancing::kAdaptive].out_of_order, 0) << "per-packet choice reorders";
  EXPECT_EQ(g[LoadBalancing::kAdaptive].retransmitted, 0) << "the receiver places, no go-back-N";
}

TEST(LoadBalancing, TePlacementSharesNoLinkAndTakesEffectAfterTheInstallDelay) {
  scenario::Scenario sc = permutation(LoadBalancing::kTe);
  sc.ecmp.te.install_delay_ps = 30'000'000;  // 30 us
  scenario::Simulation sim(sc);
  const net::Network& net = sim.network();
  sim.start_workload();
  ASSERT_NE(sim.te_controller(), nullptr);
  const routing::TeController& te = *sim.te_controller();
  // Just before the delay: no rule anywhere, every switch still hashes.
  sim.run(sc.ecmp.te.install_delay_ps - 1);
  EXPECT_EQ(te.rules_installed(), 0);
  for (uint32_t s = 0; s < net.num_switches(); ++s) {
    EXPECT_EQ(net.switch_at(s).lb, net::kLbHash) << "switch " << s;
  }
  // Just after: the rules are in and forwarding follows them.
  sim.run(sc.ecmp.te.install_delay_ps + 1);
  EXPECT_GT(te.rules_installed(), 0);
  ASSERT_EQ(te.flows().size(), 128u);
  std::map<uint32_t, int> flows_on_port;
  int same_leaf_pairs = 0;
  for (const routing::TeController::Flow& f : te.flows()) {
    EXPECT_EQ(f.installed_ps - f.learned_ps, sc.ecmp.te.install_delay_ps) << "flow " << f.msg;
    const std::vector<uint32_t> path = forwarded_path(net, f.src, f.dst);
    ASSERT_FALSE(path.empty());
    // The switches forward the flow exactly where the controller put it (the last hop to the
    // destination NIC is fixed and not part of its record)...
    EXPECT_TRUE(std::equal(f.path.begin(), f.path.end(), path.begin()))
        << "flow " << f.src << "->" << f.dst;
    // ...and, the entropy being irrelevant to a rule, for any entropy.
    EXPECT_EQ(forwarded_path(net, f.src, f.dst, 0xC777), path);
    if (path.size() == 1) ++same_leaf_pairs;
    for (uint32_t p : path) ++flows_on_port[p];
  }
  int shared = 0;
  for (const auto& [port, n] : flows_on_port) shared += n > 1;
  std::printf("TE: %zu flows placed, %lld rules, %d links carry more than one flow (ECMP: see "
              "previous test), %d same-leaf flows\n",
              te.flows().size(), static_cast<long long>(te.rules_installed()), shared,
              same_leaf_pairs);
  EXPECT_EQ(shared, 0) << "a permutation on a non-blocking fat-tree needs no shared link";
  // Before the install the flows followed their ECMP hash, which for this seed collides: the
  // check above is not vacuous.
  scenario::Simulation ecmp(permutation(LoadBalancing::kEcmp));
  ecmp.start_workload();
  std::map<uint32_t, int> ecmp_on_port;
  const transport::Transport& t = ecmp.transport();
  for (uint32_t m = 0; m < t.num_messages(); ++m) {
    const transport::MessageRecord& r = t.message(m);
    const uint16_t entropy = ecmp.roce()->qp(ecmp.roce()->message(m).qp).entropy;
    for (uint32_t p : forwarded_path(ecmp.network(), r.src_nic, r.dst_nic, entropy)) ++ecmp_on_port[p];
  }
  int ecmp_shared = 0;
  for (const auto& [port, n] : ecmp_on_port) ecmp_shared += n > 1;
  std::printf("ECMP: %d links carry more than one flow of the same permutation\n", ecmp_shared);
  EXPECT_GT(ecmp_shared, 0);
}

// The placement is conflict-free for other permutations and on a k=4 fat-tree too (measured:
// the greedy + local search alone left shared links on 7 of 40 k=8 permutations; the Clos
// colouring, routing/te_clos.h, finds a conflict-free routing whenever one exists).
TEST(LoadBalancing, TePlacementIsConflictFreeAcrossPermutations) {
  for (const int k : {4, 8}) {
    for (uint64_t seed = 1; seed <= 10; ++seed) {
      scenario::Scenario sc = permutation(LoadBalancing::kTe);
      sc.topology.radix = k;
      sc.topology.hosts = k * k * k / 4;
      sc.seed = seed;
      sc.ecmp.te.install_delay_ps = 0;
      scenario::Simulation sim(sc);
      sim.start_workload();
      sim.run(1);  // the placement is installed at time 0
      std::map<uint32_t, int> flows_on_port;
      for (const routing::TeController::Flow& f : sim.te_controller()->flows()) {
        for (uint32_t p : forwarded_path(sim.network(), f.src, f.dst)) ++flows_on_port[p];
      }
      int shared = 0;
      for (const auto& [port, n] : flows_on_port) shared += n > 1;
      EXPECT_EQ(shared, 0) << "k=" << k << " seed " << seed;
      EXPECT_EQ(sim.te_controller()->flows().size(), static_cast<size_t>(sc.topology.hosts));
    }
  }
}

// Placed before the first packet (install_delay 0), no flow shares a link and none is moved
// mid-flight, so every flow runs near its ideal: the transport's idle-path FCT (serialization
// of every frame at the line rate plus per-hop propagation and switch latency), less what the
// ACKs of the reverse flow take from its links.
TEST(LoadBalancing, TePlacedFromTheStartRunsEveryFlowNearItsIdealFct) {
  scenario::Scenario sc = permutation(LoadBalancing::kTe);
  sc.ecmp.te.install_delay_ps = 0;
  scenario::Simulation sim(sc);
  const Goodput g = run_goodput(sim);
  const scenario::Scenario& s = sim.scenario();
  const double ideal_pct = 100.0 * sc.workload.flow_size_bytes * 8.0 /
                           (sim.transport().ideal_fct_ps(sc.workload.flow_size_bytes, 5, s.link,
                                                         s.switch_config, s.nic) *
                            1e-12) /
                           kRate;
  std::printf("TE from t=0: min %.1f%%, mean %.1f%% of line rate; ideal (5 switches, idle) "
              "%.1f%%; %lld retransmitted\n",
              g.min_pct, g.mean_pct, ideal_pct, static_cast<long long>(g.retransmitted));
  EXPECT_GT(g.min_pct, 0.9 * ideal_pct);
  EXPECT_EQ(g.retransmitted, 0) << "no path change mid-flow, no go-back-N";
  EXPECT_EQ(sim.network().counters().pause_frames, 0) << "no link is over-subscribed";
}

// Re-optimization from measured link loads: a large flow (placed) shares a link with traffic
// the controller does not place (below routing.te.min_flow_size, on ECMP). Placed on an idle
// view, it cannot know; one interval later the port counters show the link's excess over the
// flow's own rate, and it must move the flow to a path without that background, which then
// finishes sooner than with placement alone.
TEST(LoadBalancing, TeReoptimizationMovesALargeFlowOffMeasuredBackground) {
  constexpr int64_t kBig = 4'000'000, kSmall = 2'500'000;
  auto make = [&](uint64_t seed, int64_t interval_ps) {
    scenario::Scenario sc;
    sc.seed = seed;
    sc.topology.tiers = 3;
    sc.topology.radix = 4;
    sc.topology.hosts = 16;
    sc.link.rate_bps = kRate;
    sc.switch_config.pfc.enabled = true;
    sc.roce.cc = transport::CongestionControl::kNone;
    sc.workload.kind = workload::WorkloadKind::kPattern;
    sc.workload.pattern = workload::PatternKind::kFlows;
    // One large flow pod 0 -> pod 2, three smaller ones between the same pods beside it.
    sc.workload.flows = {{0, 8, kBig, 0}, {1, 9, kSmall, 0}, {2, 10, kSmall, 0}, {3, 11, kSmall, 0}};
    sc.ecmp.load_balancing = LoadBalancing::kTe;
    sc.ecmp.te.install_delay_ps = 2'000'000;
    sc.ecmp.te.min_flow_size_bytes = 3'000'000;
    sc.ecmp.te.reoptimize_interval_ps = interval_ps;
    return sc;
  };
  // Find a seed where the initial placement collides with a background flow's ECMP path and
  // some other path of the large flow is free of background (checked, not assumed).
  uint64_t seed = 0;
  for (uint64_t s = 1; s <= 40 && seed == 0; ++s) {
    scenario::Simulation sim(make(s, 0));
    sim.start_workload();
    sim.run(3'000'000);
    const routing::TeController& te = *sim.te_controller();
    if (te.flows().size() != 1 || te.flows()[0].path.empty()) continue;
    std::map<uint32_t, int> background;
    for (uint32_t m = 1; m < 4; ++m) {
      const transport::MessageRecord& r = sim.transport().message(m);
      const uint16_t e = sim.roce()->qp(sim.roce()->message(m).qp).entropy;
      for (uint32_t p : forwarded_path(sim.network(), r.src_nic, r.dst_nic, e)) ++background[p];
    }
    auto loaded = [&](const std::vector<uint32_t>& path) {
      for (uint32_t p : path) {
        if (background.count(p)) return true;
      }
      return false;
    };
    bool free_path = false;
    for (const auto& path : te.paths(0, 8)) free_path = free_path || !loaded(path);
    if (loaded(te.flows()[0].path) && free_path) seed = s;
  }
  ASSERT_NE(seed, 0u) << "no seed puts the large flow on a loaded path";
  auto fct_of_big = [&](int64_t interval_ps, int64_t* moved) {
    scenario::Simulation sim(make(seed, interval_ps));
    sim.start_workload();
    EXPECT_TRUE(sim.run());
    *moved = sim.te_controller()->flows_moved();
    const transport::MessageRecord& r = sim.transport().message(0);
    return r.rx_done_ps - r.post_ps;
  };
  int64_t moved_once = 0, moved_reopt = 0;
  const int64_t once = fct_of_big(0, &moved_once);
  const int64_t reopt = fct_of_big(20'000'000, &moved_reopt);  // every 20 us
  // The flow alone at line rate: 4 MB / (4096/4178 x 100 Gb/s) = 333 us of serialization.
  std::printf("TE re-optimization (seed %llu): large flow FCT %.1f us placed once, %.1f us "
              "re-optimized every 20 us (%lld moves); alone at line rate ~333 us\n",
              static_cast<unsigned long long>(seed), once * 1e-6, reopt * 1e-6,
              static_cast<long long>(moved_reopt));
  EXPECT_EQ(moved_once, 0);
  EXPECT_GE(moved_reopt, 1);
  EXPECT_LT(reopt, 0.9 * once);
}

TEST(LoadBalancing, FlowletsWithAGapAboveThePathSpreadDoNotReorder) {
  // The receiver places out of order so that any reordering is counted rather than NAKed.
  scenario::Scenario sc = permutation(LoadBalancing::kFlowlet, 1'000'000);
  sc.roce.out_of_order = true;
  sc.ecmp.flowlet_gap_ps = 500'000'000;  // 500 us: above any queueing difference in this run
  scenario::Simulation big(sc);
  const Goodput wide = run_goodput(big);
  // A 1 ns gap starts a flowlet at nearly every packet: per-packet adaptive, which reorders.
  sc.ecmp.flowlet_gap_ps = 1'000;
  scenario::Simulation small(sc);
  const Goodput narrow = run_goodput(small);
  std::printf("flowlet gap 500 us: %lld out-of-order; gap 1 ns: %lld out-of-order (min goodput "
              "%.1f%% vs %.1f%%)\n",
              static_cast<long long>(wide.out_of_order),
              static_cast<long long>(narrow.out_of_order), wide.min_pct, narrow.min_pct);
  EXPECT_EQ(wide.out_of_order, 0);
  EXPECT_GT(narrow.out_of_order, 0) << "the check must be able to see reordering";
}

TEST(LoadBalancing, AutoFlowletGapIsTheBaseRttPlusTheQueueSpread) {
  scenario::Scenario sc = permutation(LoadBalancing::kFlowlet);
  scenario::Simulation sim(sc);
  const net::Network& net = sim.network();
  // Independent derivation: 5 switches on the widest path = 6 links each way; per link the
  // largest port delay plus a 4096-byte RoCE frame (4096 + 82 bytes with preamble and IFG) at
  // 100 Gb/s = 334.24 ns; plus 62.5 KB at 100 Gb/s = 5 us.
  int64_t max_delay = 0;
  for (uint32_t p = 0; p < net.num_ports(); ++p) max_delay = std::max(max_delay, net.port(p).delay_ps);
  const int64_t expect = 2 * 6 * (max_delay + 334'240) + 5'000'000;
  EXPECT_EQ(sim.scenario().ecmp.flowlet_gap_ps, expect);
  for (uint32_t s = 0; s < net.num_switches(); ++s) {
    EXPECT_EQ(net.switch_at(s).flowlet_gap_ps, expect);
    EXPECT_EQ(net.switch_at(s).flowlets.size(), net::kFlowletSlots);
  }
  std::printf("auto flowlet gap on the k=8 100G fabric: %.2f us\n", expect * 1e-6);
}

TEST(LoadBalancing, AdaptiveOnAnIdleFabricFollowsTheHash) {
  scenario::Simulation ar(permutation(LoadBalancing::kAdaptive));
  scenario::Simulation ecmp(permutation(LoadBalancing::kEcmp));
  for (uint32_t s = 0; s < ecmp.network().num_switches(); ++s) {
    EXPECT_EQ(ecmp.network().switch_at(s).lb, net::kLbHash) << "ECMP keeps the one-branch path";
    EXPECT_EQ(ar.network().switch_at(s).lb, net::kLbAdaptive);
  }
  int differ = 0;
  for (uint32_t src = 0; src < 128; src += 7) {
    for (uint32_t dst = 0; dst < 128; dst += 5) {
      if (src == dst) continue;
      differ += forwarded_path(ar.network(), src, dst) != forwarded_path(ecmp.network(), src, dst);
    }
  }
  EXPECT_EQ(differ, 0) << "ties start from the hashed member: an idle fabric spreads as ECMP";
}

TEST(LoadBalancing, RefusedWhereTheReceiverCannotReorderOrOnInfiniband) {
  scenario::Scenario sc = permutation(LoadBalancing::kAdaptive);
  sc.roce.out_of_order = false;
  try {
    scenario::Simulation sim(sc);
    FAIL() << "adaptive routing with a go-back-N RoCE receiver must be refused";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key_path(), "routing.load_balancing") << e.what();
  }
  sc = permutation(LoadBalancing::kFlowlet);
  sc.technology = scenario::Technology::kInfiniband;
  sc.switch_config.pfc.enabled = false;  // credits, not PFC
  try {
    scenario::Simulation sim(sc);
    FAIL() << "InfiniBand has its own adaptive routing";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key_path(), "routing.load_balancing") << e.what();
  }
}

}  // namespace lb_test
}  // namespace fabricsim
