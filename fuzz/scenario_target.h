// The fuzz target: bytes -> load -> validate -> build -> a short run, the path every scenario
// takes through `fabricsim run`. Shared by the libFuzzer entry point (fuzz/fuzz_scenario.cpp,
// `make fuzz`) and the regression test that replays every input the fuzzer ever broke on
// (tests/fuzz/, run by `make test` and CI). Header-only so that neither needs the other's
// build: the harness is built with clang and -fsanitize=fuzzer, the test with the normal tree.
//
// Refusals the CLI turns into exit 2 are normal outcomes (LoadError, InputError); anything else
// escaping (std::bad_alloc, an out_of_range, a json exception) is a bug the CLI would report as
// "internal error", so it propagates: libFuzzer records it as a crash, the test fails on it.
// Sanitizer reports (ASan, UBSan: e.g. an int64 picosecond overflow) abort on their own.
#pragma once

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include "core/error.h"
#include "resolve/resolve.h"
#include "spec/load.h"
#include "output/csv.h"
#include "output/json.h"
#include "output/pcap/pcap_trace.h"
#include "output/summary.h"
#include "engine/run.h"
#include "workload/transformer.h"
#include "engine/packet/simulation.h"

namespace fabricsim::fuzz {

// What became of one input.
enum class Outcome {
  kLoadError,     // the loader refused it (bad YAML, unknown key, bad value): exit 2 in the CLI
  kInputError,    // resolve() refused it (`validate` fails): exit 2
  kBuildRefused,  // resolve() passed but building the simulation threw InputError
  kOverBudget,    // valid, but too large for a fuzz iteration (Budget); not simulated
  kEventBudget,   // one step of simulated time held > 2^18 events (no result to format)
  kRan,           // simulated (to completion or the budget's simulated time), outputs formatted
};

inline const char* outcome_name(Outcome o) {
  switch (o) {
    case Outcome::kLoadError:
      return "load_error";
    case Outcome::kInputError:
      return "input_error";
    case Outcome::kBuildRefused:
      return "build_refused";
    case Outcome::kOverBudget:
      return "over_budget";
    case Outcome::kEventBudget:
      return "event_budget";
    case Outcome::kRan:
      return "ran";
  }
  return "?";
}

// Limits that keep one iteration to milliseconds, so the fuzzer explores inputs rather than
// simulating large fabrics; a valid input over a limit is skipped (kOverBudget), never clamped
// into a different scenario.
//
// Simulated time is not capped at a fixed value: overflow bugs live at large times (a 1 bps link
// puts a packet's end 3.3e16 ps away). Instead a first pass simulates in doubling steps of
// simulated time (1 us, 2 us, 4 us, ...) until the run ends, reaches the scenario's stop_time,
// or has processed max_events; the second pass is run_scenario with stop_time set to where the
// first stopped (the same events again: runs are deterministic), followed by the formatting of
// every output. A cheap scenario thus runs to completion, an expensive one to a few microseconds.
struct Budget {
  int max_nics = 128;                  // hosts x nics_per_host: the examples' 128 run
  int max_radix = 32;                  // a 3-tier fat tree has (radix/2)^2 core switches
  int64_t max_planned_flows = 20'000;  // messages created up front (planned_flows below)
  int64_t max_events = 30'000;         // per pass, checked between steps
  int64_t first_step_ps = 1'000'000;   // 1 us
  int max_gpus = 256;                  // GPU runs: node.gpus_per_node x hosts
  int64_t max_dag_ops = 50'000;        // a generated training step's ops (upper bound)
};

// Thrown when an outcome breaks the CLI's contract (an error message of more than one line).
class ContractViolation : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

namespace detail {

inline void expect_one_line(const std::string& message) {
  if (message.empty() || message.find('\n') != std::string::npos) {
    throw ContractViolation("error message is not exactly one line: '" + message + "'");
  }
}

// Messages the workload creates before the first event, as an upper bound (a double, so that
// no product overflows): a pattern's planned flows, or the ring all-reduce's first step, one
// message per slice of every rank's chunk (workload.cpp, Workload::start).
inline double planned_flows(const scenario::Scenario& sc) {
  const workload::WorkloadSpec& w = sc.workload;
  const double nics = static_cast<double>(sc.topology.hosts) * sc.topology.nics_per_host;
  if (w.kind == workload::WorkloadKind::kCollective) {
    const double chunk_bytes = std::ceil(static_cast<double>(w.size_bytes) / nics);
    return nics * std::ceil(chunk_bytes / static_cast<double>(std::max<int64_t>(1, w.slice_bytes)));
  }
  switch (w.pattern) {
    case workload::PatternKind::kAllToAll:
      return nics * nics;
    case workload::PatternKind::kPoisson: {
      // lambda = load x rate / (8 x mean size) per NIC (workload.cpp); the smallest size bounds
      // the mean from below, and the fastest rate the technology may pick bounds it from above.
      int64_t smallest = w.flow_size_bytes;
      for (const workload::SizeCdfPoint& p : w.size_cdf) smallest = std::min(smallest, p.size_bytes);
      int64_t rate_bps = sc.link.rate_bps;
      if (sc.ib.generation != scenario::IbGeneration::kNone) {
        rate_bps = std::max(rate_bps, scenario::ib_generation_info(sc.ib.generation).data_rate_bps);
      }
      return nics * w.load * static_cast<double>(rate_bps) * (static_cast<double>(w.duration_ps) * 1e-12) /
             (8.0 * static_cast<double>(std::max<int64_t>(1, smallest)));
    }
    default:
      return nics + static_cast<double>(w.flows.size());
  }
}

}  // namespace detail

// Runs one input; returns its outcome or throws (see the file comment).
// `file_name` is what errors name and what a relative training.file is resolved against.
inline Outcome run_input(std::string_view yaml, const Budget& budget = {},
                         const std::string& file_name = "fuzz.yaml") {
  scenario::LoadedScenario loaded;
  try {
    loaded = scenario::load_scenario_string(yaml, file_name);
  } catch (const scenario::LoadError& e) {
    detail::expect_one_line(e.what());
    return Outcome::kLoadError;
  }
  const scenario::Scenario& sc = loaded.scenario;
  try {
    (void)scenario::resolve(sc);
  } catch (const InputError& e) {
    detail::expect_one_line(scenario::format_input_error(loaded, e));
    return Outcome::kInputError;
  }

  const int64_t nics = static_cast<int64_t>(sc.topology.hosts) * sc.topology.nics_per_host;
  if (nics > budget.max_nics || sc.topology.radix > budget.max_radix ||
      !(detail::planned_flows(sc) <= static_cast<double>(budget.max_planned_flows))) {
    return Outcome::kOverBudget;
  }
  // GPU runs: the GPUs and, for a generated training step, the DAG it builds up front.
  if (sc.node.gpus_per_node > 0) {
    const int64_t gpus = static_cast<int64_t>(sc.topology.hosts) * sc.node.gpus_per_node;
    if (gpus > budget.max_gpus) return Outcome::kOverBudget;
    auto too_big = [&](const workload::WorkloadSpec& w, const workload::TrainingSpec& t) {
      return w.kind == workload::WorkloadKind::kTraining &&
             t.source == workload::TrainingSource::kTransformer &&
             workload::transformer_ops_estimate(t.transformer, static_cast<uint32_t>(gpus)) >
                 budget.max_dag_ops;
    };
    if (too_big(sc.workload, sc.training)) return Outcome::kOverBudget;
    for (const scenario::JobSpec& j : sc.jobs) {
      if (too_big(j.workload, j.training)) return Outcome::kOverBudget;
    }
  }
  // First pass: how far in simulated time the event budget reaches. Simulation::run reports
  // progress every 2^18 events: a report means one doubling step holds far more events than the
  // budget (the traffic started late), and ends the iteration there.
  struct EventBudgetSpent {};
  const auto spent = [](const scenario::ProgressSample&) { throw EventBudgetSpent{}; };
  int64_t reach_ps = 0;  // the second pass's stop_time (0 = run to completion)
  try {
    scenario::Simulation sim(sc);
    sim.start_workload();
    constexpr int64_t kLastStepPs = INT64_MAX;  // the stop marker is an event: any int64 time
    for (int64_t t = budget.first_step_ps;; t = t >= kLastStepPs / 2 ? kLastStepPs : 2 * t) {
      const int64_t stop = sc.stop_time_ps > 0 ? std::min(t, sc.stop_time_ps) : t;
      if (sim.run(stop, spent)) {
        reach_ps = sc.stop_time_ps;  // finished: the second pass finishes too
        break;
      }
      if (stop == sc.stop_time_ps || stop == kLastStepPs || sim.events() > budget.max_events) {
        reach_ps = stop;
        break;
      }
    }
  } catch (const EventBudgetSpent&) {
    return Outcome::kEventBudget;
  } catch (const InputError& e) {
    detail::expect_one_line(scenario::format_input_error(loaded, e));
    return Outcome::kBuildRefused;
  }

  // Second pass, as `fabricsim run` does it. Simulation::run reports progress every 2^18 events
  // and once at the end; a report from inside the loop means the pass went far beyond the first
  // (it should not), so it ends the iteration rather than let it run long.
  scenario::Scenario capped = sc;
  capped.stop_time_ps = reach_ps;
  int progress_calls = 0;
  scenario::RunOptions options;
  options.progress = [&progress_calls](const scenario::ProgressSample& done) {
    if (++progress_calls > 1 || done.fraction < 1.0) throw EventBudgetSpent{};
  };
  scenario::RunResult result;
  try {
    result = scenario::run_scenario(capped, options);
  } catch (const EventBudgetSpent&) {
    return Outcome::kEventBudget;
  } catch (const InputError& e) {
    detail::expect_one_line(scenario::format_input_error(loaded, e));
    return Outcome::kBuildRefused;
  }
  // What `fabricsim run` writes, formatted in memory (write_run_files adds only the files):
  // a json exception here (e.g. a string that is not UTF-8) would lose a finished run.
  output::format_summary(result);
  output::result_json_text(result);
  output::run_json_text(result.run);
  output::flows_csv_text(result.flows);
  if (!result.sm_routes.empty()) output::routes_csv_text(result.sm_routes);
  if (!result.captured.empty()) {
    output::check_trace(result);  // what write_trace_pcap would refuse after the run
    output::credits_csv_text(result.captured);
  }
  return Outcome::kRan;
}

}  // namespace fabricsim::fuzz
