// TIMELY (Mittal et al., SIGCOMM 2015, "TIMELY: RTT-based Congestion Control for the Datacenter"):
// the sender's rate rule, Algorithm 1 of the paper, fed one RTT sample per ACK.
//
//   new_rtt_diff = rtt - prev_rtt;  prev_rtt = rtt
//   rtt_diff     = (1 - alpha) rtt_diff + alpha new_rtt_diff
//   gradient     = rtt_diff / min_rtt
//   rtt < T_low:   rate += delta
//   rtt > T_high:  rate *= 1 - beta (1 - T_high / rtt)
//   gradient <= 0: rate += N delta  (N = hai_n once hai_after consecutive such samples, else 1)
//   gradient > 0:  rate *= 1 - beta gradient
// The rate stays within [min_rate, line]. Held in RateCc (CongestionControl::kTimely), which
// feeds it the Karn RTT samples of transport/rc.cpp (about one per round trip); selected with
// fabric.roce.cc: timely, each parameter overridable as fabric.roce.timely.* (docs/cc.md).
// Deterministic; no timer.
//
// Known limits of the rule itself, not of this model: inside [T_low, T_high] it reacts to the
// RTT's gradient only, so any queue there with a zero gradient is a fixed point and flows that
// reach it at different rates stay there (Zhu et al., "ECN or Delay", CoNEXT 2016: TIMELY "can
// converge to stable regime with arbitrary unfairness").
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

#include "transport/param_error.h"
#include "transport/transport.h"  // kNoTimer

namespace fabricsim::transport {

struct TimelyParams {
  int64_t delta_bps = 0;     // additive increase step
  double beta = 0;           // multiplicative decrease factor
  double alpha = 0;          // EWMA weight of the newest RTT difference
  int64_t t_low_ps = 0;      // below: additive increase regardless of the gradient (0: none)
  int64_t t_high_ps = 0;     // above: decrease in proportion to the excess
  int64_t min_rtt_ps = 0;    // normalizes the gradient
  int hai_n = 0;             // hyper-active increase multiplier N
  int hai_after = 0;         // consecutive non-positive gradients before HAI applies
  int64_t min_rate_bps = 0;  // floor of every decrease
};

// Defaults and their sources in timely.cpp: the 10 Gb/s values of the authors' code snippet and
// the HPCC simulator, delta scaled by line / 10 Gb/s and T_low, T_high by 10 Gb/s / line (the
// same queue in bytes); min_rtt not scaled. REQUIRES: line_rate_bps > 0.
TimelyParams timely_defaults(int64_t line_rate_bps);

using TimelyParamError = ParamError;  // transport/param_error.h
void validate_timely_params(const TimelyParams& p);

// One QP's TIMELY state. REQUIRES: `p` outlives the object; now_ps never decreases.
class TimelyRp {
 public:
  TimelyRp(const TimelyParams& p, int64_t line_rate_bps);

  int64_t rate_bps() const { return static_cast<int64_t>(rate_bps_); }
  double rtt_diff_ps() const { return rtt_diff_ps_; }
  int64_t last_rtt_ps() const { return prev_rtt_ps_; }  // -1 before the first sample
  // One ACK; rtt_ps < 0 (no sample) changes nothing.
  void on_ack(int64_t acked_bytes, int64_t rtt_ps, bool ece, int64_t now_ps);
  // The rest of the RateCc signals: TIMELY reacts to RTT samples alone and has no timer.
  void on_cnp(int64_t) {}
  void on_bytes_sent(int64_t, int64_t) {}
  int64_t next_timer_ps() const { return kNoTimer; }
  void on_timer(int64_t) {}

 private:
  const TimelyParams* p_;
  double line_rate_bps_;
  double rate_bps_;
  int64_t prev_rtt_ps_ = -1;  // -1: no sample yet, so no difference
  double rtt_diff_ps_ = 0;
  int negative_gradients_ = 0;  // consecutive samples with gradient <= 0
};

}  // namespace fabricsim::transport
