// The clock and event list of one simulation. Passed by reference to every component (never a
// singleton), so several simulations can run in one process.
#pragma once

#include <cstdint>

#include "core/event_queue.h"

namespace fabricsim {

// Event kinds, one range per layer; the simulation's dispatch switch routes each to its owner.
enum EventKind : uint32_t {
  kPortTxDone = 1,   // net: a port finished serializing its packet (target = port)
  kLinkArrive = 2,   // net: the head of a link's delay line reached the far end (target = port)
  kQpTimer = 10,     // transport: retransmit timer of a QP (target = QP)
  kFlowStart = 20,   // workload: a scheduled message is posted (target = message)
};

struct Scheduler {
  EventQueue queue;
  int64_t now_ps = 0;
  void at(int64_t time_ps, uint32_t kind, uint32_t target) {
    queue.push(time_ps, kind, target);
  }
};

}  // namespace fabricsim
