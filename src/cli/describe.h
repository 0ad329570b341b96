// `fabricsim describe`: the fabric a scenario builds, its bill of materials with cost, power
// and each figure's confidence, and what simulating it would take (issue 13 item 6).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "resolve/cost/bom.h"
#include "preflight/resources.h"
#include "preflight/runtime_estimate.h"

namespace fabricsim::cli {

struct Described {
  std::string name;  // the fabric or variant ("" for a plain describe)
  scenario::Bom bom;
  scenario::ResourceEstimate estimate;
  scenario::RuntimeEstimate runtime;
};

// One block per scenario: topology counts, the itemised BOM (count, unit and total price and
// power, confidence H/M/L/G or "set"), totals and per-GPU figures, notes, and the pre-flight
// memory estimate. With several, a last table puts their totals side by side.
std::string format_describe(const std::vector<Described>& all);

}  // namespace fabricsim::cli
