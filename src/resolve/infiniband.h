// Resolves a scenario's InfiniBand settings (fabric.ib.*) into the link layer's configuration:
// the OpenSM-syntax SL2VL map and VL arbitration tables, checked against each other.
#pragma once

#include "net/config.h"
#include "spec/scenario.h"

namespace fabricsim::scenario {

// Throws InputError naming the fabric.ib.* key when a table is malformed or a VL the SL2VL map
// uses has no weight in either arbitration table (it could never be sent).
net::IbLinkConfig resolve_ib_link(const IbSpec& ib);

// Checks the combinations an InfiniBand fabric cannot represent (PFC, ECN/DCQCN, PLB are
// Ethernet mechanisms) and fills the transport's IB settings; throws InputError.
void apply_infiniband(Scenario& sc);

}  // namespace fabricsim::scenario
