// collective.fold_channels (workload/collective_plan.h fold_ring_channels): a ring on one node
// moves its channels as one weighted connection per NVLink pair. On an NVSwitch node every
// channel's ring crosses the same GPU pairs with the same credits and latencies, so the
// channels move in lockstep and the folded run must end where the unfolded one does, with the
// same messages counted, for channels x fewer node-layer events. Where the channels' layouts
// differ (a size that gives one channel a loop more) nothing is folded. In flow mode a ring with
// one rank per node also folds across nodes, into collective.fold_lanes connections.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "engine/run.h"
#include "spec/load.h"

namespace fabricsim::scenario {
namespace folded_channels_test {

RunResult run_one_node(const std::string& op, const std::string& protocol, int64_t size_bytes,
                       bool fold) {
  const std::string yaml =
      "name: fold\nseed: 1\nfabric:\n  technology: ib\n  link: {rate: 400Gbps, cable: 3m}\n"
      "topology: {kind: rail, radix: 16}\nhosts: {count: 2, nics_per_host: 8}\n"
      "node: {gpus_per_node: 8}\ncollective: {fold_channels: " +
      std::string(fold ? "true" : "false") +
      "}\njobs:\n  - {name: a, nodes: 1, workload: {kind: collective, op: " + op +
      ", algorithm: ring, protocol: " + protocol + ", size: " + std::to_string(size_bytes) + "B" +
      "}}\n";
  return run_scenario(load_scenario_string(yaml, "fold.yaml").scenario);
}

int64_t collective_time_ps(const RunResult& r) {
  EXPECT_EQ(r.jobs.size(), 1u);
  EXPECT_EQ(r.jobs[0].collectives.size(), 1u);
  return r.jobs[0].collectives[0].time_ps;
}

TEST(FoldedChannels, OneNodeRingsEndWhereTheirChannelsDo) {
  // 16 channels (the default) of 8 GPUs. 48 MiB: every channel's 3 MiB is one loop of 8 blocks
  // of 384 KiB (one slice each), the same for every channel, so the channels fold.
  constexpr int64_t kSize = int64_t{48} << 20;
  for (const char* op : {"all_reduce", "all_gather", "reduce_scatter"}) {
    for (const char* protocol : {"simple", "ll128", "ll"}) {
      const RunResult off = run_one_node(op, protocol, kSize, false);
      const RunResult on = run_one_node(op, protocol, kSize, true);
      const int64_t t_off = collective_time_ps(off);
      const int64_t t_on = collective_time_ps(on);
      ASSERT_GT(t_off, 0) << op << " " << protocol;
      // A folded message is one block split evenly and one wire rounding (LL, LL128: data /
      // efficiency rounded up once, not per channel): up to channels bytes less per message of
      // >= 16 x 4 KiB here, and the run ends a few hundred picoseconds apart (measured: LL
      // all-reduce 336 ps early of 294 us, 1.1e-6). 1e-5 bounds it; a folding that lost a
      // channel's share would be 1/16 = 6 % off.
      EXPECT_NEAR(static_cast<double>(t_on), static_cast<double>(t_off), 1e-5 * t_off)
          << op << " " << protocol;
      // The node layer's events (post, arrival, credit, share per message) drop with the
      // messages: the 16 channels cost about what one does.
      EXPECT_LT(on.run.events * 8, off.run.events) << op << " " << protocol;
      // Channels reported as resolved, not as folded.
      EXPECT_EQ(on.jobs[0].collectives[0].channels, off.jobs[0].collectives[0].channels);
    }
  }
}

TEST(FoldedChannels, ChannelsWhoseLayoutsDifferAreNotFolded) {
  // Simple all-gather: a loop holds 8 ranks x 2 MiB chunks = 16 MiB per channel. 16 x 16 MiB + 1
  // byte gives channel 0 one byte more than a loop, so 2 loops against the others' 1: folding
  // them would change channel 0's pipeline, so the plan keeps 16 connections per pair and the
  // run is the unfolded one, event for event.
  constexpr int64_t kSize = (int64_t{256} << 20) + 1;
  const RunResult off = run_one_node("all_gather", "simple", kSize, false);
  const RunResult on = run_one_node("all_gather", "simple", kSize, true);
  EXPECT_EQ(collective_time_ps(on), collective_time_ps(off));
  EXPECT_EQ(on.run.events, off.run.events);
}

TEST(FoldedChannels, TrainingStepWithPipelineAndDataParallelTrafficIsUnchanged) {
  // examples/llama-70b-1024.yaml at 16 nodes (TP 8 on each node's NVLink, PP 8 and DP 2 across
  // nodes, PXN relays sharing NVLink with the TP rings): the folded TP rings share each NVLink
  // port with the other traffic as their 16 channels did (weighted max-min), so the step and
  // every phase end at the same picosecond up to the folded blocks' few bytes.
  const std::string file = std::string(FABRICSIM_SOURCE_DIR) + "/examples/llama-70b-1024.yaml";
  const std::vector<std::string> sets = {"hosts.count=16", "training.seq_length=128",
                                         "training.ideal_network=false"};
  std::vector<std::string> off_sets = sets;
  off_sets.push_back("collective.fold_channels=false");
  const RunResult on = run_scenario(load_scenario(file, sets).scenario);
  const RunResult off = run_scenario(load_scenario(file, off_sets).scenario);
  ASSERT_EQ(on.jobs.size(), 1u);
  ASSERT_TRUE(on.jobs[0].training.present);
  ASSERT_TRUE(off.jobs[0].training.present);
  const double step_on = static_cast<double>(on.jobs[0].training.step_time_ps);
  const double step_off = static_cast<double>(off.jobs[0].training.step_time_ps);
  ASSERT_GT(step_off, 0);
  EXPECT_NEAR(step_on, step_off, 1e-6 * step_off);
  EXPECT_LT(on.run.events, off.run.events);
}

// A ring reduce-scatter with one GPU (rank) per node on 16 nodes of InfiniBand at 400 Gb/s.
RunResult run_across_nodes(const std::string& mode, int64_t size_bytes, int lanes) {
  const std::string yaml =
      "name: fold-net\nseed: 1\nmode: " + mode +
      "\nfabric:\n  technology: ib\n  link: {rate: 400Gbps, cable: 3m}\n"
      "topology: {kind: rail, radix: 32}\nhosts: {count: 16, nics_per_host: 1}\n"
      "node: {gpus_per_node: 1, host: {sockets: 1}}\ncollective: {fold_lanes: " +
      std::to_string(lanes) +
      "}\nworkload: {kind: collective, op: reduce_scatter, algorithm: ring, protocol: simple, "
      "size: " +
      std::to_string(size_bytes) + "B}\n";
  return run_scenario(load_scenario_string(yaml, "fold-net.yaml").scenario);
}

TEST(FoldedChannels, FlowModeFoldsOneRankPerNodeRingsAcrossNodes) {
  // With one rank per node every channel's ring is the same sequence of NIC pairs, and flow
  // mode's fabric keeps one connection per NIC pair, so the 16 channels cross the fabric as
  // fold_lanes connections. At 1 GiB the ring is bandwidth-bound: each of the 15 steps moves a
  // 1/16 block per rank, so the time is at least 15/16 x 1 GiB at the NIC's payload rate. An
  // IB packet of a 4,096 B MTU carries LRH 8 + BTH 12 + ICRC 4 + VCRC 2 = 26 B of headers (IBTA
  // vol. 1 ch. 7): 400 Gb/s x 4096 / 4122 of payload.
  constexpr int64_t kSize = int64_t{1} << 30;
  const double payload_bytes_per_s = 400e9 / 8 * 4096.0 / 4122.0;
  const double bound_ps = 15.0 / 16.0 * static_cast<double>(kSize) / payload_bytes_per_s * 1e12;
  const RunResult two = run_across_nodes("flow", kSize, 2);
  const RunResult unfolded = run_across_nodes("flow", kSize, 64);
  const auto t_two = static_cast<double>(two.collective.time_ps);
  const auto t_unfolded = static_cast<double>(unfolded.collective.time_ps);
  EXPECT_GE(t_two, bound_ps);
  // Measured 20.283 ms against the bound's 20.261 (+0.11 %): the latencies of the first and
  // last steps.
  EXPECT_LT(t_two, 1.005 * bound_ps);
  EXPECT_GE(t_unfolded, bound_ps);
  EXPECT_NEAR(t_two, t_unfolded, 0.01 * t_unfolded);  // measured 0.4 % apart
  // 15 steps x 16 ranks x 2 lanes fabric messages instead of x 16 channels: far fewer events
  // (measured 8,003 against 153,726).
  EXPECT_LT(two.run.events * 8, unfolded.run.events);
  // The same bytes crossed the fabric either way.
  EXPECT_EQ(two.collective.size_bytes, unfolded.collective.size_bytes);
}

TEST(FoldedChannels, AsManyLanesAsChannelsIsTheUnfoldedRun) {
  // 16 lanes of one channel each are 16 connections of weight 1: the unfolded run, event for
  // event (37 MiB: a small-message ring, where folding moves the result most).
  constexpr int64_t kSize = int64_t{37} << 20;
  const RunResult sixteen = run_across_nodes("flow", kSize, 16);
  const RunResult unfolded = run_across_nodes("flow", kSize, 64);
  EXPECT_EQ(sixteen.collective.time_ps, unfolded.collective.time_ps);
  EXPECT_EQ(sixteen.run.events, unfolded.run.events);
}

TEST(FoldedChannels, PacketModeKeepsAQueuePairPerChannelAcrossNodes) {
  // Packet mode gives each channel its own queue pair (Transport::post_channel): nothing folds
  // across nodes whatever fold_lanes says.
  constexpr int64_t kSize = int64_t{37} << 20;
  const RunResult two = run_across_nodes("packet", kSize, 2);
  const RunResult unfolded = run_across_nodes("packet", kSize, 64);
  EXPECT_EQ(two.collective.time_ps, unfolded.collective.time_ps);
  EXPECT_EQ(two.run.events, unfolded.run.events);
}

TEST(FoldedChannels, OnRoceAndTcpAFoldedMessageTakesItsChannelsPaths) {
  // RoCE gives each channel's queue pair its own UDP source port, TCP each channel's connection
  // its own source port, so each channel its own ECMP path: a folded message's bytes split over
  // its channels' paths (FlowTransport::post_folded), as packet mode's queue pairs and
  // connections spread them, where one connection per NIC pair had one path. A
  // 2-tier fat-tree of radix 8 (4 hosts per leaf, 4 uplinks each) and a 16-node ring: the ring
  // crosses between leaves 4 times each way. Each connection alone takes one uplink of its leaf;
  // 8 channels per lane hash over all 4.
  auto up_links_used = [](const RunResult& r) {
    int used = 0;
    for (const LinkRow& l : r.link_rows) {
      if (l.from_tier == 1 && l.to_tier == 2 && l.tx_bytes > 0) ++used;
    }
    return used;
  };
  auto run = [](const std::string& technology, int lanes) {
    const std::string yaml =
        "name: fold-roce\nseed: 1\nmode: flow\nfabric:\n  technology: " + technology + "\n"
        "  link: {rate: 400Gbps, cable: 3m}\ntopology: {kind: fat_tree, radix: 8}\n"
        "hosts: {count: 16, nics_per_host: 1}\nnode: {gpus_per_node: 1, host: {sockets: 1}}\n"
        "collective: {fold_lanes: " +
        std::to_string(lanes) +
        "}\nworkload: {kind: collective, op: reduce_scatter, algorithm: ring, protocol: simple, "
        "size: 64MiB}\n";
    return run_scenario(load_scenario_string(yaml, "fold-roce.yaml").scenario);
  };
  for (const char* technology : {"roce", "tcp"}) {
    SCOPED_TRACE(technology);
    const RunResult folded = run(technology, 2);
    const RunResult unfolded = run(technology, 64);
    EXPECT_EQ(up_links_used(unfolded), 4);  // one uplink per leaf-crossing connection
    EXPECT_GT(up_links_used(folded), 8);    // measured: all 16 of the 4 leaves' uplinks
    // The fluid's total is the same either way: every byte crosses the same tiers.
    auto up_bytes = [](const RunResult& r) {
      double bytes = 0;
      for (const LinkRow& l : r.link_rows) {
        if (l.from_tier == 1 && l.to_tier == 2) bytes += static_cast<double>(l.tx_bytes);
      }
      return bytes;
    };
    // Each link is credited its share of a message's wire bytes rounded to a byte: up to half a
    // byte per link and message (measured: 405 B of 267 MB on TCP).
    EXPECT_NEAR(up_bytes(folded), up_bytes(unfolded), 1e-5 * up_bytes(unfolded));
  }
}

}  // namespace folded_channels_test
}  // namespace fabricsim::scenario
