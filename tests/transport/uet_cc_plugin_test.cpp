// A UET window rule written outside src/, registered by name through the interface
// (transport/uet_window_cc.h; docs/cc.md "UET's window") and selected with fabric.uet.cc_scheme,
// takes NSCC's place on the UET transport: its window holds the PDC, and the time to move a
// message follows from window / RTT, worked out here.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "core/error.h"
#include "engine/packet/simulation.h"
#include "resolve/resolve.h"
#include "transport/uet_window_cc.h"

namespace fabricsim::transport {
namespace uet_cc_plugin_test {

int64_t acks_seen = 0;

// A window of `frames` full data packets, never changed; it counts the ACKs it hears.
class FixedFrames final : public UetCcScheme {
 public:
  FixedFrames(int frames, const UetCcContext& ctx)
      : bytes_(static_cast<int64_t>(frames) * ctx.mtu_frame_bytes) {}
  int64_t cwnd_bytes() const override { return bytes_; }
  void on_ack(int64_t, int64_t, int64_t, bool, int64_t) override { ++acks_seen; }

 private:
  int64_t bytes_;
};

const bool kRegistered = [] {
  register_uet_cc("test-frames-4",
                  [](const UetCcContext& c) { return std::make_unique<FixedFrames>(4, c); });
  register_uet_cc("test-frames-8",
                  [](const UetCcContext& c) { return std::make_unique<FixedFrames>(8, c); });
  return true;
}();

scenario::Scenario uet_leaf_spine(const std::string& rule) {
  scenario::Scenario sc;
  sc.technology = scenario::Technology::kUet;
  sc.topology.tiers = 2;
  sc.topology.radix = 8;
  sc.topology.hosts = 16;
  sc.link.rate_bps = 100'000'000'000;
  sc.link.cable_m = 3;
  sc.uet.cc_scheme = rule;
  return sc;
}

struct Sample {
  std::string cc;
  int64_t window_bytes = 0;
};

int64_t transfer_ps(const std::string& rule, std::vector<Sample>* samples = nullptr) {
  scenario::Simulation sim(uet_leaf_spine(rule));
  const uint32_t m = sim.transport().post(1, 2, 4'000'000, 0);  // one switch
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

TEST(UetCcPlugin, ARegisteredRuleIsTheWindowAndTheTimeFollowsWindowOverRtt) {
  ASSERT_TRUE(kRegistered);
  acks_seen = 0;
  std::vector<Sample> samples;
  const int64_t t4 = transfer_ps("test-frames-4", &samples);
  EXPECT_GT(acks_seen, 0) << "the rule hears the ACKs";
  ASSERT_EQ(samples.size(), 1u);
  EXPECT_EQ(samples[0].cc, "test-frames-4");
  // 4 and 8 frames per round trip are below a 100 Gb/s path's bandwidth-delay product (~15
  // frames of 4 KiB at a few microseconds), so both are window-bound with the same round trip:
  // twice the window moves the message in half the time (within 10 %: the first packet's
  // latency and the last round trip are paid once).
  const int64_t t8 = transfer_ps("test-frames-8");
  std::printf("UET fixed windows: 4 frames %.1f us, 8 frames %.1f us\n", t4 * 1e-6, t8 * 1e-6);
  EXPECT_NEAR(static_cast<double>(t4) / static_cast<double>(t8), 2.0, 0.2);
}

TEST(UetCcPlugin, UnknownAndBuiltInNamesAreRefused) {
  try {
    scenario::resolve(uet_leaf_spine("no-such-rule"));
    FAIL() << "an unregistered rule accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key_path(), "fabric.uet.cc_scheme");
    EXPECT_NE(std::string(e.what()).find("test-frames-4"), std::string::npos) << e.what();
  }
  EXPECT_THROW(register_uet_cc("nscc", [](const UetCcContext& c) {
                 return std::make_unique<FixedFrames>(1, c);
               }),
               std::invalid_argument);
}

}  // namespace uet_cc_plugin_test
}  // namespace fabricsim::transport
