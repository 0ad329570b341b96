// Swift (Kumar et al., SIGCOMM 2020, "Swift: Delay is Simple and Effective for Congestion
// Control in the Datacenter"): the sender's window rule, Algorithm 1 of the paper, fed one delay
// sample per ACK. The window is in packets (a fraction below 1 means pacing: one packet per
// rtt / cwnd).
//
//   target = base_target + hops x per_hop + fs,  fs = clamp(a / sqrt(cwnd) + b, 0, fs_range)
//            with a = fs_range / (1/sqrt(fs_min_cwnd) - 1/sqrt(fs_max_cwnd)),
//                 b = -a / sqrt(fs_max_cwnd)   (fs_range at fs_min_cwnd, 0 at fs_max_cwnd)
//   delay < target: cwnd += ai x acked / cwnd   (cwnd >= 1; ai x acked below 1): +ai per RTT
//   else, at most once per RTT: cwnd x= max(1 - beta (delay - target) / delay, 1 - max_mdf)
//   (the RTT counts from the last decrease. Algorithm 1 as printed restarts that clock whenever
//   cwnd <= its previous value, which under sustained congestion, every ACK above target, would
//   never allow a second decrease; htsim restarts it on a decrease (cwnd < previous) and so does
//   this model)
//   cwnd within [min_cwnd, max_cwnd]
//   on a retransmission timeout: cwnd = min_cwnd after retx_reset timeouts in a row, else
//   x (1 - max_mdf) at most once per RTT; on fast recovery (a RoCE sequence NAK): x (1 - max_mdf)
//   at most once per RTT
// SwiftCc below is the RDMA transport's QP sender built on it (transport/rc_swift.cpp feeds it
// a delay sample from every ACK). Deterministic; no timer.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "transport/param_error.h"
#include "transport/transport.h"  // kNoTimer

namespace fabricsim::transport {

struct SwiftParams {
  int64_t base_target_ps = 0;  // target delay of a one-hop path with a large window
  int64_t per_hop_ps = 0;      // added per switch hop on the path
  double ai_pkts = 0;          // additive increase per RTT, packets
  double beta = 0;             // multiplicative decrease gain
  double max_mdf = 0;          // largest fraction one decrease takes
  double fs_range_ps = 0;      // largest flow-scaling term
  double fs_min_cwnd = 0;      // window (packets) at which the term reaches fs_range
  double fs_max_cwnd = 0;      // window (packets) at which the term reaches 0
  double min_cwnd = 0;         // packets; below 1 is pacing
  double max_cwnd = 0;         // packets
  int retx_reset = 0;          // timeouts in a row after which cwnd restarts at min_cwnd
  int64_t base_rtt_ps = 0;     // the fabric's base RTT: the pacing RTT before the first sample
};

// Defaults and their sources in swift.cpp. base_rtt_ps: the fabric's longest host-to-host base
// RTT, which crosses longest_hops switches, each adding per_hop_rtt_ps to a round trip (0 and 0
// where only the base RTT is known: the target is then 1.25 x it on every path).
// REQUIRES: base_rtt_ps > longest_hops x per_hop_rtt_ps >= 0, bdp_pkts > 0.
SwiftParams swift_defaults(int64_t base_rtt_ps, int64_t per_hop_rtt_ps, int longest_hops,
                           double bdp_pkts);

using SwiftParamError = ParamError;  // transport/param_error.h
void validate_swift_params(const SwiftParams& p);

// One QP's Swift window. REQUIRES: `p` outlives the object; now_ps never decreases.
class SwiftCwnd {
 public:
  // hops: switch hops on the QP's path (the target's hop-scaled term).
  SwiftCwnd(const SwiftParams& p, int hops, double initial_cwnd_pkts);

  double cwnd_pkts() const { return cwnd_pkts_; }
  double target_delay_ps() const;
  int64_t last_rtt_ps() const { return last_rtt_ps_; }  // 0 before the first sample
  const SwiftParams& params() const { return *p_; }
  // One ACK of acked_pkts packets with delay sample delay_ps (< 0: none, nothing changes but
  // the retransmission count). now_ps and the last rtt decide whether a decrease is allowed
  // (once per RTT).
  void on_ack(double acked_pkts, int64_t delay_ps, int64_t now_ps);
  // The retransmission timer expired / fast recovery began (Algorithm 1's loss branches).
  void on_timeout(int64_t now_ps);
  void on_fast_recovery(int64_t now_ps);

 private:
  bool can_decrease(int64_t now_ps) const {
    return last_decrease_ps_ < 0 || now_ps - last_decrease_ps_ >= last_rtt_ps_;
  }
  void decrease(double factor, int64_t now_ps);

  const SwiftParams* p_;
  int hops_;
  double cwnd_pkts_;
  int64_t last_decrease_ps_ = -1;  // -1: never
  int64_t last_rtt_ps_ = 0;
  int retransmits_ = 0;  // timeouts since the last ACK
};

// One QP's Swift sender on the RDMA transport (RateCc's kSwift). Its output is a window
// (window_bytes(): the QP holds while that many payload bytes are in flight) and, below one
// packet, a pacing rate of one packet per rtt / cwnd. Its delay sample is taken on every ACK:
// the time since the acknowledged PSN was first sent (send_stamp keeps that time per PSN, in a
// ring that the window can never overrun; a retransmitted PSN gives no sample, Karn's rule).
class SwiftCc {
 public:
  // hops: switch hops on the QP's path. wire_mtu_bytes: a full data frame's wire bytes (pacing).
  // REQUIRES: `p` outlives the object and is valid (validate_swift_params).
  SwiftCc(const SwiftParams& p, int hops, int64_t line_rate_bps, int mtu_bytes,
          int64_t wire_mtu_bytes);

  // The stamp ring's size for `p`: the power of two >= max_cwnd + 2 (the window's packets plus
  // the one that overshoots it); transport/rc_swift.cpp refuses a max_cwnd beyond 2^20.
  static uint64_t stamp_slots(const SwiftParams& p);

  int64_t rate_bps() const;
  int64_t window_bytes() const;
  const SwiftCwnd& cwnd() const { return cwnd_; }
  // The data packet `psn` left the NIC now; a retransmission clears its stamp.
  void on_sent(uint32_t psn, bool first_transmission, int64_t now_ps) {
    stamps_[psn & (stamps_.size() - 1)] = first_transmission ? now_ps : -1;
  }
  // An ACK for `psn` that advanced the oldest unacknowledged PSN by `acked_pkts`.
  void on_ack(uint32_t psn, uint32_t acked_pkts, int64_t now_ps);
  void on_timeout(int64_t now_ps) { cwnd_.on_timeout(now_ps); }
  void on_fast_recovery(int64_t now_ps) { cwnd_.on_fast_recovery(now_ps); }
  // The rest of the RateCc signals: Swift reacts to its own delay samples and losses.
  void on_cnp(int64_t) {}
  void on_bytes_sent(int64_t, int64_t) {}
  int64_t next_timer_ps() const { return kNoTimer; }
  void on_timer(int64_t) {}

 private:
  SwiftCwnd cwnd_;
  int64_t line_rate_bps_;
  int mtu_bytes_;
  int64_t wire_mtu_bytes_;
  std::vector<int64_t> stamps_;  // [psn mod size]: first-transmission time, -1 = none
};

}  // namespace fabricsim::transport
