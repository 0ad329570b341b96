// MAC control frames (802.1Qbb PAUSE) and InfiniBand flow-control packets are consumed by the
// far end's MAC / link layer: they arrive after serialization + propagation, never after the far
// switch's forwarding latency, and they do not disturb the data frames' delay line.
//
//     NIC0 ──3 m, 100 Gb/s──► switch (450 ns, cut-through) ──3 m──► NIC1
//
// Hand figures (no simulator output): 3 m x 5 ns/m = 15 ns propagation.
//   PAUSE: 64-byte frame + 8 preamble/SFD + 12 IFG = 84 wire bytes = 6.72 ns at 100 Gb/s.
//   data:  1000-byte frame + 20 = 1020 wire bytes = 81.6 ns at 100 Gb/s.
//   IB flow-control packet: 6 bytes (IBA 7.9.4: three 16-bit words), no Ethernet framing.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "core/scheduler.h"
#include "net/network.h"
#include "engine/packet/simulation.h"

namespace fabricsim::net {
namespace control_frame_test {

constexpr int64_t kRate = 100'000'000'000;
constexpr int64_t kPropPs = 15'000;          // 3 m
constexpr int64_t kSwitchLatencyPs = 450'000;
constexpr int64_t kPauseWirePs = 6'720;      // 84 bytes x 8 / 100 Gb/s
constexpr int64_t kDataWirePs = 81'600;      // 1020 bytes x 8 / 100 Gb/s

struct Delivered {
  std::vector<int64_t> at_ps;
  Scheduler* sched = nullptr;
  static void deliver(void* ctx, uint32_t, const Packet&) {
    auto* self = static_cast<Delivered*>(ctx);
    self->at_ps.push_back(self->sched->now_ps);
  }
};

void dispatch(Network& net, Scheduler& sched, const Event& ev) {
  sched.now_ps = ev.time_ps;
  switch (ev.kind()) {
    case kPortTxDone: net.on_tx_done(ev.target); break;
    case kLinkArrive: net.on_link_arrive(ev.target); break;
    case kCtrlArrive: net.on_ctrl_arrive(ev.target); break;
    case kPauseExpire: net.on_pause_expire(ev.target); break;
    case kPfcRefresh: net.on_pfc_refresh(ev.target); break;
    default: FAIL() << "unexpected event kind " << ev.kind();
  }
}

TEST(ControlFrames, PauseArrivesAfterSerializationAndPropagationOnly) {
  Scheduler sched;
  Network net(sched);
  SwitchConfig sw_cfg;
  sw_cfg.latency_ps = kSwitchLatencyPs;
  sw_cfg.pfc.enabled = true;
  LinkConfig link;
  link.rate_bps = kRate;
  link.cable_m = 3.0;
  const uint32_t nic0 = net.add_nic(NicConfig{});
  const uint32_t nic1 = net.add_nic(NicConfig{});
  const uint32_t sw = net.add_switch(sw_cfg, 1);
  net.connect(net.nic_node(nic0), net.switch_node(sw), link);
  net.connect(net.nic_node(nic1), net.switch_node(sw), link);
  net.finalize();
  Delivered rx;
  rx.sched = &sched;
  net.set_endpoint(Endpoint{&rx, &Delivered::deliver, nullptr, nullptr});

  // At t = 0 NIC 0 starts a data frame to NIC 1, and its MAC queues a PAUSE right behind it
  // (control frames wait for the frame on the wire, never preempt it).
  Packet data;
  data.src_nic = nic0;
  data.dst_nic = nic1;
  data.frame_bytes = 1000;
  data.priority = 3;
  net.nic_send(nic0, data);
  Packet pause;
  pause.type = PacketType::kPause;
  pause.qp = 1u << 3;
  pause.psn = 1000;  // quanta
  pause.frame_bytes = 64;
  net.nic_send(nic0, pause);

  const uint32_t sw_port_to_nic0 = net.port(net.nic_port(nic0)).peer;
  int64_t pause_seen_ps = -1;
  while (!sched.queue.empty()) {
    const Event ev = sched.queue.pop();
    dispatch(net, sched, ev);
    if (pause_seen_ps < 0 && net.queues(sw_port_to_nic0).pause_frames_received == 1) {
      pause_seen_ps = sched.now_ps;
    }
  }
  // The PAUSE leaves when the data frame is out (81.6 ns), takes 6.72 ns and crosses 15 ns.
  const int64_t expected_pause_ps = kDataWirePs + kPauseWirePs + kPropPs;  // 103.32 ns
  EXPECT_EQ(pause_seen_ps, expected_pause_ps)
      << "PAUSE consumed at the switch's MAC after serialization + propagation, without the "
         "450 ns forwarding latency (" << expected_pause_ps + kSwitchLatencyPs << " ps before)";
  EXPECT_EQ(net.queues(sw_port_to_nic0).paused_since_ps[3], expected_pause_ps)
      << "the switch port towards NIC 0 is paused from the PAUSE's arrival";
  // The data frame it overtook inside the switch is unaffected: cut-through from its header at
  // 15 ns + 450 ns, then serialized and carried to NIC 1.
  ASSERT_EQ(rx.at_ps.size(), 1u) << "the data frame reaches NIC 1";
  EXPECT_EQ(rx.at_ps[0], kPropPs + kSwitchLatencyPs + kDataWirePs + kPropPs)
      << "data: propagation + switch latency (cut-through) + serialization + propagation";
  EXPECT_LT(pause_seen_ps, kPropPs + kSwitchLatencyPs)
      << "the PAUSE, sent after the data frame, acts before the data leaves the pipeline";
}

// IB: NIC 1 sends to NIC 0 across one leaf; NIC 0's link layer returns a flow-control packet for
// each packet it consumes. Its arrival at the leaf's port (the FCCL there rises) must come
// 6 x 8 / 100 Gb/s = 0.48 ns + 15 ns after it starts, not 130 ns (the IB switch latency) later.
scenario::Scenario ib_pair() {
  scenario::Scenario sc;
  sc.seed = 7;
  sc.technology = scenario::Technology::kInfiniband;
  sc.topology.tiers = 2;
  sc.topology.radix = 8;
  sc.topology.hosts = 16;
  sc.link.rate_bps = kRate;
  sc.link.cable_m = 3;
  return sc;
}

struct CreditTap {
  uint32_t port = 0;
  int64_t first_ps = -1;
  static void on_transmit(void* ctx, int64_t t, uint32_t port, const Packet& p) {
    auto* self = static_cast<CreditTap*>(ctx);
    if (p.type == PacketType::kCredit && port == self->port && self->first_ps < 0) {
      self->first_ps = t;
    }
  }
};

TEST(ControlFrames, IbCreditPacketArrivesAfterSerializationAndPropagationOnly) {
  constexpr int64_t kCreditWirePs = 480;  // 6 bytes at 100 Gb/s
  int64_t sent_ps = -1;
  {
    scenario::Simulation sim(ib_pair());
    CreditTap tap;
    tap.port = sim.network().nic_port(0);
    sim.network().set_tap(Tap{&tap, &CreditTap::on_transmit});
    sim.transport().post(1, 0, 100'000, 0);
    ASSERT_TRUE(sim.run()) << "the flow finishes";
    sent_ps = tap.first_ps;
  }
  ASSERT_GT(sent_ps, 0) << "NIC 0 returned credits";
  const int64_t arrive_ps = sent_ps + kCreditWirePs + kPropPs;
  // The same (deterministic) run again, stopped just before and at the computed arrival.
  scenario::Simulation sim(ib_pair());
  sim.transport().post(1, 0, 100'000, 0);
  const uint32_t leaf_port = sim.network().port(sim.network().nic_port(0)).peer;
  const int vl = 0;
  ASSERT_FALSE(sim.run(arrive_ps - 1)) << "still running";
  const uint32_t before = sim.network().queues(leaf_port).fc_limit_blocks[vl];
  ASSERT_FALSE(sim.run(arrive_ps)) << "still running";
  const uint32_t after = sim.network().queues(leaf_port).fc_limit_blocks[vl];
  EXPECT_GT(after, before) << "the credit packet sent at " << sent_ps << " ps raises the leaf's "
                           << "FCCL at " << arrive_ps << " ps = send + 0.48 ns + 15 ns";
}

}  // namespace control_frame_test
}  // namespace fabricsim::net
