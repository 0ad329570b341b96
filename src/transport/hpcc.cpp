// HPCC's sender rule (hpcc.h).
#include "transport/hpcc.h"

#include <algorithm>

#include "core/time.h"

namespace fabricsim::transport {

HpccParams hpcc_defaults(int64_t line_rate_bps, int64_t base_rtt_ps) {
  HpccParams p;
  // run.py (cc "hp"): ai = 10 * bw / 25 Mb/s with bw in Gb/s, so 40 Mb/s at 100 Gb/s.
  p.rate_ai_bps = static_cast<int64_t>(10'000'000.0 * static_cast<double>(line_rate_bps) / 25e9);
  p.min_rate_bps = 1'000'000'000;  // run.py's config template: MIN_RATE 1000Mb/s
  p.base_rtt_ps = base_rtt_ps;
  return p;
}

void validate_hpcc_params(const HpccParams& p, int64_t line_rate_bps) {
  if (!(p.eta > 0 && p.eta <= 1)) throw HpccParamError("roce.hpcc.eta", "must be in (0, 1]");
  if (p.max_stage < 0) throw HpccParamError("roce.hpcc.max_stage", "must be at least 0");
  if (p.rate_ai_bps <= 0 || p.rate_ai_bps > line_rate_bps) {
    throw HpccParamError("roce.hpcc.rate_ai", "must be positive and at most the line rate");
  }
  if (p.min_rate_bps <= 0 || p.min_rate_bps > line_rate_bps) {
    throw HpccParamError("roce.hpcc.min_rate", "must be positive and at most the line rate");
  }
  if (p.base_rtt_ps <= 0) throw HpccParamError("roce.hpcc.base_rtt", "must be positive");
}

HpccCc::HpccCc(const HpccParams& p, int64_t line_rate_bps)
    : p_(p), line_rate_bps_(line_rate_bps), rate_bps_(line_rate_bps), rc_bps_(line_rate_bps) {
  validate_hpcc_params(p_, line_rate_bps);
}

int64_t HpccCc::window_bytes() const {
  // W_max = B x T; VAR_WIN scales it by R / B (rdma-queue-pair.cc GetWin).
  const double w_max = static_cast<double>(line_rate_bps_) / 8 * p_.base_rtt_ps * 1e-12;
  const double w = w_max * static_cast<double>(rate_bps_) / static_cast<double>(line_rate_bps_);
  return std::max<int64_t>(1, static_cast<int64_t>(w));
}

void HpccCc::on_ack(const net::IntRecord& rec, uint32_t acked_psn, uint32_t snd_nxt) {
  const int hops = std::min<int>(rec.hops, net::kIntMaxHops);
  if (!started_) {  // the first ACK: nothing to compare its records with
    started_ = true;
    last_update_psn_ = snd_nxt;
    std::copy(rec.hop, rec.hop + hops, prev_);
    prev_hops_ = static_cast<uint8_t>(hops);
    return;
  }
  const bool update_rc = acked_psn + 1 > last_update_psn_;  // a round trip's first ACK
  // FAST_REACT 0: the ACKs between per-RTT updates are not looked at, not even their records
  // (rdma-hw.cc FastReactHp returns before UpdateRateHp).
  if (!update_rc && !p_.fast_react) return;
  double max_u = 0;
  int64_t tau_ps = 0;
  bool any = false;
  const double w_max_bytes = static_cast<double>(line_rate_bps_) / 8 * p_.base_rtt_ps * 1e-12;
  for (int j = 0; j < hops && j < prev_hops_; ++j) {
    const net::IntHop& now = rec.hop[j];
    const net::IntHop& before = prev_[j];
    const int64_t dt = now.ts_ps - before.ts_ps;
    if (dt <= 0 || now.rate_bps <= 0) continue;  // a record not newer than the last one seen
    any = true;
    const double tx_rate_bps =
        static_cast<double>(now.tx_bytes - before.tx_bytes) * 8 / (static_cast<double>(dt) * 1e-12);
    const double qlen = static_cast<double>(std::min(now.qlen_bytes, before.qlen_bytes));
    const double u = tx_rate_bps / static_cast<double>(now.rate_bps) +
                     qlen * static_cast<double>(line_rate_bps_) /
                         static_cast<double>(now.rate_bps) / w_max_bytes;
    if (u > max_u) {
      max_u = u;
      tau_ps = dt;
    }
  }
  std::copy(rec.hop, rec.hop + hops, prev_);
  prev_hops_ = static_cast<uint8_t>(hops);
  if (any) react(max_u, tau_ps, update_rc);
  if (update_rc && snd_nxt > last_update_psn_) last_update_psn_ = snd_nxt;
}

void HpccCc::react(double max_u, int64_t tau_ps, bool update_rc) {
  const int64_t t = p_.base_rtt_ps;
  const int64_t tau = std::min(tau_ps, t);
  u_ = (u_ * static_cast<double>(t - tau) + max_u * static_cast<double>(tau)) /
       static_cast<double>(t);
  const double k = u_ / p_.eta;
  double rate;
  int stage;
  if (k >= 1 || stage_ >= p_.max_stage) {
    rate = static_cast<double>(rc_bps_) / k + static_cast<double>(p_.rate_ai_bps);
    stage = 0;
  } else {
    rate = static_cast<double>(rc_bps_) + static_cast<double>(p_.rate_ai_bps);
    stage = stage_ + 1;
  }
  // k = 0 (an idle path) gives +inf: the clamp takes it to the line rate.
  rate =
      std::clamp(rate, static_cast<double>(p_.min_rate_bps), static_cast<double>(line_rate_bps_));
  rate_bps_ = static_cast<int64_t>(rate);
  if (update_rc) {
    rc_bps_ = rate_bps_;
    stage_ = stage;
  }
}

}  // namespace fabricsim::transport
