// trace.json (output/chrome_trace.h, workload/trace_recorder.h; docs/trace.md): the file is the
// Chrome trace-event JSON object form, with the structure Perfetto's importer needs, and its
// spans carry independently known quantities: a ring all-reduce of N ranks and S bytes has
// 2(N-1) steps per rank and each rank sends 2(N-1)/N x S bytes; a training step's compute spans
// add up to the DAG's compute durations; a flow's span lasts its FCT.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "output/chrome_trace.h"
#include "output/write.h"
#include "spec/load.h"
#include "preflight/resources.h"
#include "engine/run.h"
#include "workload/transformer.h"

namespace fabricsim {
namespace chrome_trace_test {

using nlohmann::json;

scenario::RunResult run_yaml(const std::string& yaml) {
  return scenario::run_scenario(scenario::load_scenario_string(yaml, "test.yaml").scenario);
}

// Microseconds as written (exact decimals down to 1 ps) back to integer picoseconds.
int64_t us_to_ps(const json& v) { return std::llround(v.get<double>() * 1e6); }

// What Perfetto's JSON importer needs of a file, checked on the parsed file: an object with a
// traceEvents array; X events with string name/cat/ph, numeric ts/dur >= 0 and integer pid/tid
// (Perfetto keeps pids and tids as integers, google/perfetto#935), pid 0 avoided
// (google/perfetto#394); process_name/thread_name metadata for every pid and (pid, tid) used;
// and the slices of one thread properly nested (here: never overlapping at all).
void check_structure(const json& j) {
  ASSERT_TRUE(j.is_object());
  ASSERT_TRUE(j.contains("traceEvents") && j["traceEvents"].is_array());
  EXPECT_EQ(j["displayTimeUnit"], "ns");
  std::set<int64_t> named_pids;
  std::set<std::pair<int64_t, int64_t>> named_tids;
  std::map<std::pair<int64_t, int64_t>, std::vector<std::pair<int64_t, int64_t>>> tracks;
  for (const json& e : j["traceEvents"]) {
    ASSERT_TRUE(e.contains("ph") && e["ph"].is_string());
    ASSERT_TRUE(e["pid"].is_number_integer() && e["tid"].is_number_integer()) << e.dump();
    const int64_t pid = e["pid"], tid = e["tid"];
    EXPECT_GT(pid, 0);
    if (e["ph"] == "M") {
      if (e["name"] == "process_name") named_pids.insert(pid);
      if (e["name"] == "thread_name") named_tids.insert({pid, tid});
      // at(): a const json's operator[] on a missing key is undefined (an assertion in a
      // debug build).
      const json& args = e.at("args");
      ASSERT_TRUE((args.contains("name") && args.at("name").is_string()) ||
                  args.contains("sort_index"))
          << e.dump();
      continue;
    }
    ASSERT_EQ(e["ph"], "X") << e.dump();
    for (const char* k : {"name", "cat", "ph", "ts", "dur", "pid", "tid", "args"}) {
      ASSERT_TRUE(e.contains(k)) << k << " missing: " << e.dump();
    }
    ASSERT_TRUE(e["name"].is_string() && e["cat"].is_string());
    ASSERT_TRUE(e["ts"].is_number() && e["dur"].is_number());
    EXPECT_GE(e["ts"].get<double>(), 0.0);
    EXPECT_GE(e["dur"].get<double>(), 0.0);
    const std::string cat = e["cat"];
    EXPECT_TRUE(cat == "collective" || cat == "step" || cat == "compute" || cat == "send" ||
                cat == "recv" || cat == "flow")
        << cat;
    const int64_t ts = us_to_ps(e["ts"]);
    tracks[{pid, tid}].push_back({ts, ts + us_to_ps(e["dur"])});
  }
  for (auto& [key, spans] : tracks) {
    EXPECT_TRUE(named_pids.count(key.first)) << "pid " << key.first << " has no process_name";
    EXPECT_TRUE(named_tids.count(key)) << "tid " << key.second << " has no thread_name";
    std::sort(spans.begin(), spans.end());
    for (size_t i = 1; i < spans.size(); ++i) {
      EXPECT_LE(spans[i - 1].second, spans[i].first)
          << "overlapping spans on pid " << key.first << " tid " << key.second;
    }
  }
}

std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(ChromeTrace, MicrosecondsAreExactFromIntegerPicoseconds) {
  EXPECT_EQ(output::ps_to_us_text(0), "0");
  EXPECT_EQ(output::ps_to_us_text(1), "0.000001");
  EXPECT_EQ(output::ps_to_us_text(12345678), "12.345678");
  EXPECT_EQ(output::ps_to_us_text(1500000), "1.5");
  EXPECT_EQ(output::ps_to_us_text(7000000), "7");
  // 2^63 - 1 ps: a double would lose the last digits (53-bit mantissa).
  EXPECT_EQ(output::ps_to_us_text(INT64_MAX), "9223372036854.775807");
}

TEST(ChromeTrace, FlowSampleKeepsEveryKthFlow) {
  EXPECT_EQ(output::flow_sample(16, 5).stride, 4);  // ceil(16/5)
  EXPECT_EQ(output::flow_sample(16, 5).kept, 4);    // ids 0, 4, 8, 12
  EXPECT_EQ(output::flow_sample(10000, 10000).stride, 1);
  EXPECT_EQ(output::flow_sample(10000, 10000).kept, 10000);
  EXPECT_EQ(output::flow_sample(10001, 10000).stride, 2);
  EXPECT_EQ(output::flow_sample(10001, 10000).kept, 5001);
  EXPECT_EQ(output::flow_sample(0, 10).kept, 0);
}

// 2 nodes x 4 GPUs, ring all-reduce of 1 MiB: N = 8. 1 MiB splits evenly over the 16 channels
// and 8 blocks (8 KiB each), so every rank sends exactly 2(N-1)/N x S.
constexpr char kRing[] = R"(
name: ring-trace
seed: 1
fabric:
  technology: ib
  link: {rate: 400Gbps, cable: 3m}
topology: {kind: rail, radix: 16}
hosts: {count: 2, nics_per_host: 4}
node: {gpus_per_node: 4}
workload: {kind: collective, op: all_reduce, algorithm: ring, size: 1MiB}
outputs:
  trace: {enabled: true}
)";

TEST(ChromeTrace, RingAllReduceStepsAndVolumePerRank) {
  const scenario::RunResult r = run_yaml(kRing);
  ASSERT_TRUE(r.trace.enabled);
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "fabricsim-trace-ring";
  std::filesystem::remove_all(dir);
  output::write_run_files(dir, r);
  const json j = json::parse(read_file(dir / "trace.json"));
  check_structure(j);
  // nccl-tests.csv's time_us of the one size.
  std::stringstream csv(read_file(dir / "nccl-tests.csv"));
  std::string header, row;
  std::getline(csv, header);
  std::getline(csv, row);
  std::filesystem::remove_all(dir);
  ASSERT_EQ(header.substr(0, header.find(",time_us")), "size_bytes,count,type,redop,root");
  std::vector<std::string> cells;
  std::stringstream rs(row);
  for (std::string c; std::getline(rs, c, ',');) cells.push_back(c);
  const int64_t nccl_time_ps = std::llround(std::stod(cells.at(5)) * 1e6);

  constexpr int n = 8;
  constexpr int64_t size = 1 << 20;
  std::map<int64_t, std::set<int64_t>> steps;
  std::map<int64_t, int> step_spans;
  std::map<int64_t, int64_t> sent, received;
  std::map<int64_t, std::pair<int64_t, int64_t>> coll;
  int collectives = 0;
  for (const json& e : j["traceEvents"]) {
    if (e["ph"] != "X") continue;
    const int64_t rank = e["args"]["rank"];
    const std::string cat = e["cat"];
    if (cat == "collective") {
      ++collectives;
      EXPECT_EQ(e["name"], "all_reduce");
      EXPECT_EQ(e["args"]["algorithm"], "ring");
      EXPECT_EQ(e["args"]["bytes"], size);
      EXPECT_EQ(us_to_ps(e["dur"]), nccl_time_ps) << "rank " << rank;
      coll[rank] = {us_to_ps(e["ts"]), us_to_ps(e["ts"]) + us_to_ps(e["dur"])};
    } else if (cat == "step") {
      steps[rank].insert(e["args"]["step"].get<int64_t>());
      ++step_spans[rank];
    } else if (cat == "send") {
      sent[rank] += e["args"]["bytes"].get<int64_t>();
      EXPECT_NE(e["args"]["peer"], rank);
    } else if (cat == "recv") {
      received[rank] += e["args"]["bytes"].get<int64_t>();
    }
  }
  EXPECT_EQ(collectives, n) << "one collective span per rank";
  ASSERT_EQ(steps.size(), static_cast<size_t>(n));
  for (int rank = 0; rank < n; ++rank) {
    EXPECT_EQ(step_spans[rank], 2 * (n - 1)) << "rank " << rank;
    EXPECT_EQ(steps[rank].size(), static_cast<size_t>(2 * (n - 1)));
    EXPECT_EQ(*steps[rank].rbegin(), 2 * (n - 1) - 1);
    EXPECT_EQ(sent[rank], 2 * (n - 1) * size / n) << "rank " << rank;
    EXPECT_EQ(received[rank], 2 * (n - 1) * size / n) << "rank " << rank;
  }
  // Every step, send and receive of a rank lies inside its collective.
  for (const json& e : j["traceEvents"]) {
    if (e["ph"] != "X" || e["cat"] == "collective") continue;
    const auto [a, b] = coll[e["args"]["rank"].get<int64_t>()];
    EXPECT_GE(us_to_ps(e["ts"]), a);
    EXPECT_LE(us_to_ps(e["ts"]) + us_to_ps(e["dur"]), b);
  }
}

TEST(ChromeTrace, TwoRunsAreByteIdentical) {
  const std::string a = output::chrome_trace_json_text(run_yaml(kRing));
  const std::string b = output::chrome_trace_json_text(run_yaml(kRing));
  EXPECT_EQ(a, b);
  EXPECT_GT(a.size(), 1000u);
}

TEST(ChromeTrace, OffByDefaultWritesNoFile) {
  std::string yaml = kRing;
  yaml = yaml.substr(0, yaml.find("outputs:"));
  const scenario::RunResult r = run_yaml(yaml);
  EXPECT_FALSE(r.trace.enabled);
  EXPECT_TRUE(r.trace.spans.empty());
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "fabricsim-trace-off";
  std::filesystem::remove_all(dir);
  output::write_run_files(dir, r);
  EXPECT_FALSE(std::filesystem::exists(dir / "trace.json"));
  EXPECT_TRUE(std::filesystem::exists(dir / "result.json"));
  std::filesystem::remove_all(dir);
}

// One transformer layer, tensor-parallel 8 in each of 2 nodes, data-parallel 2.
constexpr char kTraining[] = R"(
name: train-trace
seed: 1
fabric:
  technology: ib
  link: {rate: 400Gbps, cable: 3m}
topology: {kind: rail, radix: 16}
hosts: {count: 2, nics_per_host: 8}
node: {gpus_per_node: 8}
workload: {kind: training}
training: {layers: 1, hidden: 1024, heads: 8, seq_length: 512, micro_batch: 1,
           micro_batches: 2, tp: 8, pp: 1, steps: 2}
outputs:
  trace: {enabled: true}
)";

TEST(ChromeTrace, TrainingComputeSpansSumToTheDagsComputePerRank) {
  const scenario::LoadedScenario loaded = scenario::load_scenario_string(kTraining, "t.yaml");
  const scenario::RunResult r = scenario::run_scenario(loaded.scenario);
  ASSERT_EQ(r.jobs.size(), 1u);
  ASSERT_GE(r.jobs[0].training.step_time_ps, 0) << "the step finished";
  // Independently: the generator's DAG, each rank's compute-op durations x steps (a rank's
  // compute stream runs its ops one at a time, each for exactly its duration).
  const uint32_t gpus = 16;
  const workload::TransformerStep step =
      workload::make_transformer_step(loaded.scenario.training.transformer, gpus);
  const int steps = loaded.scenario.training.steps;
  std::map<int64_t, int64_t> dag_compute;
  size_t compute_ops = 0;
  for (const workload::DagOp& op : step.dag.ops) {
    if (op.kind != workload::DagOp::Kind::kCompute) continue;
    dag_compute[op.rank] += op.duration_ps * steps;
    compute_ops += steps;
  }
  const json j = json::parse(output::chrome_trace_json_text(r));
  check_structure(j);
  std::map<int64_t, int64_t> traced;
  size_t compute_spans = 0, collectives = 0;
  for (const json& e : j["traceEvents"]) {
    if (e["ph"] != "X") continue;
    if (e["cat"] == "compute") {
      traced[e["args"]["rank"].get<int64_t>()] += us_to_ps(e["dur"]);
      ++compute_spans;
      EXPECT_FALSE(e["args"].contains("unfinished"));
    }
    if (e["cat"] == "collective") ++collectives;
  }
  EXPECT_EQ(compute_spans, compute_ops);
  EXPECT_GT(collectives, 0u);
  ASSERT_EQ(traced.size(), dag_compute.size());
  int64_t most = 0;
  for (const auto& [rank, ps] : dag_compute) {
    EXPECT_EQ(traced[rank], ps) << "rank " << rank;
    most = std::max(most, ps);
  }
  // The critical rank's compute is the training result's compute time (over all steps).
  EXPECT_EQ(most, r.jobs[0].training.compute_ps);
}

// 8-to-1 incast of 1 MB flows on a small leaf-spine.
constexpr char kIncast[] = R"(
name: incast-trace
seed: 3
fabric:
  technology: roce
  link: {rate: 100Gbps, cable: 3m}
  pfc: {enabled: true}
topology: {kind: leaf_spine, radix: 8}
hosts: {count: 16}
workload: {kind: pattern, pattern: incast, senders: 8, flow_size: 1MB}
outputs:
  trace: {enabled: true}
)";

TEST(ChromeTrace, OneFlowSpanPerFlowLastingItsFct) {
  const scenario::RunResult r = run_yaml(kIncast);
  ASSERT_EQ(r.flows.size(), 8u);
  const json j = json::parse(output::chrome_trace_json_text(r));
  check_structure(j);
  std::map<int64_t, json> spans;
  for (const json& e : j["traceEvents"]) {
    if (e["ph"] != "X") continue;
    EXPECT_EQ(e["cat"], "flow");
    spans[e["args"]["flow"].get<int64_t>()] = e;
  }
  ASSERT_EQ(spans.size(), r.flows.size());
  for (const scenario::FlowRecord& f : r.flows) {
    const json& e = spans.at(f.id);
    ASSERT_GE(f.finish_ps, 0);
    EXPECT_EQ(us_to_ps(e["ts"]), f.start_ps);
    EXPECT_EQ(us_to_ps(e["dur"]), f.fct_ps()) << "flow " << f.id;
    EXPECT_EQ(e["args"]["bytes"], f.size_bytes);
    EXPECT_EQ(e["pid"], f.src_nic + 1) << "pid = source host + 1";
  }
  EXPECT_EQ(j["otherData"]["flows_total"], 8);
  EXPECT_EQ(j["otherData"]["flows_written"], 8);
}

TEST(ChromeTrace, UnfinishedFlowsEndAtTheEndOfTheSimulation) {
  std::string yaml = kIncast;
  yaml += "stop_time: 20us\n";  // 8 x 1 MB into one 100 Gb/s port take ~670 us
  const scenario::RunResult r = run_yaml(yaml);
  const json j = json::parse(output::chrome_trace_json_text(r));
  check_structure(j);
  int unfinished = 0;
  for (const json& e : j["traceEvents"]) {
    if (e["ph"] != "X") continue;
    ASSERT_TRUE(e["args"].value("unfinished", false));
    EXPECT_EQ(us_to_ps(e["ts"]) + us_to_ps(e["dur"]), r.sim_time_ps);
    EXPECT_EQ(e["args"]["fct_ps"], -1);
    ++unfinished;
  }
  EXPECT_EQ(unfinished, 8);
}

TEST(ChromeTrace, AboveMaxFlowsEveryKthFlowIsKept) {
  // All-to-all over 16 hosts: 240 flows; max 50 -> every 5th (ceil(240/50)) -> 48 flows.
  constexpr char kA2a[] = R"(
name: a2a-trace
seed: 1
fabric: {technology: roce, link: {rate: 100Gbps, cable: 3m}}
topology: {kind: leaf_spine, radix: 8}
hosts: {count: 16}
workload: {kind: pattern, pattern: all_to_all, flow_size: 16KB}
outputs:
  trace: {enabled: true, max_flows: 50}
)";
  const scenario::RunResult r = run_yaml(kA2a);
  ASSERT_EQ(r.flows.size(), 240u);
  const json j = json::parse(output::chrome_trace_json_text(r));
  check_structure(j);
  std::set<int64_t> ids;
  for (const json& e : j["traceEvents"]) {
    if (e["ph"] != "X") continue;
    const int64_t id = e["args"]["flow"];
    EXPECT_EQ(id % 5, 0) << id;
    ids.insert(id);
  }
  EXPECT_EQ(ids.size(), 48u);  // ceil(240 / 5)
  EXPECT_EQ(j["otherData"]["flows_total"], 240);
  EXPECT_EQ(j["otherData"]["flows_written"], 48);
  EXPECT_EQ(j["otherData"]["flow_sample_every"], 5);
  EXPECT_EQ(j["otherData"]["max_flows"], 50);
}

TEST(ChromeTrace, PreflightCountsTheTrace) {
  // A traffic pattern: the written flow spans (at most max_flows) and the records kept for them
  // add to the output estimate;
  // a training run: one TraceSpan per compute op is a part of its own.
  std::string off = kIncast;
  off = off.substr(0, off.find("outputs:"));
  const scenario::Scenario a = scenario::load_scenario_string(off, "a.yaml").scenario;
  const scenario::Scenario b = scenario::load_scenario_string(kIncast, "b.yaml").scenario;
  EXPECT_EQ(scenario::estimate_resources(b).output_bytes -
                scenario::estimate_resources(a).output_bytes,
            8 * (24 + 2 * 260 + static_cast<int64_t>(sizeof(scenario::FlowRecord))));
  const scenario::ResourceEstimate t =
      scenario::estimate_resources(scenario::load_scenario_string(kTraining, "t.yaml").scenario);
  bool found = false;
  for (const scenario::MemoryPart& part : t.parts) {
    if (part.name == std::string("trace spans")) {
      found = true;
      EXPECT_GE(part.bytes, 1);
    }
  }
  EXPECT_TRUE(found) << scenario::describe_parts(t);
}

TEST(ChromeTrace, MaxFlowsBelowOneIsRefused) {
  std::string yaml = kIncast;
  yaml.replace(yaml.rfind("{enabled: true}"), 15, "{enabled: true, max_flows: 0}");
  try {
    scenario::load_scenario_string(yaml, "t.yaml");
    FAIL() << "max_flows 0 accepted";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("outputs.trace.max_flows"), std::string::npos) << e.what();
  }
}

}  // namespace chrome_trace_test
}  // namespace fabricsim
