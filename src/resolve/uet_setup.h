// The UET transport's view of the fabric a scenario builds (transport/uet.h UetNetwork), and the
// switch settings technology uet implies: shared by the simulation (which applies them) and the
// memory pre-flight (which sizes the transport from them).
#pragma once

#include "spec/scenario.h"
#include "transport/uet.h"

namespace fabricsim::scenario {

// The network the UET constants scale from (diameter, rate, propagation, latencies, queue).
transport::UetNetwork uet_network(const Scenario& sc);

// Applies technology uet's switch defaults to `sc` (per-port queue, ECN thresholds, trimming)
// and returns the network as configured.
transport::UetNetwork configure_uet(Scenario& sc);

}  // namespace fabricsim::scenario
