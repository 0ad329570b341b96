// NSCC, the UEC network-signal-based congestion control of the sender: a window driven by ECN
// marks and queueing delay, with quick adapt, fair/proportional/fast increase and multiplicative
// decrease (docs/reference/uet-sim.md §1, read from uet-htsim's uec.cpp). A pure state machine:
// the UET transport calls it once per ACK/NACK/timeout; it schedules nothing itself.
#pragma once

#include <cstdint>

namespace fabricsim::transport {

struct NsccParams {
  int64_t network_rtt_ps = 0;   // the diameter RTT the constants scale from (uet-sim.md §0)
  int64_t link_rate_bps = 0;
  int mtu_bytes = 0;            // packet size on the wire the window counts in
  int64_t target_delay_ps = 0;  // target queueing delay
  int64_t max_cwnd_bytes = 0;   // also the initial window
  // ... the helper that implements NSCC adds the remaining derived constants (alpha, fi, eta,
  // quick-adapt threshold, ...), each with its uec.cpp source.
};

// The derived defaults for a network: uet-sim.md §1a.
NsccParams nscc_params(int64_t network_rtt_ps, int64_t link_rate_bps, int mtu_bytes,
                       bool trimming);

class Nscc {
 public:
  explicit Nscc(const NsccParams& p);
  int64_t cwnd_bytes() const { return cwnd_bytes_; }
  // An ACK newly acknowledging `acked_bytes`; `rtt_ps` the sample it gives (-1: none);
  // `ecn` whether it echoes a CE mark; `in_flight_bytes` what the sender has outstanding.
  void on_ack(int64_t now_ps, int64_t acked_bytes, int64_t rtt_ps, bool ecn, int64_t in_flight_bytes);
  // A NACK for a trimmed packet of `bytes`; `last_hop` when the trim was at the last switch.
  void on_nack(int64_t now_ps, int64_t bytes, bool last_hop, int64_t in_flight_bytes);
  // A retransmission timeout of a packet of `bytes`.
  void on_timeout(int64_t bytes);

 private:
  NsccParams p_;
  int64_t cwnd_bytes_ = 0;
};

}  // namespace fabricsim::transport
