// When each GPU transfer arrived (node::GpuNet::on_arrived, by cookie), for the node layer's
// tests (tests/node/gpu_net_test.cpp, gpu_net_ideal_test.cpp). Header-only: tests/support holds
// no .cpp file, so CMake does not turn it into a test executable.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "engine/packet/simulation.h"
#include "node/gpu_net.h"

namespace fabricsim::test_support {

struct Arrivals {
  std::vector<std::pair<uint64_t, int64_t>> at;
  void attach(scenario::Simulation& sim) {
    node::GpuNet* g = sim.gpu_net();
    g->on_arrived = [this, g](uint64_t cookie) { at.emplace_back(cookie, g->now_ps()); };
  }
  // When `cookie` arrived, -1 if it did not.
  int64_t of(uint64_t cookie) const {
    for (const auto& [c, t] : at) {
      if (c == cookie) return t;
    }
    return -1;
  }
};

}  // namespace fabricsim::test_support
