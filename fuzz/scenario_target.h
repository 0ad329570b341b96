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
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include "core/error.h"
#include "scenario/load.h"
#include "output/csv.h"
#include "output/json.h"
#include "output/pcap_trace.h"
#include "output/summary.h"
#include "scenario/run.h"

namespace fabricsim::fuzz {

// What became of one input.
enum class Outcome {
  kLoadError,     // the loader refused it (bad YAML, unknown key, bad value): exit 2 in the CLI
  kInputError,    // check_scenario refused it (`validate` fails): exit 2
  kBuildRefused,  // check_scenario passed but building the simulation threw InputError
  kOverBudget,    // valid, but too large for a fuzz iteration (Budget); not simulated
  kEventBudget,   // simulated until the event budget ran out (no result to format)
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
// into a different scenario. The simulated time is capped through stop_time (a run that hits it
// reports unfinished flows, a path worth fuzzing too).
struct Budget {
  int max_nics = 128;                  // hosts x nics_per_host: the examples' 128 run
  int max_radix = 32;                  // a 3-tier fat tree has (radix/2)^2 core switches
  int64_t max_planned_flows = 20'000;  // flows a pattern plans up front (Poisson, all-to-all)
  int64_t sim_time_ps = 5'000'000;     // 5 us of simulated time at most
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

// Flows a pattern workload plans before the run starts (the collective posts slices as it
// goes, so it plans none), as an upper bound; -1 when too large to count.
inline double planned_flows(const scenario::Scenario& sc) {
  const workload::WorkloadSpec& w = sc.workload;
  const double nics = static_cast<double>(sc.topology.hosts) * sc.topology.nics_per_host;
  if (w.kind == workload::WorkloadKind::kCollective) return 0;
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
inline Outcome run_input(std::string_view yaml, const Budget& budget = {}) {
  scenario::LoadedScenario loaded;
  try {
    loaded = scenario::load_scenario_string(yaml, "fuzz.yaml");
  } catch (const scenario::LoadError& e) {
    detail::expect_one_line(e.what());
    return Outcome::kLoadError;
  }
  const scenario::Scenario& sc = loaded.scenario;
  try {
    scenario::check_scenario(sc);
  } catch (const InputError& e) {
    detail::expect_one_line(scenario::format_input_error(loaded, e));
    return Outcome::kInputError;
  }

  const int64_t nics = static_cast<int64_t>(sc.topology.hosts) * sc.topology.nics_per_host;
  if (nics > budget.max_nics || sc.topology.radix > budget.max_radix ||
      !(detail::planned_flows(sc) <= static_cast<double>(budget.max_planned_flows))) {
    return Outcome::kOverBudget;
  }
  scenario::Scenario capped = sc;
  capped.stop_time_ps =
      sc.stop_time_ps > 0 ? std::min(sc.stop_time_ps, budget.sim_time_ps) : budget.sim_time_ps;
  // The event budget: Simulation::run reports progress every 2^18 events and once more at the
  // end; a report from inside the loop ends the iteration.
  struct EventBudgetSpent {};
  int progress_calls = 0;
  scenario::RunOptions options;
  options.progress = [&progress_calls](double done) {
    if (++progress_calls > 1 || done < 1.0) throw EventBudgetSpent{};
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
  // What `fabricsim run` writes, formatted in memory (write_run_outputs adds only the files):
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
