// Lossy RoCE (PFC off): goodput of one long flow against the per-link frame loss rate.
//
//   NIC1 ── leaf ── spine ── leaf ── NIC9     100 Gb/s, 4 link crossings
//
// Go-back-N resends everything after a lost packet: each loss costs about one NAK round trip of
// line-rate data, and a lost retransmission is only recovered by the timeout (the responder
// NAKs a gap once, rxe check_psn). So goodput must fall monotonically with the loss rate, every
// lost packet must be sent again, and nothing may be lost for good.
#include <gtest/gtest.h>

#include <vector>

#include "engine/packet/simulation.h"

namespace fabricsim {
namespace lossy_test {

struct Outcome {
  double goodput_bps;
  int64_t lost;
  int64_t retransmitted;
};

Outcome run_with_loss(double loss_rate) {
  scenario::Scenario sc;
  sc.topology.tiers = 2;
  sc.topology.radix = 16;
  sc.topology.hosts = 16;
  sc.link.rate_bps = 100'000'000'000;
  sc.link.loss_rate = loss_rate;
  sc.roce.ack_timeout_exponent = 6;  // 262 us, so timeouts do not dominate the test's runtime
  scenario::Simulation sim(sc);
  const int64_t size = 20'000'000;
  const uint32_t msg = sim.transport().post(1, 9, size, 0);
  EXPECT_TRUE(sim.run()) << "loss " << loss_rate;
  const transport::MessageRecord& m = sim.transport().message(msg);
  EXPECT_GE(m.rx_done_ps, 0) << "loss " << loss_rate << ": the flow must complete";
  EXPECT_EQ(m.sent_bytes, m.delivered_bytes + m.dropped_bytes) << "loss " << loss_rate;
  return Outcome{size * 8.0 / (m.rx_done_ps * 1e-12),
                 sim.network().counters().link_losses,
                 sim.transport().counters().retransmitted_packets};
}

TEST(LossyRoce, GoodputFallsWithLossRateAndEveryLossIsResent) {
  const std::vector<double> rates = {0, 1e-4, 1e-3, 1e-2};
  std::vector<Outcome> out;
  for (double p : rates) out.push_back(run_with_loss(p));
  const double goodput = 100e9 * 4096.0 / (4096.0 + 82.0);
  EXPECT_GT(out[0].goodput_bps, 0.97 * goodput) << "no loss: line-rate goodput";
  EXPECT_EQ(out[0].lost, 0);
  for (size_t i = 1; i < rates.size(); ++i) {
    EXPECT_LT(out[i].goodput_bps, out[i - 1].goodput_bps)
        << "loss " << rates[i] << ": " << out[i].goodput_bps / 1e9 << " Gb/s vs "
        << out[i - 1].goodput_bps / 1e9 << " at " << rates[i - 1];
    EXPECT_GE(out[i].retransmitted, out[i].lost)
        << "loss " << rates[i] << ": every lost packet is sent again";
  }
  // At 1e-2 per crossing about 4% of packets die on a 4-link path: goodput must drop a lot.
  EXPECT_LT(out[3].goodput_bps, 0.8 * goodput) << out[3].goodput_bps / 1e9 << " Gb/s";
}

}  // namespace lossy_test
}  // namespace fabricsim
