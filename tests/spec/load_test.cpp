// The scenario loader: the schema maps onto the config structs, and every class of bad input
// produces exactly one line `FILE:LINE: key.path: message` (spec/load.h).
#include "spec/load.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace fabricsim::scenario {
namespace load_test {

// The brief's example scenario, every key written.
constexpr const char* kFullScenario = R"(name: default
seed: 7
fabric:
  technology: roce
  link: {rate: 400Gbps, cable: 3m}
  switch: {latency: 450ns, buffer: 64MiB, dt_alpha: 1.0, forwarding: cut_through}
  nic: {profile: connectx-7, ack_every: 1}
  roce: {mtu: 4096B, ack_timeout_exponent: 20, vlan: false, data_priority: 3, cnp_priority: 6}
topology: {kind: fat_tree, tiers: 2, radix: 16, oversubscription: 1}
hosts: {count: 128, nics_per_host: 1}
routing: {ecmp: {hash: crc32, seed: per_switch}}
workload:
  kind: collective
  op: all_reduce
  algorithm: ring
  size: 64MiB
  slice: 512KiB
stop_time: 0s
outputs: {dir: out/default}
)";

LoadedScenario load(const std::string& yaml, const std::vector<std::string>& sets = {}) {
  return load_scenario_string(yaml, "s.yaml", sets);
}

// The loader's one line for bad input, or "(loaded)" when it accepted it.
std::string error_of(const std::string& yaml, const std::vector<std::string>& sets = {}) {
  try {
    load(yaml, sets);
  } catch (const LoadError& e) {
    return e.what();
  }
  return "(loaded)";
}

TEST(LoadScenario, FullExampleMapsOntoStructs) {
  const Scenario s = load(kFullScenario).scenario;
  EXPECT_EQ(s.name, "default") << "name";
  EXPECT_EQ(s.seed, 7u) << "seed";
  EXPECT_EQ(s.link.rate_bps, 400'000'000'000) << "fabric.link.rate";
  EXPECT_DOUBLE_EQ(s.link.cable_m, 3.0) << "fabric.link.cable";
  EXPECT_EQ(s.switch_config.latency_ps, 450'000) << "fabric.switch.latency";
  EXPECT_EQ(s.switch_config.buffer_bytes, 64ll << 20) << "fabric.switch.buffer";
  EXPECT_EQ(s.roce.mtu_bytes, 4096) << "fabric.roce.mtu";
  EXPECT_EQ(s.roce.ack_timeout_exponent, 20) << "fabric.roce.ack_timeout_exponent";
  EXPECT_EQ(s.roce.ack_every, 1) << "fabric.nic.ack_every";
  EXPECT_EQ(s.nic_spec.profile, "connectx-7") << "fabric.nic.profile";
  EXPECT_EQ(s.roce.cnp_priority, 6) << "fabric.roce.cnp_priority";
  EXPECT_EQ(s.topology.radix, 16) << "topology.radix";
  EXPECT_EQ(s.topology.hosts, 128) << "hosts.count fills TopologySpec::hosts";
  EXPECT_EQ(s.workload.kind, workload::WorkloadKind::kCollective) << "workload.kind";
  EXPECT_EQ(s.workload.slice_bytes, 512 << 10) << "workload.slice";
  EXPECT_EQ(s.output_dir, "out/default") << "outputs.dir";
}

TEST(LoadScenario, NonDefaultValuesReachTheirFields) {
  const Scenario s = load(
                         "fabric:\n"
                         "  link: {rate: 25.78125Gbps, cable: 50cm}\n"
                         "  switch: {forwarding: store_and_forward, dt_alpha: 0.5}\n"
                         "  roce: {vlan: true, mtu: 1024B}\n"
                         "topology: {kind: leaf_spine, radix: 8, oversubscription: 3}\n"
                         "hosts: {count: 16, nics_per_host: 2}\n"
                         "routing: {ecmp: {hash: xor_fold, seed: same, base_seed: 99}}\n"
                         "workload:\n"
                         "  kind: pattern\n"
                         "  pattern: poisson\n"
                         "  load: 0.3\n"
                         "  duration: 1ms\n"
                         "  size_cdf: [[1KB, 0.5], [1MB, 1.0]]\n"
                         "stop_time: 2ms\n")
                         .scenario;
  EXPECT_EQ(s.link.rate_bps, 25'781'250'000) << "EDR lane rate must be exact";
  EXPECT_DOUBLE_EQ(s.link.cable_m, 0.5) << "50cm";
  EXPECT_EQ(s.switch_config.forwarding, net::Forwarding::kStoreAndForward) << "forwarding enum";
  EXPECT_TRUE(s.roce.vlan_tag) << "fabric.roce.vlan fills vlan_tag";
  EXPECT_EQ(s.topology.tiers, 2) << "leaf_spine means two tiers";
  EXPECT_EQ(s.ecmp.hash, routing::EcmpHash::kXorFold) << "routing.ecmp.hash";
  EXPECT_EQ(s.ecmp.seed_mode, routing::EcmpSeedMode::kSame) << "routing.ecmp.seed";
  EXPECT_EQ(s.ecmp.seed, 99u) << "routing.ecmp.base_seed";
  EXPECT_EQ(s.workload.pattern, workload::PatternKind::kPoisson) << "workload.pattern";
  ASSERT_EQ(s.workload.size_cdf.size(), 2u) << "two CDF points";
  EXPECT_EQ(s.workload.size_cdf[1].size_bytes, 1'000'000) << "CDF sizes take units";
  EXPECT_EQ(s.stop_time_ps, 2'000'000'000) << "stop_time";
}

TEST(LoadScenario, AbsentKeysKeepStructDefaults) {
  const Scenario s = load("name: tiny\n").scenario;
  const Scenario d;
  EXPECT_EQ(s.link.rate_bps, d.link.rate_bps) << "defaults come from the member initialisers";
  EXPECT_EQ(s.workload.size_bytes, d.workload.size_bytes) << "defaults for the workload";
  EXPECT_EQ(s.seed, d.seed) << "seed default";
  EXPECT_EQ(load("fabric:\n  nic:\n").scenario.nic_spec.profile, "connectx-7")
      << "an empty group is fine";
}

TEST(LoadErrors, MalformedYaml) {
  EXPECT_EQ(error_of("name: x\nfabric: {link: [\n"),
            "s.yaml:3: (yaml): end of sequence flow not found")
      << "yaml-cpp's message at its 1-based line";
  EXPECT_EQ(error_of("name: x\n  seed: 3\n"), "s.yaml:2: (yaml): illegal map value")
      << "bad indentation";
}

TEST(LoadErrors, UnknownKeys) {
  EXPECT_EQ(error_of("name: x\nrat: 1\n"),
            "s.yaml:2: rat: unknown key 'rat'; allowed: name, seed, mode, hybrid, flow, fabric, topology, hosts, "
            "routing, workload, jobs, scaling, jobs_alone, stop_time, threads, outputs, faults, node, training, collective, cost, variants")
      << "unknown top-level key lists the top-level keys";
  EXPECT_EQ(error_of("fabric:\n  link:\n    rat: 400Gbps\n"),
            "s.yaml:3: fabric.link.rat: unknown key 'rat'; did you mean 'rate'? allowed: rate, "
            "cable, loss_rate")
      << "unknown nested key lists its siblings";
  EXPECT_EQ(error_of("fabric: {link: {rate: 1Gbps, colour: red}}\n"),
            "s.yaml:1: fabric.link.colour: unknown key 'colour'; allowed: rate, cable, loss_rate")
      << "flow style is checked the same way";
}

TEST(LoadScenario, RatesAsFabricsimPrintsThem) {
  // 400 Gb/s = 400 x 10^9 bit/s; 1.6 Tb/s = 1.6 x 10^12 bit/s.
  EXPECT_EQ(load("fabric: {link: {rate: 400 Gb/s}}\n").scenario.link.rate_bps, 400'000'000'000)
      << "the fabric description's spelling";
  EXPECT_EQ(load("fabric:\n  link:\n    rate: 1.6 Tb/s\n").scenario.link.rate_bps,
            1'600'000'000'000);
  EXPECT_EQ(load("name: x\n", {"fabric.link.rate=100Gb/s"}).scenario.link.rate_bps,
            100'000'000'000)
      << "--set reads the same spellings";
  EXPECT_EQ(error_of("fabric: {link: {rate: 50GB/s}}\n"),
            "s.yaml:1: fabric.link.rate: unknown unit 'GB/s' in '50GB/s'; rates are in bits per "
            "second (bps, Gbps, Gb/s ...), not bytes: 1 GB/s = 8 Gb/s")
      << "a byte rate is one clear line";
}

TEST(LoadErrors, MissingUnit) {
  EXPECT_EQ(error_of("fabric:\n  link: {rate: 400}\n"),
            "s.yaml:2: fabric.link.rate: missing unit in '400'; expected a rate like 400Gbps")
      << "a rate without unit";
  EXPECT_EQ(error_of("stop_time: 5\n"),
            "s.yaml:1: stop_time: missing unit in '5'; expected a time like 1.5us")
      << "a time without unit";
}

TEST(LoadErrors, ImpossibleValues) {
  EXPECT_EQ(error_of("fabric: {link: {rate: 0Gbps}}\n"), "s.yaml:1: fabric.link.rate: must be between 1Mbps and 100Tbps")
      << "zero rate";
  EXPECT_EQ(error_of("hosts:\n  count: 1\n"),
            "s.yaml:2: hosts.count: must be >= 2 without GPUs (a fabric joins at least 2 hosts); "
            "one host alone needs node.gpus_per_node")
      << "one host has nobody to talk to";
  EXPECT_EQ(error_of("hosts: {nics_per_host: 0}\n"), "s.yaml:1: hosts.nics_per_host: must be between 1 and 64")
      << "a host without a NIC";
  EXPECT_EQ(error_of("fabric: {nic: {ack_every: 0}}\n"),
            "s.yaml:1: fabric.nic.ack_every: must be >= 1")
      << "ack_every 0";
  EXPECT_EQ(error_of("fabric: {roce: {ack_every: 1}}\n"),
            "s.yaml:1: fabric.roce.ack_every: moved to fabric.nic.ack_every (ACK coalescing is the "
            "NIC's, the same on both fabrics)")
      << "a retired key names its replacement";
  EXPECT_EQ(error_of("fabric:\n  ib:\n    ack_every: 64\n"),
            "s.yaml:3: fabric.ib.ack_every: moved to fabric.nic.ack_every (ACK coalescing is the "
            "NIC's, the same on both fabrics)")
      << "the IB one too";
  EXPECT_EQ(error_of("fabric: {nic: {latency: 1us}}\n"),
            "s.yaml:1: fabric.nic.latency: replaced by fabric.nic.tx_latency and "
            "fabric.nic.rx_latency (set both to the old value; fabric.nic.profile zero removes "
            "every other NIC/host latency)")
      << "the old per-packet NIC latency";
  EXPECT_EQ(error_of("fabric: {nic: {profile: connectx-9}}\n").substr(0, 38),
            "s.yaml:1: fabric.nic.profile: must be ")
      << "an unknown profile";
  EXPECT_EQ(error_of("fabric: {roce: {ack_timeout_exponent: 32}}\n"),
            "s.yaml:1: fabric.roce.ack_timeout_exponent: must be between 0 and 31")
      << "IBTA exponent is 5 bits";
  EXPECT_EQ(error_of("fabric: {roce: {data_priority: 8}}\n"),
            "s.yaml:1: fabric.roce.data_priority: must be between 0 and 7")
      << "eight priorities";
  EXPECT_EQ(error_of("fabric: {switch: {dt_alpha: 0}}\n"),
            "s.yaml:1: fabric.switch.dt_alpha: must be > 0")
      << "alpha 0 admits nothing";
  EXPECT_EQ(error_of("fabric: {roce: {mtu: 8000B}}\n"),
            "s.yaml:1: fabric.roce.mtu: must be between 256B and 4KiB")
      << "RoCE/IB path MTUs stop at 4096 bytes";
  EXPECT_EQ(error_of("topology: {radix: 5}\n"), "s.yaml:1: topology.radix: must be even")
      << "odd radix";
  EXPECT_EQ(error_of("topology: {tiers: 4}\n"), "s.yaml:1: topology.tiers: must be one of: 2, 3")
      << "tiers";
  EXPECT_EQ(error_of("fabric: {link: {cable: -1m}}\n"),
            "s.yaml:1: fabric.link.cable: negative value '-1m' is not allowed")
      << "negative cable";
  EXPECT_EQ(error_of("seed: -1\n"), "s.yaml:1: seed: must be >= 0") << "negative seed";
  EXPECT_EQ(error_of("fabric: {roce: {vlan: maybe}}\n"),
            "s.yaml:1: fabric.roce.vlan: must be true or false")
      << "bool";
  EXPECT_EQ(error_of("fabric:\n  link:\n    rate:\n"),
            "s.yaml:3: fabric.link.rate: missing value; expected a rate like 400Gbps")
      << "a key without a value";
}

TEST(LoadErrors, WrongEnum) {
  EXPECT_EQ(error_of("routing:\n  ecmp:\n    hash: crc\n"),
            "s.yaml:3: routing.ecmp.hash: must be one of: crc32, xor_fold")
      << "the brief's example message";
  EXPECT_EQ(error_of("fabric: {technology: sctp}\n"),
            "s.yaml:1: fabric.technology: must be one of: roce, ib, uet, tcp, iwarp")
      << "SCTP is not modelled (and 2 edits from tcp, over the limit of 1 for 4 letters)";
}

TEST(LoadErrors, KeyOnlyValidForAnotherKind) {
  EXPECT_EQ(error_of("workload:\n  kind: pattern\n  pattern: permutation\n  senders: 16\n"),
            "s.yaml:4: workload.senders: only valid with pattern: incast")
      << "incast key under permutation";
  EXPECT_EQ(error_of("workload:\n  size: 1MiB\n  pattern: incast\n"),
            "s.yaml:3: workload.pattern: only valid with kind: pattern")
      << "pattern key under the default collective kind";
  EXPECT_EQ(error_of("workload:\n  kind: pattern\n  slice: 1MiB\n"),
            "s.yaml:3: workload.slice: only valid with kind: collective")
      << "collective key under a pattern";
  EXPECT_EQ(error_of("workload: {load: 0.5}\n"),
            "s.yaml:1: workload.load: only valid with kind: pattern, pattern: poisson")
      << "both conditions fail";
}

TEST(LoadErrors, CrossFieldChecks) {
  EXPECT_EQ(
      error_of("hosts: {count: 8}\nworkload: {kind: pattern, pattern: incast, receiver: 8}\n"),
      "s.yaml:2: workload.receiver: must be < 8, the number of NICs")
      << "receiver index out of range";
  EXPECT_EQ(error_of("hosts: {count: 8}\nworkload:\n  kind: pattern\n  pattern: incast\n"),
            "s.yaml:2: workload.senders: must be < 8, the number of NICs, since the receiver does "
            "not send (the default is 16)")
      << "a default that does not fit points at the group and says it is the default";
  EXPECT_EQ(error_of("topology:\n  kind: leaf_spine\n  tiers: 3\n"),
            "s.yaml:3: topology.tiers: must be 2 with kind: leaf_spine (use kind: fat_tree for 3 "
            "tiers)")
      << "leaf_spine contradicts 3 tiers";
  EXPECT_EQ(error_of("workload: {kind: pattern, pattern: poisson}\n"),
            "s.yaml:1: workload.duration: required with pattern: poisson, e.g. duration: 1ms")
      << "poisson needs a duration";
  EXPECT_EQ(error_of("workload:\n  kind: pattern\n  pattern: poisson\n  duration: 1ms\n"
                     "  size_cdf:\n    - [1MB, 0.5]\n    - [1KB, 1.0]\n"),
            "s.yaml:7: workload.size_cdf[1]: sizes must increase: 1KB after 1MB")
      << "CDF points are located by their own line";
  EXPECT_EQ(error_of("workload: {kind: pattern, pattern: poisson, duration: 1ms, "
                     "size_cdf: [[1KB, 0.5]]}\n"),
            "s.yaml:1: workload.size_cdf[0]: the last cumulative probability must be 1")
      << "a CDF must reach 1";
}

TEST(LoadErrors, StructureProblems) {
  EXPECT_EQ(error_of("name: a\nname: b\n"), "s.yaml:2: name: duplicate key 'name'")
      << "yaml-cpp keeps duplicates; the loader must not pick one silently";
  EXPECT_EQ(error_of(""),
            "s.yaml:1: (root): empty scenario; expected keys such as name, seed, mode, hybrid, flow, "
            "fabric, topology, hosts, routing, workload, jobs, scaling, jobs_alone, stop_time, threads, outputs, faults, node, training, collective, cost, variants")
      << "empty file";
  EXPECT_EQ(error_of("- a\n- b\n"), "s.yaml:1: (root): expected a mapping of keys, got a list")
      << "a list at the top";
  EXPECT_EQ(error_of("fabric: roce\n"),
            "s.yaml:1: fabric: expected a mapping with keys: technology, link, switch, trim, nic, "
            "roce, pfc, ecn, ib, transport, uet, tcp, planes, sharp, got 'roce'")
      << "a scalar where a group belongs";
}

TEST(SetOverrides, ApplyBeforeValidation) {
  const LoadedScenario l =
      load(kFullScenario, {"fabric.link.rate=100Gbps", "fabric.nic.tx_latency=1us", "seed=9"});
  EXPECT_EQ(l.scenario.link.rate_bps, 100'000'000'000) << "overrides the file's value";
  EXPECT_EQ(l.scenario.nic_spec.tx_latency_ps, 1'000'000) << "overrides inside a flow map";
  EXPECT_EQ(l.scenario.seed, 9u) << "top-level key";
  EXPECT_EQ(l.locate("fabric.link.rate").str(), "--set:1") << "overridden keys locate to --set:N";
  EXPECT_EQ(load(kFullScenario, {"outputs.dir="}).scenario.output_dir, "")
      << "an empty string value clears outputs.dir";
  EXPECT_EQ(load("name: x\n", {"routing.ecmp.hash=xor_fold"}).scenario.ecmp.hash,
            routing::EcmpHash::kXorFold)
      << "groups missing from the file are created";
}

TEST(SetOverrides, Errors) {
  EXPECT_EQ(error_of(kFullScenario, {"seed=1", "fabric.link.rat=1Gbps"}),
            "--set:2: fabric.link.rat: unknown key 'rat'; did you mean 'rate'? allowed: rate, "
            "cable, loss_rate")
      << "unknown path in the second override";
  EXPECT_EQ(error_of(kFullScenario, {"fabric.link.rate=400"}),
            "--set:1: fabric.link.rate: missing unit in '400'; expected a rate like 400Gbps")
      << "override values are validated like the file's";
  EXPECT_EQ(error_of(kFullScenario, {"fabric.link=1"}),
            "--set:1: fabric.link: is a group of keys; set one of: rate, cable, loss_rate")
      << "only leaves can be overridden";
  EXPECT_EQ(error_of(kFullScenario, {"fabric.link.rate.x=1"}),
            "--set:1: fabric.link.rate.x: unknown key 'x'; fabric.link.rate has no sub-keys")
      << "a path through a leaf";
  EXPECT_EQ(error_of(kFullScenario, {"seed"}),
            "--set:1: (set): expected key.path=value, got 'seed'")
      << "no '='";
  EXPECT_EQ(error_of(kFullScenario, {"workload.senders=4"}),
            "--set:1: workload.senders: only valid with kind: pattern, pattern: incast")
      << "kind conditions apply to overrides";
}

TEST(LoadFile, MissingFileAndRealFile) {
  try {
    load_scenario("/nonexistent/dir/s.yaml");
    ADD_FAILURE() << "a missing file must throw";
  } catch (const LoadError& e) {
    EXPECT_EQ(std::string(e.what()),
              "/nonexistent/dir/s.yaml: (file): cannot open: No such file or directory")
        << "one line naming the file";
  }
  const auto path = std::filesystem::temp_directory_path() / "fabricsim_load_test.yaml";
  std::ofstream(path) << "name: on-disk\nhosts: {count: 0}\n";
  try {
    load_scenario_file(path.string());
    ADD_FAILURE() << "hosts.count 0 must throw";
  } catch (const LoadError& e) {
    EXPECT_EQ(std::string(e.what()), path.string() + ":2: hosts.count: must be between 1 and 16777216")
        << "the real path is the FILE part";
  }
  std::filesystem::remove(path);
}

TEST(Locate, NearestWrittenAncestor) {
  const LoadedScenario l = load("name: x\ntopology:\n  radix: 8\nhosts: {count: 16}\n");
  EXPECT_EQ(l.locate("topology.radix").str(), "s.yaml:3") << "a written leaf";
  EXPECT_EQ(l.locate("topology.tiers").str(), "s.yaml:2") << "an unwritten leaf: its group";
  EXPECT_EQ(l.locate("workload.size").str(), "s.yaml") << "nothing written: the file alone";
  const InputError e("hosts.count", "too many hosts for radix 8");
  EXPECT_EQ(format_input_error(l, e), "s.yaml:4: hosts.count: too many hosts for radix 8")
      << "engine errors get the loader's line";
  EXPECT_EQ(format_error_line({"f", 1}, "k", "two\nlines"), "f:1: k: two lines")
      << "a message never spans lines";
}

}  // namespace load_test
}  // namespace fabricsim::scenario
