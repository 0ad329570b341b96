// What topology to build: the shape the scenario asks for, before validation.
#pragma once

#include <cstdint>

namespace fabricsim::topo {

enum class TopologyKind : uint8_t { kFatTree };

struct TopologySpec {
  TopologyKind kind = TopologyKind::kFatTree;
  int tiers = 2;                  // 2 = leaf-spine, 3 = k-ary fat-tree (Al-Fares et al. 2008)
  int radix = 16;                 // ports per switch
  double oversubscription = 1.0;  // leaf downlinks : uplinks (1 = non-blocking)
  int hosts = 128;
  int nics_per_host = 1;
};

}  // namespace fabricsim::topo
