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
  const size_t before = next_.size();
  merge(next_, port, w);
  if (next_.size() > before) next_pkts_.push_back(pkt);
}

}  // namespace fabricsim::scenario
