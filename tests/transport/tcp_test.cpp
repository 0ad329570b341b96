// TCP and iWARP (transport/tcp.h) end to end, each figure derived here from the protocol's
// header sizes and the parameters, never from an earlier run.
//
//   Hosts 0..7 on leaf 0 of a leaf-spine (radix 16, 100 Gb/s, 3 m cables, cut-through 450 ns):
//   sender NIC s -> leaf -> NIC 0, one switch hop; the leaf's port towards NIC 0 is the
//   bottleneck when several senders share it.
//
// Wire sizes (IEEE 802.3, RFC 791, RFC 9293, RFC 7323): MSS = 1500 - 20 - 32 = 1448 B; a full
// segment's frame = 14 + 20 + 32 + 1448 + 4 = 1518 B, + 8 preamble/SFD + 12 IFG = 1538 B on the
// wire, so the payload rate of a 100 Gb/s link is 100 x 1448 / 1538 = 94.15 Gb/s.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "core/time.h"
#include "engine/packet/simulation.h"
#include "transport/tcp.h"

namespace fabricsim {
namespace tcp_test {

constexpr double kRateBps = 100e9;
constexpr double kPayloadBytesPerSecond = kRateBps / 8 * 1448.0 / 1538.0;

// Host stack costs zeroed: these tests are about the protocol (a host that keeps up, as one
// with the flow's work spread over cores); the host-bound rate has its own test below.
scenario::Scenario leaf(transport::TcpCc cc) {
  scenario::Scenario sc;
  sc.technology = scenario::Technology::kTcp;
  sc.topology.tiers = 2;
  sc.topology.radix = 16;
  sc.topology.hosts = 16;
  sc.link.rate_bps = static_cast<int64_t>(kRateBps);
  sc.tcp.cc = cc;
  sc.tcp.host_tx_message_ps = sc.tcp.host_rx_message_ps = 0;
  sc.tcp.host_tx_segment_ps = sc.tcp.host_rx_segment_ps = 0;
  sc.tcp.host_copy_rate_bps = 0;
  return sc;
}

const transport::TcpTransport& tcp(const scenario::Simulation& sim) {
  return static_cast<const transport::TcpTransport&>(sim.transport());
}

TEST(TcpFrames, HeaderSizesFromTheRfcs) {
  transport::TcpConfig k;
  EXPECT_EQ(transport::tcp_mss_bytes(k), 1448u);
  EXPECT_EQ(transport::tcp_data_frame_bytes(k, 1448), 1518u) << "the classic maximum frame";
  EXPECT_EQ(transport::tcp_data_frame_bytes(k, 8), 78u);
  EXPECT_EQ(transport::tcp_ack_frame_bytes(0), 70u);
  EXPECT_EQ(transport::tcp_ack_frame_bytes(3), 70u + 2 + 2 + 24) << "RFC 2018: 3 blocks";
  transport::TcpConfig i;
  i.stack = transport::TcpStack::kIwarp;
  // MPA length 2 + DDP tagged 14 + payload + CRC 4 = one 1448-B FPDU: 1428 B of payload.
  EXPECT_EQ(transport::tcp_payload_per_segment(i), 1428u);
  EXPECT_EQ(transport::tcp_data_frame_bytes(i, 1428), 1518u);
  // 8 B: FPDU 2 + 14 + 8 = 24 (already a multiple of 4) + 4 = 28; frame 70 + 28 = 98.
  EXPECT_EQ(transport::tcp_data_frame_bytes(i, 8), 98u);
  i.iwarp_mpa_markers = true;  // one 4-B marker per 512 B of stream
  EXPECT_LT(transport::tcp_payload_per_segment(i), 1428u - 8);
}

// Goodput (bytes placed at the receiver) of each flow over [from, to].
std::vector<double> goodput(scenario::Simulation& sim, const std::vector<uint32_t>& ids,
                            int64_t from_ps, int64_t to_ps) {
  sim.run(from_ps);
  std::vector<int64_t> b0;
  for (uint32_t id : ids) b0.push_back(sim.transport().message(id).placed_bytes);
  sim.run(to_ps);
  std::vector<double> g;
  for (size_t i = 0; i < ids.size(); ++i) {
    g.push_back((sim.transport().message(ids[i]).placed_bytes - b0[i]) /
                ((to_ps - from_ps) * 1e-12));
  }
  return g;
}

void single_flow_fills_the_link(transport::TcpCc cc) {
  scenario::Simulation sim(leaf(cc));
  const uint32_t id = sim.transport().post(1, 0, 40'000'000, 0);
  // Slow start from 10 segments reaches the BDP (a few us x 100 Gb/s) within tens of us.
  const std::vector<double> g = goodput(sim, {id}, 300 * kPsPerUs, 3000 * kPsPerUs);
  EXPECT_GE(g[0], 0.95 * kPayloadBytesPerSecond) << g[0] * 8e-9 << " Gb/s";
  EXPECT_LE(g[0], 1.0005 * kPayloadBytesPerSecond) << "no faster than the wire";
  ASSERT_TRUE(sim.run());
  EXPECT_EQ(sim.transport().message(id).placed_bytes, 40'000'000);
  EXPECT_EQ(sim.transport().counters().timeouts, 0);
}

TEST(Tcp, NewRenoSingleFlowFillsTheLink) { single_flow_fills_the_link(transport::TcpCc::kNewReno); }
TEST(Tcp, DctcpSingleFlowFillsTheLink) { single_flow_fills_the_link(transport::TcpCc::kDctcp); }
TEST(Tcp, CubicSingleFlowFillsTheLink) { single_flow_fills_the_link(transport::TcpCc::kCubic); }

// Two flows from NICs 1 and 2 into NIC 0 (the leaf's port to NIC 0 is shared), 500 MB each,
// measured over 10-40 ms. The port queue is capped at 100 KB (tail drop; DCTCP marks at the
// derived K far below it). The RTO floor is 1 ms, as datacenter configurations lower it: the
// slow-start overshoot of two flows can take a whole window of one of them, which only the
// RTO recovers (200 ms at Linux's default would leave that flow idle for the whole window).
// NewReno's AIMD converges over congestion epochs (~1 ms here), hence the 30-ms window.
struct TwoFlows {
  std::vector<double> goodput;  // bytes/s over 10-40 ms
  double mean_queue_bytes = 0;
  int64_t peak_queue_bytes = 0;
  int64_t drops = 0;
  int64_t k_bytes = 0;
  int64_t port_cap_bytes = 0;
};

constexpr int64_t kPortQueueBytes = 100'000;

TwoFlows two_flows(transport::TcpCc cc) {
  scenario::Scenario sc = leaf(cc);
  sc.switch_config.port_queue_bytes = kPortQueueBytes;
  sc.tcp.rto_min_ps = 1 * kPsPerMs;
  scenario::Simulation sim(sc);
  const std::vector<uint32_t> ids = {sim.transport().post(1, 0, 500'000'000, 1),
                                     sim.transport().post(2, 0, 500'000'000, 2)};
  const net::Network& net = sim.network();
  const uint32_t port = net.port(net.nic_port(0)).peer;  // the leaf's port towards NIC 0
  TwoFlows r;
  r.k_bytes = sim.scenario().switch_config.ecn.kmin_bytes;
  r.port_cap_bytes = kPortQueueBytes;
  sim.run(10'000 * kPsPerUs);
  std::vector<int64_t> b0;
  for (uint32_t id : ids) b0.push_back(sim.transport().message(id).placed_bytes);
  double sum = 0;
  int samples = 0;
  for (int64_t t = 10'001; t <= 40'000; ++t) {  // sample the queue every microsecond
    sim.run(t * kPsPerUs);
    const int64_t q = net.queues(port).cls[0].bytes;
    sum += static_cast<double>(q);
    r.peak_queue_bytes = std::max(r.peak_queue_bytes, q);
    ++samples;
  }
  for (size_t i = 0; i < ids.size(); ++i) {
    r.goodput.push_back((sim.transport().message(ids[i]).placed_bytes - b0[i]) / 30e-3);
  }
  r.mean_queue_bytes = sum / samples;
  r.drops = net.counters().dropped_packets;
  EXPECT_LT(sim.transport().message(ids[0]).placed_bytes, 500'000'000) << "window ends first";
  return r;
}

void shares_fairly(const TwoFlows& r) {
  const double sum = r.goodput[0] + r.goodput[1];
  for (double g : r.goodput) {
    std::printf("  flow: %.2f Gb/s (fair %.2f)\n", g * 8e-9, sum / 2 * 8e-9);
    EXPECT_NEAR(g, sum / 2, 0.10 * sum / 2) << "within 10% of the fair share";
  }
  EXPECT_GT(sum, 0.95 * kPayloadBytesPerSecond) << "the bottleneck stays busy";
  EXPECT_LE(sum, 1.0005 * kPayloadBytesPerSecond);
}

TEST(Tcp, NewRenoTwoFlowsShareFairly) { shares_fairly(two_flows(transport::TcpCc::kNewReno)); }
TEST(Tcp, DctcpTwoFlowsShareFairly) { shares_fairly(two_flows(transport::TcpCc::kDctcp)); }
// CUBIC at microsecond RTTs: K = cbrt(W_max x 0.3 / 0.4) is seconds for any W_max here, so the
// cubic curve never rises within the run and the Reno-friendly region (alpha 0.53, beta 0.7)
// governs: AIMD, which converges to the fair share as NewReno's does.
TEST(Tcp, CubicTwoFlowsShareFairly) { shares_fairly(two_flows(transport::TcpCc::kCubic)); }

TEST(Tcp, DctcpHoldsTheQueueNearKWhileNewRenoFillsTheBuffer) {
  const TwoFlows d = two_flows(transport::TcpCc::kDctcp);
  const TwoFlows n = two_flows(transport::TcpCc::kNewReno);
  const double frame = 1518;
  std::printf("  DCTCP K %lld B: mean queue %.0f B, peak %lld B, drops %lld\n",
              static_cast<long long>(d.k_bytes), d.mean_queue_bytes,
              static_cast<long long>(d.peak_queue_bytes), static_cast<long long>(d.drops));
  std::printf("  NewReno cap %lld B: mean queue %.0f B, peak %lld B, drops %lld\n",
              static_cast<long long>(n.port_cap_bytes), n.mean_queue_bytes,
              static_cast<long long>(n.peak_queue_bytes), static_cast<long long>(n.drops));
  // DCTCP (Alizadeh et al. 2010 §3.3): the queue oscillates around K with an amplitude of
  // about N segments (N = 2 flows each overshooting by its one-segment increase per RTT, plus
  // what is in flight when the marks reach the senders). Band: mean within K +- 3 frames, peak
  // within K + a window-increase round of both flows and the marking delay (8 frames).
  EXPECT_GT(d.mean_queue_bytes, d.k_bytes - 3 * frame);
  EXPECT_LT(d.mean_queue_bytes, d.k_bytes + 3 * frame);
  EXPECT_LT(d.peak_queue_bytes, d.k_bytes + 8 * frame);
  EXPECT_EQ(d.drops, 0) << "DCTCP keeps far below the port cap";
  // NewReno probes until the tail drops: the peak reaches the cap (within one frame), and it
  // drops.
  EXPECT_GE(n.peak_queue_bytes, n.port_cap_bytes - frame);
  EXPECT_GT(n.drops, 0);
  EXPECT_GT(n.mean_queue_bytes, 5 * d.mean_queue_bytes) << "NewReno sits in the buffer";
}

// 1% of frames lost on every link crossing (data and ACKs): every message must arrive whole,
// each byte placed once and each message delivered once.
TEST(Tcp, EveryByteExactlyOnceUnderOnePercentLoss) {
  for (transport::TcpCc cc :
       {transport::TcpCc::kNewReno, transport::TcpCc::kDctcp, transport::TcpCc::kCubic}) {
    scenario::Scenario sc = leaf(cc);
    sc.link.loss_rate = 0.01;
    sc.tcp.rto_min_ps = 5 * kPsPerMs;  // keep RTO waits short; the recovery logic is the same
    scenario::Simulation sim(sc);
    std::vector<uint32_t> ids;
    std::vector<int> delivered_count;
    for (int i = 0; i < 30; ++i) {
      // Sizes that do not divide the MSS, so segments span message boundaries.
      ids.push_back(sim.transport().post(1 + i % 3, 0, 100'003 + 7919 * i, i));
    }
    ASSERT_TRUE(sim.run());
    const transport::TransportCounters& c = sim.transport().counters();
    EXPECT_GT(c.retransmitted_packets, 0);
    EXPECT_GT(sim.network().counters().link_losses, 0);
    for (uint32_t id : ids) {
      const auto& m = tcp(sim).message(id);
      EXPECT_TRUE(m.delivered) << id;
      EXPECT_EQ(m.placed_bytes, m.size_bytes) << "message " << id << " placed exactly once";
      EXPECT_GE(m.rx_done_ps, m.post_ps);
      EXPECT_GE(m.tx_done_ps, m.rx_done_ps - 1) << "acknowledged after it arrived";
    }
    EXPECT_EQ(sim.transport().unacked_messages(), 0u);
  }
}

// Conservation per message: every copy a sender puts on the wire reaches the receiver's NIC or
// is dropped, so a message's sent bytes are its delivered plus dropped bytes, and the messages'
// delivered and dropped bytes add up to the transport's and the fabric's counters. A 15:1
// incast into 256 KiB with an RTO floor of 20 us, far below the queueing delay, makes the
// senders resend segments still queued: some copies then arrive, or are dropped, after their
// segment was acknowledged (the receiver places a copy by its own header, not by the sender's
// ring, whose slot is free by then). Before, such copies were counted by the counters only:
// here 20 of the 45 messages ended with sent > delivered + dropped, and the sums fell short of
// both counters. Three messages per connection of sizes that do not divide the MSS, so
// segments span message boundaries.
TEST(Tcp, EveryCopySentIsDeliveredOrDroppedPerMessage) {
  scenario::Scenario sc = leaf(transport::TcpCc::kNewReno);
  sc.switch_config.buffer_bytes = 256 * 1024;
  sc.tcp.rto_min_ps = 20 * kPsPerUs;
  sc.tcp.rto_initial_ps = 100 * kPsPerUs;
  sc.tcp.delack_ps = 50 * kPsPerUs;
  scenario::Simulation sim(sc);
  std::vector<uint32_t> ids;
  for (int i = 0; i < 45; ++i) {
    ids.push_back(sim.transport().post(1 + i % 15, 0, 100'003 + 7919 * (i / 15), i));
  }
  ASSERT_TRUE(sim.run());
  const transport::TransportCounters& c = sim.transport().counters();
  EXPECT_GT(c.timeouts, 0) << "the scenario must resend on timeouts";
  EXPECT_GT(sim.network().counters().dropped_packets, 0) << "and drop";
  int64_t delivered = 0;
  int64_t dropped = 0;
  int64_t duplicate_bytes = 0;
  for (uint32_t id : ids) {
    const auto& m = tcp(sim).message(id);
    EXPECT_EQ(m.placed_bytes, m.size_bytes) << id;
    EXPECT_EQ(m.sent_bytes, m.delivered_bytes + m.dropped_bytes) << "message " << id;
    delivered += m.delivered_bytes;
    dropped += m.dropped_bytes;
    duplicate_bytes += m.delivered_bytes - m.placed_bytes;
  }
  EXPECT_GT(duplicate_bytes, 0) << "duplicates must reach the receiver";
  EXPECT_EQ(delivered, c.data_bytes_delivered);
  EXPECT_EQ(dropped, sim.network().counters().dropped_payload_bytes);
}

TEST(Tcp, DeterministicRuns) {
  auto once = [] {
    scenario::Scenario sc = leaf(transport::TcpCc::kNewReno);
    sc.link.loss_rate = 0.01;
    sc.tcp.rto_min_ps = 5 * kPsPerMs;
    scenario::Simulation sim(sc);
    for (int i = 0; i < 6; ++i) sim.transport().post(1 + i % 3, 0, 500'000, i);
    sim.run();
    return std::vector<int64_t>{sim.transport().counters().retransmitted_packets,
                                sim.transport().counters().timeouts,
                                sim.transport().message(5).rx_done_ps};
  };
  EXPECT_EQ(once(), once());
}

// The kernel stack at its defaults on one connection: each segment costs the receiving core
// host_rx_segment + copy(1448 B) = 150 ns + 1448 B / 10 GB/s = 294.8 ns, more than the sending
// core's 100 + 144.8 ns and the wire's 123.04 ns: the receiver's core sets the pace.
TEST(Tcp, KernelStackBoundByTheReceivingCore) {
  scenario::Scenario sc;
  sc.technology = scenario::Technology::kTcp;
  sc.topology.tiers = 2;
  sc.topology.radix = 16;
  sc.topology.hosts = 16;
  sc.link.rate_bps = static_cast<int64_t>(kRateBps);
  scenario::Simulation sim(sc);
  const transport::TcpConfig& t = sim.scenario().tcp;
  const int64_t bytes = 1448 * 10'000;
  const uint32_t id = sim.transport().post(1, 0, bytes, 0);
  ASSERT_TRUE(sim.run());
  const double per_seg_ps =
      t.host_rx_segment_ps + 1448.0 * 8 * 1e12 / static_cast<double>(t.host_copy_rate_bps);
  const double expect = 10'000 * per_seg_ps;
  const auto& m = sim.transport().message(id);
  const double fct = static_cast<double>(m.rx_done_ps - m.post_ps);
  EXPECT_NEAR(fct, expect, 0.02 * expect) << fct * 1e-6 << " us vs " << expect * 1e-6;
  EXPECT_GT(sim.transport().counters().host_cpu_ps, 10'000 * 2 * 100'000) << "both sides count";
}

// Small-message one-way latency, term by term (docs/transports.md "TCP" / "iWARP"): every
// parameter a distinct round value, so a term charged twice or not at all shows.
constexpr int64_t kNs = 1000;
scenario::Scenario latency_pair(scenario::Technology tech) {
  scenario::Scenario sc;
  sc.technology = tech;
  sc.topology.tiers = 2;
  sc.topology.radix = 4;
  sc.topology.hosts = 2;
  sc.link.rate_bps = 400'000'000'000;  // 20 ps per byte
  sc.nic_spec.host_post_ps = 11 * kNs;
  sc.nic_spec.doorbell_ps = 23 * kNs;
  sc.nic_spec.dma_read_ps = 307 * kNs;
  sc.nic_spec.inline_max_bytes = 220;
  sc.nic_spec.tx_latency_ps = 41 * kNs;
  sc.nic_spec.rx_latency_ps = 53 * kNs;
  sc.nic_spec.mem_write_ps = 67 * kNs;
  sc.nic_spec.host_poll_ps = 79 * kNs;
  sc.tcp.host_tx_message_ps = 1009 * kNs;
  sc.tcp.host_rx_message_ps = 2003 * kNs;
  sc.tcp.host_tx_segment_ps = 101 * kNs;
  sc.tcp.host_rx_segment_ps = 151 * kNs;
  sc.tcp.host_copy_rate_bps = 8'000'000'000;  // 1 ns per byte
  sc.tcp.iwarp_tx_extra_ps = 211 * kNs;
  sc.tcp.iwarp_rx_extra_ps = 223 * kNs;
  return sc;
}

TEST(TcpLatency, KernelSmallMessageIsEveryTermOnce) {
  scenario::Simulation sim(latency_pair(scenario::Technology::kTcp));
  const uint32_t id = sim.transport().post(0, 1, 8, 0);
  ASSERT_TRUE(sim.run());
  // send(): syscall, the segment's stack pass, the 8-B copy; doorbell; the NIC's descriptor and
  // payload fetch (kernel TCP does not use the verbs' inline path); tx pipeline; the 78-B frame
  // + 20 B on the wire; two 3-m cables and the cut-through switch; rx pipeline; the DMA into
  // the ring; the segment's stack pass and the 8-B copy; wake-up and recv().
  const int64_t expect = 1009 * kNs + 101 * kNs + 8 * kNs + 23 * kNs + 307 * kNs + 41 * kNs +
                         (78 + 20) * 20 + 2 * 15'000 + 450 * kNs + 53 * kNs + 67 * kNs +
                         151 * kNs + 8 * kNs + 2003 * kNs;
  EXPECT_EQ(sim.transport().message(id).rx_done_ps, expect);
  EXPECT_EQ(sim.transport().ideal_fct_ps(8, 1, sim.scenario().link, sim.scenario().switch_config,
                                         sim.scenario().nic),
            expect);
}

TEST(TcpLatency, IwarpSmallMessageIsEveryTermOnce) {
  scenario::Simulation sim(latency_pair(scenario::Technology::kIwarp));
  const uint32_t id = sim.transport().post(0, 1, 8, 0);
  ASSERT_TRUE(sim.run());
  // Verbs post (inline: no DMA read), doorbell; tx pipeline + the RNIC's TCP offload work; the
  // 98-B frame (MPA/DDP framing) + 20 B; cables and switch; rx pipeline + offload work; the
  // payload's DMA write and the poll. No host stack, no copy.
  const int64_t expect = 11 * kNs + 23 * kNs + 41 * kNs + 211 * kNs + (98 + 20) * 20 + 2 * 15'000 +
                         450 * kNs + 53 * kNs + 223 * kNs + 67 * kNs + 79 * kNs;
  EXPECT_EQ(sim.transport().message(id).rx_done_ps, expect);
  EXPECT_EQ(sim.transport().counters().host_cpu_ps, 0);
}

}  // namespace tcp_test
}  // namespace fabricsim
