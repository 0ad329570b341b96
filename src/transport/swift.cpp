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

}  // namespace fabricsim::transport
