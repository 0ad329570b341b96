#include "transport/timely.h"

#include <algorithm>

#include "core/time.h"

namespace fabricsim::transport {

TimelyParams timely_defaults(int64_t line_rate_bps) {
  // Sources. [S] the authors' code snippet (R. Mittal, people.eecs.berkeley.edu/~radhika/
  // timely-code-snippet.cc; the same file at people.csail.mit.edu/ghobadi/code/timely.cc), its
  // "recommended values": ewma_alpha 0.02, t_low 0 with per-packet pacing or 50 us with 64 KB
  // per-message pacing, t_high 1 ms, HAI_Thresh 5, additiveIncrement 10 Mb/s for 10 Gb/s,
  // decreaseFactor 0.8. [H] the HPCC simulator (alibaba-edu/High-Precision-Congestion-Control
  // @9f4be2a, rdma-hw.cc attributes TimelyAlpha 0.875, TimelyBeta 0.8, TimelyTLow 50 us,
  // TimelyTHigh 500 us, TimelyMinRtt 20 us; run.py's timely config RATE_AI 10 Mb/s x B / 10G,
  // RATE_HAI 5x that, one rate update per RTT). The paper's own text (§4-5) could not be read
  // here: where [S] and [H] agree with what it is cited for, that is as far as it is verified.
  const double per_10g = static_cast<double>(line_rate_bps) / 10e9;
  TimelyParams p;
  p.delta_bps = static_cast<int64_t>(10e6 * per_10g);  // [S], [H]: the same fraction of the line
  p.beta = 0.8;                                        // [S], [H]
  // [H]. fabricsim samples one RTT per round trip (Karn, transport/rc.cpp), as [H] updates once
  // per RTT; [S]'s 0.02 is for an update per completion, many per round trip.
  p.alpha = 0.875;
  // The thresholds stand for queue bytes, so they scale as 10 Gb/s / line: 50 us at 10 Gb/s is
  // 62.5 KB, about the 64 KB segment [S] ties T_low to (a NIC that bursts a segment at line rate
  // sees its own burst in the RTT), and T_high 625 KB. Unscaled, 50 us at 100 Gb/s would let
  // 625 KB queue before TIMELY reacts at all, beyond a per-port share of a 16 MiB switch's
  // buffer, so PFC rather than TIMELY would hold the queue.
  p.t_low_ps = static_cast<int64_t>(50.0 * kPsPerUs / per_10g);    // [H]; [S] with 64 KB
  p.t_high_ps = static_cast<int64_t>(500.0 * kPsPerUs / per_10g);  // [H]; [S] says 1 ms
  // [H]. Not scaled: it normalizes the RTT difference by the fabric's propagation round trip,
  // which does not shrink with the line rate.
  p.min_rtt_ps = 20 * kPsPerUs;
  p.hai_n = 5;                            // [H] RATE_HAI = 5 x RATE_AI
  p.hai_after = 5;                        // [S] HAI_Thresh
  p.min_rate_bps = line_rate_bps / 1000;  // fabricsim's floor; [S] leaves it optional
  return p;
}

void validate_timely_params(const TimelyParams& p) {
  if (p.delta_bps <= 0) throw TimelyParamError("roce.timely.delta", "delta must be > 0");
  if (!(p.beta > 0 && p.beta <= 1))
    throw TimelyParamError("roce.timely.beta", "beta must be in (0, 1]");
  if (!(p.alpha > 0 && p.alpha <= 1))
    throw TimelyParamError("roce.timely.alpha", "alpha must be in (0, 1]");
  if (p.t_low_ps < 0) throw TimelyParamError("roce.timely.t_low", "T_low must be >= 0");
  if (p.t_high_ps <= p.t_low_ps)
    throw TimelyParamError("roce.timely.t_high", "T_high must be above T_low");
  if (p.min_rtt_ps <= 0) throw TimelyParamError("roce.timely.min_rtt", "min_rtt must be > 0");
  if (p.hai_n < 1) throw TimelyParamError("roce.timely.hai_n", "hai_n must be >= 1");
  if (p.hai_after < 1) throw TimelyParamError("roce.timely.hai_after", "hai_after must be >= 1");
  if (p.min_rate_bps <= 0) throw TimelyParamError("roce.timely.min_rate", "min_rate must be > 0");
}

TimelyRp::TimelyRp(const TimelyParams& p, int64_t line_rate_bps)
    : p_(&p),
      line_rate_bps_(static_cast<double>(line_rate_bps)),
      rate_bps_(static_cast<double>(line_rate_bps)) {}

void TimelyRp::on_ack(int64_t, int64_t rtt_ps, bool, int64_t) {
  if (rtt_ps < 0) return;
  const double rtt = static_cast<double>(rtt_ps);
  if (prev_rtt_ps_ >= 0) {
    const double new_diff = rtt - static_cast<double>(prev_rtt_ps_);
    rtt_diff_ps_ = (1 - p_->alpha) * rtt_diff_ps_ + p_->alpha * new_diff;
  }
  prev_rtt_ps_ = rtt_ps;
  const double gradient = rtt_diff_ps_ / static_cast<double>(p_->min_rtt_ps);
  const double delta = static_cast<double>(p_->delta_bps);
  if (rtt_ps < p_->t_low_ps) {
    rate_bps_ += delta;
  } else if (rtt_ps > p_->t_high_ps) {
    rate_bps_ *= 1 - p_->beta * (1 - static_cast<double>(p_->t_high_ps) / rtt);
  } else if (gradient <= 0) {
    // Algorithm 1 counts the consecutive non-positive gradients and applies N = 5 from the
    // fifth on (hyper-active increase).
    ++negative_gradients_;
    const int n = negative_gradients_ >= p_->hai_after ? p_->hai_n : 1;
    rate_bps_ += n * delta;
  } else {
    negative_gradients_ = 0;
    rate_bps_ *= 1 - p_->beta * gradient;
  }
  rate_bps_ = std::clamp(rate_bps_, static_cast<double>(p_->min_rate_bps), line_rate_bps_);
}

}  // namespace fabricsim::transport
