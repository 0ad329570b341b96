// outputs.timeseries (engine/packet/telemetry.h): the samplers checked against figures derived here
// (frame layout, buffer size, line rate), not against the simulator's earlier output.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "net/wire.h"
#include "output/csv.h"
#include "output/json.h"
#include "output/timeseries.h"
#include "engine/packet/link_load.h"
#include "spec/load.h"
#include "preflight/resources.h"
#include "engine/run.h"
#include "engine/packet/simulation.h"
#include "transport/uet.h"

namespace fabricsim::scenario {
namespace telemetry_test {

constexpr int64_t kRateBps = 100'000'000'000;
constexpr int64_t kIntervalPs = 5'000'000;  // 5 us
constexpr int64_t kBufferBytes = 1 << 20;   // 1 MiB switches: the incast pauses

// 4-to-1 incast into NIC 0 of a 2-tier leaf-spine (4 NICs per leaf): NICs 1-3 share NIC 0's
// leaf, NIC 4 is one leaf over; NICs 5-7 neither send nor receive.
std::string incast_yaml(const std::string& extra, const std::string& technology = "roce") {
  return "fabric: {technology: " + technology +
         ", link: {rate: 100Gbps, cable: 3m}, switch: {buffer: 1MiB}" +
         (technology == "roce" ? ", roce: {cc: dcqcn}, pfc: {enabled: true}" : "") +
         "}\n"
         "topology: {kind: leaf_spine, radix: 8}\n"
         "hosts: {count: 8}\n"
         "workload: {kind: pattern, pattern: flows, flows: [[1, 0, 1MB, 0us], [2, 0, 1MB, 0us], "
         "[3, 0, 1MB, 0us], [4, 0, 1MB, 0us]]}\n" +
         extra;
}

Scenario load(const std::string& yaml) { return load_scenario_string(yaml, "t.yaml").scenario; }

struct Ran {
  std::unique_ptr<Simulation> sim;
  TelemetryResult t;
};

// run_scenario's order: run, close the last interval, read the series.
Ran run_sim(const Scenario& sc) {
  Ran r;
  r.sim = std::make_unique<Simulation>(sc);
  r.sim->start_workload();
  EXPECT_TRUE(r.sim->run(0));
  r.sim->finish_telemetry();
  r.t = r.sim->telemetry()->result();
  return r;
}

const std::string kAllPorts =
    "outputs: {timeseries: {interval: 5us, top: 100000, top_qps: 100}}\n";

// Parses timeseries_ports.csv into port id -> rows of fields.
std::map<uint32_t, std::vector<std::vector<std::string>>> parse_ports_csv(const std::string& text) {
  std::map<uint32_t, std::vector<std::vector<std::string>>> rows;
  std::istringstream in(text);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, output::kTimeseriesPortsHeader);
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::string cell;
    std::istringstream l(line);
    while (std::getline(l, cell, ',')) f.push_back(cell);
    if (!line.empty() && line.back() == ',') f.push_back("");
    EXPECT_EQ(f.size(), 15u) << line;
    rows[static_cast<uint32_t>(std::stoul(f[1]))].push_back(f);
  }
  return rows;
}

TEST(Telemetry, UtilizationIntegralEqualsThePortsBytes) {
  const Ran r = run_sim(load(incast_yaml(kAllPorts)));
  const net::Network& net = r.sim->network();
  ASSERT_EQ(r.t.ports.size(), net.num_ports()) << "top larger than the fabric: every port";
  ASSERT_GT(r.t.times_ps.size(), 20u) << "several intervals";
  EXPECT_EQ(r.t.times_ps.back(), r.sim->scheduler().now_ps) << "the last sample ends the run";
  const auto rows = parse_ports_csv(output::timeseries_ports_csv_text(r.t));
  ASSERT_EQ(rows.size(), net.num_ports());
  for (uint32_t p = 0; p < net.num_ports(); ++p) {
    const double rate = static_cast<double>(net.port(p).rate_bps);
    double bytes = 0;
    int64_t prev = r.t.start_ps;
    for (const std::vector<std::string>& f : rows.at(p)) {
      const int64_t end = std::stoll(f[0]);
      bytes += std::stod(f[3]) * rate * static_cast<double>(end - prev) * 1e-12 / 8.0;
      prev = end;
    }
    const double one_interval = rate * kIntervalPs * 1e-12 / 8.0;  // 62,500 bytes
    EXPECT_NEAR(bytes, static_cast<double>(net.port_tx_bytes(p)), one_interval)
        << port_label(net, p);
  }
  // Independently: NIC 0's downlink carried exactly the four messages' data frames (a WRITE's
  // first packet has a RETH; lossless, so nothing twice) and nothing else.
  ASSERT_EQ(r.sim->transport().counters().retransmitted_packets, 0);
  const bool vlan = r.sim->scenario().roce.vlan_tag;
  const int64_t mtu = r.sim->scenario().roce.mtu_bytes;
  double wire = 0;
  for (uint32_t m = 0; m < r.sim->transport().num_messages(); ++m) {
    int64_t left = r.sim->transport().message(m).size_bytes;
    for (bool first = true; left > 0; first = false) {
      const int64_t payload = std::min(left, mtu);
      wire += net::roce_data_frame_bytes(static_cast<uint32_t>(payload), first, vlan) +
              net::kWireOnlyBytes;
      left -= payload;
    }
  }
  const uint32_t down = net.port(net.nic_port(0)).peer;  // leaf -> NIC 0
  double sampled = 0;
  for (size_t s = 0; s < r.t.times_ps.size(); ++s) {
    for (const PortSeries& ps : r.t.ports) {
      if (ps.port == down) sampled += static_cast<double>(ps.samples[s].tx_bytes);
    }
  }
  EXPECT_EQ(sampled, wire) << "4 x 1 MB as data frames";
}

TEST(Telemetry, IdlePortsSampleZero) {
  const Ran r = run_sim(load(incast_yaml(kAllPorts)));
  const net::Network& net = r.sim->network();
  int checked = 0;
  for (const PortSeries& ps : r.t.ports) {
    const net::Port& p = net.port(ps.port);
    const net::Port& far = net.port(p.peer);
    const bool idle_nic = (p.is_nic && p.nic >= 5) || (far.is_nic && far.nic >= 5);
    if (!idle_nic) continue;
    ++checked;
    for (const PortSample& s : ps.samples) {
      EXPECT_EQ(s.tx_bytes, 0) << ps.label;
      EXPECT_EQ(s.paused_ps, 0) << ps.label;
      for (const uint32_t b : s.class_bytes) EXPECT_EQ(b, 0u) << ps.label;
    }
  }
  EXPECT_EQ(checked, 6) << "NICs 5-7, both directions";
}

TEST(Telemetry, QueuesAndPausesAtTheIncastBottleneck) {
  const Ran r = run_sim(load(incast_yaml(kAllPorts)));
  const net::Network& net = r.sim->network();
  const uint32_t down = net.port(net.nic_port(0)).peer;
  int64_t peak_down = 0;
  double paused_upstream = 0;
  for (const PortSeries& ps : r.t.ports) {
    for (size_t s = 0; s < ps.samples.size(); ++s) {
      const PortSample& x = ps.samples[s];
      int64_t q = 0;
      for (const uint32_t b : x.class_bytes) q += b;
      if (!net.port(ps.port).is_nic) {
        EXPECT_LE(q, kBufferBytes) << ps.label;
      }
      const int64_t span = r.t.times_ps[s] - (s ? r.t.times_ps[s - 1] : r.t.start_ps);
      const double paused = static_cast<double>(x.paused_ps) / static_cast<double>(span);
      EXPECT_GE(paused, 0.0);
      EXPECT_LE(paused, 1.0) << ps.label << " (one lossless class)";
      if (ps.port == down) peak_down = std::max(peak_down, q);
      // Ports feeding NIC 0's leaf: the senders' NIC ports under it and the spine's downlink.
      if (net.port(ps.port).far_index == static_cast<uint32_t>(net.port(down).switch_index) &&
          !net.port(ps.port).far_is_nic && ps.port != down) {
        paused_upstream = std::max(paused_upstream, paused);
      }
    }
  }
  EXPECT_GT(peak_down, 0) << "the bottleneck queues";
  EXPECT_GT(paused_upstream, 0.0) << "PFC paused a port feeding the congested leaf";
  EXPECT_GT(r.sim->network().counters().pause_frames, 0) << "precondition: PFC acted";
}

TEST(Telemetry, DcqcnRatesStayAtOrBelowLineRateAndFallUnderIncast) {
  const Ran r = run_sim(load(incast_yaml(kAllPorts)));
  ASSERT_FALSE(r.t.qps.empty());
  int64_t lowest = kRateBps;
  for (const QpSeries& q : r.t.qps) {
    EXPECT_EQ(q.cc, "dcqcn");
    for (size_t s = 0; s < q.rate_bps.size(); ++s) {
      if (q.rate_bps[s] == INT64_MIN) continue;  // not open yet
      EXPECT_LE(q.rate_bps[s], kRateBps);
      EXPECT_GT(q.rate_bps[s], 0);
      EXPECT_EQ(q.window_bytes[s], -1) << "DCQCN has no window";
      lowest = std::min(lowest, q.rate_bps[s]);
    }
  }
  EXPECT_LT(lowest, kRateBps / 2) << "four senders into one link: CNPs cut the rates";
}

TEST(Telemetry, OffOrOnLeavesTheResultsByteIdentical) {
  auto texts = [](const std::string& extra) {
    const RunResult r = run_scenario(load(incast_yaml(extra)));
    return std::pair{output::result_json_text(r), output::flows_csv_text(r.flows)};
  };
  const auto none = texts("");
  EXPECT_EQ(none, texts("outputs: {timeseries: {interval: 0s}}\n"));
  EXPECT_EQ(none, texts(kAllPorts));
  EXPECT_EQ(none, texts("outputs: {timeseries: {interval: 1us}}\n"));
  EXPECT_EQ(none, texts("outputs: {timeseries: {interval: 3us, max_samples: 5}}\n"));
}

TEST(Telemetry, OffSchedulesNothing) {
  Simulation sim(load(incast_yaml("")));
  EXPECT_EQ(sim.telemetry(), nullptr);
  RunResult r = run_scenario(load(incast_yaml("")));
  EXPECT_FALSE(r.telemetry.present);
}

TEST(Telemetry, ListedPortsAndQps) {
  const Ran r = run_sim(load(incast_yaml(
      "outputs: {timeseries: {interval: 10us, ports: [sw0:0->nic0, nic5:0->sw1], qps: [0, 3]}}\n")));
  ASSERT_EQ(r.t.ports.size(), 2u);
  EXPECT_EQ(r.t.ports[0].label, "sw0:0->nic0");
  EXPECT_EQ(r.t.ports[1].label, "nic5:0->sw1");
  ASSERT_EQ(r.t.qps.size(), 2u);
  EXPECT_EQ(r.t.qps[0].qp, 0u);
  EXPECT_EQ(r.t.qps[1].qp, 3u);
  EXPECT_EQ(r.t.qps[0].dst_nic, 0u);
  EXPECT_TRUE(r.t.qps_never_opened.empty());
}

TEST(Telemetry, TopPortsAreTheDeepestQueues) {
  const Ran r = run_sim(load(incast_yaml("outputs: {timeseries: {interval: 5us, top: 1}}\n")));
  ASSERT_EQ(r.t.ports.size(), 1u);
  const net::Network& net = r.sim->network();
  EXPECT_EQ(r.t.ports[0].port, net.port(net.nic_port(0)).peer) << "the incast's bottleneck";
}

// The ranking uses the exact per-class peak the network keeps (links.csv peak_queue_bytes):
// no port left out held a fuller queue than any port written.
TEST(Telemetry, TopPortsHoldTheHighestExactPeaks) {
  const Ran r = run_sim(load(incast_yaml("outputs: {timeseries: {interval: 5us, top: 3}}\n")));
  ASSERT_EQ(r.t.ports.size(), 3u);
  const net::Network& net = r.sim->network();
  auto peak = [&](uint32_t port) {
    uint32_t p = 0;
    for (const net::ClassQueue& c : net.queues(port).cls) p = std::max(p, c.peak_bytes);
    return p;
  };
  uint32_t lowest_chosen = UINT32_MAX;
  for (const auto& series : r.t.ports) lowest_chosen = std::min(lowest_chosen, peak(series.port));
  ASSERT_GT(lowest_chosen, 0u) << "test scenario: at least three ports queue";
  for (uint32_t p = 0; p < net.num_ports(); ++p) {
    bool chosen = false;
    for (const auto& series : r.t.ports) chosen = chosen || series.port == p;
    if (!chosen) {
      EXPECT_LE(peak(p), lowest_chosen) << "port " << p;
    }
  }
}

TEST(Telemetry, MaxSamplesEndsWithOneIntervalToTheEnd) {
  const Ran r =
      run_sim(load(incast_yaml("outputs: {timeseries: {interval: 5us, max_samples: 4}}\n")));
  ASSERT_EQ(r.t.times_ps.size(), 4u);
  EXPECT_TRUE(r.t.truncated);
  EXPECT_EQ(r.t.times_ps[2], 3 * kIntervalPs);
  EXPECT_EQ(r.t.times_ps[3], r.sim->scheduler().now_ps);
}

TEST(Telemetry, UnknownPortLabelIsAnInputError) {
  try {
    Simulation sim(load(incast_yaml("outputs: {timeseries: {interval: 5us, ports: [sw0:9->sw99]}}\n")));
    FAIL() << "accepted an unknown port";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key_path(), "outputs.timeseries.ports");
    EXPECT_NE(std::string(e.what()).find("sw0:9->sw99"), std::string::npos);
  }
}

TEST(Telemetry, InfinibandCreditsAndCreditWaits) {
  const Ran r = run_sim(load(incast_yaml(kAllPorts, "ib")));
  const net::Network& net = r.sim->network();
  ASSERT_TRUE(net.infiniband());
  double waited = 0;
  double lowest_fraction = 1;
  for (const PortSeries& ps : r.t.ports) {
    const uint32_t limit = net.queues(net.port(ps.port).peer).rx_buffer_blocks;
    for (size_t s = 0; s < ps.samples.size(); ++s) {
      const PortSample& x = ps.samples[s];
      EXPECT_GE(x.credits_blocks, 0) << ps.label;
      EXPECT_LE(x.credits_blocks, static_cast<int32_t>(limit)) << ps.label << " (1 data VL)";
      const int64_t span = r.t.times_ps[s] - (s ? r.t.times_ps[s - 1] : r.t.start_ps);
      waited = std::max(waited, static_cast<double>(x.paused_ps) / static_cast<double>(span));
    }
    for (const PortSample& x : ps.samples) {
      lowest_fraction = std::min(lowest_fraction, static_cast<double>(x.credits_blocks) / limit);
    }
  }
  EXPECT_LT(lowest_fraction, 0.5) << "the incast used up credits somewhere";
  EXPECT_GT(waited, 0.0) << "1 MiB switches: some VL waited for credits";
  EXPECT_GT(net.counters().credit_waits, 0) << "precondition";
}

TEST(Telemetry, PreflightCountsTheSamples) {
  const Scenario off = load(incast_yaml(""));
  const Scenario on = load(incast_yaml("outputs: {timeseries: {interval: 1us}}\n"));
  const ResourceEstimate a = estimate_resources(off);
  const ResourceEstimate b = estimate_resources(on);
  // 10,000 samples (max_samples) x every port x 56 bytes, at least.
  const int64_t floor = int64_t{10000} * b.ports * 56;
  EXPECT_GE(b.simulation_bytes() - a.simulation_bytes(), floor);
  // With a stop time, stop / interval + 2 samples.
  Scenario stopped = on;
  stopped.stop_time_ps = 100'000'000;  // 100 us: 102 samples
  const ResourceEstimate c = estimate_resources(stopped);
  EXPECT_LT(c.simulation_bytes() - a.simulation_bytes(), floor / 20);
  EXPECT_GE(c.simulation_bytes() - a.simulation_bytes(), int64_t{102} * c.ports * 56);
}

}  // namespace telemetry_test
}  // namespace fabricsim::scenario

namespace fabricsim::scenario {
namespace telemetry_test {

TEST(Telemetry, ARunThatNeverFinishesEndsWhereItWouldWithoutSampling) {
  // NIC 0 stops draining for good (lossy: no PFC): the senders retry once, their QPs fail, and
  // the packets NIC 0 holds keep the run from ending until nothing but the time limit is left.
  // The sampler must not keep the run going or move its end: the results are those of the
  // same run without it, and its last interval reaches the run's end.
  const std::string yaml =
      "fabric: {technology: roce, link: {rate: 100Gbps, cable: 3m}, "
      "roce: {ack_timeout_exponent: 4, retry_count: 1}}\n"
      "topology: {kind: leaf_spine, radix: 8}\nhosts: {count: 8}\n"
      "workload: {kind: pattern, pattern: flows, flows: [[1, 0, 1MB, 0us], [2, 0, 1MB, 0us]]}\n"
      "faults: {nic_stall: {nic: 0, at: 0us}}\n";
  const RunResult off = run_scenario(load(yaml));
  const RunResult on = run_scenario(load(yaml + "outputs: {timeseries: {interval: 10us}}\n"));
  ASSERT_FALSE(off.completed);
  EXPECT_EQ(output::result_json_text(off), output::result_json_text(on));
  EXPECT_EQ(output::flows_csv_text(off.flows), output::flows_csv_text(on.flows));
  ASSERT_GE(on.telemetry.times_ps.size(), 3u);
  EXPECT_EQ(on.telemetry.times_ps.back(), off.sim_time_ps);
  EXPECT_LT(on.telemetry.times_ps.size(), 100u) << "no samples while only the limit is left";
}

}  // namespace telemetry_test
}  // namespace fabricsim::scenario

namespace fabricsim::scenario {
namespace telemetry_test {

// The windows a window-based transport samples stay inside its own bounds and shrink under the
// 4-to-1 incast: NSCC between 1 MTU and its initial maxwnd (1.5 x BDP, uet_nscc.h; a lower
// base RTT only lowers it); TCP (DCTCP) samples a positive window and no rate.
TEST(Telemetry, UetNsccWindowsStayWithinTheirBoundsAndShrink) {
  const Ran r = run_sim(load(incast_yaml(kAllPorts, "uet")));
  const auto* uet = dynamic_cast<const transport::UetTransport*>(&r.sim->transport());
  ASSERT_NE(uet, nullptr);
  ASSERT_EQ(r.t.qps.size(), 4u) << "one PDC per sender";
  for (const QpSeries& q : r.t.qps) {
    EXPECT_EQ(q.cc, "nscc");
    const transport::Nscc& n = uet->nscc(q.qp);
    int64_t lowest = INT64_MAX;
    for (size_t s = 0; s < q.window_bytes.size(); ++s) {
      if (q.window_bytes[s] == INT64_MIN) continue;
      EXPECT_EQ(q.rate_bps[s], -1) << "NSCC has no rate";
      EXPECT_GE(q.window_bytes[s], n.params().min_cwnd_bytes);
      EXPECT_LE(q.window_bytes[s], n.params().max_cwnd_bytes) << "the initial maxwnd";
      lowest = std::min(lowest, q.window_bytes[s]);
    }
    EXPECT_LT(lowest, n.params().max_cwnd_bytes) << "QP " << q.qp << ": the incast cut its window";
  }
}

TEST(Telemetry, TcpWindowsAreSampled) {
  const Ran r = run_sim(load(incast_yaml(kAllPorts, "tcp")));
  ASSERT_EQ(r.t.qps.size(), 4u);
  for (const QpSeries& q : r.t.qps) {
    EXPECT_EQ(q.cc, "dctcp");
    bool any = false;
    for (size_t s = 0; s < q.window_bytes.size(); ++s) {
      if (q.window_bytes[s] == INT64_MIN) continue;
      any = true;
      EXPECT_GT(q.window_bytes[s], 0);
      EXPECT_EQ(q.rate_bps[s], -1);
    }
    EXPECT_TRUE(any);
  }
}

}  // namespace telemetry_test
}  // namespace fabricsim::scenario
