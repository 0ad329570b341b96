// DCTCP on the RDMA transport, as the HPCC authors' simulator runs it beside DCQCN, HPCC and
// TIMELY (alibaba-edu/High-Precision-Congestion-Control @9f4be2a, rdma-hw.cc HandleAckDctcp,
// run.py `--cc dctcp`; read for the rule, not copied): the DCTCP rule of Alizadeh et al.
// (SIGCOMM 2010; RFC 8257) on a paced RDMA sender, its congestion signal the ECN echo of ACKs.
//
// Per ACK (acknowledging up to PSN a, with the QP's next PSN n):
//   marked += ece
//   a past the batch end (one round trip of data): new batch;
//     alpha = (1 - g) alpha + g min(1, marked / batch), batch = n - a + 1 packets, end = n
//   CWR ends once a passes the PSN that was next when the rate was cut
//   ece and not in CWR: R = max(min_rate, R (1 - alpha / 2)), CWR until n is acknowledged
//   not in CWR and a new batch: R = min(line, R + R_AI)
// The window follows the rate (VAR_WIN 1): W = B x T x R / B. The switches mark CE by step
// marking at K (resolve/resolve.cpp: run.py's KMIN = KMAX = 30 KB x B / 10 Gb/s, PMAX 1).
// Deterministic; no timer.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

#include "transport/param_error.h"
#include "transport/transport.h"  // kNoTimer

namespace fabricsim::transport {

struct DctcpRdmaParams {
  double g = 0;              // EWMA gain of alpha
  int64_t rate_ai_bps = 0;   // additive increase per round trip
  int64_t min_rate_bps = 0;  // floor of every cut
  int64_t base_rtt_ps = 0;   // T: the window at line rate is B x T
};

// The defaults (sources in dctcp_rdma.cpp) for a line rate, MTU and T.
DctcpRdmaParams dctcp_rdma_defaults(int64_t line_rate_bps, int mtu_bytes, int64_t base_rtt_ps);

using DctcpRdmaParamError = ParamError;  // transport/param_error.h
void validate_dctcp_rdma_params(const DctcpRdmaParams& p, int64_t line_rate_bps);

class DctcpRdma {
 public:
  DctcpRdma(const DctcpRdmaParams& p, int64_t line_rate_bps);

  int64_t rate_bps() const { return rate_bps_; }
  double alpha() const { return alpha_; }
  // W = B x T x R / B, in bytes (at least 1).
  int64_t window_bytes() const;
  // An ACK that acknowledged every PSN below `acked_end`; `snd_nxt` is the QP's next PSN.
  void on_ack(uint32_t acked_end, uint32_t snd_nxt, bool ece);
  // The rest of the RateCc signals: DCTCP reacts to the ECN echo of ACKs alone.
  void on_cnp(int64_t) {}
  void on_bytes_sent(int64_t, int64_t) {}
  int64_t next_timer_ps() const { return kNoTimer; }
  void on_timer(int64_t) {}

 private:
  const DctcpRdmaParams* p_;
  int64_t line_rate_bps_;
  int64_t rate_bps_;
  double alpha_ = 1;  // rdma-queue-pair.cc: dctcp.m_alpha = 1
  bool started_ = false;
  uint32_t batch_end_ = 0;   // m_lastUpdateSeq
  uint32_t batch_pkts_ = 1;  // m_batchSizeOfAlpha
  uint32_t marked_ = 0;      // m_ecnCnt: ECN-echoing ACKs in the batch
  bool cwr_ = false;         // m_caState 1
  uint32_t cwr_end_ = 0;     // m_highSeq
};

}  // namespace fabricsim::transport
