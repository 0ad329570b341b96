#include "engine/flow/path_walk.h"

namespace fabricsim::scenario {

void PathWalker::merge(std::vector<FluidFabric::Crossing>& v, uint32_t port, double w) {
  // Sprayed paths meet again (the destination's leaf port); a crossing is kept once per port.
  for (FluidFabric::Crossing& c : v) {
    if (c.link == port) {
      c.weight += w;
      return;
    }
  }
  v.push_back({port, w});
}

void PathWalker::add_next(uint32_t port, double w, const net::Packet& pkt) {
  for (FluidFabric::Crossing& c : next_) {
    if (c.link == port) {
      c.weight += w;
      return;
    }
  }
  next_.push_back({port, w});
  next_pkts_.push_back(pkt);
}

}  // namespace fabricsim::scenario
