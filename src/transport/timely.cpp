#include "transport/timely.h"

#include <algorithm>

#include "core/time.h"

namespace fabricsim::transport {

TimelyParams timely_defaults(int64_t line_rate_bps) {
  TimelyParams p;
  // The paper's values are for 10 Gb/s NICs. alpha 0.875, beta 0.8, T_low 50 us, T_high 500 us
  // and min_rtt 20 us are the TIMELY attribute defaults of the ns-3 RdmaHw in the HPCC
  // simulator's lineage (read in a public fork of it, rdma-hw.cc TimelyAlpha/Beta/TLow/THigh/
  // MinRtt); delta 10 Mb/s and HAI N = 5 are from memory of the paper (§4, Algorithm 1).
  // UNVERIFIED against the paper's text. delta scales with the line rate so that one step is
  // the same fraction of it; the delays are fabric delays and are kept (a fabric with a much
  // smaller base RTT than the paper's should lower T_low, T_high and min_rtt).
  p.delta_bps = static_cast<int64_t>(10e6 * (static_cast<double>(line_rate_bps) / 10e9));
  p.beta = 0.8;
  p.alpha = 0.875;
  p.t_low_ps = 50 * kPsPerUs;
  p.t_high_ps = 500 * kPsPerUs;
  p.min_rtt_ps = 20 * kPsPerUs;
  p.hai_n = 5;
  p.hai_after = 5;
  p.min_rate_bps = line_rate_bps / 1000;  // fabricsim's floor, not the paper's
  return p;
}

void validate_timely_params(const TimelyParams& p) {
  if (p.delta_bps <= 0) throw TimelyParamError("roce.timely.delta", "delta must be > 0");
  if (!(p.beta > 0 && p.beta <= 1))
    throw TimelyParamError("roce.timely.beta", "beta must be in (0, 1]");
  if (!(p.alpha > 0 && p.alpha <= 1))
    throw TimelyParamError("roce.timely.alpha", "alpha must be in (0, 1]");
  if (p.t_low_ps <= 0) throw TimelyParamError("roce.timely.t_low", "T_low must be > 0");
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
