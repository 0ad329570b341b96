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
  const auto split = static_cast<net::PlaneSplit>(t.plane_split);
  if (sc.technology == Technology::kInfiniband) {
    // Every plane is its own subnet (routing/plane_subnets.h) and an RC QP is bound to one HCA
    // port: its packets cannot take another plane, whatever the transport would accept.
    if (split != net::PlaneSplit::kConnection) {
      throw InputError("fabric.planes.split",
                       std::string(split == net::PlaneSplit::kPacket ? "packet" : "message") +
                           ": on InfiniBand each plane is its own subnet and a QP is bound to "
                           "one HCA port, so all of a QP's packets stay on one plane; use "
                           "split: connection");
    }
    if (sc.sharp.enabled) {
      throw InputError("fabric.sharp.enabled",
                       "SHARP on a multi-plane fabric (an Aggregation Manager and trees per "
                       "plane's subnet) is not modelled; use topology.planes 1 or SHARP off");
    }
    return;
  }
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
