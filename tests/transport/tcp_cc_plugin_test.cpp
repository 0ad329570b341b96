// A TCP congestion-control rule written outside src/, registered by name through the interface
// (transport/tcp_window_cc.h; docs/cc.md "TCP's rules") and selected with fabric.tcp.cc_scheme,
// runs on the TCP transport: its window holds the connection, and the time to move a message
// follows from window / RTT, worked out here.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "core/error.h"
#include "engine/packet/simulation.h"
#include "resolve/resolve.h"
#include "transport/tcp.h"
#include "transport/tcp_window_cc.h"

namespace fabricsim::transport {
namespace tcp_cc_plugin_test {

int64_t acks_seen = 0;

// A fixed window of `segments` MSS from the first ACK on: no growth, no cut.
class FixedWindow final : public TcpCcScheme {
 public:
  explicit FixedWindow(int segments) : segments_(segments) {}
  bool on_ack(TcpWindow& w, const TcpAck& a) override {
    ++acks_seen;
    w.cwnd = w.ssthresh = segments_ * a.mss_bytes;
    return true;  // nothing else moves the window
  }
  void grow(TcpWindow&, const TcpAck&) override {}
  int64_t loss_ssthresh(const TcpWindow& w, int64_t, int64_t) override { return w.cwnd; }

 private:
  int segments_;
};

const bool kRegistered = [] {
  register_tcp_cc("test-fixed-4", [](uint32_t) { return std::make_unique<FixedWindow>(4); });
  register_tcp_cc("test-fixed-8", [](uint32_t) { return std::make_unique<FixedWindow>(8); });
  return true;
}();

scenario::Scenario iwarp_leaf_spine(const std::string& rule) {
  scenario::Scenario sc;
  sc.technology = scenario::Technology::kIwarp;
  sc.topology.tiers = 2;
  sc.topology.radix = 8;
  sc.topology.hosts = 16;
  sc.link.rate_bps = 100'000'000'000;
  sc.link.cable_m = 3;
  sc.tcp.cc_scheme = rule;
  return sc;
}

struct Sample {
  std::string cc;
  int64_t window_bytes = 0;
};

// The time one 4 MB message takes from NIC 1 to NIC 2 (one switch) under `rule`.
int64_t transfer_ps(const std::string& rule, std::vector<Sample>* samples = nullptr) {
  scenario::Simulation sim(iwarp_leaf_spine(rule));
  const uint32_t m = sim.transport().post(1, 2, 4'000'000, 0);
  sim.run();
  if (samples != nullptr) {
    std::vector<QpSample> qps;
    sim.transport().sample_qps(qps, false);
    // A sample's `cc` points into the transport: copied while the simulation lives.
    for (const QpSample& q : qps) samples->push_back({q.cc, q.window_bytes});
  }
  const MessageRecord& r = sim.transport().message(m);
  EXPECT_GT(r.rx_done_ps, 0) << rule << ": the message arrived";
  return r.rx_done_ps;
}

TEST(TcpCcPlugin, ARegisteredRuleHoldsTheWindowAndTheTimeFollowsWindowOverRtt) {
  ASSERT_TRUE(kRegistered);
  acks_seen = 0;
  std::vector<Sample> samples;
  const int64_t t4 = transfer_ps("test-fixed-4", &samples);
  EXPECT_GT(acks_seen, 0) << "the rule hears the ACKs";
  ASSERT_EQ(samples.size(), 1u);
  EXPECT_EQ(samples[0].cc, "test-fixed-4");
  const int64_t mss = tcp_mss_bytes(scenario::resolve(iwarp_leaf_spine("test-fixed-4")).sc.tcp);
  EXPECT_EQ(samples[0].window_bytes, 4 * mss) << "the window the rule set";
  // 4 and 8 segments per round trip are far below one path's 100 Gb/s (8 x 1448 B per ~10 us
  // is ~9 Gb/s), so both are window-bound and the round trip is the same: twice the window
  // moves the message in half the time (the first flight of RFC 6928's 10 segments and the
  // last round trip aside: within 10 %).
  const int64_t t8 = transfer_ps("test-fixed-8");
  std::printf("fixed windows: 4 segments %.1f us, 8 segments %.1f us\n", t4 * 1e-6, t8 * 1e-6);
  EXPECT_NEAR(static_cast<double>(t4) / static_cast<double>(t8), 2.0, 0.2);
}

TEST(TcpCcPlugin, UnknownAndBuiltInNamesAreRefused) {
  scenario::Scenario sc = iwarp_leaf_spine("no-such-rule");
  try {
    scenario::resolve(sc);
    FAIL() << "an unregistered rule accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key_path(), "fabric.tcp.cc_scheme");
    EXPECT_NE(std::string(e.what()).find("test-fixed-4"), std::string::npos)
        << "the error lists what is registered: " << e.what();
  }
  EXPECT_THROW(register_tcp_cc("cubic", [](uint32_t) { return std::make_unique<FixedWindow>(1); }),
               std::invalid_argument);
  EXPECT_THROW(register_tcp_cc("test-fixed-4",
                               [](uint32_t) { return std::make_unique<FixedWindow>(1); }),
               std::invalid_argument);
  sc = iwarp_leaf_spine("test-fixed-4");
  sc.technology = scenario::Technology::kRoce;
  try {
    scenario::resolve(sc);
    FAIL() << "a TCP rule on RoCE accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key_path(), "fabric.tcp.cc_scheme");
  }
}

}  // namespace tcp_cc_plugin_test
}  // namespace fabricsim::transport
