#include "transport/swift.h"

#include <algorithm>
#include <cmath>

#include "core/time.h"

namespace fabricsim::transport {

SwiftParams swift_defaults(int64_t base_rtt_ps, double bdp_pkts) {
  SwiftParams p;
  // All values UNVERIFIED against the paper's text (from memory of §3 and its parameter table;
  // the paper's base target is for Google's fabric). fabricsim takes the fabric's base RTT plus
  // a margin as the base target so that the rule aims at a small standing queue.
  p.base_target_ps = base_rtt_ps + base_rtt_ps / 4;
  p.per_hop_ps = kPsPerUs / 2;  // UNVERIFIED; scaled to this fabric's sub-us switch latency
  p.ai_pkts = 1;
  p.beta = 0.8;
  p.max_mdf = 0.5;
  p.fs_range_ps = 5.0 * static_cast<double>(p.base_target_ps);
  p.fs_min_cwnd = 0.1;
  p.fs_max_cwnd = 100;
  p.min_cwnd = 0.001;
  p.max_cwnd = std::max(1.0, bdp_pkts);
  p.retx_reset = 5;  // RETX_RESET_THRESHOLD: UNVERIFIED
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
      base_rtt_ps_(p.base_rtt_ps),
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
  const int64_t rtt_ps = cwnd_.last_rtt_ps() > 0 ? cwnd_.last_rtt_ps() : base_rtt_ps_;
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
