// mode: hybrid moves a group of ports in time (engine/hybrid/steady_skip.h): every time stored in
// a port's state, past or future, moves by the same delta, so that measured intervals (a pause
// held so far, the watchdog's quiet time) and pending deadlines (a serialization end, a frame on
// the cable, a pause expiry) keep their distances to the port's shifted events.
#include "net/network.h"

namespace fabricsim::net {

void Network::shift_port_time(uint32_t port, int64_t delta_ps) {
  Port& p = ports_[port];
  PortQueues& q = queues_[port];
  p.busy_until_ps += delta_ps;
  for (uint32_t i = 0; i < p.line.size(); ++i) p.line[i].arrive_ps += delta_ps;
  for (uint32_t i = 0; i < q.ctrl_line.size(); ++i) q.ctrl_line[i].arrive_ps += delta_ps;
  for (int c = 0; c < kPriorities; ++c) {
    q.pause_until_ps[c] += delta_ps;
    q.paused_since_ps[c] += delta_ps;
  }
  if (q.pause_timer_ps >= 0) q.pause_timer_ps += delta_ps;
  q.last_pause_rx_ps += delta_ps;
  q.credit_stalled_until_ps += delta_ps;
  q.quiet_ps += delta_ps;
}

void Network::add_port_tally(uint32_t port, const PortTally& t) {
  PortQueues& q = queues_[port];
  port_tx_bytes_[port] += t.tx_bytes;
  q.ecn_marks += t.ecn_marks;
  ctr().ecn_marks += t.ecn_marks;
  q.pause_frames_sent += t.pause_frames_sent;
  ctr().pause_frames += t.pause_frames_sent;
  q.pause_frames_received += t.pause_frames_received;
  q.paused_ps += t.paused_ps;
}

}  // namespace fabricsim::net
