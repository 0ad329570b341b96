// Programs the Subnet Manager's tables into the switches: forwarding by destination LID.
#pragma once

#include "net/network.h"
#include "routing/subnet_manager.h"

namespace fabricsim::routing {

// Every switch forwards by DLID from now on: its group for a LID is the LFT port alone, or with
// `adaptive`, the SM's adaptive-routing port set (the LFT port first). Replaces what was there,
// as the SM's reprogramming after a re-sweep does. Only the switches of `scope` (one plane's
// subnet on a multi-plane fabric): the SM programs the switches of its own subnet.
void install_lid_routes(net::Network& net, const LidRoutes& routes, bool adaptive,
                        const SweepScope& scope = {});

}  // namespace fabricsim::routing
