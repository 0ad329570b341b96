// Builds topologies into a net::Network and says what was built.
#pragma once

#include <string>
#include <vector>

#include "net/config.h"
#include "net/network.h"
#include "topo/spec.h"

namespace fabricsim::topo {

struct BuiltTopology {
  std::string description;  // e.g. "2-tier leaf-spine, radix 16, 16 leaves x 8 spines"
  int tiers = 0;
  int hosts = 0;
  int nics = 0;
  int switches = 0;
  int cables = 0;
  std::vector<int> host_of_nic;  // NIC index -> host index
};

struct FabricParams {
  net::LinkConfig link;
  net::SwitchConfig switch_config;
  net::NicConfig nic;
};

// Checks that the shape is possible without building it. Throws InputError naming the
// topology.* or hosts.* key at fault and the reason.
void check_shape(const TopologySpec& spec);

// Builds the shape into `net` (which must be empty) and finalizes it. Throws InputError like
// check_shape.
BuiltTopology build(const TopologySpec& spec, const FabricParams& params, net::Network& net);

}  // namespace fabricsim::topo
