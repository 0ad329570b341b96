// Priority flow control (IEEE 802.1Qbb; SPEC §8 "PFC"): PAUSE timing (quanta expiry, RESUME,
// refresh by a stalled NIC) and what PFC costs, a PFC storm broken by the watchdog and head-of-line
// blocking of a victim flow. The fabric, the formulas and the probes are in pfc_fabric.h; the
// lossless guarantees are in pfc_test.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "pfc_fabric.h"

namespace fabricsim::pfc_test {
namespace pfc_pause_test {

// ---------------------------------------------------------------------------------------------
// 4. PAUSE timing. Radix 8 leaf-spine, PFC on, one 1 MB flow NIC 1 -> NIC 0 (both on leaf0):
//
//     NIC1 ──► leaf0 ──► NIC0        leaf0's port towards NIC0 is the one paused
//
// (a) Expiry: NIC 0's MAC sends one PAUSE (quanta Q = 10000) and no refresh: leaf0's port
// towards NIC 0 stops for Q x 512 / 100e9 s = 51.2 us and then resumes on its own. The flow's
// last byte is late by that time less what was left of the frame on the wire when the PAUSE
// arrived (at most one 4178-byte frame, 334.24 ns).
// (b) RESUME: PAUSE(65535) and PAUSE(0) injected ~30 us apart: paused exactly from one to the
// other (both cross the same cable), far short of the 335 us the first one asked for.
// The frames are injected as NIC 0's MAC would send them (Network::nic_send): every PFC sender
// in the model refreshes its PAUSE while congested, so an unrefreshed PAUSE can only be
// injected. A frame entering that way counts as in flight and is never delivered, so sim.run()
// ends when the events run out rather than when the fabric is empty; timings are unaffected.
net::Packet pause_frame(uint32_t nic, int quanta) {
  net::Packet f;
  f.type = net::PacketType::kPause;
  f.qp = kDataClass;
  f.psn = static_cast<uint32_t>(quanta);
  f.frame_bytes = 64;
  f.priority = 7;  // ahead of any queued ACK
  f.src_nic = f.dst_nic = nic;
  return f;
}

// Injects the listed PAUSE frames from NIC 0, each when NIC 1 (the sender, transmitting
// continuously at line rate) starts its first frame at or after the listed time. Injecting from
// the frame tap ties each PAUSE to a frame boundary of the sender, which makes the expected
// paused time exact.
struct Injector {
  net::Network* net = nullptr;
  uint32_t trigger_port = 0;
  std::vector<std::pair<int64_t, int>> pauses;  // (not before, quanta)
  size_t next = 0;
  std::vector<int64_t> sent_at;
  static void on_transmit(void* ctx, int64_t time_ps, uint32_t port, const net::Packet&) {
    auto* self = static_cast<Injector*>(ctx);
    if (port != self->trigger_port || self->next >= self->pauses.size()) return;
    if (time_ps < self->pauses[self->next].first) return;
    self->sent_at.push_back(time_ps);
    self->net->nic_send(0, pause_frame(0, self->pauses[self->next++].second));
  }
};

struct TimedRun {
  int64_t fct = -1;
  int64_t paused_ps = 0;       // leaf0's port towards NIC 0
  int64_t pauses_received = 0;
  std::vector<int64_t> injected_at;
};

TimedRun single_flow(const std::vector<std::pair<int64_t, int>>& pauses) {
  scenario::Simulation sim(leaf_spine(8, 16, 64ll << 20, true));
  net::Network& net = sim.network();
  Injector inj;
  inj.net = &net;
  inj.trigger_port = net.nic_port(1);
  inj.pauses = pauses;
  net.set_tap(net::Tap{&inj, &Injector::on_transmit});
  const uint32_t msg = sim.transport().post(1, 0, kFlowBytes, 0);
  sim.run();
  net.finish_pause_accounting();
  const uint32_t leaf_port =
      ports_towards(net, net.switch_node(leaf_of(net, 0)), net.nic_node(0))[0];
  EXPECT_EQ(net.counters().dropped_packets, 0) << "nothing dropped";
  EXPECT_EQ(inj.next, pauses.size()) << "every PAUSE was injected";
  TimedRun out;
  out.fct = fct_ps(sim, msg);
  out.paused_ps = net.queues(leaf_port).paused_ps;
  out.pauses_received = net.queues(leaf_port).pause_frames_received;
  out.injected_at = inj.sent_at;
  return out;
}

TEST(PfcTiming, PauseExpiresAfterQuantaAndResumeEndsIt) {
  const TimedRun base = single_flow({});
  ASSERT_GT(base.fct, 0) << "the flow finishes";
  EXPECT_EQ(base.paused_ps, 0) << "nothing paused without a PAUSE";

  const int quanta = 10000;
  const int64_t pause_ps = std::llround(quanta * 512.0 / kRateBps * 1e12);  // 51.2 us
  const int64_t frame_ps = std::llround(wire_ps(4096 + 82));                // 334.24 ns
  const TimedRun late = single_flow({{20 * kPsPerUs, quanta}});
  EXPECT_EQ(late.pauses_received, 1) << "one PAUSE, no refresh";
  EXPECT_EQ(late.paused_ps, pause_ps) << "paused exactly quanta x 512 bit times (51.2 us), got "
                                      << late.paused_ps / 1e6 << " us";
  EXPECT_LE(late.fct - base.fct, pause_ps) << "the flow is late by at most the pause";
  EXPECT_GE(late.fct - base.fct, pause_ps - frame_ps - 1)
      << "the flow is late by the pause less at most one frame already on the wire";

  const TimedRun resumed = single_flow({{20 * kPsPerUs, 65535}, {50 * kPsPerUs, 0}});
  ASSERT_EQ(resumed.injected_at.size(), 2u) << "PAUSE and RESUME injected";
  const int64_t gap = resumed.injected_at[1] - resumed.injected_at[0];
  EXPECT_EQ(resumed.pauses_received, 2) << "PAUSE and RESUME";
  // The PAUSE may wait behind an ACK NIC 0 is sending (86 bytes, 6.88 ns); RESUME finds the NIC
  // idle (nothing arrives while its switch port is paused, so it has nothing to ACK).
  EXPECT_LE(resumed.paused_ps, gap) << "paused from PAUSE to RESUME";
  EXPECT_GE(resumed.paused_ps, gap - 7000) << "paused from PAUSE to RESUME";
  EXPECT_LE(resumed.fct - base.fct, gap) << "late by at most the pause";
  EXPECT_GE(resumed.fct - base.fct, gap - frame_ps - 7000) << "late by about the pause";
  std::printf("[ measured ] PAUSE(10000): paused %.4f us, flow late by %.4f us; PAUSE/RESUME "
              "%.4f us apart: paused %.4f us, flow late by %.4f us\n",
              late.paused_ps / 1e6, (late.fct - base.fct) / 1e6, gap / 1e6,
              resumed.paused_ps / 1e6, (resumed.fct - base.fct) / 1e6);
}

// (c) Refresh under a stall. NIC 0 stops draining at 20 us and resumes at 120 us; its receive
// buffer (fabric.nic.rx_buffer) is 128 KiB, XOFF = 131072 - 41841 = 89231 bytes = 22 frames of
// 4158 bytes (4096 payload + 62 frame overhead) arriving every 334.24 ns at line rate, so NIC 0
// sends PAUSE about 21 frame times (7.02 us, + up to one frame) after the stall starts, and
// RESUME at 120 us when it drains. Both cross the same cable, so leaf0's port is paused for
// 100 - 7.02 us (- up to 0.33 us). With pause quanta 100 (0.512 us) the pause would expire
// 60 times over without the half-period refresh (every 0.256 us): the count of PAUSE frames
// received shows the refresh, and no packet may be lost.
TEST(PfcTiming, StalledNicRefreshesPauseUntilItDrains) {
  scenario::Scenario sc = leaf_spine(8, 16, 64ll << 20, true);
  sc.nic.rx_buffer_bytes = 128 << 10;
  sc.switch_config.pfc.pause_quanta = 100;
  scenario::Simulation sim(sc);
  const uint32_t msg = sim.transport().post(1, 0, kFlowBytes, 0);
  sim.scheduler().at(20 * kPsPerUs, kNicStall, 0);
  sim.scheduler().at(120 * kPsPerUs, kNicResume, 0);
  ASSERT_TRUE(sim.run()) << "the flow finishes after the stall";
  net::Network& net = sim.network();
  net.finish_pause_accounting();
  EXPECT_EQ(net.counters().dropped_packets, 0) << "lossless through a 100 us stall";
  EXPECT_GE(fct_ps(sim, msg), 100 * kPsPerUs) << "the stall delays the flow";

  const uint32_t leaf_port =
      ports_towards(net, net.switch_node(leaf_of(net, 0)), net.nic_node(0))[0];
  const net::PortQueues& q = net.queues(leaf_port);
  const int64_t xoff = (128 << 10) - mlx5_headroom(3.0, 100.0, kMtu);
  EXPECT_EQ(net.queues(net.nic_port(0)).pfc_xoff_bytes, xoff) << "NIC XOFF = rx buffer - headroom";
  const int64_t frames_to_xoff = (xoff + 4157) / 4158;  // 22
  const double fill_ps = (frames_to_xoff - 1) * wire_ps(4096 + 82);
  const double expected_ps = 100 * kPsPerUs - fill_ps;
  EXPECT_LE(q.paused_ps, expected_ps + 1000) << "paused " << q.paused_ps / 1e6 << " us";
  EXPECT_GE(q.paused_ps, expected_ps - wire_ps(4096 + 82) - 1000)
      << "paused " << q.paused_ps / 1e6 << " us, expected about " << expected_ps / 1e6;
  const double period_ps = 100 * 512.0 / kRateBps * 1e12 / 2;  // 0.256 us
  // The first PAUSE, one refresh per elapsed half period, and the RESUME.
  const double expected_frames = 2 + std::floor(q.paused_ps / period_ps);
  EXPECT_NEAR(static_cast<double>(q.pause_frames_received), expected_frames, 1)
      << "one PAUSE per half pause time while stalled";
  std::printf("[ measured ] 100 us stall: leaf port paused %.3f us (expected %.3f - up to 0.334), "
              "%lld PAUSE frames received\n",
              q.paused_ps / 1e6, expected_ps / 1e6, static_cast<long long>(q.pause_frames_received));
}

// ---------------------------------------------------------------------------------------------
// 5. PFC storm. Radix 8 leaf-spine (4 leaves x 4 spines, NICs 0-3 on leaf0, 4-7 leaf1, ...),
// 1 MiB switch buffers, PFC on. NIC 0 stops draining at t = 0 and never resumes. Flows of 1 MB:
//   to NIC 0 (never finish): 1 -> 0, 4 -> 0, 8 -> 0, 12 -> 0
//   victims: 4 -> 9 (its NIC also feeds NIC 0), 13 -> 2 (into leaf0 via a spine),
//            5 -> 10, 6 -> 14 (leaf1's uplinks), 2 -> 3 (inside leaf0)
// Whatever heads for NIC 0 can only fill buffers: leaf0 -> NIC0 is paused for good, leaf0's
// ingress ports reach XOFF and pause the spines, and so on up to the senders' NICs, which then
// cannot send their other flows either. The watchdog (200 us here; 100-400 ms in practice)
// declares leaf0 -> NIC0 stormed, drops what heads for NIC 0, and the pauses behind it clear.
struct StormRun {
  std::vector<int64_t> victim_fct;
  std::vector<int64_t> stalled_fct;
  int64_t switch_pauses = 0;
  int64_t leaf0_pauses = 0, spine_pauses = 0, other_leaf_pauses = 0;
  int64_t paused_ps_1ms = 0;
  int64_t paused_ps_2ms = 0;
  int64_t storms = 0;
  int64_t watchdog_drops = 0;
  int64_t lossless_drops = 0;
  int64_t nic_ports_paused = 0;
};

int64_t total_paused_ps(net::Network& net) {
  net.finish_pause_accounting();
  int64_t t = 0;
  for (uint32_t p = 0; p < net.num_ports(); ++p) t += net.queues(p).paused_ps;
  return t;
}

StormRun storm(int64_t watchdog_ps) {
  scenario::Scenario sc = leaf_spine(8, 16, 1 << 20, true);
  sc.nic.rx_buffer_bytes = 128 << 10;
  sc.switch_config.pfc.watchdog_ps = watchdog_ps;
  scenario::Simulation sim(sc);
  std::vector<uint32_t> to_stalled, victims;
  for (uint32_t s : {1u, 4u, 8u, 12u}) to_stalled.push_back(sim.transport().post(s, 0, kFlowBytes, 0));
  for (auto [s, d] : {std::pair{4u, 9u}, {13u, 2u}, {5u, 10u}, {6u, 14u}, {2u, 3u}}) {
    victims.push_back(sim.transport().post(s, d, kFlowBytes, 0));
  }
  sim.scheduler().at(0, kNicStall, 0);
  StormRun out;
  net::Network& net = sim.network();
  EXPECT_FALSE(sim.run(1000 * kPsPerUs)) << "NIC 0 never drains: the run cannot finish";
  // finish_pause_accounting restarts open intervals, which also restarts the watchdog's clock:
  // only sample mid-run without a watchdog.
  if (watchdog_ps == 0) out.paused_ps_1ms = total_paused_ps(net);
  EXPECT_FALSE(sim.run(2000 * kPsPerUs)) << "still not finished at 2 ms";
  out.paused_ps_2ms = total_paused_ps(net);
  for (uint32_t m : victims) out.victim_fct.push_back(fct_ps(sim, m));
  for (uint32_t m : to_stalled) out.stalled_fct.push_back(fct_ps(sim, m));
  for (uint32_t p = 0; p < net.num_ports(); ++p) {
    if (net.port(p).is_nic) continue;
    const int64_t sent = net.queues(p).pause_frames_sent;
    out.switch_pauses += sent;
    const uint32_t sw = static_cast<uint32_t>(net.port(p).switch_index);
    if (net.switch_at(sw).tier == 2) {
      out.spine_pauses += sent;
    } else if (sw == leaf_of(net, 0)) {
      out.leaf0_pauses += sent;
    } else {
      out.other_leaf_pauses += sent;
    }
  }
  for (uint32_t nic = 0; nic < net.num_nics(); ++nic) {
    out.nic_ports_paused += net.queues(net.nic_port(nic)).pause_frames_received > 0;
  }
  out.storms = net.counters().watchdog_storms;
  out.watchdog_drops = net.counters().watchdog_drops;
  out.lossless_drops = net.counters().lossless_drops;
  return out;
}

TEST(PfcStorm, StalledReceiverSpreadsPausesUntilTheWatchdogBreaksThem) {
  const StormRun stuck = storm(0);
  for (size_t i = 0; i < stuck.stalled_fct.size(); ++i) {
    EXPECT_LT(stuck.stalled_fct[i], 0) << "flow " << i << " into the stalled NIC cannot finish";
  }
  EXPECT_GT(stuck.leaf0_pauses, 0) << "leaf0 pauses upstream of the stalled NIC";
  EXPECT_GT(stuck.spine_pauses, 0) << "spines pause: the stall spreads a tier up";
  EXPECT_GT(stuck.other_leaf_pauses, 0) << "the senders' leaves pause: it spreads back down";
  EXPECT_GT(stuck.nic_ports_paused, 1) << "pauses reach sender NICs";
  EXPECT_GT(stuck.paused_ps_2ms, stuck.paused_ps_1ms) << "paused time keeps growing";
  EXPECT_EQ(stuck.lossless_drops, 0) << "a storm stalls, it does not drop";
  EXPECT_LT(stuck.victim_fct[0], 0)
      << "4 -> 9 shares NIC 4 with a flow into the stall: its NIC is paused for good";
  int stuck_victims = 0;
  for (int64_t f : stuck.victim_fct) stuck_victims += f < 0;

  const StormRun broken = storm(200 * kPsPerUs);
  EXPECT_GT(broken.storms, 0) << "the watchdog declares a storm";
  EXPECT_GT(broken.watchdog_drops, 0) << "and drops what heads for the stalled NIC";
  EXPECT_EQ(broken.lossless_drops, 0) << "no headroom overflow";
  for (size_t i = 0; i < broken.stalled_fct.size(); ++i) {
    EXPECT_LT(broken.stalled_fct[i], 0) << "flow " << i << " into the stalled NIC still cannot finish";
  }
  for (size_t i = 0; i < broken.victim_fct.size(); ++i) {
    EXPECT_GE(broken.victim_fct[i], 0) << "victim " << i << " completes once the storm is broken";
  }
  std::printf("[ measured ] storm without watchdog: %d of 5 victims stuck, %lld switch PAUSEs, "
              "(leaf0 %lld, spines %lld, other leaves %lld), paused %.1f us (1 ms) -> %.1f us "
              "(2 ms), %lld NIC ports paused; with a 200 us "
              "watchdog: %lld storms, %lld watchdog drops, victim FCTs",
              stuck_victims, static_cast<long long>(stuck.switch_pauses),
              static_cast<long long>(stuck.leaf0_pauses), static_cast<long long>(stuck.spine_pauses),
              static_cast<long long>(stuck.other_leaf_pauses),
              stuck.paused_ps_1ms / 1e6, stuck.paused_ps_2ms / 1e6,
              static_cast<long long>(stuck.nic_ports_paused), static_cast<long long>(broken.storms),
              static_cast<long long>(broken.watchdog_drops));
  for (int64_t f : broken.victim_fct) std::printf(" %.1f", f / 1e6);
  std::printf(" us (without: ");
  for (int64_t f : stuck.victim_fct) std::printf(f < 0 ? " stuck" : " %.1f", f / 1e6);
  std::printf(" us)\n");
}

// ---------------------------------------------------------------------------------------------
// 6. Head-of-line blocking (congestion spreading). One spine, so that who shares which link is
// fixed by construction: radix 8 with oversubscription 7 gives 7 NICs and 1 uplink per leaf.
//
//                              spine
//        ┌───────┬───────┬───────┼───────┬───────┬───────┐
//      leaf0   leaf1   leaf2   leaf3   leaf4   leaf5   leaf6   leaf7
//      R=0     A=7     W=14    21-27   ...                     49-55
//      V'=1    V=8     15-20
//              W'=9
//
// Incast: 42 NICs send 1 MB each to R: A on leaf1, 15-20 on leaf2, every NIC of leaf3..leaf7.
// The victim V -> W shares only leaf1's uplink with A; the spine's link to leaf2 and leaf2's
// link to W carry nothing else of the data class. The control V' -> W' shares no congested link:
// leaf0's uplink also carries R's ACKs, 86 wire bytes per 4178-byte frame R receives at line
// rate (2.1% of the link), so V' gets ~98% of it: FCT <= 1.025 x ideal.
// Ideal FCT of V: its 1 MB serialized once (81.94 us) + 4 cables x 15 ns + 3 switches x 450 ns.
//   PFC off (a 1 GiB buffer: nothing dropped): A and V both send at line rate and split leaf1's
//   uplink, so V runs at half rate while A sends: FCT ~ 2 x ideal.
//   PFC on (fabric.pfc.port_buffer 128 KiB): leaf0 pauses the spine, whose queue towards leaf0
//   then backs up into its 7 ingress ports (leaf1..leaf7); each reaches XOFF and is paused, and
//   the spine's FIFO towards leaf0 ends up serving them about equally (per-port thresholds make
//   PFC fair between ports, not flows): A drains at ~1/7 of the link. V's packets sit in leaf1's
//   uplink queue between A's, so V advances only as fast as A, ~1/7 of line rate, until A is
//   done: FCT ~ 7 x ideal, although V never touches the congested link.
struct HolRun {
  int64_t victim = 0, control = 0;
  int64_t drops = 0, pauses = 0;
};

HolRun hol(bool pfc) {
  scenario::Scenario sc = leaf_spine(8, 56, 1ll << 30, pfc);
  sc.topology.oversubscription = 7;
  sc.switch_config.pfc.port_buffer_bytes = 128 << 10;
  sc.nic_spec.profile = "zero";  // the ideal FCT below is the wire's alone
  scenario::Simulation sim(sc);
  EXPECT_EQ(spines(sim.network()).size(), 1u) << "radix 8 at 7:1 has a single spine";
  sim.transport().post(7, 0, kFlowBytes, 0);
  for (uint32_t s = 15; s < 56; ++s) sim.transport().post(s, 0, kFlowBytes, 0);
  const uint32_t v = sim.transport().post(8, 14, kFlowBytes, 0);
  const uint32_t c = sim.transport().post(1, 9, kFlowBytes, 0);
  EXPECT_TRUE(sim.run()) << "everything finishes";
  HolRun out;
  out.victim = fct_ps(sim, v);
  out.control = fct_ps(sim, c);
  out.drops = sim.network().counters().dropped_packets;
  out.pauses = sim.network().counters().pause_frames;
  return out;
}

TEST(PfcHeadOfLine, VictimSharingOnlyAnUpstreamLinkSlowsDown) {
  const double ideal_ps =
      wire_ps(static_cast<double>(message_wire_bytes(kFlowBytes))) + 4 * 15'000 + 3 * 450'000;
  const HolRun lossy = hol(false);
  const HolRun lossless = hol(true);
  EXPECT_EQ(lossy.drops, 0) << "a 1 GiB buffer absorbs the incast without PFC";
  EXPECT_EQ(lossless.drops, 0) << "PFC is lossless";
  EXPECT_GT(lossless.pauses, 0) << "PFC acted";
  ASSERT_GT(lossy.victim, 0) << "victim finished (PFC off)";
  ASSERT_GT(lossless.victim, 0) << "victim finished (PFC on)";
  EXPECT_GE(lossy.control, ideal_ps * 0.999) << "nothing beats the ideal FCT";
  EXPECT_LE(lossy.control, ideal_ps * 1.025) << "V' shares only ACKs: ideal FCT without PFC";
  EXPECT_LE(lossless.control, ideal_ps * 1.025) << "V' shares only ACKs: ideal FCT with PFC";
  EXPECT_GE(lossy.victim, 1.9 * ideal_ps) << "without PFC V splits leaf1's uplink with A";
  EXPECT_LE(lossy.victim, 2.05 * ideal_ps) << "without PFC V splits leaf1's uplink with A";
  EXPECT_GE(lossless.victim, 5.0 * ideal_ps)
      << "with PFC V is held behind A's paused packets: expected ~7 x ideal";
  EXPECT_LE(lossless.victim, 9.0 * ideal_ps) << "expected ~7 x ideal (A's share of the spine)";
  std::printf("[ measured ] victim FCT: ideal %.1f us, PFC off %.1f us, PFC on %.1f us; "
              "control %.1f / %.1f us\n",
              ideal_ps / 1e6, lossy.victim / 1e6, lossless.victim / 1e6, lossy.control / 1e6,
              lossless.control / 1e6);
}

}  // namespace pfc_pause_test
}  // namespace fabricsim::pfc_test
