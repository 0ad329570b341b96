// Builds the fabric a scenario describes and simulates it.
#pragma once

#include <functional>

#include "scenario/result.h"
#include "scenario/scenario.h"

namespace fabricsim::scenario {

struct RunOptions {
  // Called now and then with the fraction of work done (0..1); for a progress bar.
  std::function<void(double)> progress;
};

// Throws fabricsim::InputError (core/error.h) naming the scenario key path when the scenario
// cannot be represented (e.g. an impossible topology shape); the CLI reports it as bad input.
RunResult run_scenario(const Scenario& scenario, const RunOptions& options = {});

// The same checks run_scenario makes before simulating (topology shape, workload against the
// topology), without simulating: for `fabricsim validate`. Throws InputError.
void check_scenario(const Scenario& scenario);

}  // namespace fabricsim::scenario
