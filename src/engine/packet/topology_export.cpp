#include "engine/packet/topology_export.h"

#include "core/scheduler.h"
#include "net/network.h"
#include "resolve/fabric.h"
#include "topo/file_topology.h"
#include "topo/topology.h"

namespace fabricsim::scenario {

void export_topology(const Scenario& sc, std::ostream& out) {
  Scenario resolved = sc;
  resolve_fabric(resolved);  // the link, switch and NIC the run would cable
  Scheduler sched;
  net::Network net(sched);
  topo::build(resolved.topology,
              topo::FabricParams{resolved.link, resolved.switch_config, resolved.nic}, net);
  topo::write_native(net, out);
}

}  // namespace fabricsim::scenario
