// A packet-mode run split into partitions (`threads: N`, engine/packet/partitioned_run.cpp,
// core/partitions.h): result.json, flows.csv and links.csv must be byte-identical to the
// sequential run's at 2, 3, 4 and 8 partitions, on scenarios that exercise every way a
// partition touches another: data frames over cut cables, PFC PAUSE frames and InfiniBand
// credit packets (whose lookahead is the propagation alone), CNPs, drops reported to a sender
// in another partition, flows that start mid-run (serial events between windows), UET's
// trimmed packets and its ACK details taken from another partition's table, a time limit
// that stops the run mid-flight, and TCP / iWARP (segments placed from their own headers,
// RTOs and delayed ACKs, SACK details taken from another partition's table). run.json must say the run was split (a scenario that
// silently ran in one partition would pass the comparison without testing anything).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "../support/cli_runner.h"
#include "partitioned_cases.h"
#include "engine/run.h"
#include "spec/load.h"

namespace fabricsim::partitioned_run_test {
namespace fs = std::filesystem;
using test_support::read_file;
using test_support::run_fabricsim;
using test_support::shell_quote;
using scenario::load_scenario_string;

using partitioned_cases::Case;
using partitioned_cases::kCases;

fs::path scratch(const std::string& name) {
  // The process id keeps two checkouts' test runs on one machine out of each other's files.
  const fs::path d = fs::temp_directory_path() /
                     ("fabricsim-partitioned-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

// Runs `yaml` with `threads`; returns the output directory.
fs::path run_with(const fs::path& dir, const std::string& yaml, int threads) {
  const fs::path file = dir / "s.yaml";
  std::ofstream(file) << yaml;
  const fs::path out = dir / ("t" + std::to_string(threads));
  const auto r = run_fabricsim("run " + shell_quote(file.string()) + " --threads " +
                                   std::to_string(threads) + " --out " + shell_quote(out.string()),
                               dir);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return out;
}

TEST(PartitionedRun, EveryFileIsTheSequentialRunsAtAnyPartitionCount) {
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    const fs::path dir = scratch(c.name);
    const fs::path one = run_with(dir, c.yaml, 1);
    const std::string result = read_file(one / "result.json");
    ASSERT_FALSE(result.empty());
    const auto sequential = nlohmann::json::parse(read_file(one / "run.json"));
    for (const int threads : {2, 3, 4, 8}) {
      SCOPED_TRACE(testing::Message() << threads << " threads");
      const fs::path many = run_with(dir, c.yaml, threads);
      const auto run = nlohmann::json::parse(read_file(many / "run.json"));
      ASSERT_EQ(run.value("partitions", 1), threads) << run.dump();
      EXPECT_GT(run.value("lookahead_ps", int64_t{0}), 0);
      EXPECT_EQ(read_file(many / "result.json"), result);
      EXPECT_EQ(read_file(many / "flows.csv"), read_file(one / "flows.csv"));
      EXPECT_EQ(read_file(many / "links.csv"), read_file(one / "links.csv"));
      // The same events ran, not merely the same outcome.
      EXPECT_EQ(run["events"], sequential["events"]);
      EXPECT_EQ(run["sim_time_ps"], sequential["sim_time_ps"]);
    }
    fs::remove_all(dir);
  }
}

TEST(PartitionedRun, TheCasesExerciseWhatTheyClaim) {
  // Drops (the lossy case) and PAUSE frames (the PFC permutation) must really happen, or the
  // comparison above would not cover the paths they take across partitions.
  const fs::path dir = scratch("claims");
  const auto result = [&](const Case& c) {
    return nlohmann::json::parse(read_file(run_with(dir, c.yaml, 1) / "result.json"));
  };
  const auto lossy = result(kCases[3]);
  EXPECT_GT(lossy["counters"]["dropped_packets"].get<int64_t>(), 0) << lossy["counters"].dump();
  const auto pfc = result(kCases[0]);
  EXPECT_GT(pfc["counters"]["pause_frames"].get<int64_t>(), 0) << pfc["counters"].dump();
  const auto uet = result(kCases[5]);
  EXPECT_GT(uet["counters"]["trims"].get<int64_t>(), 0) << uet["counters"].dump();
  const auto limited = result(kCases[6]);
  EXPECT_FALSE(limited["completed"].get<bool>()) << "the time limit must cut the run short";
  // TCP and iWARP: losses recovered by SACK and by timeouts, segments placed out of order.
  for (int i : {7, 8, 9}) {
    const auto tcp = result(kCases[i]);
    const auto& c = tcp["counters"];
    SCOPED_TRACE(kCases[i].name);
    EXPECT_TRUE(tcp["completed"].get<bool>());
    EXPECT_GT(c["dropped_packets"].get<int64_t>(), 0) << c.dump();
    EXPECT_GT(c["retransmitted_packets"].get<int64_t>(), 0) << c.dump();
    EXPECT_GT(c["timeouts"].get<int64_t>(), 0) << c.dump();
    EXPECT_GT(c["sack_retransmits"].get<int64_t>(), 0) << c.dump();
    EXPECT_GT(c["out_of_order_packets"].get<int64_t>(), 0) << c.dump();
  }
  EXPECT_NE(result(kCases[9])["fabric"].get<std::string>().find("iWARP"), std::string::npos);
  fs::remove_all(dir);
}

TEST(PartitionedRun, ProgressFollowsThePartitionsNotTheSerialClock) {
  // A k=8 PFC permutation of 2 MB flows (~1.1 M events), split in two: every message is
  // posted at time 0 (the serial clock's last event), so a progress line reading the serial
  // clock would stand still.
  scenario::RunOptions options;
  std::vector<scenario::ProgressSample> samples;
  options.progress = [&](const scenario::ProgressSample& s) { samples.push_back(s); };
  const std::string yaml =
      "name: p\nseed: 1\nfabric: {technology: roce, link: {rate: 100Gbps, cable: 3m}, "
      "switch: {latency: 450ns, buffer: 64MiB}, pfc: {enabled: true}, roce: {mtu: 4000B}}\n"
      "topology: {kind: fat_tree, tiers: 3, radix: 8}\nhosts: {count: 128}\n"
      "workload: {kind: pattern, pattern: permutation, flow_size: 2000000B}\nthreads: 2\n";
  const scenario::RunResult r =
      scenario::run_scenario(load_scenario_string(yaml, "p.yaml").scenario, options);
  ASSERT_TRUE(r.completed);
  ASSERT_GE(samples.size(), 3u) << "checked every 2^18 events";
  for (size_t i = 1; i + 1 < samples.size(); ++i) {
    EXPECT_GT(samples[i].sim_time_ps, samples[i - 1].sim_time_ps) << i;
    EXPECT_GE(samples[i].fraction, samples[i - 1].fraction) << i;
    EXPECT_GT(samples[i].events, samples[i - 1].events) << i;
  }
  EXPECT_GT(samples[samples.size() - 2].fraction, 0.0);
  EXPECT_EQ(samples.back().fraction, 1.0);
  EXPECT_EQ(samples.back().sim_time_ps, r.run.sim_time_ps);
}

TEST(PartitionedRun, WhatCannotBeSplitRunsInOnePartitionAndSaysWhy) {
  const fs::path dir = scratch("refused");
  // A GPU scenario: the node layer and the collective engine react to completions from
  // every partition at once.
  const std::string gpu =
      "name: g\nseed: 1\nfabric: {technology: ib, link: {rate: 400Gbps, cable: 3m}}\n"
      "topology: {kind: rail, radix: 16}\nhosts: {count: 2, nics_per_host: 8}\n"
      "node: {gpus_per_node: 8}\nworkload: {kind: collective, op: all_reduce, algorithm: ring, "
      "protocol: simple, size: 8MiB}\n";
  const auto one = read_file(run_with(dir, gpu, 1) / "result.json");
  const fs::path two = run_with(dir, gpu, 2);
  const auto run = nlohmann::json::parse(read_file(two / "run.json"));
  EXPECT_EQ(run.value("partitions", 1), 1);
  EXPECT_NE(run.value("partition_note", std::string()).find("GPU"), std::string::npos)
      << run.dump();
  EXPECT_EQ(read_file(two / "result.json"), one);
  // TCP with Valiant routing on a Dragonfly: the route of an ACK hashes its msg field, the
  // slot of its SACK details, whose number differs when partitioned.
  const std::string dragonfly =
      "name: d\nseed: 1\nfabric: {technology: tcp, link: {rate: 100Gbps, cable: 3m}}\n"
      "topology: {kind: dragonfly, dragonfly: {p: 2}}\nrouting: {dragonfly: valiant}\n"
      "workload: {kind: pattern, pattern: group_shift, flow_size: 100KB}\n";
  const auto tcp_one = read_file(run_with(dir, dragonfly, 1) / "result.json");
  const fs::path tcp_two = run_with(dir, dragonfly, 2);
  const auto tcp_run = nlohmann::json::parse(read_file(tcp_two / "run.json"));
  EXPECT_EQ(tcp_run.value("partitions", 1), 1);
  EXPECT_NE(tcp_run.value("partition_note", std::string()).find("Dragonfly"), std::string::npos)
      << tcp_run.dump();
  EXPECT_EQ(read_file(tcp_two / "result.json"), tcp_one);
  fs::remove_all(dir);
}

}  // namespace fabricsim::partitioned_run_test
