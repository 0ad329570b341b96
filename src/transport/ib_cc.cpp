// InfiniBand congestion control's source reaction point (ib_cc.h).
#include "transport/ib_cc.h"

#include <algorithm>

#include "core/time.h"

namespace fabricsim::transport {

namespace {
// IBA CACongestionSetting.CCTI_Timer counts in 1.024 us units (shared/reference/infiniband.md
// §7; Linux hfi1 cca_timer_fn arms ccti_timer x 1.024 us).
constexpr int64_t kCctiTimerUnitPs = 1024 * kPsPerNs;
constexpr int kCctBlockEntries = 64;  // CongestionControlTable blocks (IBA A10; OpenSM)
}  // namespace

IbCcParams ib_cc_defaults() {
  // OpenSM ships congestion control off and every CC setting zero (osm_subnet.c
  // subn_set_default_opts: congestion_control FALSE; linux-rdma/opensm @fa74b98): the IBA
  // leaves the values to the fabric manager. UNVERIFIED, chosen here and named in docs/cc.md:
  IbCcParams p;
  // One step per BECN, the smallest the Annex allows.
  p.ccti_increase = 1;
  // 5 x 1.024 us. A congested port marks each source about once per (sources x MTU time), and
  // the index only settles if that is more often than the timer takes a step back: 5.12 us
  // holds 15 sources at 100 Gb/s, 62 at 400 Gb/s. Slower timers overshoot longer (docs/cc.md
  // "InfiniBand CC": the hot-spot sweep behind this choice).
  p.ccti_timer_ps = 5 * kCctiTimerUnitPs;
  p.ccti_min = 0;
  // Two 64-entry blocks; entry i = shift 2 : multiplier i, i.e. a delay of i/4 MTU times:
  // 4 BECNs halve the rate (as DCQCN's first cut does), the last entry is line / 32.75.
  p.cct.resize(2 * kCctBlockEntries);
  for (int i = 0; i < static_cast<int>(p.cct.size()); ++i) {
    p.cct[i] = IbCcEntry{2, static_cast<uint16_t>(i)};
  }
  p.ccti_limit = static_cast<int>(p.cct.size()) - 1;
  // 64 KiB: about one bandwidth-delay product at 400 Gb/s (~1.3 us); the IBA's Threshold 0..15
  // leaves the queue depth it means to the switch implementation.
  p.threshold_bytes = 64 * 1024;
  return p;
}

void validate_ib_cc_params(const IbCcParams& p) {
  if (p.cct.empty()) throw IbCcParamError("ib.cc.cct", "the congestion control table is empty");
  for (const IbCcEntry& e : p.cct) {
    if (e.shift > 3) throw IbCcParamError("ib.cc.cct", "a CCT entry's shift is 2 bits (0..3)");
    if (e.multiplier > 16383) {
      throw IbCcParamError("ib.cc.cct", "a CCT entry's multiplier is 14 bits (0..16383)");
    }
  }
  const int last = static_cast<int>(p.cct.size()) - 1;
  if (p.ccti_limit < 0 || p.ccti_limit > last) {
    throw IbCcParamError("ib.cc.ccti_limit",
                         "must be between 0 and the table's last index " + std::to_string(last));
  }
  if (p.ccti_min < 0 || p.ccti_min > p.ccti_limit) {
    throw IbCcParamError("ib.cc.ccti_min", "must be between 0 and ccti_limit");
  }
  if (p.ccti_increase < 1 || p.ccti_increase > 255) {
    throw IbCcParamError("ib.cc.ccti_increase", "is an 8-bit count, 1..255");
  }
  if (p.ccti_timer_ps <= 0) throw IbCcParamError("ib.cc.ccti_timer", "must be positive");
  if (p.threshold_bytes <= 0) throw IbCcParamError("ib.cc.threshold", "must be positive");
  if (p.marking_rate < 0 || p.marking_rate > 65535) {
    throw IbCcParamError("ib.cc.marking_rate", "is a 16-bit count, 0..65535");
  }
}

IbCcRp::IbCcRp(const IbCcParams& p, int64_t line_rate_bps)
    : p_(&p), line_rate_bps_(line_rate_bps), ccti_(-1), rate_bps_(line_rate_bps) {
  set_ccti(p.ccti_min);
}

void IbCcRp::set_ccti(int ccti) {
  if (ccti == ccti_) return;
  ccti_ = ccti;
  const IbCcEntry e = p_->cct[ccti];
  // rate = line / (1 + m / 2^s) = line x 2^s / (2^s + m), rounded down (never above line).
  const int64_t scale = int64_t{1} << e.shift;
  rate_bps_ =
      static_cast<int64_t>(static_cast<__int128>(line_rate_bps_) * scale / (scale + e.multiplier));
  rate_bps_ = std::max<int64_t>(rate_bps_, 1);
}

void IbCcRp::on_cnp(int64_t now_ps) {
  on_timer(now_ps);  // expiries due first, as at one picosecond DCQCN runs its timers first
  set_ccti(std::min(ccti_ + p_->ccti_increase, p_->ccti_limit));
  if (timer_ps_ == kNoTimer && ccti_ > p_->ccti_min) timer_ps_ = now_ps + p_->ccti_timer_ps;
}

void IbCcRp::on_timer(int64_t now_ps) {
  while (timer_ps_ <= now_ps) {
    set_ccti(std::max(ccti_ - 1, p_->ccti_min));
    timer_ps_ = ccti_ > p_->ccti_min ? timer_ps_ + p_->ccti_timer_ps : kNoTimer;
  }
}

}  // namespace fabricsim::transport
