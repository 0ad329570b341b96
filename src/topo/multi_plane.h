// Multi-plane fabrics: P identical copies ("planes") of a fat_tree or rail fabric, every NIC
// with one port on each plane (topology.planes; docs/topologies.md "Multi-plane fabrics").
//
//   NIC ──(N Gb/s, 0 m)── selector ──┬── plane 0: leaf ... spine ... (links at N/P)
//                         (tier 0)   ├── plane 1: leaf ... spine ...
//                                    └── ...
//
// A NIC of N Gb/s split into P ports of N/P each, every port on its own plane, is what the
// products do: Alibaba HPN's NICs are 2 x 200 Gb/s, port 0 on plane 0 and port 1 on plane 1
// ("dual-plane", Qian et al., SIGCOMM 2024, doi 10.1145/3651890.3672265); NVIDIA Spectrum-X
// Multiplane "splits each SuperNIC [ConnectX-8] across two or more independent network planes",
// numberOfPlanes 2 (Dual-Plane) or 4 (Quad-Plane, B300 only) (NVIDIA Network Operator 26.4
// docs, "NVIDIA Spectrum-X" and "Software Multiplane Spectrum-X Quick Start"); the per-plane
// port rate (800G as 4 x 200G) is arithmetic, not found stated (UNVERIFIED). Hence a plane
// port's rate defaults to fabric.link.rate / P and each
// plane's switch-to-switch links run at that rate too (every plane is a full copy of the fabric
// at 1/P of the bandwidth); topology.plane_rate overrides both.
//
// Model: the transport sees one NIC (one endpoint at fabric.link.rate, the NIC's aggregate);
// inside it a zero-latency store-and-forward selector (a tier-0 switch, net/plane_choice.h)
// sends each packet out of one plane port. Its cost against a NIC that serializes straight onto
// the plane port is one frame at the aggregate rate per NIC it crosses (frame / N, e.g. 41 ns for
// a 4 KiB frame at 800 Gb/s). Numbering: NICs as in a single fabric (host x nics_per_host + k);
// switches: the N selectors (switch i belongs to NIC i), then plane 0's switches as the
// single-plane builder numbers them, then plane 1's, and so on.
#pragma once

#include <cstdint>
#include <vector>

#include "net/network.h"
#include "topo/topology.h"

namespace fabricsim::topo {

// Checks a multi-plane shape (the per-plane shape as check_shape, plus the plane keys). Throws
// InputError naming the key.
void check_multi_plane(const TopologySpec& spec);

// Builds and finalizes it; the selectors get spec.plane_split.
BuiltTopology build_multi_plane(const TopologySpec& spec, const FabricParams& params,
                                net::Network& net);

// The rate of one plane port and of each plane's links.
int64_t plane_rate_bps(const TopologySpec& spec, int64_t link_rate_bps);

// Switches of plane `plane` in a network built by build_multi_plane: [first, first + count).
struct PlaneSwitches {
  uint32_t first = 0;
  uint32_t count = 0;
};
PlaneSwitches plane_switches(const net::Network& net, const TopologySpec& spec, int plane);

// One port of every cable of plane `plane` (its switch-to-switch cables and the cables from the
// selectors to its leaves): failing them all takes the plane down. `uplinks_only`: only the
// cables above its leaves (the NICs' plane ports stay up).
std::vector<uint32_t> plane_cable_ports(const net::Network& net, const TopologySpec& spec,
                                        int plane, bool uplinks_only = false);

}  // namespace fabricsim::topo
