// Switch packet trimming and the per-port queue cap (net/trim.cpp, net/config.h TrimConfig,
// SwitchConfig::port_queue_bytes; docs/reference/uet-sim.md §4).
//
//     NIC0 ──┐
//            ├── switch ──► NIC2        all links 100 Gb/s, 1 m, switch latency 0
//     NIC1 ──┘
//
// NIC0 and NIC1 each send 200 data frames of 1000 B back to back from t = 0, a 2:1 overload of
// the port to NIC2, whose data class is capped at 20 frames (port_queue = 20 000 B).
//
// Hand figures: a data frame is 1000 + 20 (preamble/SFD + IFG) = 1020 wire bytes = 81.6 ns; a
// trimmed header 64 + 20 = 84 wire bytes. Both sources deliver 2 frames per 81.6 ns to the switch
// for T = 200 x 81.6 ns; the egress sends one frame per 81.6 ns less the time it gives the
// (strict-priority) headers. With n trims, the frames that get through whole are the ones served
// during T plus the 20 left in the queue:
//     400 - n  ~=  200 - n x 84/1020 + 20   =>   n ~= 180 / (1 - 84/1020) = 196.2
// Without trimming, the n packets that do not fit are dropped and no header time is lost:
//     400 - n  ~=  200 + 20                 =>   n ~= 180.
// Edge effects (the first frame's store time, the frame in service) are worth about one frame,
// hence the +-3 bands.
#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <vector>

#include "core/scheduler.h"
#include "net/network.h"
#include "engine/packet/simulation.h"

namespace fabricsim::net {
namespace trim_test {

constexpr int64_t kRate = 100'000'000'000;
constexpr int kFrames = 200;
constexpr uint16_t kFrameBytes = 1000;
constexpr uint16_t kPayloadBytes = 900;
constexpr int64_t kQueueCap = 20 * kFrameBytes;

struct Rx {
  struct Got {
    int64_t at_ps;
    Packet pkt;
  };
  std::vector<Got> got;
  Scheduler* sched = nullptr;
  static void deliver(void* ctx, uint32_t, const Packet& p) {
    auto* self = static_cast<Rx*>(ctx);
    self->got.push_back({self->sched->now_ps, p});
  }
};

struct Outcome {
  NetCounters counters;
  std::vector<Rx::Got> got;
  int64_t max_data_queue_bytes = 0;
  int64_t port_trims = 0;
};

Outcome overload(bool trimming, TrimVictim victim = TrimVictim::kArrival) {
  Scheduler sched;
  Network net(sched, 5);
  SwitchConfig sw_cfg;
  sw_cfg.latency_ps = 0;
  sw_cfg.buffer_bytes = 64 << 20;  // the shared buffer never binds: the port cap does
  sw_cfg.port_queue_bytes = kQueueCap;
  sw_cfg.trim.enabled = trimming;
  sw_cfg.trim.mask = 1u << 3;
  sw_cfg.trim.priority = 7;
  sw_cfg.trim.header_bytes = 64;
  sw_cfg.trim.victim = victim;
  LinkConfig link;
  link.rate_bps = kRate;
  link.cable_m = 1.0;
  const uint32_t nic0 = net.add_nic(NicConfig{});
  const uint32_t nic1 = net.add_nic(NicConfig{});
  const uint32_t nic2 = net.add_nic(NicConfig{});
  const uint32_t sw = net.add_switch(sw_cfg, 1);
  net.connect(net.nic_node(nic0), net.switch_node(sw), link);
  net.connect(net.nic_node(nic1), net.switch_node(sw), link);
  net.connect(net.nic_node(nic2), net.switch_node(sw), link);
  net.finalize();
  Rx rx;
  rx.sched = &sched;
  net.set_endpoint(Endpoint{&rx, &Rx::deliver, nullptr, nullptr});
  for (uint32_t src : {nic0, nic1}) {
    for (int i = 0; i < kFrames; ++i) {
      Packet p;
      p.src_nic = src;
      p.dst_nic = nic2;
      p.psn = static_cast<uint32_t>(i);
      p.frame_bytes = kFrameBytes;
      p.payload_bytes = kPayloadBytes;
      p.priority = 3;
      p.ecn = 2;
      net.nic_send(src, p);
    }
  }
  const uint32_t egress = net.port(net.nic_port(nic2)).peer;
  Outcome r;
  while (!sched.queue.empty()) {
    const Event ev = sched.queue.pop();
    sched.now_ps = ev.time_ps;
    switch (ev.kind()) {
      case kPortTxDone:
        net.on_tx_done(ev.target);
        break;
      case kLinkArrive:
        net.on_link_arrive(ev.target);
        break;
      default:
        ADD_FAILURE() << "unexpected event kind " << ev.kind();
        return r;
    }
    r.max_data_queue_bytes =
        std::max<int64_t>(r.max_data_queue_bytes, net.queues(egress).cls[3].bytes);
  }
  r.counters = net.counters();
  r.got = rx.got;
  r.port_trims = net.queues(egress).trims;
  EXPECT_EQ(net.packets_in_flight(), 0) << "every packet delivered or dropped";
  return r;
}

// The head of source frame `psn` reaches the switch: sent back to back from t = 0, 5 ns of cable.
int64_t header_arrival_ps(const Packet& p) { return 81'600 * int64_t{p.psn} + 5'000; }
// Arrival mode: a header waits for at most one data frame on the wire and one other header,
// then takes its own 6.72 ns and 5 ns of cable.
constexpr int64_t kHeaderBoundPs = 81'600 + 2 * 6'720 + 5'000;

TEST(Trim, TwoToOneOverloadTrimsInsteadOfDropping) {
  const Outcome r = overload(true);
  const double expected_trims = 180.0 / (1.0 - 84.0 / 1020.0);
  EXPECT_EQ(r.counters.dropped_packets, 0) << "headers fit their class: nothing is dropped";
  EXPECT_NEAR(static_cast<double>(r.counters.trimmed_packets), expected_trims, 3.0);
  EXPECT_EQ(r.port_trims, r.counters.trimmed_packets) << "all trims at the congested port";
  // Every packet arrives exactly once, whole or as its header; payload is conserved.
  ASSERT_EQ(r.got.size(), 2u * kFrames);
  int64_t full = 0, trimmed = 0, payload = 0;
  for (const Rx::Got& g : r.got) {
    if (g.pkt.flags & kFlagTrimmed) {
      ++trimmed;
      EXPECT_EQ(g.pkt.frame_bytes, 64);
      EXPECT_EQ(g.pkt.payload_bytes, 0);
      EXPECT_EQ(g.pkt.priority, 7) << "headers travel in the trim class";
      EXPECT_TRUE(g.pkt.flags & kFlagTrimmedLastHop) << "cut at the port facing NIC2";
    } else {
      ++full;
      EXPECT_EQ(g.pkt.frame_bytes, kFrameBytes);
    }
    payload += g.pkt.payload_bytes;
  }
  EXPECT_EQ(trimmed, r.counters.trimmed_packets);
  EXPECT_EQ(payload + r.counters.trimmed_payload_bytes, 2 * kFrames * kPayloadBytes)
      << "delivered payload + trimmed payload = sent payload";
  EXPECT_EQ(r.counters.trimmed_payload_bytes, trimmed * kPayloadBytes);
  EXPECT_EQ(r.max_data_queue_bytes, kQueueCap) << "the data class fills to its cap, no more";
}

TEST(Trim, HeadersOvertakeQueuedData) {
  const Outcome r = overload(true);
  // The first header: every full frame queued ahead of it (arrived at an earlier step, lower
  // PSN) and still delivered after it was overtaken. With the queue at its cap of 20 frames,
  // at least 18 must be (one may be on the wire, one in the same arrival step).
  size_t first = 0;
  while (first < r.got.size() && !(r.got[first].pkt.flags & kFlagTrimmed)) ++first;
  ASSERT_LT(first, r.got.size());
  const Rx::Got& h = r.got[first];
  int overtaken = 0;
  for (size_t i = first + 1; i < r.got.size(); ++i) {
    const Packet& p = r.got[i].pkt;
    if (!(p.flags & kFlagTrimmed) && p.psn < h.pkt.psn) ++overtaken;
  }
  EXPECT_GE(overtaken, 18) << "strict priority: the header jumps the queued data";
  // And every header waits for at most the frame on the wire and the other source's header:
  // from the head of the frame it was cut from reaching the (cut-through) switch, at
  // 81.6 ns x psn + 5 ns, to its delivery: at most one data frame and two headers of
  // serialization (81.6 + 2 x 6.72 ns) and 5 ns of cable.
  for (const Rx::Got& g : r.got) {
    if (!(g.pkt.flags & kFlagTrimmed)) continue;
    EXPECT_LE(g.at_ps - header_arrival_ps(g.pkt), kHeaderBoundPs) << "psn " << g.pkt.psn;
  }
}

TEST(Trim, PortQueueCapsAQueueAndDropsWithoutTrimming) {
  const Outcome r = overload(false);
  EXPECT_EQ(r.counters.trimmed_packets, 0);
  EXPECT_EQ(r.max_data_queue_bytes, kQueueCap);
  EXPECT_NEAR(static_cast<double>(r.counters.dropped_packets), 180.0, 3.0);
  EXPECT_EQ(static_cast<int64_t>(r.got.size()) + r.counters.dropped_packets, 2 * kFrames);
}

TEST(Trim, HtsimVictimConservesAndIsDeterministic) {
  const Outcome a = overload(true, TrimVictim::kArrivalOrNewest);
  const Outcome b = overload(true, TrimVictim::kArrivalOrNewest);
  EXPECT_EQ(a.counters.dropped_packets, 0);
  EXPECT_NEAR(static_cast<double>(a.counters.trimmed_packets), 180.0 / (1.0 - 84.0 / 1020.0), 3.0)
      << "the same bytes must be shed whichever packet is cut";
  int64_t payload = 0;
  for (const Rx::Got& g : a.got) payload += g.pkt.payload_bytes;
  EXPECT_EQ(payload + a.counters.trimmed_payload_bytes, 2 * kFrames * kPayloadBytes);
  ASSERT_EQ(a.got.size(), b.got.size());
  for (size_t i = 0; i < a.got.size(); ++i) {
    ASSERT_EQ(a.got[i].at_ps, b.got[i].at_ps);
    ASSERT_EQ(a.got[i].pkt.flags, b.got[i].pkt.flags);
  }
  // Half the victims were already queued when cut, so some headers reach NIC2 later than any
  // arrival-cut header can (kHeaderBoundPs): they waited in the data queue first.
  bool queued_victim = false;
  for (const Rx::Got& g : a.got) {
    if ((g.pkt.flags & kFlagTrimmed) && g.at_ps - header_arrival_ps(g.pkt) > kHeaderBoundPs) {
      queued_victim = true;
    }
  }
  EXPECT_TRUE(queued_victim);
}

// The last-hop mark, on a 3-tier fat-tree (k = 4, 16 hosts, UET, 1 x BDP queues at every
// port). A trimmed header is first transmitted by the port that trimmed it, so a tap on every
// transmission can check, at that first sighting, that the mark is set exactly when that port
// faces a NIC. A 15 -> 1 incast trims at the receiver's edge port (and, in its first windows,
// on the aggregation downlinks into that edge); single-path flows that collide on uplinks trim
// before the last hop.
struct LastHopTap {
  const Network* net = nullptr;
  std::set<uint64_t> travelling;  // trimmed headers seen, not yet at their last port
  int64_t at_last_hop = 0, before_last_hop = 0, wrong = 0;
  static void on_transmit(void* ctx, int64_t, uint32_t port, const Packet& p) {
    auto* self = static_cast<LastHopTap*>(ctx);
    if (p.type != PacketType::kData || !(p.flags & kFlagTrimmed)) return;
    const uint64_t key = (uint64_t{p.qp} << 32) | p.psn;
    const bool facing_nic = self->net->port(port).far_is_nic;
    if (self->travelling.count(key) == 0) {  // the trimming port
      const bool marked = (p.flags & kFlagTrimmedLastHop) != 0;
      if (marked != facing_nic) ++self->wrong;
      ++(facing_nic ? self->at_last_hop : self->before_last_hop);
      if (!facing_nic) self->travelling.insert(key);
    } else if (facing_nic) {
      self->travelling.erase(key);
    }
  }
};

LastHopTap trims_by_hop(const std::vector<std::pair<uint32_t, uint32_t>>& flows,
                        transport::UetLoadBalancing lb, uint64_t seed) {
  scenario::Scenario sc;
  sc.seed = seed;
  sc.technology = scenario::Technology::kUet;
  sc.topology.tiers = 3;
  sc.topology.radix = 4;
  sc.topology.hosts = 16;
  sc.link.rate_bps = kRate;
  sc.uet.load_balancing = lb;
  sc.uet.paths = lb == transport::UetLoadBalancing::kSinglePath ? 1 : 64;
  scenario::Simulation sim(sc);
  LastHopTap tap;
  tap.net = &sim.network();
  sim.network().set_tap(Tap{&tap, &LastHopTap::on_transmit});
  for (const auto& [src, dst] : flows) sim.transport().post(src, dst, 2'000'000, 0);
  EXPECT_TRUE(sim.run());
  return tap;
}

TEST(Trim, LastHopMarkExactlyWhereTheSwitchFacesTheReceiver) {
  std::vector<std::pair<uint32_t, uint32_t>> incast;
  for (uint32_t i = 0; i < 15; ++i) incast.emplace_back(i, 15);
  const LastHopTap a = trims_by_hop(incast, transport::UetLoadBalancing::kReps, 1);
  EXPECT_EQ(a.wrong, 0);
  EXPECT_GT(a.at_last_hop, 0) << "the receiver's edge port trims";
  // Every host sends to the host 4 further on (another pod), 16 flows on single hashed paths.
  std::vector<std::pair<uint32_t, uint32_t>> shift;
  for (uint32_t i = 0; i < 16; ++i) shift.emplace_back(i, (i + 4) % 16);
  int64_t before = 0;
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    const LastHopTap b = trims_by_hop(shift, transport::UetLoadBalancing::kSinglePath, seed);
    EXPECT_EQ(b.wrong, 0) << "seed " << seed;
    before += b.before_last_hop;
  }
  EXPECT_GT(before, 0) << "hash collisions on uplinks trim before the last hop";
}

}  // namespace trim_test
}  // namespace fabricsim::net
