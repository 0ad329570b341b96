// Loader rules specific to GPU scenarios: one NIC per GPU unless hosts.nics_per_host says
// otherwise, jobs: carry their own workload and training, scaling.nodes and a relative
// training.file.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "core/error.h"
#include "resolve/resolve.h"
#include "spec/load.h"
#include "preflight/resources.h"
#include "engine/run.h"

namespace fabricsim::scenario {
namespace gpu_keys_test {

std::string load_error(const std::string& yaml) {
  try {
    const LoadedScenario l = load_scenario_string(yaml, "g.yaml");
    try {
      (void)resolve(l.scenario);
    } catch (const InputError& e) {
      return format_input_error(l, e);
    }
  } catch (const LoadError& e) {
    return e.what();
  }
  return "";
}

TEST(GpuKeys, AGpuNodeGetsOneNicPerGpuUnlessTold) {
  const Scenario a = load_scenario_string("name: x\nnode: {gpus_per_node: 8}\n", "g.yaml").scenario;
  EXPECT_EQ(a.topology.nics_per_host, 8) << "DGX H100: 8 ConnectX-7 for 8 GPUs";
  const Scenario b = load_scenario_string(
                         "name: x\nnode: {gpus_per_node: 8}\nhosts: {nics_per_host: 2}\n", "g.yaml")
                         .scenario;
  EXPECT_EQ(b.topology.nics_per_host, 2) << "an explicit 1:4 ratio is kept";
  const Scenario c = load_scenario_string("name: x\n", "g.yaml").scenario;
  EXPECT_EQ(c.topology.nics_per_host, 1) << "without GPUs a host has one NIC";
}

// Issue 23 item 6: hosts.count: 1 with GPUs is one node's GPUs, run as scaling.nodes runs one
// node: a one-node job (the file's workload and training) on a two-host fabric.
TEST(GpuKeys, OneHostWithGpusIsAOneNodeJob) {
  const Scenario s = load_scenario_string(
                         "name: x\nhosts: {count: 1}\nnode: {gpus_per_node: 8}\n"
                         "workload: {kind: collective, op: all_gather, size: 2MiB}\n",
                         "g.yaml")
                         .scenario;
  ASSERT_EQ(s.jobs.size(), 1u);
  EXPECT_EQ(s.jobs[0].nodes, 1) << "one node";
  EXPECT_EQ(s.jobs[0].workload.op, workload::CollOp::kAllGather) << "the file's workload";
  EXPECT_EQ(s.jobs[0].workload.size_bytes, 2 << 20);
  EXPECT_EQ(s.topology.hosts, 2) << "every topology builder joins at least two hosts";
  EXPECT_EQ(load_error("name: x\nhosts: {count: 1}\nnode: {gpus_per_node: 8}\n"
                       "workload: {kind: collective, size: 2MiB}\n"),
            "")
      << "it resolves";
  EXPECT_EQ(load_error("name: x\nhosts: {count: 1}\nnode: {gpus_per_node: 8}\njobs:\n"
                       "  - {name: a, nodes: 1, workload: {kind: collective}}\n"),
            "g.yaml:2: hosts.count: must be >= 2 with jobs: (each job takes whole nodes of the "
            "fabric)");
  EXPECT_EQ(load_error("name: x\nhosts: {count: 1}\n"),
            "g.yaml:2: hosts.count: must be >= 2 without GPUs (a fabric joins at least 2 hosts); "
            "one host alone needs node.gpus_per_node");
  const Scenario two = load_scenario_string("name: x\nnode: {gpus_per_node: 8}\n", "g.yaml").scenario;
  EXPECT_TRUE(two.jobs.empty()) << "hosts.count left at its default is not a single node";
}

TEST(GpuKeys, JobsCarryTheirOwnWorkload) {
  EXPECT_EQ(load_error("name: x\nnode: {gpus_per_node: 8}\ntraining: {layers: 2}\njobs:\n"
                       "  - {name: a, nodes: 1, workload: {kind: collective, size: 1MiB}}\n"),
            "g.yaml:3: training.layers: with jobs:, write workload: and training: inside each "
            "job (this one would be unused)");
  EXPECT_EQ(load_error("name: x\njobs:\n  - {name: a, nodes: 1, workload: {kind: collective}}\n"),
            "g.yaml:2: jobs: jobs run on GPUs: set node.gpus_per_node");
  EXPECT_EQ(load_error("name: x\nnode: {gpus_per_node: 8}\njobs:\n  - {name: a, workload: {}}\n"),
            "g.yaml:4: jobs[0].nodes: missing: how many nodes the job runs on");
  EXPECT_EQ(load_error("name: x\nnode: {gpus_per_node: 8}\njobs:\n"
                       "  - {name: a, nodes: 1, workload: {sizes: 1}}\n"),
            "g.yaml:4: jobs[0].workload.sizes: unknown key 'sizes'; did you mean 'size'? "
            "allowed: kind, op, algorithm, "
            "protocol, channels, root, size, max_size, step_factor, data_type, slice, pattern, "
            "flow_size, senders, receiver, load, duration, size_cdf, size_distribution, flows, ping_pong, "
            "group_size");
}

TEST(GpuKeys, ScalingNodesMustIncreaseAndFit) {
  EXPECT_EQ(load_error("name: x\nnode: {gpus_per_node: 8}\nhosts: {count: 4}\n"
                       "scaling: {nodes: [2, 1]}\n"),
            "g.yaml:4: scaling.nodes: node counts must increase, got 1 after 2");
  EXPECT_EQ(load_error("name: x\nnode: {gpus_per_node: 8}\nhosts: {count: 4}\n"
                       "scaling: {nodes: [1, 8]}\n"),
            "g.yaml:4: scaling.nodes: 8 nodes exceed hosts.count (4), which sizes the memory "
            "pre-flight: set hosts.count to the largest");
}

TEST(GpuKeys, ARelativeTrainingFileIsBesideTheScenario) {
  const Scenario s = load_scenario_string(
                         "name: x\nworkload: {kind: training}\n"
                         "training: {source: astra, file: w/resnet.txt}\n",
                         "/some/dir/g.yaml")
                         .scenario;
  EXPECT_EQ(s.training.file, "/some/dir/w/resnet.txt");
}

}  // namespace gpu_keys_test
}  // namespace fabricsim::scenario

namespace fabricsim::scenario {
namespace gpu_keys_test {

// A generated step too large to build is estimated without building its DAG (which would
// itself take GBs): from the same step at 1 and 2 micro-batches (preflight/resources_gpu.cpp),
// so the estimate arrives quickly, counts the whole step and names the training key.
TEST(GpuKeys, AHugeTrainingStepIsEstimatedWithoutBuildingIt) {
  const Scenario s = load_scenario_string(
                         "name: big\ntopology: {kind: rail, radix: 32}\nhosts: {count: 16}\n"
                         "node: {gpus_per_node: 8}\nworkload: {kind: training}\n"
                         "training: {layers: 96, micro_batches: 1000, tp: 8}\n",
                         "big.yaml")
                         .scenario;
  (void)resolve(s);
  const ResourceEstimate e = estimate_resources(s);
  // Its compute ops alone: 128 GPUs x 96 layers x 1000 micro-batches x 10 (2 forward, 8
  // backward: workload/transformer.cpp) = 122.9 M, each at least its DagOp (32 B) and the
  // engine's start and end times (16 B): above 5.4 GiB. The generator's upper bound (18 ops per
  // layer, each also counted as a collective) gave over 100 GiB; the line through the two small
  // steps counts the ops there are, ~104 B each with their dependencies: under 20 GiB.
  EXPECT_GT(e.peak_bytes(), int64_t{128} * 96 * 1000 * 10 * 48) << "the step's compute ops";
  EXPECT_LT(e.peak_bytes(), int64_t{20} << 30) << "counted, not the generator's upper bound";
  // The part names its section; the keys that size it (a refusal names those the file sets,
  // cli/commands.cpp) include the micro-batches and the layers.
  EXPECT_EQ(e.largest().key, "training");
  const std::vector<std::string>& drivers = e.largest().drivers;
  EXPECT_NE(std::find(drivers.begin(), drivers.end(), "training.micro_batches"), drivers.end());
  EXPECT_NE(std::find(drivers.begin(), drivers.end(), "training.layers"), drivers.end());
}

}  // namespace gpu_keys_test
}  // namespace fabricsim::scenario
