// Builds the fabric a scenario describes and simulates it.
#pragma once

#include <functional>

#include "engine/run_control.h"
#include "results/result.h"
#include "spec/scenario.h"

namespace fabricsim::scenario {

struct RunOptions {
  // Called every kCheckEveryEvents events with where the run stands (engine/packet/simulation.h), and
  // once more with fraction 1 when the run ends by itself; for a progress line.
  ProgressFn progress;
  // When set and nonzero (a signal handler sets it: cli/interrupt.h), the simulation stops at its
  // next check and the result covers what happened until then, marked RunResult::partial.
  const StopFlag* stop = nullptr;
  // What becomes of the per-flow records (engine/run_control.h): kept by default; the CLI keeps
  // none and streams flows.csv into its output's staging directory.
  FlowHarvest flows;
  // An MPI run's processes (core/rank_exchange.h; nullptr: this process alone): the packet
  // engine's partitions are spread over them and rank 0's result is the run's (the others'
  // results are not). A run of several simulations (scaling, twins, baselines) is refused.
  RankExchange* ranks = nullptr;
};

// Throws fabricsim::InputError (core/error.h) naming the scenario key path when the scenario
// cannot be represented (e.g. an impossible topology shape); the CLI reports it as bad input.
RunResult run_scenario(const Scenario& scenario, const RunOptions& options = {});

// resolve() (resolve/resolve.h), then builds the fabric, its routing (the Subnet Manager's sweep included) and
// the workload exactly as run_scenario does, without simulating an event, and frees them: the
// errors only a built fabric can find (a failed link's switch or port index, an SM that cannot
// route the topology, a DCQCN profile at this link rate) are raised here too, so `validate` and
// `compare`'s up-front check refuse everything `run` would. Costs run's setup time; call it after
// the memory pre-flight. Throws InputError.
void check_buildable(const Scenario& scenario);

// Calls fn(i) for every i in [0, n), up to `threads` at once (the calling thread is one of
// them): the `threads` key's side-by-side simulations (the ideal-network twin, scaling's node
// counts, compare's runs). Each call must run whole simulations that share nothing mutable with
// the others' (core/scheduler.h: no singletons; core/ring.h's byte count is atomic), so results
// do not depend on the thread count. After all have returned, the exception of the lowest index
// that threw, if any, is rethrown: the same error whatever finished first.
void for_each_run(size_t n, int threads, const std::function<void(size_t)>& fn);

}  // namespace fabricsim::scenario
