// Multi-plane scenario checks and the plane failure (resolve/planes.h).
#include "resolve/planes.h"

#include <string>

#include "core/error.h"
#include "net/plane_choice.h"
#include "topo/multi_plane.h"

namespace fabricsim::scenario {

void check_planes(const Scenario& sc) {
  const topo::TopologySpec& t = sc.topology;
  if (sc.plane_fail.plane >= 0 && sc.plane_fail.plane >= t.planes) {
    throw InputError("faults.plane_down.plane",
                     "plane " + std::to_string(sc.plane_fail.plane) + " does not exist: the "
                     "fabric has topology.planes " + std::to_string(t.planes) +
                     " (planes are numbered from 0)");
  }
  if (t.planes == 1) return;
  if (sc.technology == Technology::kInfiniband) {
    // On InfiniBand every plane is its own subnet: an HCA port per plane, each with its own LID
    // from that plane's Subnet Manager, and a QP bound to one port (so only a per-connection
    // split exists). This model has one SM over one LID space and a plane selector that is a
    // switch, which the SM's engines would route through as a transit node (an HCA never
    // forwards); per-plane SMs and LIDs per plane port are not built (docs/topologies.md).
    throw InputError("topology.planes",
                     "multi-plane InfiniBand (a subnet and Subnet Manager per plane, a LID per "
                     "HCA port) is not modelled; use technology roce or uet");
  }
  const auto split = static_cast<net::PlaneSplit>(t.plane_split);
  if (split != net::PlaneSplit::kConnection && sc.technology == Technology::kRoce &&
      !sc.roce.out_of_order) {
    throw InputError("fabric.planes.split",
                     split == net::PlaneSplit::kPacket
                         ? "packet: a QP's packets cross different planes and arrive out of "
                           "order, which a go-back-N RoCE responder NAKs; set "
                           "fabric.roce.out_of_order: true, use technology uet, or split: "
                           "connection"
                         : "message: a QP's later message on another plane can overtake an "
                           "earlier one, which a go-back-N RoCE responder NAKs; set "
                           "fabric.roce.out_of_order: true, use technology uet, or split: "
                           "connection");
  }
}

int fail_plane(net::Network& net, const topo::TopologySpec& spec, int plane, bool uplinks_only) {
  int n = 0;
  for (const uint32_t port : topo::plane_cable_ports(net, spec, plane, uplinks_only)) {
    if (!net.port(port).up) continue;
    net.fail_link(port);
    ++n;
  }
  return n;
}

}  // namespace fabricsim::scenario
