// DCQCN (Zhu et al., SIGCOMM 2015): the reaction point (RP) rate machine of a RoCEv2 sender QP,
// and the named parameter profiles of SPEC §8 (shared/reference/rocev2.md §1 describes the
// algorithm and the implementations the profiles come from).
//
// DcqcnRp schedules nothing: the transport owns one timer event per QP, placed at
// next_timer_ps() and re-read after every call (on_cnp can move it earlier; on_timer and
// on_bytes_sent only later, or to "none"). The machine is deterministic: no randomness, and
// events at the same picosecond are ordered the same way every time (see on_timer).
#pragma once

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "transport/param_error.h"
#include "transport/transport.h"  // kNoTimer

namespace fabricsim::transport {

// Congestion point: RED marking on a switch egress queue's bytes; probability 0 below Kmin,
// rising linearly to pmax at Kmax, 1 above Kmax (reference §1, "CP marking").
struct EcnMarking {
  int64_t kmin_bytes = 0;
  int64_t kmax_bytes = 0;
  double pmax = 0;
};

struct DcqcnParams {
  // --- Reaction point (sender NIC) ---
  int64_t min_rate_bps = 0;  // a cut never goes below this
  double g = 0;              // alpha gain: alpha <- (1-g)alpha [+ g]
  double initial_alpha = 1;  // alpha set by the QP's first CNP ever
  int64_t alpha_interval_ps = 0;
  // true (dcqcn-paper, NS3RDMA): alpha <- (1-g)alpha + g on every CNP, and the alpha timer,
  // restarted by each CNP, decays alpha only after a whole interval without CNP.
  // false (ConnectX, HPCC "Mellanox" model): one update per interval on a fixed grid started by
  // the first CNP: +g if a CNP arrived in that interval, plain decay otherwise.
  bool alpha_update_on_cnp = false;
  // 0: cut on every CNP. >0: cuts are at least this far apart; a CNP arriving sooner is remembered
  // and served when the interval since the last cut ends (ConnectX rate_reduce_monitor_period).
  int64_t rate_decrease_interval_ps = 0;
  int64_t rate_increase_timer_ps = 0;  // T: one increase step each time it expires
  int64_t byte_counter_bytes = 0;      // B: one increase step per B bytes sent; 0 = no counter
  int fast_recovery_steps = 0;         // F (ConnectX rp_threshold); see DcqcnRp for the rule
  // How the stage counters meet F (see DcqcnRp). false (ConnectX as Google isekai and HPCC model
  // it): a counter holds the steps taken before this one, so F fast-recovery steps and hyper
  // increase once both counters exceed F. true (NS3RDMA, the DCQCN author's simulator): the
  // firing counter counts this step first, so F-1 fast-recovery steps and hyper increase once
  // both counters reach F.
  bool stage_counts_current_step = false;
  int64_t ai_rate_bps = 0;   // additive increase of Rt
  int64_t hai_rate_bps = 0;  // hyper increase of Rt
  // One cut keeps at least this fraction of the rate (ConnectX rp_min_dec_fac); 0 = no floor.
  double min_decrease_factor = 0;
  // true: the i-th hyper step adds i x HAI (NS3RDMA); false: always HAI (HPCC, ConnectX model).
  bool hyper_increase_scales = false;
  // true: every cut first sets Rt <- Rc (reference §1). false: only if an increase step ran since
  // the previous cut, so back-to-back cuts remember the rate before the first one (ConnectX
  // clamp_tgt_rate=0 with clamp_tgt_rate_after_time_inc=1; HPCC CLAMP_TARGET_RATE 0).
  bool clamp_target_rate = true;

  // --- Notification point (receiver NIC) ---
  int64_t cnp_interval_ps = 0;  // at most one CNP per QP per interval; 0 = one per marked packet

  // --- Congestion point (switch) defaults that belong with the profile ---
  EcnMarking ecn;
};

// The named profiles: "nvidia-default", "dcqcn-paper", "hpcc-paper" (values and their sources
// in dcqcn.cpp). hpcc-paper scales Kmin, Kmax, AI and HAI by link_rate_bps / 25 Gb/s; the others
// ignore it. Throws std::invalid_argument on an unknown name; the message lists the names.
// REQUIRES: link_rate_bps > 0.
DcqcnParams dcqcn_profile(std::string_view name, int64_t link_rate_bps);
std::vector<std::string> dcqcn_profile_names();

// A DCQCN parameter out of range. `field` is the scenario key of the parameter below
// "fabric." (e.g. "roce.dcqcn.min_rate", "ecn.kmax"), so the scenario layer can name the key
// the user wrote; the transport itself knows no scenario keys beyond these names.
using DcqcnParamError = ParamError;  // transport/param_error.h

// Throws DcqcnParamError for the first field out of range, for a line rate.
void validate_dcqcn_params(const DcqcnParams& p, int64_t line_rate_bps);

// The RP of one QP. Rates are integer bps; alpha in [0, 1].
//
// Cut (reference §1, "On a CNP"): Rt <- Rc (subject to clamp_target_rate);
//   Rc <- max(min_rate, round(Rc * max(1 - alpha/2, min_decrease_factor)));
//   both stage counters, the byte counter and the increase timer (now + T) restart.
// Increase step (timer expiry or B bytes). Let s_t, s_b be the timer and byte steps already
// taken since the last cut, and a_t, a_b the same counts with the firing counter's current step
// included (a = s + 1 for the firing counter, a = s for the other).
//   stage_counts_current_step = false (ConnectX; HPCC RateIncEventMlx, isekai IncreaseRate):
//     fast recovery   if max(s_t, s_b) < F:  Rt unchanged
//     hyper increase  if min(s_t, s_b) > F:  Rt += HAI * (scales ? min(s_t, s_b) - F : 1)
//     additive        otherwise:             Rt += AI
//     s_b is left out when B = 0, which is HPCC's timer-only rule: F fast recovery steps, one
//     additive step, then hyper.
//   stage_counts_current_step = true (NS3RDMA rpr_fast_*, rpr_active_select, rpr_hyper_increase):
//     fast recovery   if max(a_t, a_b) < F:  Rt unchanged
//     hyper increase  if min(a_t, a_b) >= F: Rt += HAI * (scales ? min(a_t, a_b) - F + 1 : 1)
//     additive        otherwise:             Rt += AI
//     a_b stays 0 when B = 0 (a byte counter that never fires), so there is no hyper increase.
//     Two NS3RDMA details are not modelled: a byte expiry in its additive stage adds AI without
//     testing for hyper, and its hyper stage halves B and T.
//   then Rt <- min(Rt, line rate); Rc <- ceil((Rt + Rc) / 2); the firing counter counts the step.
// SPEC §8 reads F as the number of fast-recovery steps ("F = 5 fast-recovery steps"), which is
// the ConnectX rule; NS3RDMA's does F-1.
// Rc rounds up so that it reaches the line rate exactly (a floor would stop 1 bps short).
// Idle: when Rc and Rt are both at the line rate and no cut is pending, the increase timer stops
// and bytes are not counted; next_timer_ps() is kNoTimer.
// Alpha is not a timer here: its updates change nothing until the next cut reads alpha, so they
// are applied lazily, tick by tick in time order, whenever a call passes a later now_ps. It keeps
// decaying while the RP is idle (as NS3RDMA's and HPCC's alpha timers, which never stop), at no
// cost in events; alpha() is the value as of the latest now_ps passed in.
// Events at one picosecond: due timers run before a CNP or byte count at that time; an alpha
// update before a cut (HPCC delays its decrease check 1 ns for the same order); a pending cut
// before an increase expiry (the cut restarts the increase timer, so that step never runs).
// REQUIRES (every call): now_ps never decreases from one call to the next.
class DcqcnRp {
 public:
  // Throws std::invalid_argument if validate_dcqcn_params does. Starts at the line rate, idle.
  DcqcnRp(const DcqcnParams& p, int64_t line_rate_bps);

  int64_t rate_bps() const { return rc_bps_; }         // Rc
  int64_t target_rate_bps() const { return rt_bps_; }  // Rt
  double alpha() const { return alpha_; }
  int64_t line_rate_bps() const { return line_rate_bps_; }
  bool idle() const { return next_timer_ps() == kNoTimer; }
  const DcqcnParams& params() const { return p_; }

  // A CNP for this QP reached the sender NIC.
  void on_cnp(int64_t now_ps);
  // The QP put `bytes` on the wire (count what the byte counter should count; NS3RDMA counts
  // whole frames). May run one or more increase steps.
  void on_bytes_sent(int64_t bytes, int64_t now_ps);
  // Bytes still to send before the byte counter's next increase step; -1 when sending counts
  // for nothing (not recovering, or B = 0). The flow engine's fluid DCQCN (engine/flow/
  // fluid_dcqcn.h) places an event where the counter will expire at the flow's rate.
  int64_t bytes_to_increase() const {
    return recovering_ && p_.byte_counter_bytes > 0 ? p_.byte_counter_bytes - bytes_counted_ : -1;
  }
  // Earliest pending increase expiry or deferred cut; kNoTimer when there is none.
  int64_t next_timer_ps() const {
    return increase_timer_ps_ < pending_cut_ps_ ? increase_timer_ps_ : pending_cut_ps_;
  }
  // Runs every timer due at or before now_ps, in time order. Calling it early is harmless.
  void on_timer(int64_t now_ps);

 private:
  enum class Counter { kTimer, kByte };
  void run_due(int64_t now_ps);
  void advance_alpha(int64_t now_ps);
  void cut(int64_t now_ps);
  void increase(Counter which);
  void go_idle_if_recovered();

  DcqcnParams p_;
  int64_t line_rate_bps_;
  double one_minus_g_;
  int64_t rc_bps_;
  int64_t rt_bps_;
  double alpha_ = 0;
  bool alpha_started_ = false;        // first CNP seen
  bool alpha_cnp_in_period_ = false;  // grid mode: a CNP arrived since the last alpha update
  int64_t next_alpha_ps_ = kNoTimer;
  int64_t increase_timer_ps_ = kNoTimer;  // kNoTimer unless recovering
  int64_t pending_cut_ps_ = kNoTimer;
  int64_t last_cut_ps_ = std::numeric_limits<int64_t>::min();
  int64_t time_stage_ = 0;
  int64_t byte_stage_ = 0;
  int64_t bytes_counted_ = 0;
  bool recovering_ = false;  // a cut happened and Rc or Rt is still below the line rate
};

}  // namespace fabricsim::transport
