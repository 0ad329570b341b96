// Simulation::dispatch, the run loop's switch from an event's kind to its handler: shared by
// the sequential loop (simulation.cpp) and a partitioned run's (partitioned_run.cpp), inline in
// both.
#pragma once

#include "engine/packet/simulation.h"

namespace fabricsim::scenario {

// Always inlined: out of line (once two files used it) it cost 1.4 % of the k=16 benchmark.
[[gnu::always_inline]] inline void Simulation::dispatch(const Event& ev) {
  switch (ev.kind()) {
    case kPortTxDone:
      net_.on_tx_done(ev.target);
      break;
    case kLinkArrive:
      net_.on_link_arrive(ev.target);
      break;
    case kCtrlArrive:
      net_.on_ctrl_arrive(ev.target);
      break;
    case kPauseExpire:
      net_.on_pause_expire(ev.target);
      break;
    case kPfcRefresh:
      net_.on_pfc_refresh(ev.target);
      break;
    case kPfcWatchdog:
      net_.on_pfc_watchdog(ev.target);
      break;
    case kNicStall:
      net_.on_nic_stall(ev.target);
      break;
    case kNicResume:
      net_.on_nic_resume(ev.target);
      break;
    case kCreditWatchdog:
      net_.on_credit_watchdog(ev.target);
      break;
    case kLinkFail:
      on_link_fail(ev.target);
      break;
    case kRouteUpdate:
      on_route_update();
      break;
    case kLinkUp:
      on_link_up(ev.target);
      break;
    case kLocalRepair:
      on_local_repair(ev.target);
      break;
    case kQpTimer:  // the transport's own events (Transport::is_event)
    case kCcTimer:
    case kNicWake:
    case kMsgComplete:
    case kCtxRx:
    case kDropNotice:
    case kFluidCc:
      transport_->on_event(ev.kind(), ev.target);
      break;
    case kFlowStart:
      workload_->on_flow_start();
      if (te_) te_learn();
      break;
    case kNodeEvent:
      gpu_net_->on_event(ev.target);
      if (te_) te_learn();
      break;
    case kTeInstall:
      te_->on_install();
      break;
    case kTeTick:
      te_->on_tick();
      break;
    case kWindowSample:
      steady_->on_sample();
      break;
    case kHybridTick:
      hybrid_->on_tick();
      break;
    case kHybridThaw:
      hybrid_->on_thaw(ev.target);
      break;
  }
}

}  // namespace fabricsim::scenario
