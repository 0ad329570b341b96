#include "transport/dctcp_rdma.h"

#include <algorithm>

#include "core/time.h"

namespace fabricsim::transport {

DctcpRdmaParams dctcp_rdma_defaults(int64_t line_rate_bps, int mtu_bytes, int64_t base_rtt_ps) {
  DctcpRdmaParams p;
  // g = 1/16: run.py's dctcp config (g=0.0625), the DCTCP paper's g.
  p.g = 1.0 / 16;
  // One MTU per round trip (run.py: dctcp_ai = 615 Mb/s, "calculated from RTT=13us and MTU=1KB,
  // because DCTCP add 1 MTU per RTT"): the same rule for this fabric's MTU and T.
  p.rate_ai_bps = std::max<int64_t>(
      1, static_cast<int64_t>(static_cast<double>(mtu_bytes) * 8 * kPsPerSecond / base_rtt_ps));
  // run.py's config template MIN_RATE 1000Mb/s (as HPCC's), at most the line rate.
  p.min_rate_bps = std::min<int64_t>(1'000'000'000, line_rate_bps);
  p.base_rtt_ps = base_rtt_ps;
  return p;
}

void validate_dctcp_rdma_params(const DctcpRdmaParams& p, int64_t line_rate_bps) {
  if (!(p.g > 0 && p.g <= 1)) throw DctcpRdmaParamError("roce.dctcp.g", "must be in (0, 1]");
  if (p.rate_ai_bps <= 0 || p.rate_ai_bps > line_rate_bps) {
    throw DctcpRdmaParamError("roce.dctcp.rate_ai", "must be in (0, line rate]");
  }
  if (p.min_rate_bps <= 0 || p.min_rate_bps > line_rate_bps) {
    throw DctcpRdmaParamError("roce.dctcp.min_rate", "must be in (0, line rate]");
  }
  if (p.base_rtt_ps <= 0) throw DctcpRdmaParamError("roce.dctcp.base_rtt", "must be > 0");
}

DctcpRdma::DctcpRdma(const DctcpRdmaParams& p, int64_t line_rate_bps)
    : p_(&p), line_rate_bps_(line_rate_bps), rate_bps_(line_rate_bps) {}

int64_t DctcpRdma::window_bytes() const {
  const double w_max = static_cast<double>(line_rate_bps_) / 8 * p_->base_rtt_ps * 1e-12;
  return std::max<int64_t>(1, static_cast<int64_t>(w_max * rate_bps_ / line_rate_bps_));
}

void DctcpRdma::on_ack(uint32_t acked_end, uint32_t snd_nxt, bool ece) {
  bool new_batch = false;
  if (ece) ++marked_;
  if (!started_ || acked_end > batch_end_) {  // a round trip of feedback is complete
    new_batch = true;
    if (!started_) {
      started_ = true;
      batch_pkts_ = snd_nxt + 1;
    } else {
      const double frac = std::min(1.0, static_cast<double>(marked_) / batch_pkts_);
      alpha_ = (1 - p_->g) * alpha_ + p_->g * frac;
      marked_ = 0;
      batch_pkts_ = snd_nxt - acked_end + 1;
    }
    batch_end_ = snd_nxt;
  }
  if (cwr_ && acked_end > cwr_end_) cwr_ = false;
  if (ece && !cwr_) {  // once per window of data
    rate_bps_ = std::max(p_->min_rate_bps,
                         static_cast<int64_t>(static_cast<double>(rate_bps_) * (1 - alpha_ / 2)));
    cwr_ = true;
    cwr_end_ = snd_nxt;
  }
  if (!cwr_ && new_batch) rate_bps_ = std::min(line_rate_bps_, rate_bps_ + p_->rate_ai_bps);
}

}  // namespace fabricsim::transport
