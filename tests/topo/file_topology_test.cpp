// Topology files (topology.kind: file): the native form round-trips a built fat-tree to the
// same run, the HPCC/ns-3 samples import with their published counts, per-link delays reach
// the wire, and bad files are refused with file:line.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <utility>
#include <sstream>
#include <string>

#include "core/error.h"
#include "core/scheduler.h"
#include "core/units.h"
#include "net/network.h"
#include "output/json.h"
#include "spec/load.h"
#include "preflight/resources.h"
#include "engine/run.h"
#include "engine/packet/simulation.h"
#include "topo/file_topology.h"
#include "topo/topology.h"

namespace fabricsim::topo {
namespace file_topology_test {

const std::string kData = std::string(FABRICSIM_SOURCE_DIR) + "/tests/topo/data/";

std::string write_temp(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + name;
  std::ofstream(path) << text;
  return path;
}

// The error a file raises, as the CLI prints it: "file:line: topology.file: message".
std::string import_error(const std::string& text) {
  try {
    parse_topology_text(text, "t.topo", "topology.file");
  } catch (const ImportError& e) {
    return e.file() + ":" + std::to_string(e.line()) + ": " + e.key_path() + ": " + e.what();
  }
  return "(accepted)";
}

scenario::RunResult run(const std::string& topology_yaml, const std::string& tech) {
  const scenario::Scenario sc =
      scenario::load_scenario_string("fabric: {technology: " + tech +
                                         ", link: {rate: 100Gbps}}\n" + topology_yaml +
                                         "workload: {kind: pattern, pattern: permutation, "
                                         "flow_size: 64KB}\n",
                                     "perm.yaml")
          .scenario;
  return scenario::run_scenario(sc);
}

// The k=4 3-tier fat-tree (16 NICs, 20 switches, 48 cables) exported to the native form and read
// back is the same network: the same permutation gives byte-identical flows, counters and link
// loads in result.json, on Ethernet (ECMP) and on InfiniBand (the SM's routes).
TEST(FileTopology, ExportedFatTreeReimportsToTheSameRun) {
  Scheduler sched;
  net::Network net(sched);
  TopologySpec spec;
  spec.tiers = 3;
  spec.radix = 4;
  spec.hosts = 16;
  FabricParams params;
  params.link.rate_bps = 100'000'000'000;
  build(spec, params, net);
  std::ostringstream native;
  write_native(net, native);
  const std::string path = write_temp("k4.topo", native.str());
  for (const char* tech : {"roce", "ib"}) {
    const scenario::RunResult tree =
        run("topology: {kind: fat_tree, tiers: 3, radix: 4}\nhosts: {count: 16}\n", tech);
    const scenario::RunResult file = run("topology: {kind: file, file: " + path + "}\n", tech);
    ASSERT_EQ(file.topology.hosts, 16);
    ASSERT_NE(file.topology.description.find("(native)"), std::string::npos)
        << "built from the file: " << file.topology.description;
    const auto jt = output::result_to_json(tree);
    const auto jf = output::result_to_json(file);
    ASSERT_EQ(tree.flows.size(), 16u) << tech;
    for (const auto& fl : tree.flows) ASSERT_GE(fl.finish_ps, 0) << tech << " flow " << fl.id;
    EXPECT_EQ(jt["flows"].dump(), jf["flows"].dump()) << tech;
    EXPECT_EQ(jt["counters"].dump(), jf["counters"].dump()) << tech;
    EXPECT_EQ(tree.sim_time_ps, file.sim_time_ps) << tech;
    ASSERT_EQ(tree.flows.size(), file.flows.size());
    for (size_t i = 0; i < tree.flows.size(); ++i) {
      EXPECT_EQ(tree.flows[i].finish_ps, file.flows[i].finish_ps) << tech << " flow " << i;
    }
  }
}

// A rail fabric has parallel cables (radix 8, 8 nodes x 2 rails: each leaf has 4 uplinks to 2
// spines, 2 cables per leaf-spine pair). Exported and read back, parallel cables are legal and
// the same flows take the same time to the picosecond (ECMP spreads over the parallel ports as
// over any equal-cost ports; the SM routes both).
TEST(FileTopology, ExportedRailWithParallelCablesReimportsToTheSameRun) {
  const std::string flows =
      "workload: {kind: pattern, pattern: flows, flows: [[0, 5, 64KB, 0us], [2, 7, 64KB, 0us], "
      "[4, 1, 64KB, 0us], [9, 14, 64KB, 0us], [11, 3, 64KB, 0us], [13, 8, 64KB, 0us]]}\n";
  const std::string rail_yaml = "topology: {kind: rail, radix: 8}\nhosts: {count: 8, nics_per_host: 2}\n";
  scenario::Scenario rail_sc = scenario::load_scenario_string(
      "fabric: {link: {rate: 100Gbps}}\n" + rail_yaml + flows, "rail.yaml").scenario;
  std::ostringstream native;
  {
    scenario::Simulation sim(rail_sc);
    const net::Network& net = sim.network();
    std::set<std::pair<uint32_t, uint32_t>> pairs;
    for (uint32_t i = 0; i < net.num_cables(); ++i) {
      pairs.insert(std::minmax(net.cable_node_a(i), net.cable_node_b(i)));
    }
    ASSERT_LT(pairs.size(), net.num_cables()) << "the rail fabric has parallel cables";
    write_native(net, native);
  }
  const std::string path = write_temp("rail.topo", native.str());
  for (const char* tech : {"roce", "ib"}) {
    const std::string fabric = std::string("fabric: {technology: ") + tech + ", link: {rate: 100Gbps}}\n";
    const scenario::RunResult a = scenario::run_scenario(
        scenario::load_scenario_string(fabric + rail_yaml + flows, "rail.yaml").scenario);
    const scenario::RunResult b = scenario::run_scenario(scenario::load_scenario_string(
        fabric + "topology: {kind: file, file: " + path + "}\n" + flows, "file.yaml").scenario);
    ASSERT_EQ(a.flows.size(), 6u);
    ASSERT_EQ(b.flows.size(), 6u);
    for (size_t i = 0; i < a.flows.size(); ++i) {
      ASSERT_GE(a.flows[i].finish_ps, 0) << tech;
      EXPECT_EQ(a.flows[i].finish_ps, b.flows[i].finish_ps) << tech << " flow " << i;
    }
  }
}

// HPCC's fat.txt (simulation/mix/fat.txt at 9f4be2a): the header says 376 nodes, 56 switches,
// 480 links, so 320 hosts; hosts 0..319 hang off 20 ToRs (16 each), and the 160 switch-switch
// links make ToR-agg-core: 3 tiers by hop distance.
TEST(FileTopology, HpccFatTreeSampleBuildsWithItsCounts) {
  const TopologyFile f = read_topology_file(kData + "hpcc_fat.txt", "topology.file");
  EXPECT_EQ(f.format, "hpcc");
  EXPECT_EQ(f.nics(), 320);
  EXPECT_EQ(f.switches(), 56);
  EXPECT_EQ(f.links.size(), 480u);
  EXPECT_EQ(f.links[0].rate_bps, 100'000'000'000) << "0 320 100Gbps 1000ns";
  EXPECT_DOUBLE_EQ(f.links[0].cable_m, 200.0) << "1000 ns at 5 ns/m";
  Scheduler sched;
  net::Network net(sched);
  const BuiltTopology t = build_file(f, FabricParams{}, 1, net);
  EXPECT_EQ(t.nics, 320);
  EXPECT_EQ(t.switches, 56);
  EXPECT_EQ(t.cables, 480);
  EXPECT_EQ(t.tiers, 3);
  EXPECT_EQ(net.num_leaf_slots(), 20u) << "320 hosts / 16 per ToR";
  EXPECT_EQ(net.port(net.nic_port(0)).rate_bps, 100'000'000'000);
}

// The memory pre-flight counts a file's nodes and cables without building it.
TEST(FileTopology, ResourceEstimateCountsTheFile) {
  const scenario::Scenario sc =
      scenario::load_scenario_string("topology: {kind: file, file: hpcc_fat.txt}\n",
                                     kData + "s.yaml")
          .scenario;
  const scenario::ResourceEstimate e = scenario::estimate_resources(sc);
  EXPECT_EQ(e.nics, 320);
  EXPECT_EQ(e.switches, 56);
  EXPECT_EQ(e.cables, 480);
  EXPECT_EQ(e.ports, 960);
}

// HPCC's topology.txt: 66 nodes, switch 0, 65 links; the 199 lines after the declared links
// are ignored, as third.cc ignores them.
TEST(FileTopology, HpccStarSampleIgnoresTextAfterTheDeclaredLinks) {
  const TopologyFile f = read_topology_file(kData + "hpcc_topology.txt", "topology.file");
  EXPECT_EQ(f.nics(), 65);
  EXPECT_EQ(f.switches(), 1);
  EXPECT_EQ(f.links.size(), 65u);
}

// Per-link delays reach the wire: on a one-switch star with 1 us links to NICs 0 and 1 and a
// 3 us link to NIC 2, a packet to NIC 2 arrives 2 us later than the same packet to NIC 1 (same
// rates, so the same serialization; the difference is propagation alone). Ethernet and IB.
TEST(FileTopology, PerLinkDelayIsThePropagationDifference) {
  const std::string path = write_temp("star.txt",
                                      "4 1 3\n3\n"
                                      "0 3 100Gbps 1us 0\n"
                                      "1 3 100Gbps 1us 0\n"
                                      "2 3 100Gbps 3us 0\n");
  for (const char* tech : {"roce", "ib"}) {
    const scenario::Scenario sc =
        scenario::load_scenario_string(std::string("fabric: {technology: ") + tech + "}\n"
                                       "topology: {kind: file, file: " + path + "}\n"
                                       "workload:\n  kind: pattern\n  pattern: flows\n"
                                       "  flows: [[0, 1, 4KB, 0us], [0, 2, 4KB, 50us]]\n",
                                       "star.yaml")
            .scenario;
    const scenario::RunResult r = scenario::run_scenario(sc);
    ASSERT_EQ(r.flows.size(), 2u);
    ASSERT_GE(r.flows[0].finish_ps, 0);
    ASSERT_GE(r.flows[1].finish_ps, 0);
    EXPECT_EQ(r.flows[1].fct_ps() - r.flows[0].fct_ps(), 2'000'000) << tech;
  }
}

// An arbitrary graph, not a tree: 4 switches in a ring, 2 NICs each. ECMP's shortest paths and
// the SM (ftree refuses a ring; Up*/Down* routes it) both deliver. n0 -> n1 stays on s0; n0 -> n4
// crosses s0 - s1|s3 - s2: two more cables (10 m = 50 ns each) and two more switches (300 ns
// each, cut-through; fabric.ib.switch_latency on InfiniBand), 700 ns in all.
TEST(FileTopology, RingOfSwitchesRoutesOnEcmpAndTheSubnetManager) {
  std::string ring;
  for (int i = 0; i < 8; ++i) ring += "nic n" + std::to_string(i) + "\n";
  for (int i = 0; i < 4; ++i) ring += "switch s" + std::to_string(i) + "\n";
  for (int i = 0; i < 8; ++i) ring += "link n" + std::to_string(i) + " s" + std::to_string(i / 2) + "\n";
  for (int i = 0; i < 4; ++i) ring += "link s" + std::to_string(i) + " s" + std::to_string((i + 1) % 4) + "\n";
  const std::string path = write_temp("ring.topo", ring);
  for (const char* tech : {"roce", "ib"}) {
    const scenario::Scenario sc =
        scenario::load_scenario_string(
            std::string("fabric:\n  technology: ") + tech +
                "\n  link: {rate: 100Gbps, cable: 10m}\n"
                "  switch: {latency: 300ns, forwarding: cut_through}\n"
                "  ib: {switch_latency: 300ns}\n"
                "topology: {kind: file, file: " + path + "}\n"
                "workload:\n  kind: pattern\n  pattern: flows\n"
                "  flows: [[0, 1, 4KB, 0us], [0, 4, 4KB, 50us]]\n",
            "ring.yaml")
            .scenario;
    if (std::string(tech) == "ib") {
      scenario::Simulation sim(sc);
      EXPECT_EQ(sim.lid_routes().unreachable_pairs, 0) << "the SM routes every pair";
      EXPECT_NE(sim.lid_routes().engine_used, routing::SmEngine::kFatTree) << "a ring is no tree";
    }
    const scenario::RunResult r = scenario::run_scenario(sc);
    ASSERT_EQ(r.flows.size(), 2u);
    ASSERT_GE(r.flows[0].finish_ps, 0) << tech;
    ASSERT_GE(r.flows[1].finish_ps, 0) << tech;
    EXPECT_EQ(r.flows[1].fct_ps() - r.flows[0].fct_ps(), 2 * (10 * 5'000 + 300'000)) << tech;
  }
}

TEST(FileTopology, NativeFormDefaultsAndTiers) {
  const TopologyFile f = parse_topology_text(
      "# two leaves, one spine\n"
      "nic a\nnic b\nswitch l1\nswitch l2\nswitch sp tier=5\n"
      "link a l1 rate=25Gbps\nlink b l2 cable=10m loss=0.001\n"
      "link l1 sp delay=50ns\nlink l2 sp\n",
      "x.topo", "topology.file");
  EXPECT_EQ(f.format, "native");
  EXPECT_EQ(f.links[0].rate_bps, 25'000'000'000);
  EXPECT_LT(f.links[0].cable_m, 0) << "not given: fabric.link.cable applies";
  EXPECT_DOUBLE_EQ(f.links[1].cable_m, 10.0);
  EXPECT_DOUBLE_EQ(f.links[1].loss_rate, 0.001);
  EXPECT_DOUBLE_EQ(f.links[2].cable_m, 10.0) << "50 ns at 5 ns/m";
  Scheduler sched;
  net::Network net(sched);
  FabricParams params;
  params.link.cable_m = 7;
  const BuiltTopology t = build_file(f, params, 1, net);
  EXPECT_EQ(net.switch_at(0).tier, 1);
  EXPECT_EQ(net.switch_at(1).tier, 1);
  EXPECT_EQ(net.switch_at(2).tier, 5) << "the file's tier wins";
  EXPECT_EQ(t.tiers, 5);
  EXPECT_EQ(net.cable_link(0).cable_m, 7.0) << "fabric.link.cable for a link without one";
  EXPECT_EQ(net.cable_link(0).rate_bps, 25'000'000'000);
}

// The ideal FCT of a mixed-rate file is the path's: a lone 1 MB message over 100 Gb/s edge
// cables and a 400 Gb/s trunk (fabric.link says 400 Gb/s) takes what 100 Gb/s allows, so its
// slowdown on an idle path is 1, not ~4 as it was when the ideal assumed fabric.link everywhere.
// The wire part of the ideal is at least 1 MB at 100 Gb/s (80 us) and the rest is latency.
TEST(FileTopology, MixedRateFileIdealFctIsThePathsBottleneck) {
  const std::string path = write_temp("mixed.topo",
                                      "nic a\nnic b\nswitch s1\nswitch s2\n"
                                      "link a s1 rate=100Gbps cable=2m\n"
                                      "link s1 s2 rate=400Gbps cable=30m\n"
                                      "link s2 b rate=100Gbps cable=2m\n");
  for (const char* tech : {"roce", "ib", "uet"}) {
    const scenario::Scenario sc =
        scenario::load_scenario_string(std::string("fabric: {technology: ") + tech +
                                           ", link: {rate: 400Gbps}}\n"
                                           "topology: {kind: file, file: " + path + "}\n"
                                           "workload:\n  kind: pattern\n  pattern: flows\n"
                                           "  flows: [[0, 1, 1MB, 0us]]\n",
                                       "mixed.yaml")
            .scenario;
    const scenario::RunResult r = scenario::run_scenario(sc);
    ASSERT_EQ(r.flows.size(), 1u);
    ASSERT_GE(r.flows[0].finish_ps, 0) << tech;
    EXPECT_GE(r.flows[0].ideal_fct_ps, 80'000'000) << tech << ": 1 MB at 100 Gb/s";
    EXPECT_GE(r.flows[0].slowdown(), 0.999) << tech;
    EXPECT_LE(r.flows[0].slowdown(), 1.02) << tech;
  }
}

TEST(FileTopology, DisconnectedFileNamesTheUnreachableNodes) {
  EXPECT_EQ(import_error("nic a\nnic b\nswitch s\nnic c\nnic d\nswitch t\n"
                         "link a s\nlink b s\nlink c t\nlink d t\n"),
            "t.topo:4: topology.file: the topology does not connect: 3 node(s) unreachable "
            "from 'a': c, d, t");
  EXPECT_EQ(import_error("6 2 4\n4 5\n0 4 100Gbps 1us 0\n1 4 100Gbps 1us 0\n"
                         "2 5 100Gbps 1us 0\n3 5 100Gbps 1us 0\n"),
            "t.topo:1: topology.file: the topology does not connect: 3 node(s) unreachable "
            "from '0': 2, 3, 5");
}

TEST(FileTopology, MalformedLinesGiveFileAndLine) {
  EXPECT_EQ(import_error("nic a\nnic b\nswitch s\nlink a s\nlink b x\n"),
            "t.topo:5: topology.file: unknown node 'x' (declare it with nic or switch first)");
  EXPECT_EQ(import_error("nic a\nnic b\nswitch s\nlink a s rate=fast\nlink b s\n"),
            "t.topo:4: topology.file: link rate: " + parse_rate_bps("fast").error);
  EXPECT_EQ(import_error("nic a\nnic b\nswitch s\nlink a s\nlink b s\nlink s a\n"),
            "t.topo:6: topology.file: duplicate link between 's' and 'a'");
  EXPECT_EQ(import_error("nic a\nnic b\nswitch s\nlink a s\nlink b s\nlink a b\n"),
            "t.topo:1: topology.file: NIC 'a' has 2 links; a NIC needs exactly 1");
  EXPECT_EQ(import_error("nic a\nnic b\nswitch s\nlink a s\n"),
            "t.topo:2: topology.file: NIC 'b' has 0 links; a NIC needs exactly 1");
  EXPECT_EQ(import_error("nic a\nrouter r\n"),
            "t.topo:2: topology.file: unknown statement 'router'; expected nic, switch or link");
  EXPECT_EQ(import_error("3 1 2\n2\n0 2 100Gbps 1us 0\n1 7 100Gbps 1us 0\n"),
            "t.topo:4: topology.file: unknown node id 7 (the header declares nodes 0..2)");
  EXPECT_EQ(import_error("3 1 2\n2\n0 2 100Gbps 1us 0\n1 2 100Gbps\n0 0\n"),
            "t.topo:4: topology.file: a link line is 'src dst rate delay error_rate', like "
            "'0 16 100Gbps 0.001ms 0'");
  EXPECT_EQ(import_error("3 1 2\n2\n0 2 100Gbps 1us 0\n"),
            "t.topo:3: topology.file: file ends before the 2 links the header declares");
  EXPECT_EQ(import_error("99999999 1 2\n2\n0 2 100Gbps 1us 0\n1 2 100Gbps 1us 0\n"),
            "t.topo:1: topology.file: 99999999 nodes cannot be connected by 2 links");
  EXPECT_EQ(import_error("3 1 2\n2\n0 2 100Gbps 1us 0\n1 2 100Gbps 1us 1.5\n"),
            "t.topo:4: topology.file: loss rate must be a number in [0, 1), got '1.5'");
}

// The loader: a relative topology.file is beside the scenario; hosts.count comes from the file
// and writing it (or another shape key) is an error at its line.
TEST(FileTopology, LoaderResolvesTheFileAndRefusesShapeKeys) {
  const std::string path = kData + "hpcc_topology.txt";
  const auto loaded =
      scenario::load_scenario_string("topology: {kind: file, file: hpcc_topology.txt}\n"
                                     "hosts: {nics_per_host: 5}\n",
                                     kData + "s.yaml");
  EXPECT_EQ(loaded.scenario.topology.file, path);
  EXPECT_EQ(loaded.scenario.topology.hosts, 13) << "65 NICs / 5 per host";
  try {
    scenario::load_scenario_string("topology: {kind: file, file: /dev/zero}\n", "s.yaml");
    ADD_FAILURE() << "/dev/zero accepted";
  } catch (const scenario::LoadError& e) {
    EXPECT_EQ(e.where().str() + ": " + e.key_path() + ": " + e.message(),
              "/dev/zero: topology.file: not a regular file");
  }
  try {
    scenario::load_scenario_string("topology: {kind: file, file: " + path + "}\n"
                                   "hosts: {count: 4}\n",
                                   "s.yaml");
    ADD_FAILURE() << "hosts.count accepted";
  } catch (const scenario::LoadError& e) {
    EXPECT_NE(std::string(e.what()).find("s.yaml:2: hosts.count: unused with topology.kind: file"),
              std::string::npos)
        << e.what();
  }
}

// Poisson's workload.load is a share of fabric.link.rate; on a file whose NICs are cabled at
// another rate (hpcc_topology.txt: 100 Gb/s, line 3 its first cable, against the 400 Gb/s
// default) the offered load would not be the one written, so the loader refuses it at the
// load's line and names the cable; at the file's rate it loads.
TEST(FileTopology, PoissonLoadNeedsTheHostsRateAsTheLinkRate) {
  const std::string path = kData + "hpcc_topology.txt";
  const std::string poisson =
      "workload: {kind: pattern, pattern: poisson, load: 0.3, duration: 1ms}\n";
  try {
    scenario::load_scenario_string("fabric: {link: {rate: 400Gbps}}\ntopology: {kind: file, "
                                   "file: " + path + "}\n" + poisson, "s.yaml");
    ADD_FAILURE() << "a Poisson load at another rate than the hosts' accepted";
  } catch (const scenario::LoadError& e) {
    EXPECT_EQ(std::string(e.what()),
              "s.yaml:3: workload.load: is a share of fabric.link.rate (400Gbps), but " + path +
                  ":3 cables a NIC at 100Gbps: set fabric.link.rate to the hosts' link rate");
  }
  const auto loaded = scenario::load_scenario_string(
      "fabric: {link: {rate: 100Gbps}}\ntopology: {kind: file, file: " + path + "}\n" + poisson,
      "s.yaml");
  EXPECT_EQ(loaded.scenario.link.rate_bps, 100'000'000'000);
}

}  // namespace file_topology_test
}  // namespace fabricsim::topo
