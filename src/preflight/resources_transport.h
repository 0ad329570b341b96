// The transport part of the memory pre-flight: what the transport the scenario runs holds at its
// peak (message records, connections, context caches). Internal to the pre-flight.
#pragma once

#include <cstdint>

#include "preflight/resources_counts.h"
#include "spec/scenario.h"

namespace fabricsim::scenario::preflight {

// RoCE's (and InfiniBand's), UET's or TCP's/iWARP's records for the traffic `t` on `nics` NICs,
// plus the NICs' context caches; `wc` refuses, naming the workload's key, what overflows.
int64_t transport_bytes(const Scenario& sc, const Traffic& t, int64_t nics, const Checked& wc);

}  // namespace fabricsim::scenario::preflight
