// Conflict-free placement of equal flows on a folded Clos (fat-tree, leaf-spine) by stage-wise
// bipartite edge colouring: the TE controller's exact path for the case its greedy search can
// miss (routing/te_controller.h).
//
// A permutation on a rearrangeably non-blocking Clos can always be routed with no shared link
// (Slepian-Duguid; Benes): at each tier, the flows going up are the edges of a bipartite
// multigraph between the switch where they choose an uplink and the switch their mirrored
// downlink enters, and an uplink index is a colour; a proper colouring with as many colours as
// uplinks exists when no switch has more flows than uplinks (Konig's edge-colouring theorem)
// and is found by swapping alternating two-colour paths (Kempe chains). Colouring tier by tier
// fixes every flow's path.
#pragma once

#include <cstdint>
#include <vector>

#include "net/network.h"

namespace fabricsim::routing {

// `cands[i]`: flow i's equal-cost paths (egress switch ports, src leaf first; all of one
// length). On success fills `choice[i]` with the index of a path such that no two flows share a
// port, and returns true. Returns false, leaving `choice` unspecified, when the paths do not
// have the Clos structure (uplink index to downlink port not one-to-one at some switch) or some
// switch carries more flows than it has uplinks.
bool clos_color(const net::Network& net,
                const std::vector<std::vector<std::vector<uint32_t>>>& cands,
                std::vector<size_t>& choice);

}  // namespace fabricsim::routing
