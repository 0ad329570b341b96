// iWARP connections through the RNICs' context caches (net/nic_context_cache.h,
// transport/tcp_ctxcache.cpp): the message rate falls once the active connections exceed the
// cache, to what the miss cost allows.
//
//   NIC 0 sends K = 2048 one-segment messages of 64 B, message i to NIC 1 + (i mod 32): 32 TCP
//   connections at NIC 0, served round-robin; leaf-spine radix 16, 64 hosts, 100 Gb/s.
//
// Derivation (independent of the simulator):
//  - cache of 64 entries >= 32 connections: every context stays cached (set-up wrote them), so
//    NIC 0 sends back to back at line rate: per message an iWARP frame of 70 B (Ethernet, IPv4,
//    TCP + timestamps, FCS) + FPDU (MPA length 2 + DDP tagged 14 + 64 B payload + CRC 4 = 84) =
//    154 B, + 20 B preamble/IFG = 174 B = 13.92 ns; K messages = 28.5 us, plus the first
//    message's post and one path.
//  - cache of 16 entries < 32 connections in round-robin: LRU has evicted a connection's context
//    by the time its turn comes again, unless one of its ACKs brought it back just before (the
//    ACK's look-up at NIC 0 reads it too). Sends and ACKs share NIC 0's read engine, which keeps
//    M = 1 read of L = 1 us in flight: the reads serialize, so the last delivery comes NIC 0's
//    misses x L / M after the start, within one read and one path (a few us), where the line
//    rate alone would take 28.5 us.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>

#include "core/error.h"
#include "core/time.h"
#include "engine/packet/simulation.h"

namespace fabricsim {
namespace tcp_ctxcache_test {

constexpr int kMessages = 2048;
constexpr int kConnections = 32;
constexpr int64_t kMissPs = 1'000'000;  // L = 1 us

scenario::Scenario fabric(int entries) {
  scenario::Scenario sc;
  sc.technology = scenario::Technology::kIwarp;
  sc.topology.tiers = 2;
  sc.topology.radix = 16;
  sc.topology.hosts = 64;
  sc.link.rate_bps = 100'000'000'000;
  sc.context_cache.enabled = true;
  sc.context_cache.entries = entries;
  sc.context_cache.outstanding_misses = 1;
  sc.context_cache.miss_latency_ps = kMissPs;
  return sc;
}

struct Measured {
  int64_t last_delivery_ps = 0;
  int64_t nic0_misses = 0;
  int64_t misses = 0;
};

Measured run(int entries) {
  scenario::Simulation sim(fabric(entries));
  for (int i = 0; i < kMessages; ++i) {
    sim.transport().post(0, static_cast<uint32_t>(1 + i % kConnections), 64, i);
  }
  EXPECT_TRUE(sim.run());
  Measured m;
  for (uint32_t id = 0; id < sim.transport().num_messages(); ++id) {
    EXPECT_EQ(sim.transport().message(id).placed_bytes, 64);
    m.last_delivery_ps = std::max(m.last_delivery_ps, sim.transport().message(id).rx_done_ps);
  }
  const net::NicContextCache* c = sim.transport().context_cache();
  EXPECT_NE(c, nullptr);
  if (c != nullptr) {
    m.nic0_misses = c->nic_misses(0);
    m.misses = c->misses();
  }
  return m;
}

TEST(TcpContextCache, IwarpAtLineRateWhileConnectionsFit) {
  const Measured m = run(64);
  EXPECT_EQ(m.misses, 0);
  const double wire_ps = kMessages * 174.0 * 80;  // 80 ps per byte at 100 Gb/s
  EXPECT_GT(m.last_delivery_ps, wire_ps);
  EXPECT_LT(m.last_delivery_ps, wire_ps + 5 * kPsPerUs) << "post + one path on top of the wire";
}

TEST(TcpContextCache, IwarpRateFallsToTheMissCostBeyondTheCache) {
  const Measured m = run(16);
  std::printf("  NIC 0: %lld misses, last delivery %.1f us\n",
              static_cast<long long>(m.nic0_misses), m.last_delivery_ps * 1e-6);
  EXPECT_GT(m.nic0_misses, kMessages / 2) << "most sends find their context evicted";
  EXPECT_GE(m.last_delivery_ps, (m.nic0_misses - 1) * kMissPs);
  EXPECT_LE(m.last_delivery_ps, (m.nic0_misses + 1) * kMissPs + 5 * kPsPerUs);
}

TEST(TcpContextCache, KernelTcpRefusesTheCache) {
  scenario::Scenario sc = fabric(16);
  sc.technology = scenario::Technology::kTcp;
  EXPECT_THROW(scenario::Simulation sim(sc), InputError);
}

}  // namespace tcp_ctxcache_test
}  // namespace fabricsim
