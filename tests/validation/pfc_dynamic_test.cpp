// PFC with the default dynamic threshold (fabric.pfc.threshold: dynamic): the shared-buffer MMU
// model that SONiC programs on Broadcom and NVIDIA Spectrum switches (SAI saibuffer.h:
// SHARED_DYNAMIC_TH, XON_OFFSET_TH; SONiC pg_profile_lookup.ini: dynamic_th 0, alpha = 1).
//
// Leaf-spine radix 8, 100 Gb/s, 3 m cables: 4 leaves x 4 spines, NICs 0-3 on leaf0.
//
//     leaf0 ── NIC0 (R)   NIC1 ──┐
//                         NIC2 ──┴──► leaf0 ──► NIC0
//
// Figures derived here:
//   headroom per (port, lossless priority) = (301 + 6) x 100 + 11141 = 41841 bytes (mlx5)
//   a leaf has 8 ports and one lossless priority: 8 x 41841 = 334728 bytes reserved, so its
//   shared pool is S = buffer - 334728 (a spine, 4 ports: buffer - 167364).
//   N ingress PGs filling at the same rate with nothing else in the buffer each reach the dynamic
//   threshold x = alpha (S - N x)  =>  x = alpha S / (1 + alpha N)   (Choudhury & Hahne 1998,
//   the steady state of a dynamic threshold); alpha = 1, N = 2: x = S / 3.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "core/error.h"
#include "net/network.h"
#include "engine/packet/simulation.h"

namespace fabricsim {
namespace pfc_dynamic_test {

constexpr int64_t kHeadroom = 41841;
constexpr int64_t kFrame = 4096 + 62;  // a full data frame's buffer bytes

scenario::Scenario fabric(int64_t buffer) {
  scenario::Scenario sc;
  sc.seed = 11;
  sc.topology.tiers = 2;
  sc.topology.radix = 8;
  sc.topology.hosts = 16;
  sc.link.rate_bps = 100'000'000'000;
  sc.link.cable_m = 3.0;
  sc.switch_config.buffer_bytes = buffer;
  sc.switch_config.pfc.enabled = true;  // threshold: dynamic is the default
  return sc;
}

// Records, for the first PAUSE (quanta > 0) a switch port sends, the PG bytes then held.
struct FirstXoff {
  net::Network* net = nullptr;
  int64_t held = -1;
  int64_t headroom = -1;
  int64_t free_shared = -1;
  static void on_transmit(void* ctx, int64_t, uint32_t port, const net::Packet& p) {
    auto* self = static_cast<FirstXoff*>(ctx);
    if (p.type != net::PacketType::kPause || p.psn == 0 || self->held >= 0) return;
    if (self->net->port(port).is_nic) return;
    const net::PortQueues& q = self->net->queues(port);
    const net::Switch& sw = self->net->switch_at(self->net->port(port).switch_index);
    self->held = q.ingress_bytes[3];
    self->headroom = q.headroom_used_bytes[3];
    self->free_shared = sw.buffer_bytes - sw.buffer_used_bytes;
  }
};

TEST(PfcDynamic, HeadroomIsReservedOutOfTheSwitchBuffer) {
  constexpr int64_t kBuffer = 4 << 20;
  scenario::Simulation sim(fabric(kBuffer));
  const net::Network& net = sim.network();
  for (uint32_t s = 0; s < net.num_switches(); ++s) {
    // A leaf has 4 NICs + 4 uplinks; the 4 leaves' 16 uplinks fill 2 spines of 8 ports (2
    // cables per leaf-spine pair, topo/fat_tree.cpp): every switch has 8 ports.
    const int64_t ports = 8;
    ASSERT_EQ(static_cast<int64_t>(net.switch_at(s).num_ports), ports) << "switch " << s;
    EXPECT_EQ(net.switch_at(s).buffer_bytes, kBuffer - ports * kHeadroom)
        << "shared pool = buffer - ports x lossless classes x headroom";
  }
  for (uint32_t p = 0; p < net.num_ports(); ++p) {
    EXPECT_EQ(net.queues(p).pfc_headroom_bytes, kHeadroom) << "port " << p;
  }
}

TEST(PfcDynamic, HeadroomThatDoesNotFitIsAnInputError) {
  // 8 x 41841 = 334728 bytes of headroom cannot fit a 256 KiB buffer.
  try {
    scenario::Simulation sim(fabric(256 << 10));
    FAIL() << "a 256 KiB switch cannot reserve 334728 bytes of headroom";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_EQ(e.key_path(), "fabric.switch.buffer") << what;
    EXPECT_NE(what.find("334728"), std::string::npos) << "names the headroom total: " << what;
  }
}

TEST(PfcDynamic, StaticKeysNeedTheStaticMode) {
  scenario::Scenario sc = fabric(4 << 20);
  sc.switch_config.pfc.xoff_bytes = 100'000;
  EXPECT_THROW(scenario::Simulation sim(sc), InputError)
      << "fabric.pfc.xoff is a static threshold";
}

// NIC1 and NIC2 each send 4 MB to NIC0 (2:1 at leaf0). Both ingress PGs of leaf0 grow at the
// same rate; the first XOFF comes when one reaches alpha x free = S - 2x, i.e. x = S/3.
TEST(PfcDynamic, FirstXoffAtAlphaTimesFreeSharedPool) {
  constexpr int64_t kBuffer = 4 << 20;
  const int64_t shared = kBuffer - 8 * kHeadroom;  // 3859576
  scenario::Simulation sim(fabric(kBuffer));
  net::Network& net = sim.network();
  FirstXoff probe;
  probe.net = &net;
  net.set_tap(net::Tap{&probe, &FirstXoff::on_transmit});
  sim.transport().post(1, 0, 4'000'000, 0);
  sim.transport().post(2, 0, 4'000'000, 0);
  ASSERT_TRUE(sim.run()) << "the incast finishes";
  net.finish_pause_accounting();
  EXPECT_EQ(net.counters().dropped_packets, 0) << "lossless";
  ASSERT_GE(probe.held, 0) << "leaf0 sent XOFF";
  EXPECT_EQ(probe.headroom, 0) << "XOFF is sent before the headroom is touched";
  // The PAUSE leaves after the frame leaf0 is sending towards the NIC (<= 1 frame time, during
  // which each PG may take one more frame), and the other PG may lead by one frame.
  const double x = shared / 3.0;
  EXPECT_GE(probe.held, x - 2 * kFrame) << "XOFF at about S/3 = " << x;
  EXPECT_LE(probe.held, x + 2 * kFrame) << "XOFF at about S/3 = " << x;
  // Nothing is left over: the shared pool and the headroom return to empty.
  for (uint32_t s = 0; s < net.num_switches(); ++s) {
    EXPECT_EQ(net.switch_at(s).buffer_used_bytes, 0) << "switch " << s << " shared pool empty";
    EXPECT_LE(net.switch_at(s).peak_buffer_bytes, net.switch_at(s).buffer_bytes)
        << "the shared pool never exceeds buffer - headroom";
  }
  int64_t pauses = 0;
  for (uint32_t p = 0; p < net.num_ports(); ++p) {
    for (int c = 0; c < net::kPriorities; ++c) {
      EXPECT_EQ(net.queues(p).ingress_bytes[c], 0u) << "port " << p << " PG " << c;
      EXPECT_EQ(net.queues(p).headroom_used_bytes[c], 0u) << "port " << p << " PG " << c;
    }
    pauses += net.queues(p).pause_frames_sent;
  }
  EXPECT_GT(pauses, 0);
  std::printf("[ measured ] 2:1 x 4 MB, 4 MiB buffer: first XOFF at %lld PG bytes (S/3 = %.0f), "
              "free shared pool then %lld; %lld PAUSE frames\n",
              static_cast<long long>(probe.held), x, static_cast<long long>(probe.free_shared),
              static_cast<long long>(pauses));
}

// Two 3:1 incasts (into NIC 0 on leaf0 and NIC 4 on leaf1) in a 2 MiB buffer: the headroom,
// sized by the formula, absorbs what arrives after XOFF (no lossless drop, never more than the
// headroom per PG), and the shared pool and headroom accounting return to zero.
TEST(PfcDynamic, TwoIncastsShareThePoolWithoutLeaks) {
  scenario::Scenario sc = fabric(2 << 20);
  scenario::Simulation sim(sc);
  net::Network& net = sim.network();
  for (uint32_t s : {1u, 2u, 3u}) sim.transport().post(s, 0, 2'000'000, 0);   // lossless
  for (uint32_t s : {5u, 6u, 7u}) sim.transport().post(s, 4, 2'000'000, 0);   // lossless
  ASSERT_TRUE(sim.run()) << "finishes";
  EXPECT_EQ(net.counters().lossless_drops, 0) << "headroom absorbs what follows XOFF";
  EXPECT_EQ(net.counters().dropped_packets, 0) << "nothing dropped";
  int64_t peak_room = 0;
  for (uint32_t p = 0; p < net.num_ports(); ++p) {
    peak_room = std::max(peak_room, net.queues(p).peak_headroom_bytes);
    EXPECT_LE(net.queues(p).peak_headroom_bytes, kHeadroom) << "port " << p;
  }
  for (uint32_t s = 0; s < net.num_switches(); ++s) {
    EXPECT_EQ(net.switch_at(s).buffer_used_bytes, 0) << "switch " << s;
  }
  std::printf("[ measured ] 2 x 3:1 x 2 MB, 2 MiB buffer: peak headroom use %lld of %lld bytes\n",
              static_cast<long long>(peak_room), static_cast<long long>(kHeadroom));
}

}  // namespace pfc_dynamic_test
}  // namespace fabricsim
