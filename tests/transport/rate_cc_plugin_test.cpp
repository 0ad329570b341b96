// A congestion-control scheme written outside src/, registered by name through the interface
// (transport/rate_cc.h; docs/cc.md "Adding a scheme" walks through this file) and selected with
// fabric.roce.cc_scheme, runs on RoCE: its rate paces the QP, and it hears every ACK with an RTT
// sample and every CNP. Expectations are worked out from the wire format and the cable, never
// read back from the simulator.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>

#include "core/error.h"
#include "engine/packet/simulation.h"
#include "resolve/resolve.h"
#include "transport/rate_cc.h"

namespace fabricsim::transport {
namespace rate_cc_plugin_test {

// What the scheme saw, for the test to read.
struct Seen {
  int64_t acked_bytes = 0;
  int64_t acks = 0;
  int64_t rtt_samples = 0;
  int64_t min_rtt_ps = INT64_MAX;
  int64_t max_rtt_ps = 0;
  int64_t cnps = 0;
  int64_t bytes_sent = 0;
};
Seen seen;

// The example scheme: a quarter of the line rate, halved on a CNP, never changed by anything
// else; it only records the signals.
class QuarterRate final : public RateCcScheme {
 public:
  explicit QuarterRate(const RateCcContext& ctx) : rate_bps_(ctx.line_rate_bps / 4) {}
  int64_t rate_bps() const override { return rate_bps_; }
  void on_cnp(int64_t) override {
    ++seen.cnps;
    rate_bps_ /= 2;
  }
  void on_ack(int64_t acked_bytes, int64_t rtt_ps, bool, int64_t) override {
    ++seen.acks;
    seen.acked_bytes += acked_bytes;
    if (rtt_ps >= 0) {
      ++seen.rtt_samples;
      seen.min_rtt_ps = std::min(seen.min_rtt_ps, rtt_ps);
      seen.max_rtt_ps = std::max(seen.max_rtt_ps, rtt_ps);
    }
  }
  void on_bytes_sent(int64_t bytes, int64_t) override { seen.bytes_sent += bytes; }

 private:
  int64_t rate_bps_;
};

const bool kRegistered = [] {
  register_rate_cc("test-quarter-rate",
                   [](const RateCcContext& ctx) { return std::make_unique<QuarterRate>(ctx); });
  return true;
}();

scenario::Scenario leaf_spine() {
  scenario::Scenario sc;
  sc.topology.tiers = 2;
  sc.topology.radix = 8;
  sc.topology.hosts = 16;
  sc.link.rate_bps = 100'000'000'000;
  sc.link.cable_m = 3;
  sc.roce.cc_scheme = "test-quarter-rate";
  return sc;
}

TEST(RateCcPlugin, ARegisteredSchemePacesRoceAndHearsItsAcks) {
  ASSERT_TRUE(kRegistered);
  seen = Seen{};
  scenario::Simulation sim(leaf_spine());
  constexpr int64_t kSize = 4 << 20;                        // 1024 packets of 4096 bytes
  const uint32_t m = sim.transport().post(1, 2, kSize, 0);  // same leaf: one switch
  sim.run();
  const MessageRecord& r = sim.transport().message(m);
  ASSERT_GE(r.rx_done_ps, 0) << "delivered";
  // Paced at 25 Gb/s: frame k starts k x (4178 B x 8 / 25 Gb/s) after the first (RoCEv2 frame
  // on the wire: 4096 + 82 bytes; the first also carries a 16-byte RETH, sent at the start).
  constexpr int64_t kPackets = kSize / 4096;
  const double gap_ps = 4178.0 * 8 / 25e9 * 1e12;
  const double paced_ps = (kPackets - 1) * gap_ps;
  const double fct_ps = static_cast<double>(r.rx_done_ps - r.post_ps);
  EXPECT_GT(fct_ps, paced_ps) << "no faster than the scheme's rate";
  EXPECT_LT(fct_ps, paced_ps + 10e6) << "and no slower than it plus 10 us of latencies";
  EXPECT_EQ(seen.acked_bytes, kPackets * 4096) << "every packet acknowledged exactly once";
  EXPECT_EQ(seen.bytes_sent, kPackets * 4096 + kPackets * (4178 - 4096 - 20) + 16)
      << "frames: payload + 62 header bytes each (the 20 of preamble and gap are not frame), "
         "+ RETH";
  // One timed packet per round trip: a round trip is at least the cable twice (2 x 2 x 3 m at
  // 5 ns/m) and a data frame's serialization at line rate (334 ns).
  EXPECT_GT(seen.rtt_samples, 10);
  EXPECT_GT(seen.min_rtt_ps, 4 * 15'000 + 334'000);
  EXPECT_LT(seen.max_rtt_ps, 20'000'000) << "an idle path's RTT is a few us";
  EXPECT_EQ(seen.cnps, 0) << "one flow at a quarter of the line congests nothing";
}

TEST(RateCcPlugin, AnUnknownSchemeIsRefusedNamingTheKeyAndTheRegisteredOnes) {
  scenario::Scenario sc = leaf_spine();
  sc.roce.cc_scheme = "no-such-scheme";
  try {
    scenario::resolve(sc);
    FAIL() << "an unregistered scheme must be refused";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key_path(), "fabric.roce.cc_scheme");
    EXPECT_NE(std::string(e.what()).find("test-quarter-rate"), std::string::npos) << e.what();
  }
  sc = leaf_spine();
  sc.roce.cc = CongestionControl::kDcqcn;
  EXPECT_THROW(scenario::resolve(sc), InputError) << "fabric.roce.cc and a scheme: one of two";
  EXPECT_THROW(register_rate_cc(
                   "dcqcn", [](const RateCcContext&) { return std::unique_ptr<RateCcScheme>(); }),
               std::invalid_argument)
      << "a built-in's name";
  EXPECT_THROW(
      register_rate_cc("test-quarter-rate",
                       [](const RateCcContext& c) { return std::make_unique<QuarterRate>(c); }),
      std::invalid_argument)
      << "registered twice";
}

}  // namespace rate_cc_plugin_test
}  // namespace fabricsim::transport
