// Ring all-reduce on a non-blocking leaf-spine against the closed form (SPEC §8, nccl-tests):
//   t = 2(n-1)/n * S / B  +  2(n-1) step latencies,
// B = per-NIC goodput after header overhead = rate x 4096 / (4096 + 82 + 86): every NIC both
// sends the ring's data and returns an 86-byte ACK (66-byte frame + preamble/IFG) per data
// packet it receives, on the same transmit port (fabric.nic.ack_every 1, the default).
//
//     spine0 spine1 spine2 spine3          radix 8, 1:1: 4 leaves x 4 spines, 16 NICs
//       (every leaf cabled to every spine)
//     leaf0  leaf1  leaf2  leaf3           ranks 0-3 on leaf0, 4-7 on leaf1, ...
//
// A ring step on edge r -> r+1 costs (switches + 1) cable delays + switches x switch latency on
// top of its serialization: 1 switch inside a leaf, 3 across (leaf-spine-leaf), plus the NIC and
// host costs of the default profile (net/config.h NicConfig), term by term: the sender's post,
// doorbell and DMA read (a slice is far above the inline size), both NIC pipelines, and the
// receiver's memory write and poll before it posts the next step. With one slice
// per step, a chunk's journey is a chain of 2(n-1) such steps; the collective ends when the
// slowest chain does.
#include <gtest/gtest.h>

#include <algorithm>

#include "resolve/fabric.h"
#include "engine/run.h"

namespace fabricsim {
namespace ring_allreduce_test {

constexpr double kRateBps = 400e9;
constexpr double kPropPs = 3.0 * 5000;  // 3 m at 5 ns/m
constexpr double kSwitchPs = 450'000;

scenario::Scenario ring_scenario(int64_t size, int64_t slice) {
  scenario::Scenario sc;
  sc.topology.tiers = 2;
  sc.topology.radix = 8;
  sc.topology.hosts = 16;
  sc.link.rate_bps = static_cast<int64_t>(kRateBps);
  sc.workload.kind = workload::WorkloadKind::kCollective;
  sc.workload.size_bytes = size;
  sc.workload.slice_bytes = slice;
  return sc;
}

// The NIC/host part of one step: the resolved profile's parameters, summed here.
double nic_step_ps(const scenario::Scenario& sc) {
  scenario::Scenario resolved = sc;
  scenario::resolve_fabric(resolved);
  const net::NicConfig& c = resolved.nic;
  const int64_t dma = sc.workload.slice_bytes > c.inline_max_bytes ? c.dma_read_ps : 0;
  return static_cast<double>(c.host_post_ps + c.doorbell_ps + dma + c.tx_latency_ps +
                             c.rx_latency_ps + c.mem_write_ps + c.host_poll_ps);
}

double step_latency_ps(int r, int n, double nic_ps) {
  const int next = (r + 1) % n;
  const int switches = (r / 4 == next / 4) ? 1 : 3;
  return (switches + 1) * kPropPs + switches * kSwitchPs + nic_ps;
}

void expect_conservation(const scenario::RunResult& r) {
  for (const scenario::FlowRecord& f : r.flows) {
    ASSERT_EQ(f.sent_bytes, f.delivered_bytes + f.dropped_bytes) << "flow " << f.id;
  }
}

TEST(RingAllReduce, OneSlicePerStepMatchesClosedForm) {
  const int n = 16;
  const int64_t size = 16ll << 20;
  const scenario::Scenario sc = ring_scenario(size, size);
  ASSERT_EQ(sc.roce.ack_every, 1) << "the 86 ACK bytes per data packet assume one ACK each";
  const double nic_ps = nic_step_ps(sc);
  ASSERT_GT(nic_ps, 0) << "the default NIC profile has latency";
  const scenario::RunResult r = scenario::run_scenario(sc);
  ASSERT_TRUE(r.completed);
  ASSERT_TRUE(r.collective.present);
  const double goodput_bps = kRateBps * 4096.0 / (4096.0 + 82.0 + 86.0);
  const double bandwidth_ps = 2.0 * (n - 1) / n * size * 8.0 / goodput_bps * 1e12;
  double worst_chain_ps = 0;
  for (int start = 0; start < n; ++start) {
    double chain = 0;
    for (int s = 0; s < 2 * (n - 1); ++s) chain += step_latency_ps((start + s) % n, n, nic_ps);
    worst_chain_ps = std::max(worst_chain_ps, chain);
  }
  const double expected_ps = bandwidth_ps + worst_chain_ps;
  const double measured_ps = static_cast<double>(r.collective.time_ps);
  EXPECT_NEAR(measured_ps, expected_ps, 0.05 * expected_ps)
      << "expected " << expected_ps * 1e-6 << " us, measured " << measured_ps * 1e-6 << " us";
  // busbw by the nccl-tests definition.
  const double algbw = size / (measured_ps * 1e-12) * 1e-9;
  EXPECT_NEAR(r.collective.busbw_gbytes_per_s, algbw * 2.0 * (n - 1) / n, 1e-9);
  expect_conservation(r);
  EXPECT_EQ(r.counters.dropped_packets, 0) << "a ring on a non-blocking fabric never drops";
}

TEST(RingAllReduce, PipelinedSlicesHideStepLatency) {
  // With 4 slices per chunk the next step starts after one slice, so the time lies between the
  // bandwidth bound and the unpipelined closed form.
  const int n = 16;
  const int64_t size = 16ll << 20;
  const scenario::RunResult r = scenario::run_scenario(ring_scenario(size, 256 << 10));
  ASSERT_TRUE(r.completed);
  const double goodput_bps = kRateBps * 4096.0 / (4096.0 + 82.0 + 86.0);
  const double bandwidth_ps = 2.0 * (n - 1) / n * size * 8.0 / goodput_bps * 1e12;
  const double measured_ps = static_cast<double>(r.collective.time_ps);
  EXPECT_GT(measured_ps, bandwidth_ps) << "faster than the links allow";
  EXPECT_LT(measured_ps, bandwidth_ps * 1.02) << "pipelining should hide step latency";
  expect_conservation(r);
}

}  // namespace ring_allreduce_test
}  // namespace fabricsim
