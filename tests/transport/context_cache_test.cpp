// RoCE QPs through the NICs' context caches (net/nic_context_cache.h, transport/rc_ctxcache.cpp):
// the message rate falls once the active QPs exceed the cache, to what the miss cost allows.
//
//   NIC0 ──400G── leaf ──400G── NIC1      K one-packet RDMA WRITEs of 64 B, all posted at t=0,
//                                          NIC0 -> NIC1, message i on QP i mod N
//
// Derivation (independent of the simulator):
//  - N <= entries: every context stays cached (set-up wrote them), so the NIC sends back to back
//    at line rate: one message per wire frame, 64 B payload + 82 B RoCEv2 headers, preamble and
//    IFG + 16 B RETH = 162 B = 3.24 ns at 400 Gb/s.
//  - N > entries: QP i's context was last used N - 1 other QPs ago at both NICs, so LRU has
//    evicted it: NIC0 reads it to send and NIC1 reads it to receive (one read per message at
//    each NIC). The ACK reaches NIC0 about one read and one path later, after only
//    ~(500 ns + ~1 us) x rate ~ 30 other QPs, far fewer than `entries`: a hit. Each NIC's read
//    engine keeps M reads of L in flight, so each processes at most M / L messages per second,
//    and the two NICs pipeline: the steady interval between deliveries is L / M
//    (M = 8, L = 500 ns: 62.5 ns, 16 M messages/s; M = 1: 500 ns).
// Tolerance 2%: the first reads and the path latency are a constant spread over K - 1 intervals
// (about M / K of the span, 0.2% at K = 4096).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "core/error.h"
#include "spec/load.h"
#include "engine/packet/simulation.h"

namespace fabricsim {
namespace context_cache_test {

constexpr int kMessages = 4096;
constexpr int64_t kMissPs = 500'000;

scenario::Scenario two_nics(bool cache, int qps, int outstanding) {
  scenario::Scenario sc;
  sc.topology.tiers = 2;
  sc.topology.radix = 4;
  sc.topology.hosts = 2;
  sc.link.rate_bps = 400'000'000'000;
  sc.link.cable_m = 3.0;
  sc.roce.qps_per_pair = qps;
  sc.context_cache.enabled = cache;
  sc.context_cache.entries = 256;
  sc.context_cache.outstanding_misses = outstanding;
  sc.context_cache.miss_latency_ps = kMissPs;
  return sc;
}

struct Measured {
  double interval_ps = 0;  // mean time between consecutive deliveries
  int64_t hits = 0;
  int64_t misses = 0;
  int64_t nic0_misses = 0;
  int64_t nic1_misses = 0;
};

Measured run(const scenario::Scenario& sc) {
  scenario::Simulation sim(sc);
  for (int i = 0; i < kMessages; ++i) sim.transport().post(0, 1, 64, 0);
  EXPECT_TRUE(sim.run());
  std::vector<int64_t> done;
  for (uint32_t m = 0; m < sim.transport().num_messages(); ++m) {
    done.push_back(sim.transport().message(m).rx_done_ps);
  }
  std::sort(done.begin(), done.end());
  EXPECT_GE(done.front(), 0) << "every message delivered";
  Measured r;
  r.interval_ps = static_cast<double>(done.back() - done.front()) / (kMessages - 1);
  if (const net::NicContextCache* c = sim.transport().context_cache()) {
    r.hits = c->hits();
    r.misses = c->misses();
    r.nic0_misses = c->nic_misses(0);
    r.nic1_misses = c->nic_misses(1);
  }
  return r;
}

constexpr double kLineRateIntervalPs = 162 * 20.0;  // 162 B at 20 ps per byte (400 Gb/s)

TEST(ContextCacheRate, QpsThatFitSendAtLineRateWithoutMisses) {
  const Measured m = run(two_nics(true, 128, 8));
  EXPECT_EQ(m.misses, 0) << "128 QPs in a 256-entry cache";
  EXPECT_NEAR(m.interval_ps, kLineRateIntervalPs, 0.02 * kLineRateIntervalPs);
}

struct Case {
  int outstanding;
};
class ContextCacheThrash : public ::testing::TestWithParam<Case> {};

TEST_P(ContextCacheThrash, RateFallsToOutstandingReadsPerMissLatency) {
  const int m_reads = GetParam().outstanding;
  const Measured m = run(two_nics(true, 1024, m_reads));
  EXPECT_EQ(m.nic0_misses, kMessages) << "NIC0 reads every QP's context to send";
  EXPECT_EQ(m.nic1_misses, kMessages) << "NIC1 reads every QP's context to receive";
  EXPECT_EQ(m.hits, kMessages) << "the ACKs find their context still cached at NIC0";
  const double expected_ps = static_cast<double>(kMissPs) / m_reads;
  std::printf("  %d reads in flight: %.1f ps per message (derived %.1f)\n", m_reads,
              m.interval_ps, expected_ps);
  EXPECT_NEAR(m.interval_ps, expected_ps, 0.02 * expected_ps)
      << m_reads << " reads in flight of " << kMissPs << " ps";
}

INSTANTIATE_TEST_SUITE_P(Reads, ContextCacheThrash, ::testing::Values(Case{1}, Case{8}));

TEST(ContextCacheRate, DisabledCacheChangesNothing) {
  // The default: no cache. Same QPs, same messages: identical delivery times to the picosecond
  // whether the cache keys are merely set (disabled) or left at their defaults.
  scenario::Scenario off = two_nics(false, 1024, 8);
  scenario::Scenario defaults;
  defaults.topology = off.topology;
  defaults.link = off.link;
  defaults.roce.qps_per_pair = 1024;
  ASSERT_FALSE(defaults.context_cache.enabled) << "off by default";
  scenario::Simulation a(off), b(defaults);
  for (int i = 0; i < 256; ++i) {
    a.transport().post(0, 1, 64, 0);
    b.transport().post(0, 1, 64, 0);
  }
  ASSERT_TRUE(a.run());
  ASSERT_TRUE(b.run());
  EXPECT_EQ(a.transport().context_cache(), nullptr);
  for (uint32_t m = 0; m < 256; ++m) {
    EXPECT_EQ(a.transport().message(m).rx_done_ps, b.transport().message(m).rx_done_ps) << m;
  }
  // And the rate is the line rate: 1024 QPs cost nothing without the cache.
  EXPECT_NEAR(static_cast<double>(a.transport().message(255).rx_done_ps -
                                  a.transport().message(0).rx_done_ps) / 255,
              kLineRateIntervalPs, 0.02 * kLineRateIntervalPs);
}

TEST(ContextCacheRate, QpsPerPairTakeTurnsAndEveryQpHasAContextAtBothEnds) {
  scenario::Scenario sc = two_nics(true, 16, 8);
  scenario::Simulation sim(sc);
  for (int i = 0; i < 40; ++i) sim.transport().post(0, 1, 64, 0);
  ASSERT_TRUE(sim.run());
  auto& roce = static_cast<const transport::RoceTransport&>(sim.transport());
  EXPECT_EQ(roce.num_qps(), 16u);
  EXPECT_EQ(roce.message(0).qp, 0u);
  EXPECT_EQ(roce.message(17).qp, 1u) << "message 17 of the pair on its QP 17 mod 16";
  const net::NicContextCache* c = sim.transport().context_cache();
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->connections(0), 16);
  EXPECT_EQ(c->connections(1), 16);
  EXPECT_EQ(c->max_connections_per_nic() * c->context_bytes(), 16 * 232)
      << "the NIC memory the connections need: 16 x the 232-byte mlx5 QPC";
}

std::string load_error(const std::string& yaml) {
  try {
    scenario::load_scenario_string(yaml, "s.yaml");
  } catch (const scenario::LoadError& e) {
    return e.what();
  }
  return "";
}

TEST(ContextCacheKeys, BadValuesAreRefusedWithFileAndLine) {
  const std::string head = "name: x\nfabric:\n  nic:\n    context_cache:\n      enabled: true\n";
  EXPECT_EQ(load_error(head + "      entries: 0\n").rfind("s.yaml:6: fabric.nic.context_cache.entries:", 0), 0u)
      << load_error(head + "      entries: 0\n");
  EXPECT_NE(load_error(head + "      outstanding_misses: 0\n"), "");
  EXPECT_NE(load_error(head + "      miss_latency: 500\n"), "") << "a time needs its unit";
  EXPECT_EQ(load_error(head + "      miss_latency: 900ns\n      context_bytes: 512B\n"), "");
  EXPECT_NE(load_error("name: x\nfabric:\n  nic:\n    context_cache:\n      entries: 64\n"), "")
      << "the cache's sizes only with the cache enabled";
  EXPECT_NE(load_error("name: x\nfabric:\n  roce:\n    qps_per_pair: 0\n"), "");
}

TEST(ContextCacheKeys, UetRunsRefuseTheCache) {
  scenario::Scenario sc = two_nics(true, 1, 8);
  sc.technology = scenario::Technology::kUet;
  try {
    scenario::Simulation sim(sc);
    ADD_FAILURE() << "uet with a context cache ran";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key_path(), "fabric.nic.context_cache.enabled") << e.what();
  }
}

}  // namespace context_cache_test
}  // namespace fabricsim
