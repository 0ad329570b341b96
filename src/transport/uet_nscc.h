// NSCC, the UEC network-signal-based congestion control of the sender: a window driven by ECN
// marks and queueing delay, with quick adapt, fair/proportional/fast increase and multiplicative
// decrease (docs/reference/uet-sim.md §1, read from uet-htsim's htsim/sim/uec.cpp @ 40ccb05:
// initNsccParams, initNscc, processAck, updateCwndOnAck_NSCC, updateCwndOnNack_NSCC, quick_adapt,
// fair_increase, proportional_increase, fast_increase, multiplicative_decrease,
// fulfill_adjustment, update_delay, update_base_rtt). A pure state machine: the UET transport
// calls it once per ACK/NACK/timeout; it schedules nothing itself.
//
// Units: time in integer picoseconds, window in bytes as they count on the wire (data frames with
// their UET header, as htsim's _in_flight counts packet sizes); increments accumulate as in htsim
// (bytes x bytes, divided by cwnd at fulfill time).
#pragma once

#include <cstdint>

namespace fabricsim::transport {

struct NsccParams {
  int64_t network_rtt_ps = 0;   // the diameter RTT the constants scale from (uet-sim.md §0)
  int64_t link_rate_bps = 0;    // the sender NIC's rate (rescaled maxwnd = 1.5 x base_rtt x rate)
  int mtu_bytes = 0;            // packet size on the wire the window counts in (min cwnd)
  int mss_bytes = 0;            // payload per packet: alpha, fi and eta scale with it (uec.cpp)
  int64_t target_delay_ps = 0;  // target queueing delay: 0.75 x RTT with trimming, 1.0 without
  int64_t max_cwnd_bytes = 0;   // also the initial window: 1.5 x BDP(base_rtt)
  int64_t base_rtt_ps = 0;      // initial base RTT: network_rtt (htsim without accurate_base_rtt)
  int64_t min_cwnd_bytes = 0;   // 1 MTU
  // a = network BDP / reference BDP (100 Gb/s x 12 us = 150 000 B); b = target / 12 us.
  double scale_a = 0;
  double scale_b = 0;
  double alpha = 0;              // bytes per ps: 4 x MSS x a x b / target (proportional increase)
  double fi_bytes = 0;           // fair increase per window of acked bytes: 5 x MSS x a
  double eta_bytes = 0;          // additive increase per adjust period: 0.15 x MSS x a
  double fi_scale = 0;           // fast increase: cwnd += fi_scale x acked; 0.25 x a
  double gamma = 0.8;            // multiplicative decrease strength
  double delay_ewma = 0.0125;    // weight of a new delay sample in the average
  int qa_gate = 3;               // quick adapt fires only if achieved < maxwnd >> qa_gate
  int64_t qa_delay_ps = 0;       // a delay above this (4 x target) triggers quick adapt
  int64_t adjust_period_ps = 0;  // fulfill at least every network_rtt ...
  int64_t adjust_bytes = 0;      // ... or when more than 8 x MTU were received since the last
  int64_t fast_increase_delay_ps = 1'000'000;  // fast increase below 1 us of delay (uec.cpp)
  // RCCC also on: a NACK for a last-hop trim does not shrink the window (the receiver's credit
  // already paces that bottleneck; updateCwndOnNack_NSCC).
  bool receiver_cc = false;
  // A new minimum RTT re-derives maxwnd = 1.5 x rate x that RTT (UEC 1.0 §3.6.13.6
  // update_base_rtt; uet-htsim uec.cpp update_base_rtt). Off (fabricsim's default): maxwnd stays
  // max_cwnd_bytes, 1.5 x BDP of the network RTT, and the minimum only lowers base_rtt, the
  // reference the queueing delay is measured from. The rescaled ceiling leaves 0.5 x base_rtt
  // for queueing; on a cut-through fabric at 10 Gb/s that is about one 4 KiB packet for the
  // whole path, and a sprayed permutation queues about one per hop (docs/transports.md "NSCC").
  bool rescale_max_cwnd = false;
};

// The derived defaults for a network: uet-sim.md §1a. `header_bytes` is the UET header the
// MTU includes (htsim _hdr_size = 64), so MSS = mtu - header.
NsccParams nscc_params(int64_t network_rtt_ps, int64_t link_rate_bps, int mtu_bytes, bool trimming,
                       int header_bytes = 64);

class Nscc {
 public:
  explicit Nscc(const NsccParams& p);
  int64_t cwnd_bytes() const { return cwnd_bytes_; }
  // An ACK newly acknowledging `acked_bytes`; `rtt_ps` the sample it gives (-1: none, e.g. the
  // acked packet was retransmitted more than once); `ecn` whether it echoes a CE mark;
  // `in_flight_bytes` what the sender has outstanding after removing the acked bytes (quick
  // adapt ignores ECN/NACK signals until that much has been acknowledged).
  void on_ack(int64_t now_ps, int64_t acked_bytes, int64_t rtt_ps, bool ecn,
              int64_t in_flight_bytes);
  // A NACK for a trimmed packet of `bytes`; `last_hop` when the trim was at the last switch.
  // `in_flight_bytes` still includes the NACKed packet (htsim removes it after the window
  // update); `rtt_ps` the NACK's RTT sample (-1: none), which may lower the base RTT.
  void on_nack(int64_t now_ps, int64_t bytes, bool last_hop, int64_t in_flight_bytes,
               int64_t rtt_ps = -1);
  // A retransmission timeout of a packet of `bytes`.
  void on_timeout(int64_t bytes);

  // Observable state (tests, statistics).
  const NsccParams& params() const { return p_; }
  int64_t base_rtt_ps() const { return base_rtt_ps_; }
  int64_t max_cwnd_bytes() const { return max_cwnd_bytes_; }
  int64_t avg_delay_ps() const { return avg_delay_ps_; }
  int64_t quick_adapts() const { return quick_adapts_; }
  int64_t decreases() const { return decreases_; }

 private:
  void update_base_rtt(int64_t rtt_ps);
  void update_delay(int64_t rtt_ps, bool marked);
  bool quick_adapt(int64_t now_ps, bool is_loss, bool skip, int64_t delay_ps,
                   int64_t in_flight_bytes);
  void proportional_increase(int64_t acked_bytes, int64_t delay_ps);
  bool fast_increase(int64_t acked_bytes, int64_t delay_ps);
  void multiplicative_decrease(int64_t now_ps);
  void fulfill(int64_t now_ps);
  void bound();

  NsccParams p_;
  int64_t cwnd_bytes_ = 0;
  int64_t max_cwnd_bytes_ = 0;  // p_.max_cwnd_bytes, or 1.5 x BDP(base_rtt) with rescale_max_cwnd
  int64_t base_rtt_ps_ = 0;
  int64_t avg_delay_ps_ = 0;     // EWMA of queueing delay (integer ps, as htsim's simtime)
  double inc_bytes_ = 0;         // pending fair + proportional increase, bytes x bytes
  int64_t received_bytes_ = 0;   // since the last fulfill
  int64_t achieved_bytes_ = 0;   // since the last quick-adapt evaluation
  int64_t bytes_ignored_ = 0;    // acked/nacked since the last quick adapt ...
  int64_t bytes_to_ignore_ = 0;  // ... which ignores ECN and NACKs until this much
  int64_t fi_count_bytes_ = 0;   // acked at < 1 us of delay in a row (fast increase)
  int64_t qa_end_ps_ = 0;        // next quick-adapt evaluation; 0 = not yet started
  int64_t last_adjust_ps_ = 0;
  int64_t last_decrease_ps_ = 0;
  bool trigger_qa_ = false;
  bool fast_ = false;  // fast increase in force (htsim _increase)
  int64_t quick_adapts_ = 0;
  int64_t decreases_ = 0;
};

}  // namespace fabricsim::transport
