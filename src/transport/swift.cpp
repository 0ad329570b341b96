#include "transport/swift.h"

#include <algorithm>
#include <cmath>

#include "core/time.h"

namespace fabricsim::transport {

SwiftParams swift_defaults(int64_t base_rtt_ps, int64_t per_hop_rtt_ps, int longest_hops,
                           double bdp_pkts) {
  SwiftParams p;
  // The paper (Kumar et al., SIGCOMM 2020) gives values for none of these but min_cwnd: Table 2
  // and Algorithm 1 only name them. Where it is silent fabricsim takes htsim's, which its source
  // calls guesses (Broadcom/csg-htsim @841d9e7 sim/swift.cpp:605-620; ultraethernet/uet-htsim's
  // copy is identical): all UNVERIFIED.
  //
  // Target. The paper's base_target is "the minimum target delay required to provide 100%
  // utilization in a one hop network with a small number of flows" (§3.5), and the hop term
  // adds a fixed delay per hop on top. Its values are Google's (production figures normalized;
  // testbeds 15-50 us, §5), htsim's a fixed 20 us and 20 us / 6.55 per hop. fabricsim instead
  // derives both from this fabric so that a path's target at a large window is 1.25 x that
  // path's own base RTT (a standing queue of a quarter of it): base_target = 1.25 x the base
  // RTT less the longest path's hops, per_hop = 1.25 x what a hop adds to the round trip.
  const int64_t zero_hop_rtt_ps = base_rtt_ps - longest_hops * per_hop_rtt_ps;
  p.base_target_ps = zero_hop_rtt_ps + zero_hop_rtt_ps / 4;
  p.per_hop_ps = per_hop_rtt_ps + per_hop_rtt_ps / 4;
  p.ai_pkts = 1;      // htsim _ai 1.0
  p.beta = 0.8;       // htsim _beta
  p.max_mdf = 0.5;    // htsim _max_mdf
  p.fs_range_ps = 5.0 * static_cast<double>(p.base_target_ps);  // htsim 5 x base delay
  p.fs_min_cwnd = 0.1;  // htsim, packets
  p.fs_max_cwnd = 100;  // htsim, packets
  p.min_cwnd = 0.001;   // the paper, §3.4: "down to a minimum of 0.001 packets"
  p.max_cwnd = std::max(1.0, bdp_pkts);  // fabricsim's: one BDP (htsim: 1000 MSS)
  p.retx_reset = 5;     // RETX_RESET_THRESHOLD: htsim _rtx_reset_threshold
  p.base_rtt_ps = base_rtt_ps;
  return p;
}

void validate_swift_params(const SwiftParams& p) {
  if (p.base_target_ps <= 0) throw SwiftParamError("roce.swift.base_target", "must be > 0");
  if (p.per_hop_ps < 0) throw SwiftParamError("roce.swift.per_hop", "must be >= 0");
  if (p.ai_pkts <= 0) throw SwiftParamError("roce.swift.ai", "must be > 0");
  if (!(p.beta > 0 && p.beta <= 1)) throw SwiftParamError("roce.swift.beta", "must be in (0, 1]");
  if (!(p.max_mdf > 0 && p.max_mdf < 1))
    throw SwiftParamError("roce.swift.max_mdf", "must be in (0, 1)");
  if (p.fs_range_ps < 0) throw SwiftParamError("roce.swift.fs_range", "must be >= 0");
  if (!(p.fs_min_cwnd > 0 && p.fs_max_cwnd > p.fs_min_cwnd))
    throw SwiftParamError("roce.swift.fs_max_cwnd", "must be above fs_min_cwnd > 0");
  if (!(p.min_cwnd > 0 && p.max_cwnd >= p.min_cwnd))
    throw SwiftParamError("roce.swift.max_cwnd", "must be at least min_cwnd > 0");
  // Each QP keeps a send time per packet of its largest window (SwiftCc's stamp ring).
  if (p.max_cwnd > (1 << 20) - 2)
    throw SwiftParamError("roce.swift.max_cwnd", "must be at most 1048574 packets (2^20 - 2)");
  if (p.retx_reset < 1) throw SwiftParamError("roce.swift.retx_reset", "must be >= 1");
  if (p.base_rtt_ps <= 0) throw SwiftParamError("roce.swift.base_rtt", "must be > 0");
}

SwiftCwnd::SwiftCwnd(const SwiftParams& p, int hops, double initial_cwnd_pkts)
    : p_(&p), hops_(hops), cwnd_pkts_(std::clamp(initial_cwnd_pkts, p.min_cwnd, p.max_cwnd)) {}

double SwiftCwnd::target_delay_ps() const {
  const double a =
      p_->fs_range_ps / (1 / std::sqrt(p_->fs_min_cwnd) - 1 / std::sqrt(p_->fs_max_cwnd));
  const double b = -a / std::sqrt(p_->fs_max_cwnd);
  const double fs = std::clamp(a / std::sqrt(cwnd_pkts_) + b, 0.0, p_->fs_range_ps);
  return static_cast<double>(p_->base_target_ps) +
         static_cast<double>(hops_) * static_cast<double>(p_->per_hop_ps) + fs;
}

void SwiftCwnd::on_ack(double acked_pkts, int64_t delay_ps, int64_t now_ps) {
  retransmits_ = 0;  // an ACK: the timeouts in a row end
  if (delay_ps < 0) return;
  last_rtt_ps_ = delay_ps;
  const double target = target_delay_ps();
  const double delay = static_cast<double>(delay_ps);
  if (delay < target) {
    // ai per RTT: a window's worth of ACKs adds ai; below one packet, each ACK adds ai x acked.
    cwnd_pkts_ +=
        cwnd_pkts_ >= 1 ? p_->ai_pkts * acked_pkts / cwnd_pkts_ : p_->ai_pkts * acked_pkts;
  } else if (last_decrease_ps_ < 0 || now_ps - last_decrease_ps_ >= last_rtt_ps_) {
    cwnd_pkts_ *= std::max(1 - p_->beta * (delay - target) / delay, 1 - p_->max_mdf);
    last_decrease_ps_ = now_ps;
  }
  cwnd_pkts_ = std::clamp(cwnd_pkts_, p_->min_cwnd, p_->max_cwnd);
}

void SwiftCwnd::decrease(double factor, int64_t now_ps) {
  cwnd_pkts_ = std::clamp(cwnd_pkts_ * factor, p_->min_cwnd, p_->max_cwnd);
  last_decrease_ps_ = now_ps;
}

void SwiftCwnd::on_timeout(int64_t now_ps) {
  if (++retransmits_ >= p_->retx_reset) {
    cwnd_pkts_ = p_->min_cwnd;
    last_decrease_ps_ = now_ps;
  } else if (can_decrease(now_ps)) {
    decrease(1 - p_->max_mdf, now_ps);
  }
}

void SwiftCwnd::on_fast_recovery(int64_t now_ps) {
  retransmits_ = 0;
  if (can_decrease(now_ps)) decrease(1 - p_->max_mdf, now_ps);
}

uint64_t SwiftCc::stamp_slots(const SwiftParams& p) {
  uint64_t n = 1;
  while (static_cast<double>(n) < std::ceil(p.max_cwnd) + 2) n <<= 1;
  return n;
}

SwiftCc::SwiftCc(const SwiftParams& p, int hops, int64_t line_rate_bps, int mtu_bytes,
                 int64_t wire_mtu_bytes)
    : cwnd_(p, hops, p.max_cwnd),
      line_rate_bps_(line_rate_bps),
      mtu_bytes_(mtu_bytes),
      wire_mtu_bytes_(wire_mtu_bytes),
      stamps_(stamp_slots(p), -1) {}

int64_t SwiftCc::window_bytes() const {
  // At least one packet: below one, pacing spaces them (rate_bps).
  const double w = std::max(1.0, cwnd_.cwnd_pkts()) * mtu_bytes_;
  return static_cast<int64_t>(std::ceil(w));
}

int64_t SwiftCc::rate_bps() const {
  const double cwnd = cwnd_.cwnd_pkts();
  if (cwnd >= 1) return line_rate_bps_;  // the window alone limits it
  // One full frame per rtt / cwnd (the paper's pacing delay), at most the line rate.
  const int64_t rtt_ps = cwnd_.last_rtt_ps() > 0 ? cwnd_.last_rtt_ps() : cwnd_.params().base_rtt_ps;
  const double rate = static_cast<double>(wire_mtu_bytes_) * 8 * cwnd * 1e12 / rtt_ps;
  return std::clamp(static_cast<int64_t>(rate), int64_t{1}, line_rate_bps_);
}

void SwiftCc::on_ack(uint32_t psn, uint32_t acked_pkts, int64_t now_ps) {
  int64_t& sent_ps = stamps_[psn & (stamps_.size() - 1)];
  const int64_t delay_ps = sent_ps >= 0 ? now_ps - sent_ps : -1;
  sent_ps = -1;  // read once
  cwnd_.on_ack(acked_pkts, delay_ps, now_ps);
}

}  // namespace fabricsim::transport
