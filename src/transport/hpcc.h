// HPCC's sender (Li et al., "HPCC: High Precision Congestion Control", SIGCOMM 2019, Algorithm
// 1), as its authors' simulator runs it (alibaba-edu/High-Precision-Congestion-Control @9f4be2a,
// simulation/src/point-to-point/model/rdma-hw.cc UpdateRateHp; read for the rule, not copied).
//
// Every ACK carries the INT records its data packet collected (net/int_telemetry.h). Per hop j,
// against the previous ACK's record of the same hop:
//   txRate_j = (txBytes_j - txBytes'_j) x 8 / (ts_j - ts'_j)
//   u_j      = txRate_j / B_j + min(qlen_j, qlen'_j) x B / B_j / W_max
// (W_max = B x T bytes: the qlen term is qlen / (B_j x T)); the most loaded hop's u is U and its
// interval tau. The utilization estimate is the EWMA u <- (u (T - tau) + U tau) / T, tau <= T.
// Then, with k = u / eta:
//   k >= 1 or stage >= max_stage:  R = Rc / k + R_AI, stage <- 0     (multiplicative)
//   otherwise:                     R = Rc + R_AI,     stage <- stage+1 (additive)
// R clamped to [min_rate, line]. Rc and the stage move only on the first ACK of each round trip
// (an ACK past the PSN that was next to send at the previous such update, lastUpdateSeq); the
// ACKs between react with the same rule from the same Rc (FAST_REACT 1). The window follows the
// rate, W = W_max x R / line (VAR_WIN 1): R = W / T as in the paper.
// The first ACK only stores its records (nothing to compare with yet).
#pragma once

#include <cstdint>
#include <climits>
#include <stdexcept>
#include <string>

#include "net/int_telemetry.h"
#include "transport/param_error.h"

namespace fabricsim::transport {

// The INT header on a data packet and on the ACK that echoes it: 5 hops of 8 bytes plus the
// 2-byte hop count (int-header.h IntHeader::GetStaticSize, NORMAL mode).
inline constexpr int kHpccIntHeaderBytes = 42;

struct HpccParams {
  double eta = 0.95;  // U_TARGET 0.95: the paper's eta
  // MI_THRESH, the paper's maxStage. The simulator's run.py passes --mi 0 by default (every
  // update multiplicative); a value > 0 allows that many additive steps while u < eta. The
  // paper's printed 5 is a typo for its simulations, whose setting was 0 (the authors' project
  // page, liyuliang001.github.io/projects/hpcc, "Setting").
  int max_stage = 0;
  int64_t rate_ai_bps = 0;   // R_AI; run.py: 10 Mb/s x line / 25 Gb/s
  int64_t min_rate_bps = 0;  // MIN_RATE; run.py's template: 1000 Mb/s
  int64_t base_rtt_ps = 0;   // T: the largest base RTT between hosts (GLOBAL_T 1)
  bool fast_react = true;    // FAST_REACT 1: react to every ACK, not once per round trip
};

// The defaults for a line rate and a base RTT (sources above; docs/cc.md "HPCC").
HpccParams hpcc_defaults(int64_t line_rate_bps, int64_t base_rtt_ps);

using HpccParamError = ParamError;  // transport/param_error.h
void validate_hpcc_params(const HpccParams& p, int64_t line_rate_bps);

class HpccCc {
 public:
  HpccCc(const HpccParams& p, int64_t line_rate_bps);

  int64_t rate_bps() const { return rate_bps_; }
  // The rate interface's other signals (rate_cc.h): HPCC reacts to telemetry alone.
  void on_cnp(int64_t /*now_ps*/) {}
  void on_bytes_sent(int64_t /*bytes*/, int64_t /*now_ps*/) {}
  int64_t next_timer_ps() const { return INT64_MAX; }
  void on_timer(int64_t /*now_ps*/) {}
  // W = B x T x R / B, in bytes (at least 1).
  int64_t window_bytes() const;
  double utilization() const { return u_; }
  // An ACK for `acked_psn`, whose data packet collected `rec`; `snd_nxt` is the next PSN the QP
  // will send.
  void on_ack(const net::IntRecord& rec, uint32_t acked_psn, uint32_t snd_nxt);

 private:
  // One reaction from Rc; returns the new rate and stage.
  void react(double max_u, int64_t tau_ps, bool update_rc);

  HpccParams p_;
  int64_t line_rate_bps_;
  int64_t rate_bps_;  // R: what paces the QP
  int64_t rc_bps_;    // Rc: the rate of the last per-RTT update
  int stage_ = 0;
  double u_ = 0;  // the EWMA of the most loaded hop's utilization
  bool started_ = false;
  uint32_t last_update_psn_ = 0;
  uint8_t prev_hops_ = 0;
  net::IntHop prev_[net::kIntMaxHops];
};

}  // namespace fabricsim::transport
