// The technology's settings every engine builds with, for every technology: the NIC profile
// with its overrides, InfiniBand's link tables, MTU and latency (resolve/infiniband.h), and the
// verbs combinations that cannot work. The first step of resolve() (resolve/resolve.h); the
// pre-flight, the bill of materials and `topology export` call it alone, on a copy.
#pragma once

#include "spec/scenario.h"

namespace fabricsim::scenario {

// resolve_nic, apply_infiniband, then the verbs checks (READ only on RC, not with DCQCN, PLB or
// spraying). Throws InputError naming the key.
void resolve_fabric(Scenario& sc);
// Fills sc.nic from fabric.nic.profile and its overrides (part of resolve_fabric).
void resolve_nic(Scenario& sc);

}  // namespace fabricsim::scenario
