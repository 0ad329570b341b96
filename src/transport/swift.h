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
//   cwnd within [min_cwnd, max_cwnd]
// Not yet wired to the transport: that needs a window in RateCc and a hold in rc.cpp send_state
// (docs/cc.md). Deterministic; no timer.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

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
};

// Defaults and their sources in swift.cpp. REQUIRES: base_rtt_ps > 0, bdp_pkts > 0.
SwiftParams swift_defaults(int64_t base_rtt_ps, double bdp_pkts);

struct SwiftParamError : std::invalid_argument {
  SwiftParamError(std::string field_name, const std::string& what)
      : std::invalid_argument(what), field(std::move(field_name)) {}
  std::string field;  // the key below "fabric." (e.g. "roce.swift.beta")
};
void validate_swift_params(const SwiftParams& p);

// One QP's Swift window. REQUIRES: `p` outlives the object; now_ps never decreases.
class SwiftCwnd {
 public:
  // hops: switch hops on the QP's path (the target's hop-scaled term).
  SwiftCwnd(const SwiftParams& p, int hops, double initial_cwnd_pkts);

  double cwnd_pkts() const { return cwnd_pkts_; }
  double target_delay_ps() const;
  // One ACK of acked_pkts packets with delay sample delay_ps (< 0: none, nothing changes).
  // now_ps and the last rtt decide whether a decrease is allowed (once per RTT).
  void on_ack(double acked_pkts, int64_t delay_ps, int64_t now_ps);

 private:
  const SwiftParams* p_;
  int hops_;
  double cwnd_pkts_;
  int64_t last_decrease_ps_ = -1;  // -1: never
  int64_t last_rtt_ps_ = 0;
};

}  // namespace fabricsim::transport
