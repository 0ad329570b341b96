// `fabricsim topology export`: the fabric a scenario builds, written as a topology file
// (topo/file_topology.h's native format), so that a generated shape can be edited and read back.
#pragma once

#include <ostream>

#include "spec/scenario.h"

namespace fabricsim::scenario {

// Builds the scenario's topology with the link, switch and NIC the run would cable (the
// technology's defaults applied) and writes it. Throws InputError naming the key at fault.
void export_topology(const Scenario& sc, std::ostream& out);

}  // namespace fabricsim::scenario
