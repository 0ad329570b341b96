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
  kPauseExpire = 3,  // net: a PFC pause a port obeys may have run out (target = port)
  kPfcRefresh = 4,   // net: re-send PAUSE for classes still in XOFF (target = ingress port)
  kPfcWatchdog = 5,  // net: check a paused queue for a PFC storm (target = port)
  kNicStall = 6,     // net: a NIC stops draining its receive buffer (target = NIC)
  kNicResume = 7,    // net: a stalled NIC drains again (target = NIC)
  kCreditWatchdog = 8,  // net: check a VL waiting for IB credits against the HOQ lifetime (port)
  kLinkFail = 9,     // net: a link fails (target = one of its ports)
  kQpTimer = 10,     // transport: retransmit timer of a QP (target = QP)
  kCcTimer = 11,     // transport: congestion-control timer of a QP (target = QP)
  kNicWake = 12,     // transport: a rate-limited QP of this NIC may send (target = NIC)
  kRouteUpdate = 13,  // routing: recomputed tables take effect after a failure (target unused)
  // net: the head of a link's control-frame line (PAUSE, IB flow control) reached the far end's
  // MAC (target = sending port). Numbered after the layers above only because it came later.
  kCtrlArrive = 14,
  kMsgComplete = 15,  // transport: the application sees a delivered message (target = message)
  // node: a GPU-side stage (NVLink, PCIe, staging copy) or a RankTransport timer ends
  // (target = the node layer's slot)
  kNodeEvent = 16,
  kWindowSample = 17,  // results: the steady-window goodput sampler (engine/packet/steady_window.h)
  kTelemetrySample = 18,  // results: the time-series samplers (engine/packet/telemetry.h)
  // transport: received packets that waited for a connection context may go (target = NIC;
  // net/nic_context_cache.h)
  kCtxRx = 19,
  kFlowStart = 20,   // workload: a scheduled message is posted (target = message)
  // routing: the TE controller's rules take effect / it re-optimizes (routing/te_controller.h)
  kTeInstall = 24,
  kTeTick = 25,
  kStopMarker = 30,  // simulation: the time limit of a run() call
};

struct Scheduler {
  EventQueue queue;
  int64_t now_ps = 0;
  void at(int64_t time_ps, uint32_t kind, uint32_t target) {
    queue.push(time_ps, kind, target);
  }
};

}  // namespace fabricsim
