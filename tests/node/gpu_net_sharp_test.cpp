// GpuNet's SHARP API (node::RankTransport::sharp_group / sharp_allreduce) through the whole
// stack, on 16 nodes x 1 GPU x 1 NIC (400 Gb/s) of a 2-tier IB fat-tree (4 leaves, 2 spines).
// Expectations derived here:
//   B = 50 GB/s x 4096 / (4096 + LRH 8 + BTH 12 + ICRC 4 + VCRC 2) = 49.68 GB/s payload per NIC;
//   SHARP: each NIC sends S once and receives S once: t_sharp = S / B + latency (the tree's
//   cables and switches, the NIC pipelines, one PCIe switch crossing each way; PCIe Gen5 x16's
//   57.6 GB/s is faster than the wire, so its serialization hides under it);
//   ring: each NIC sends and receives 2(n-1)/n x S, so t_ring / t_sharp -> 2(n-1)/n = 1.875.
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "core/error.h"
#include "engine/packet/simulation.h"
#include "engine/run.h"
#include "output/json.h"
#include "resolve/resolve.h"
#include "spec/load.h"
#include "../support/cli_runner.h"

namespace fabricsim {
namespace gpu_net_sharp_test {

constexpr double kPayloadBytesPerS = 50e9 * 4096.0 / (4096.0 + 26.0);

std::string fabric(bool sharp, const std::string& technology = "ib") {
  return std::string("name: sharp16\nseed: 1\nfabric:\n  technology: ") + technology +
         "\n  link: {rate: 400Gbps, cable: 3m}\n  sharp: {enabled: " + (sharp ? "true" : "false") +
         "}\ntopology: {kind: fat_tree, tiers: 2, radix: 8}\n"
         "hosts: {count: 16, nics_per_host: 1}\nnode: {gpus_per_node: 1, host: {sockets: 1}}\n"
         // The tests ask for SHARP groups themselves; the default workload's CollNet stays off.
         "collective: {collnet: false}\n";
}

scenario::Scenario load(const std::string& yaml) {
  return scenario::load_scenario_string(yaml, "sharp.yaml").scenario;
}

struct Arrivals {
  std::vector<int64_t> at;
  std::vector<int> count;
  void attach(scenario::Simulation& sim) {
    node::GpuNet* g = sim.gpu_net();
    at.assign(g->gpus(), -1);
    count.assign(g->gpus(), 0);
    // cookie = GPU
    g->on_arrived = [this, g](uint64_t cookie) {
      at[cookie] = g->now_ps();
      ++count[cookie];
    };
  }
};

std::vector<uint32_t> gpus(int n) {
  std::vector<uint32_t> v;
  for (int i = 0; i < n; ++i) v.push_back(static_cast<uint32_t>(i));
  return v;
}

// Every GPU contributes `size` `ops` times; returns when the last result is in GPU memory.
int64_t sharp_allreduce(scenario::Simulation& sim, int64_t size, int ops, Arrivals& arr) {
  node::GpuNet& g = *sim.gpu_net();
  const std::vector<uint32_t> all = gpus(16);
  const int group = g.sharp_group(all.data(), 16);
  EXPECT_GE(group, 0);
  if (group < 0) return -1;
  for (int op = 0; op < ops; ++op) {
    for (const uint32_t gpu : all) g.sharp_allreduce(group, gpu, size, gpu);
  }
  sim.run();
  int64_t last = 0;
  for (const uint32_t gpu : all) {
    EXPECT_EQ(arr.count[gpu], ops) << "GPU " << gpu;
    last = std::max(last, arr.at[gpu]);
  }
  return last;
}

TEST(GpuNetSharp, AllReduceIsSOverPayloadRatePlusLatencyAndBeatsTheRingBy2nMinus1OverN) {
  const int64_t size = 32 << 20;
  scenario::Simulation sim(load(fabric(true)));
  Arrivals arr;
  arr.attach(sim);
  const int64_t t_sharp = sharp_allreduce(sim, size, 1, arr);
  const scenario::Scenario& r = sim.scenario();
  const double latency_ps = 4 * 3.0 * 5000 + 3 * static_cast<double>(r.switch_config.latency_ps) +
                            static_cast<double>(r.nic.tx_latency_ps + r.nic.rx_latency_ps) +
                            2 * static_cast<double>(r.node.pcie_switch_latency_ps);
  const double expected = size / kPayloadBytesPerS * 1e12 + latency_ps;
  EXPECT_NEAR(static_cast<double>(t_sharp), expected, 0.01 * expected);

  // The ring all-reduce of the same size on the same fabric, as the collective engine runs it.
  const scenario::RunResult ring = scenario::run_scenario(load(
      fabric(true) +
      "workload: {kind: collective, op: all_reduce, algorithm: ring, protocol: simple, "
      "size: 32MiB}\n"));
  ASSERT_EQ(ring.jobs.size(), 1u);
  const int64_t t_ring = ring.jobs[0].collectives[0].time_ps;
  const double ratio = static_cast<double>(t_ring) / static_cast<double>(t_sharp);
  std::printf("t_sharp %.1f us, t_ring %.1f us, ratio %.4f (2(n-1)/n = 1.875)\n", t_sharp * 1e-6,
              t_ring * 1e-6, ratio);
  // At 32 MiB the ring also pays its pipeline fill over 2(n - 1) = 30 steps (~90 us over
  // 2(n-1)/n x S/B since NVLink and PCIe are shared fairly); the asymptote is held within 5 % at
  // 256 MiB by tests/calibration/sharp_test.cpp. Above the fill the ring's time is not smooth
  // in its inputs: which of two messages a NIC or a credit-starved port serves first turns on
  // picoseconds, and the order carries round the ring's 30 steps. Cables of 2.9, 3, 3.1, 3.2,
  // 4 and 5 m (a few ns each way) gave 1,356, 1,356, 1,365, 1,393, 1,408 and 1,342 us at
  // 3a9340b, and a 1 ps change in the node model's fluid rounding moves 3 m from 1,356 to
  // 1,398 us: up to 4 % above the (1,266 + 90) us derived, hence 1.12, not 1.08.
  EXPECT_GE(ratio, 0.95 * 1.875);
  EXPECT_LE(ratio, 1.12 * 1.875);
}

TEST(GpuNetSharp, OperationsOfAGroupRunInOrder) {
  const int64_t size = 1 << 20;
  scenario::Simulation one(load(fabric(true)));
  Arrivals a1;
  a1.attach(one);
  const int64_t t1 = sharp_allreduce(one, size, 1, a1);
  scenario::Simulation three(load(fabric(true)));
  Arrivals a3;
  a3.attach(three);
  const int64_t t3 = sharp_allreduce(three, size, 3, a3);
  // Posted back to back they stream back to back: three S at the payload rate, one latency.
  const double stream_ps = size / kPayloadBytesPerS * 1e12;
  EXPECT_NEAR(static_cast<double>(t3 - t1), 2 * stream_ps, 0.02 * 2 * stream_ps);
}

TEST(GpuNetSharp, SecondGroupOnTheSamePortsFallsBackAndTheResultSaysSo) {
  scenario::Simulation sim(load(fabric(true)));
  node::GpuNet& g = *sim.gpu_net();
  const std::vector<uint32_t> all = gpus(16);
  EXPECT_GE(g.sharp_group(all.data(), 16), 0);
  const uint32_t some[2] = {3, 7};
  EXPECT_EQ(g.sharp_group(some, 2), -1) << "their HCA ports already carry a tree";
  sim.run();
  const scenario::RunResult r = sim.harvest(true);
  ASSERT_TRUE(r.sharp.present);
  ASSERT_EQ(r.sharp.failures.size(), 1u);
  EXPECT_NE(r.sharp.failures[0].reason.find("max_trees_per_port=1"), std::string::npos)
      << r.sharp.failures[0].reason;
  EXPECT_EQ(r.sharp.trees.size(), 1u);
  EXPECT_NE(output::result_to_json(r).dump().find("\"failures\""), std::string::npos);
}

TEST(GpuNetSharp, AGroupOnTwoRailsOwnsOneTreePerRailAndBothStreamAtLineRate) {
  // Rail-optimized: 8 nodes x 2 GPUs x 2 NICs, radix 8 (2 leaves per rail, spines join them).
  const std::string yaml =
      "name: rails\nseed: 1\nfabric:\n  technology: ib\n  link: {rate: 400Gbps, cable: 3m}\n"
      "  sharp: {enabled: true}\ntopology: {kind: rail, radix: 8}\n"
      "hosts: {count: 8, nics_per_host: 2}\nnode: {gpus_per_node: 2}\n"
      "collective: {collnet: false}\n";
  scenario::Simulation sim(load(yaml));
  Arrivals arr;
  arr.attach(sim);
  node::GpuNet& g = *sim.gpu_net();
  const std::vector<uint32_t> all = gpus(16);
  const int group = g.sharp_group(all.data(), 16);
  ASSERT_GE(group, 0);
  ASSERT_EQ(sim.network().sharp_trees().size(), 2u);
  EXPECT_NE(g.sharp_tree_of(group, 0), g.sharp_tree_of(group, 1)) << "GPU 0 and 1: rails 0, 1";
  EXPECT_EQ(g.sharp_tree_of(group, 0), g.sharp_tree_of(group, 2)) << "GPU 0 and 2: rail 0";
  const int64_t size = 4 << 20;
  for (const uint32_t gpu : all) g.sharp_allreduce(group, gpu, size, gpu);
  sim.run();
  const scenario::Scenario& r = sim.scenario();
  const double latency_ps = 4 * 3.0 * 5000 + 3 * static_cast<double>(r.switch_config.latency_ps) +
                            static_cast<double>(r.nic.tx_latency_ps + r.nic.rx_latency_ps) +
                            2 * static_cast<double>(r.node.pcie_switch_latency_ps);
  const double expected = size / kPayloadBytesPerS * 1e12 + latency_ps;
  for (const uint32_t gpu : all) {
    EXPECT_NEAR(static_cast<double>(arr.at[gpu]), expected, 0.01 * expected) << "GPU " << gpu;
  }
}

TEST(GpuNetSharp, WithoutGpuDirectTheDataIsStagedThroughHostMemoryBothWays) {
  const int64_t size = 1 << 20;
  scenario::Simulation gdr(load(fabric(true)));
  Arrivals a;
  a.attach(gdr);
  const int64_t t_gdr = sharp_allreduce(gdr, size, 1, a);
  std::string staged_yaml = fabric(true);
  staged_yaml.replace(staged_yaml.find("host: {sockets: 1}"), 18,
                      "host: {sockets: 1}, gpudirect: false");
  scenario::Simulation staged(load(staged_yaml));
  Arrivals b;
  b.attach(staged);
  const int64_t t_staged = sharp_allreduce(staged, size, 1, b);
  // Two proxy hand-offs (node.staged_cpu) at least, on top of the same fabric time.
  EXPECT_GE(t_staged - t_gdr, 2 * staged.scenario().node.staged_cpu_ps);
  const node::GpuNet& g = *staged.gpu_net();
  EXPECT_EQ(g.server(g.resource(node::ResourceKind::kHostMemory, 0, 0)).bytes, 4 * size)
      << "host memory: written and read on the way out, and again on the way back";
}

TEST(GpuNetSharp, SharpOffMeansNoGroupAndNothingRecorded) {
  scenario::Simulation sim(load(fabric(false)));
  const std::vector<uint32_t> all = gpus(16);
  EXPECT_EQ(sim.gpu_net()->sharp_group(all.data(), 16), -1);
  EXPECT_FALSE(sim.network().sharp_enabled());
  sim.run();
  EXPECT_FALSE(sim.harvest(true).sharp.present);
}

TEST(GpuNetSharp, RoceIsRefusedNamingTheKey) {
  try {
    (void)scenario::resolve(load(fabric(true, "roce")));
    ADD_FAILURE() << "SHARP on RoCE was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key_path() + ": " + e.what(),
              "fabric.sharp.enabled: SHARP aggregates in InfiniBand switches; a roce fabric has "
              "none (use technology: ib)");
  }
  // The CLI's one line: file:line: key.path: message, exit 2.
  test_support::ScratchDir dir("sharp");
  const auto file = dir.path() / "roce.yaml";
  std::ofstream(file) << fabric(true, "roce");
  const test_support::CliOutcome o = test_support::run_fabricsim("validate " + file.string(), dir.path());
  EXPECT_EQ(o.exit_code, 2);
  ASSERT_EQ(o.err_lines.size(), 1u) << o.err;
  EXPECT_EQ(o.err_lines[0], file.string() +
                                ":6: fabric.sharp.enabled: SHARP aggregates in InfiniBand "
                                "switches; a roce fabric has none (use technology: ib)");
}

TEST(GpuNetSharp, LossyLinksAreRefusedWithSharp) {
  // A lost aggregation packet would leave its reduction unfinished (no SHARP retransmission).
  scenario::Scenario sc = load(fabric(true));
  sc.link.loss_rate = 1e-6;
  try {
    (void)scenario::resolve(sc);
    ADD_FAILURE() << "SHARP on lossy links was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key_path(), "fabric.link.loss_rate");
  }
}

}  // namespace gpu_net_sharp_test
}  // namespace fabricsim
