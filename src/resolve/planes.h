// Multi-plane fabrics at the scenario level: which combinations can work (topology.planes,
// fabric.planes.split, faults.plane_down) and the plane failure event.
#pragma once

#include <cstdint>

#include "net/network.h"
#include "spec/scenario.h"

namespace fabricsim::scenario {

// Refuses combinations that cannot work, naming the key: a split that reorders on a transport
// that does not accept it, any split but per connection on InfiniBand (a QP is bound to one HCA
// port), SHARP over planes, a plane failure without planes. Throws InputError.
void check_planes(const Scenario& sc);

// kLinkFail targets with this bit set name a plane (the low bits), not a port.
inline constexpr uint32_t kPlaneFailBit = 0x80000000u;

// Takes every cable of plane `plane` down (net::Network::fail_link on each), or with
// `uplinks_only` those above its leaves; returns how many.
int fail_plane(net::Network& net, const topo::TopologySpec& spec, int plane, bool uplinks_only);

}  // namespace fabricsim::scenario
