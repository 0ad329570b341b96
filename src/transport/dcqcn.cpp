#include "transport/dcqcn.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "core/time.h"

namespace fabricsim::transport {
namespace {

constexpr int64_t kMbps = 1'000'000;
constexpr int64_t kGbps = 1'000'000'000;
constexpr int64_t kKiB = 1024;

// Below 2^-40, alpha's share of a cut, Rc * alpha / 2, is under 0.5 bps even at 800 Gb/s, so it
// rounds away; flushing it to 0 lets a long idle period be caught up in a few thousand steps
// instead of running the decay down to the smallest double.
constexpr double kAlphaFloor = 0x1p-40;

// value x link / 25 Gb/s, as HPCC's run.py scales its DCQCN settings with the NIC speed.
int64_t per_25g(int64_t value, int64_t link_rate_bps) {
  return static_cast<int64_t>(static_cast<__int128>(value) * link_rate_bps / (25 * kGbps));
}

DcqcnParams nvidia_default() {
  DcqcnParams p;
  // ConnectX firmware defaults as SPEC §8 lists them, except B's unit and the CNP interval
  // (below, each with its sources); the same numbers appear in an
  // `mlxconfig query` of a ConnectX-4 Lx (RPG_*, DCE_TCP_*, RATE_REDUCE_MONITOR_PERIOD,
  // INITIAL_ALPHA_VALUE) and in Google isekai's ConnectX model (rdma_roce_cc_dcqcn.h).
  p.rate_increase_timer_ps = 300 * kPsPerUs;  // rpg_time_reset 300 us
  // rpg_byte_reset 32767 (mlxconfig RPG_BYTE_RESET), counted in 64-byte units: 2,097,088 bytes.
  // Sources disagree on the unit. 64-byte units: Google isekai's ConnectX model
  // (isekai/host/rdma/rdma_roce_cc_dcqcn.cc, SentBytes compares the byte count with
  // byte_reset * 64), and Spirent's RoCEv2 DCQCN profile, whose ByteResetInMb defaults to 2 MB
  // (Rocev2DcqcnProfile object reference), the same 2 MB. Bytes: NVIDIA's mstflint
  // (mlxconfig/mlxcfg_param_lib.cpp, tools_layouts/tools_open_layouts.h) describes the field as
  // "Given in Bytes ... Default=150", text carried over from IEEE 802.1Qau QCN's rpgByteReset
  // with a QCN-era default; the field is 15 bits wide, so in bytes the firmware default would be
  // the largest value it can hold, 32 KiB, under 3 us of sending at 100 Gb/s against a 300 us
  // timer. The two implementations that run the algorithm agree, so 64-byte units; the bytes
  // reading stays reachable as fabric.roce.dcqcn.byte_counter: 32767B. UNVERIFIED against
  // NVIDIA's DOCA "DCQCN CC Parameters" page, whose rate-increase table was not readable here.
  p.byte_counter_bytes = 32767 * 64;
  p.fast_recovery_steps = 1;    // rpg_threshold 1
  p.ai_rate_bps = 5 * kMbps;    // rpg_ai_rate 5 Mb/s
  p.hai_rate_bps = 50 * kMbps;  // rpg_hai_rate 50 Mb/s; isekai adds it unscaled
  p.hyper_increase_scales = false;
  p.rate_decrease_interval_ps = 4 * kPsPerUs;  // rate_reduce_monitor_period 4 us
  p.min_rate_bps = 1 * kMbps;                  // rpg_min_rate 1 Mb/s
  p.min_decrease_factor = 0.5;                 // rpg_min_dec_fac 50 %
  // SPEC's "g = 1019/1024" is dce_tcp_g, the per-update decay factor (1 - g): on an update with
  // CNP isekai computes alpha = 1019 * alpha / 1024 + (1024 - 1019), alpha in 1/1024 units.
  // So g = 5/1024.
  p.g = 5.0 / 1024;
  p.alpha_interval_ps = 1 * kPsPerUs;  // dce_tcp_rtt 1 us
  p.alpha_update_on_cnp = false;       // isekai HandleAlphaUpdateTimer: one update per period
  p.initial_alpha = 1023.0 / 1024;     // initial_alpha_value 1023 (1/1024 units)
  // clamp_tgt_rate 0, clamp_tgt_rate_after_time_inc 1 (mlxconfig defaults; isekai clamps Rt only
  // after an increase step).
  p.clamp_target_rate = false;
  // min_time_between_cnps 4 us. The unit is microseconds (mstflint mlxcfg_param_lib.cpp
  // MIN_TIME_BETWEEN_CNPS_P1 "Minimum time between sending cnps from the port, in microseconds";
  // the mlx5 debugfs knob np_min_time_between_cnps, kernel patch of 3 Mar 2020, "Unit =
  // microseconds"). The value 4 is what `mlxconfig query` prints as MIN_TIME_BETWEEN_CNPS_P1 on
  // ConnectX-4 Lx and ConnectX-5 firmware; the older PRM text in mstflint says default 0.
  // SPEC §8's "at most every 2 us" was the previous value here. The NVIDIA text says "from the
  // port"; fabricsim applies it per QP, as NS3RDMA and the DCQCN paper's NP do (UNVERIFIED
  // which scope current firmware uses).
  p.cnp_interval_ps = 4 * kPsPerUs;
  // Switch marking is not a NIC setting: the defaults of NVIDIA's own switches, the other half
  // of an NVIDIA RoCE fabric. Cumulus Linux (Spectrum) default_ecn_red_conf: min_threshold_bytes
  // 150000, max_threshold_bytes 1500000, probability 100 (Cumulus Linux 5.x user guide, Quality
  // of Service, "Explicit Congestion Notification (ECN)"); the RoCE page lists the same
  // 150 - 1500 KB for traffic class 3; NVIDIA Onyx `show roce` prints "Port congestion-control:
  // Mode: ecn, absolute, Min: 150, Max: 1500" (Onyx User Manual, RoCE Commands). Probability
  // 100 % is read as Pmax = 1 at Kmax with the usual linear ramp from Kmin.
  p.ecn = {150'000, 1'500'000, 1.0};
  return p;
}

DcqcnParams dcqcn_paper() {
  DcqcnParams p;
  // Zhu et al., SIGCOMM 2015, with the author's NS3RDMA simulator (bobzhuyb/ns3-rdma,
  // qbb-net-device.cc and mix/config.txt) where SPEC §8 gives no value.
  p.cnp_interval_ps = 50 * kPsPerUs;    // SPEC §8; NS3RDMA CNP_INTERVAL 50
  p.alpha_interval_ps = 55 * kPsPerUs;  // SPEC §8; NS3RDMA ALPHA_RESUME_INTERVAL 55
  p.alpha_update_on_cnp = true;         // NS3RDMA rpr_cnm_received + ResumeAlpha
  p.rate_decrease_interval_ps = 0;      // NS3RDMA cuts on every CNP
  // SPEC §8; reference §1 marks the paper's T and B UNVERIFIED (NS3RDMA's config: 60 us,
  // 300000 B). 10 MB read as 10^7 bytes.
  p.rate_increase_timer_ps = 55 * kPsPerUs;
  p.byte_counter_bytes = 10'000'000;
  p.fast_recovery_steps = 5;  // SPEC §8; NS3RDMA FAST_RECOVERY_TIMES 5
  // NS3RDMA counts the firing step before choosing the phase (rpr_fast_time/_byte increment,
  // then rpr_active_select: hyper once both ByteStage and TimeStage >= F). The issue reports the
  // paper's text as "both counters >= F" too (UNVERIFIED: the paper was not readable here).
  p.stage_counts_current_step = true;
  p.g = 1.0 / 256;                 // SPEC §8; NS3RDMA DCTCP_GAIN 0.00390625
  p.ai_rate_bps = 40 * kMbps;      // SPEC §8; NS3RDMA RATE_AI 40Mb/s
  p.hai_rate_bps = 200 * kMbps;    // NS3RDMA RATE_HAI 200Mb/s; UNVERIFIED for the paper
  p.hyper_increase_scales = true;  // NS3RDMA rpr_hyper_increase: HAI x (min stage - F + 1)
  // UNVERIFIED for the paper; HPCC's model starts at 1 too. NS3RDMA starts alpha at 0.5 and
  // updates it on the first CNP (-> ~0.502).
  p.initial_alpha = 1.0;
  p.min_rate_bps = 100 * kMbps;  // NS3RDMA MinRate attribute default; its config keeps it
  p.min_decrease_factor = 0;     // no such knob; alpha <= 1 already bounds a cut to half
  p.clamp_target_rate = true;    // NS3RDMA CLAMP_TARGET_RATE 1
  // RED: Kmin 5 KB, Kmax 200 KB, Pmax 1% (with g = 1/256) are "the default parameter setting" of
  // the DCQCN paper as SwCC quotes it (Huang et al., USENIX ATC 2025, §5.1 "Parameter Setting",
  // https://www.usenix.org/conference/atc25/presentation/huang-hongjing). Secondary: the paper's
  // own text was not reachable, and HPCC issue #21 quotes Kmin = 4 KB. KB read as 1000 bytes.
  // These are 40 Gb/s values (the paper's testbed); this profile does not scale them.
  p.ecn = {5'000, 200'000, 0.01};
  return p;
}

DcqcnParams hpcc_paper(int64_t link_rate_bps) {
  DcqcnParams p;
  // HPCC (SIGCOMM 2019), its DCQCN baseline: alibaba-edu/High-Precision-Congestion-Control,
  // simulation/run.py "dcqcn" (CC_MODE 1) and rdma-hw.cc's Mellanox model.
  p.alpha_interval_ps = 1 * kPsPerUs;                 // ALPHA_RESUME_INTERVAL 1
  p.alpha_update_on_cnp = false;                      // UpdateAlphaMlx: once per interval
  p.rate_decrease_interval_ps = 4 * kPsPerUs;         // RATE_DECREASE_INTERVAL 4
  p.rate_increase_timer_ps = 300 * kPsPerUs;          // RP_TIMER 300
  p.byte_counter_bytes = 0;                           // timer-only increases (RateIncEventTimerMlx)
  p.g = 1.0 / 256;                                    // EWMA_GAIN 0.00390625
  p.fast_recovery_steps = 1;                          // FAST_RECOVERY_TIMES 1
  p.ai_rate_bps = per_25g(5 * kMbps, link_rate_bps);  // RATE_AI 5 x bw/25 Mb/s
  p.hai_rate_bps = per_25g(50 * kMbps, link_rate_bps);  // RATE_HAI 50 x bw/25 Mb/s
  p.hyper_increase_scales = false;                      // HyperIncreaseMlx adds RATE_HAI
  p.min_rate_bps = 1 * kGbps;                           // MIN_RATE 1000Mb/s
  p.min_decrease_factor = 0;                            // no such knob in HPCC
  p.initial_alpha = 1.0;        // cnp_received_mlx: m_alpha = 1 on the first CNP
  p.clamp_target_rate = false;  // CLAMP_TARGET_RATE 0
  // The receiver flags every ECN-marked packet's ACK (L2_ACK_INTERVAL 1), reference §1.
  p.cnp_interval_ps = 0;
  // KMIN_MAP / KMAX_MAP = 100 / 400 x bw/25 in KB (switch-mmu.cc ConfigEcn: x1000), PMAX 0.2.
  p.ecn = {per_25g(100'000, link_rate_bps), per_25g(400'000, link_rate_bps), 0.2};
  return p;
}

void require(bool ok, const char* field, const std::string& what) {
  if (!ok) throw DcqcnParamError(field, what);
}

}  // namespace

std::vector<std::string> dcqcn_profile_names() {
  return {"nvidia-default", "dcqcn-paper", "hpcc-paper"};
}

DcqcnParams dcqcn_profile(std::string_view name, int64_t link_rate_bps) {
  if (name == "nvidia-default") return nvidia_default();
  if (name == "dcqcn-paper") return dcqcn_paper();
  if (name == "hpcc-paper") return hpcc_paper(link_rate_bps);
  std::string allowed;
  for (const std::string& n : dcqcn_profile_names()) allowed += (allowed.empty() ? "" : ", ") + n;
  throw std::invalid_argument("unknown DCQCN profile '" + std::string(name) +
                              "'; allowed: " + allowed);
}

void validate_dcqcn_params(const DcqcnParams& p, int64_t line_rate_bps) {
  require(line_rate_bps > 0, "link.rate", "the line rate must be > 0");
  require(p.min_rate_bps > 0 && p.min_rate_bps <= line_rate_bps, "roce.dcqcn.min_rate",
          "must be in (0, the line rate " + std::to_string(line_rate_bps) +
              " bps] (set, or taken from fabric.roce.dcqcn_profile)");
  require(p.g > 0 && p.g <= 1, "roce.dcqcn.g", "must be in (0, 1]");
  require(p.initial_alpha >= 0 && p.initial_alpha <= 1, "roce.dcqcn.initial_alpha",
          "must be in [0, 1]");
  require(p.alpha_interval_ps > 0, "roce.dcqcn.alpha_interval", "must be > 0");
  require(p.rate_decrease_interval_ps >= 0, "roce.dcqcn.rate_decrease_interval", "must be >= 0");
  require(p.rate_increase_timer_ps > 0, "roce.dcqcn.rate_increase_timer", "must be > 0");
  require(p.byte_counter_bytes >= 0, "roce.dcqcn.byte_counter", "must be >= 0");
  require(p.fast_recovery_steps >= 0, "roce.dcqcn.fast_recovery_steps", "must be >= 0");
  require(p.ai_rate_bps >= 0, "roce.dcqcn.ai_rate", "must be >= 0");
  require(p.hai_rate_bps >= 0, "roce.dcqcn.hai_rate", "must be >= 0");
  require(p.min_decrease_factor >= 0 && p.min_decrease_factor < 1,
          "roce.dcqcn.min_decrease_factor", "must be in [0, 1)");
  require(p.cnp_interval_ps >= 0, "roce.dcqcn.cnp_interval", "must be >= 0");
  require(p.ecn.kmin_bytes >= 0, "ecn.kmin", "must be >= 0");
  require(p.ecn.kmin_bytes <= p.ecn.kmax_bytes, "ecn.kmax",
          "must be at least fabric.ecn.kmin (" + std::to_string(p.ecn.kmin_bytes) + " bytes)");
  require(p.ecn.pmax >= 0 && p.ecn.pmax <= 1, "ecn.pmax", "must be in [0, 1]");
}

DcqcnRp::DcqcnRp(const DcqcnParams& p, int64_t line_rate_bps)
    : p_(p),
      line_rate_bps_(line_rate_bps),
      one_minus_g_(1.0 - p.g),
      rc_bps_(line_rate_bps),
      rt_bps_(line_rate_bps) {
  validate_dcqcn_params(p, line_rate_bps);
}

void DcqcnRp::on_cnp(int64_t now_ps) {
  run_due(now_ps);
  if (!alpha_started_) {
    // First CNP ever (HPCC cnp_received_mlx, isekai HandleRxPacket): alpha starts at its initial
    // value, which this CNP does not update again, and the alpha timer starts.
    alpha_started_ = true;
    alpha_ = p_.initial_alpha;
    next_alpha_ps_ = now_ps + p_.alpha_interval_ps;
  } else if (p_.alpha_update_on_cnp) {
    alpha_ = one_minus_g_ * alpha_ + p_.g;           // reference §1, "On a CNP"
    next_alpha_ps_ = now_ps + p_.alpha_interval_ps;  // "A CNP restarts this timer"
  } else {
    alpha_cnp_in_period_ = true;
  }
  if (p_.rate_decrease_interval_ps == 0 || now_ps >= last_cut_ps_ + p_.rate_decrease_interval_ps) {
    cut(now_ps);
  } else {
    // The firmware checks for CNPs once per monitor period; serving the remembered CNP when the
    // period since the last cut ends keeps its "one cut per period" without a grid that must
    // tick while nothing happens.
    pending_cut_ps_ = last_cut_ps_ + p_.rate_decrease_interval_ps;
  }
}

void DcqcnRp::on_bytes_sent(int64_t bytes, int64_t now_ps) {
  run_due(now_ps);
  if (!recovering_ || p_.byte_counter_bytes == 0) return;
  bytes_counted_ += bytes;
  while (recovering_ && bytes_counted_ >= p_.byte_counter_bytes) {
    bytes_counted_ -= p_.byte_counter_bytes;
    increase(Counter::kByte);
  }
}

void DcqcnRp::on_timer(int64_t now_ps) { run_due(now_ps); }

void DcqcnRp::run_due(int64_t now_ps) {
  for (;;) {
    const int64_t t = next_timer_ps();
    if (t > now_ps) break;
    advance_alpha(t);
    if (pending_cut_ps_ <= increase_timer_ps_) {
      cut(t);
    } else {
      increase_timer_ps_ = t + p_.rate_increase_timer_ps;
      increase(Counter::kTimer);
    }
  }
  advance_alpha(now_ps);
}

void DcqcnRp::advance_alpha(int64_t now_ps) {
  if (!alpha_started_ || next_alpha_ps_ > now_ps) return;
  int64_t ticks = (now_ps - next_alpha_ps_) / p_.alpha_interval_ps + 1;
  next_alpha_ps_ += ticks * p_.alpha_interval_ps;
  // Only the first tick can carry a CNP's +g: later ones cover periods without CNPs.
  alpha_ = one_minus_g_ * alpha_ + (alpha_cnp_in_period_ ? p_.g : 0.0);
  alpha_cnp_in_period_ = false;
  for (--ticks; ticks > 0 && alpha_ != 0; --ticks) {
    alpha_ *= one_minus_g_;
    if (alpha_ < kAlphaFloor) alpha_ = 0;
  }
}

void DcqcnRp::cut(int64_t now_ps) {
  if (p_.clamp_target_rate || time_stage_ > 0 || byte_stage_ > 0) rt_bps_ = rc_bps_;
  const double keep = std::max(1.0 - alpha_ / 2, p_.min_decrease_factor);
  const int64_t cut_bps = std::llround(static_cast<double>(rc_bps_) * keep);
  rc_bps_ = std::max(p_.min_rate_bps, std::min(cut_bps, rc_bps_));
  time_stage_ = 0;
  byte_stage_ = 0;
  bytes_counted_ = 0;
  increase_timer_ps_ = now_ps + p_.rate_increase_timer_ps;
  pending_cut_ps_ = kNoTimer;
  last_cut_ps_ = now_ps;
  recovering_ = true;
  go_idle_if_recovered();  // alpha can have decayed to 0: such a cut changes nothing
}

void DcqcnRp::increase(Counter which) {
  const int64_t fr = p_.fast_recovery_steps;
  int64_t t = time_stage_;
  int64_t b = byte_stage_;
  // NS3RDMA increments the firing counter before choosing the phase (see dcqcn.h).
  if (p_.stage_counts_current_step) ++(which == Counter::kTimer ? t : b);
  int64_t lo = t;
  int64_t hi = t;
  if (p_.byte_counter_bytes > 0 || p_.stage_counts_current_step) {
    lo = std::min(t, b);
    hi = std::max(t, b);
  }
  // The hyper threshold: both counters exceed F (ConnectX) or reach it (NS3RDMA).
  const int64_t hyper_from = p_.stage_counts_current_step ? fr : fr + 1;
  if (hi < fr) {
    // fast recovery: Rt stays, Rc closes half the gap
  } else if (lo >= hyper_from) {
    rt_bps_ += p_.hai_rate_bps * (p_.hyper_increase_scales ? lo - hyper_from + 1 : 1);
  } else {
    rt_bps_ += p_.ai_rate_bps;
  }
  rt_bps_ = std::min(rt_bps_, line_rate_bps_);
  rc_bps_ = (rt_bps_ + rc_bps_ + 1) / 2;
  ++(which == Counter::kTimer ? time_stage_ : byte_stage_);
  go_idle_if_recovered();
}

void DcqcnRp::go_idle_if_recovered() {
  if (rc_bps_ < line_rate_bps_ || rt_bps_ < line_rate_bps_) return;
  recovering_ = false;
  increase_timer_ps_ = kNoTimer;
  bytes_counted_ = 0;
}

}  // namespace fabricsim::transport
