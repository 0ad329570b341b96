// While a run simulates, the rings that hold its queued packets (core/ring.h RingMemory) may
// grow to what the memory pre-flight expected of them plus whatever the memory limit leaves
// above the projected peak; growing past that stops the run with one line naming
// fabric.switch.buffer (InputError: exit 2, no results) instead of letting it die of memory.
// The estimate counts a GPU run's queues where DCQCN is expected to hold them
// (preflight/resources.cpp packets_expected), so the budget covers what the estimate could not
// promise: a queue that outgrows its congestion control's threshold.
#pragma once

#include <cstdint>

#include "preflight/resources.h"

namespace fabricsim::cli {

// Sets the budget for the scope of one run (`limit` <= 0: none); the destructor lifts it.
class RingBudget {
 public:
  RingBudget(const scenario::ResourceEstimate& e, int64_t peak_bytes, int64_t limit,
             bool explicit_limit);
  ~RingBudget();
  RingBudget(const RingBudget&) = delete;
  RingBudget& operator=(const RingBudget&) = delete;
};

}  // namespace fabricsim::cli
