// The split of a partitioned run (engine/packet/partitioned_run.cpp plans it): complete
// wherever Simulation is constructed or destroyed, since its constructor may have to destroy
// the unique_ptr that holds it (whatever unity batch the two files fall in).
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include "core/partitions.h"
#include "engine/packet/simulation.h"

namespace fabricsim::scenario {

struct Simulation::PartitionState {
  Partitions::Tables tables;  // each port's, its cable's far end's and each NIC's partition
  std::vector<uint8_t> cut;   // per port: its cable joins two partitions
  int64_t lookahead_ps = std::numeric_limits<int64_t>::max();
  uint32_t count = 1;
};

}  // namespace fabricsim::scenario
