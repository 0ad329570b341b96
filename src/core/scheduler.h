// The clock and event list of one simulation. Passed by reference to every component (never a
// singleton), so several simulations can run in one process.
#pragma once

#include <cstdint>

#include "core/event_queue.h"

namespace fabricsim {

class Partitions;  // core/partitions.h
// Out of line (core/partitions.cpp): only a partitioned run takes these paths.
int64_t partition_now(const Partitions& parts);
void partition_push(Partitions& parts, int64_t time_ps, uint32_t kind, uint32_t target,
                    uint32_t owner);

// Event kinds, one range per layer; the simulation's dispatch switch routes each to its handler.
// The numbers order the events of one instant (core/event_queue.h: time, kind, owner, sequence):
// the network's before the routing's, the transports', the nodes', the workload's and the
// samplers'. So at one instant a port finishes serializing before its link delivers, a link
// delivers before a NIC wakes to send, and the application sees a completion after the
// fabric has moved. Renumbering a kind changes the order of simultaneous events, hence results.
enum EventKind : uint32_t {
  // net 1-19. kPortTxDone and kLinkArrive must stay the two lowest: the run loop prefetches the
  // next event's port when `kind <= kLinkArrive` (engine/packet/simulation.cpp).
  kPortTxDone = 1,   // a port finished serializing its packet (target = port)
  kLinkArrive = 2,   // the head of a link's delay line reached the far end (target = port)
  // the head of a link's control-frame line (PAUSE, IB flow control) reached the far end's MAC
  // (target = sending port)
  kCtrlArrive = 3,
  kPauseExpire = 4,  // a PFC pause a port obeys may have run out (target = port)
  kPfcRefresh = 5,   // re-send PAUSE for classes still in XOFF (target = ingress port)
  kPfcWatchdog = 6,  // check a paused queue for a PFC storm (target = port)
  kNicStall = 7,     // a NIC stops draining its receive buffer (target = NIC)
  kNicResume = 8,    // a stalled NIC drains again (target = NIC)
  kCreditWatchdog = 9,  // check a VL waiting for IB credits against the HOQ lifetime (port)
  kLinkFail = 10,    // a link fails (target = one of its ports)
  kLinkUp = 11,      // a failed link of faults.link_down comes back (target = its cycle index;
                     // with the top bit: the SM activates it, engine/packet/simulation.h)

  // routing 20-29
  kRouteUpdate = 20,  // recomputed tables take effect after a failure (target unused)
  // the TE controller's rules take effect / it re-optimizes (routing/te_controller.h)
  kTeInstall = 21,
  kTeTick = 22,
  // the switches at a failed cable's ends drop it from their ECMP groups (routing.ecmp.
  // local_repair; target = the failure's cycle index)
  kLocalRepair = 23,

  // transport 30-39 (Transport::is_event lists them)
  kQpTimer = 30,     // retransmit timer of a QP (target = QP)
  kCcTimer = 31,     // congestion-control timer of a QP (target = QP)
  kNicWake = 32,     // a rate-limited QP of this NIC may send (target = NIC)
  kMsgComplete = 33,  // the application sees a delivered message (target = message)
  // received packets that waited for a connection context may go (target = NIC;
  // net/nic_context_cache.h)
  kCtxRx = 34,
  // the fabric dropped packets of this NIC's connections: the transport accounts for them
  // (target = NIC; transport/nic_core.h). A drop is reported as data, not as a call made
  // from wherever in the fabric it happened.
  kDropNotice = 35,
  // mode: flow, the fluid DCQCN of a connection (engine/flow/fluid_dcqcn.h): a CNP arrives or its
  // rate machine's timer or byte counter expires (target = connection)
  kFluidCc = 36,

  // node 40-49: a GPU-side stage (NVLink, PCIe, staging copy) or a RankTransport timer ends
  // (target = the node layer's slot)
  kNodeEvent = 40,

  // workload 50-59
  kFlowStart = 50,  // a scheduled message is posted (target = message)

  // results 60-69
  kWindowSample = 60,     // the steady-window goodput sampler (engine/packet/steady_window.h)
  kTelemetrySample = 61,  // the time-series samplers (engine/packet/telemetry.h)
  // mode: hybrid (engine/hybrid/steady_skip.h): a window's sample of the busy QPs, and the end
  // of a group's skip (target = its slot)
  kHybridTick = 62,
  kHybridThaw = 63,

  // simulation 70+
  kStopMarker = 70,  // the time limit of a run() call
};

struct Scheduler {
  EventQueue queue;
  // The clock. In a partitioned run (core/partitions.h) each partition has its own, and this
  // one is the serial phase's: components read the time through now(), never this field.
  int64_t now_ps = 0;
  // Set only while a partitioned run runs: then events go to the queue of the partition that
  // owns them, and now() is the executing partition's clock.
  Partitions* parts = nullptr;
  int64_t now() const {
    if (parts != nullptr) [[unlikely]] return partition_now(*parts);
    return now_ps;
  }
  // An event of the component `target` that owns itself: a port, a NIC, a node, or one of the
  // fabric-wide controllers (target 0).
  void at(int64_t time_ps, uint32_t kind, uint32_t target) { at(time_ps, kind, target, target); }
  // An event that acts on `target` but belongs to `owner` for ordering: a QP's timer (owner:
  // its NIC), a message's completion (the NIC completing it), a node stage (the node).
  void at(int64_t time_ps, uint32_t kind, uint32_t target, uint32_t owner) {
    if (parts != nullptr) [[unlikely]] {
      partition_push(*parts, time_ps, kind, target, owner);
      return;
    }
    queue.push(time_ps, kind, target, owner);
  }
};

}  // namespace fabricsim
