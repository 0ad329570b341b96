// DCQCN in flow mode (flow.dcqcn, docs/modes.md "DCQCN in flow mode"): each connection of a
// RoCE fabric with `roce.cc: dcqcn` keeps the packet transport's own reaction point
// (transport/dcqcn.h DcqcnRp: the same profile and overrides), and the congestion point, which a
// fluid has no packets for, is a fluid queue at each switch port:
//
//  - **Sender rate.** The connection has a link of its own in the fluid fabric (FluidFabric::
//    add_link), its cap: Rc at the payload rate, times the message's weight (a folded message
//    of w channels: each channel at most Rc). A flow behind no queue is delivered at most at
//    what its sender sends.
//  - **Queues.** Each switch egress port has a fluid queue (its bytes, and its slope since the
//    last change). A flow whose max-min rate that port fixes (its bottleneck in the filling)
//    offers the port what its sender sends, Rc or its NIC port's share per channel (the port's
//    capacity over the channels on it) if that is less; any other flow offers its rate. The
//    queue grows at what is offered beyond the port's capacity and drains at the capacity less
//    what is offered, between 0 and the switch's buffer. Its slope is set again whenever its
//    flows' rates change or a sender's Rc moves.
//  - **A queue keeps its port busy.** While a queue on its path is not empty a flow's cap is
//    its line rate, not Rc: the port sends the queued bytes at its line rate whatever the
//    senders do now, so the flows behind it are delivered at their max-min shares. When the
//    queue drains (an event at the time it reaches 0) the caps are Rc again, and a port whose
//    senders were cut below it runs below its capacity, which is what DCQCN costs.
//  - **Marking and CNPs.** RED marks a packet with probability p = pmax x (q - Kmin) /
//    (Kmax - Kmin) between Kmin and Kmax and 1 above, at every queue on its path; one CNP
//    interval's n packets of a channel (at its sender's rate) carry a mark with probability
//    P = 1 - prod(1 - p)^n, and the notification point sends at most one CNP per interval
//    (nvidia-default: 4 us; a base round trip for a profile that sends one per marked packet).
//    The fluid checks every interval while a queue on the flow's path is past Kmin, adds P to the connection's expected CNPs, and delivers a CNP to DcqcnRp::on_cnp
//    each time a whole one has accumulated: deterministic, at the expected rate. The first
//    check is one base round trip after the queue reached Kmin (the marked packet's way on
//    and the CNP's way back: Transport::ideal_fct_ps's latencies both ways). The RP keeps its
//    own cut spacing (rate_decrease_interval), alpha and recovery.
//  - **Recovery.** The RP's increase timer and byte counter run as in packet mode: an event at
//    the timer's expiry and where the byte counter expires at the flow's rate; a channel counts
//    its own bytes (a folded message's 1/w of them), as each channel's queue pair does.
//
// What it does not show: the queueing delay (completion times have none), PFC's pauses (a
// queue fills to the switch's buffer), each channel's own queue pair on an unfolded connection
// (one RP per connection), ECN marks per packet (result.json counts the CNPs). Measured against
// packet mode in docs/modes.md's error table.
#pragma once

#include <cstdint>
#include <vector>

#include "core/scheduler.h"
#include "engine/flow/fluid_fabric.h"
#include "net/config.h"
#include "transport/dcqcn.h"

namespace fabricsim::scenario {

class FluidDcqcn {
 public:
  // `marks[link]` is 1 for a switch's egress port (an ECN marking point), 0 for a NIC's; links
  // past its end (the caps) mark nothing. `payload_per_wire`: a link's payload rate over its
  // line rate (DCQCN's rates are line rates, the fabric's capacities payload rates).
  // `queue_max_bytes`: the most a port's queue holds (the switch's buffer); `mtu_bytes`: a
  // data packet's payload (the packets per CNP interval).
  // `ecn`: the switches' RED marking (Kmin, Kmax, pmax; none when not enabled).
  FluidDcqcn(const transport::DcqcnParams& p, const net::EcnConfig& ecn, FluidFabric& fabric,
             Scheduler& sched, std::vector<uint8_t> marks, double payload_per_wire,
             int64_t queue_max_bytes, int64_t mtu_bytes);

  // A message of `weight` channels of connection `conn` is about to join the fabric (or be
  // re-routed) on the crossings in `path`: appends the connection's cap, weight x Rc.
  void cap_path(uint32_t conn, int64_t line_rate_bps, int32_t weight,
                std::vector<FluidFabric::Crossing>& path);
  // The connection's message drains now as fluid flow `flow` (FluidFabric::add or renew):
  // `size_bytes` over `weight` channels; `rtt_ps` is its base round trip (the CNPs' delay).
  void attach(uint32_t conn, uint32_t flow, int64_t size_bytes, int32_t weight, int64_t rtt_ps);
  // The connection's flow `flow` has sent everything (it ends now). No-op for any other flow.
  void detach(uint32_t conn, uint32_t flow);
  // A re-fill moved watched flow `flow` of connection `conn` (FluidFabric::take_changed).
  void on_changed(uint32_t conn, uint32_t flow);
  // A re-fill changed the rates on switch port `link`, or its last flow left
  // (FluidFabric::take_changed_links).
  void on_link_changed(uint32_t link);
  // kFluidCc: `target` is a connection, or kLinkEvent | a port whose queue may have reached
  // its marking threshold.
  void on_event(uint32_t target);
  // The queues whose senders' rates moved since (apply) take their new slopes. The owner calls
  // it after every event, re-share or change it passed on.
  void flush();
  static constexpr uint32_t kLinkEvent = 0x80000000u;

  int64_t cnps() const { return cnps_; }
  // The fluid queue at switch port `link` now (bytes).
  double queue_bytes(uint32_t link) const;
  // A queue of `bytes` marks (RED): not empty and at Kmin or above.
  bool past_kmin(double bytes) const {
    return bytes > 0 && bytes >= static_cast<double>(ecn_.kmin_bytes);
  }

 private:
  static constexpr uint32_t kNoFlow = 0xFFFFFFFFu;
  struct State {
    transport::DcqcnRp rp;
    uint32_t cap_link = 0;
    uint32_t flow = kNoFlow;
    int32_t weight = 1;
    double left_bytes = 0;  // per channel, as of the last sync
    int64_t rtt_ps = 0;
    int64_t cnp_ps = -1;   // the next CNP's arrival while marked (-1: none)
    int64_t wake_ps = -1;  // the earliest kFluidCc event pending (-1: none)
    double cap_bps = -1;   // the cap's capacity as set
    int64_t rc_seen_bps = -1;  // Rc when the queues on its path last heard of it
    double cnp_credit = 0;     // expected CNPs not yet delivered
    // detach: when, and the CNP check it cancelled (a message that follows on the connection
    // at that instant takes it over: the notification point marks the queue pair, not one
    // message).
    int64_t detached_ps = -1;
    int64_t detached_cnp_ps = -1;
  };

  struct Queue {
    double bytes = 0;      // as of t_ps
    int64_t t_ps = 0;
    double slope_bps = 0;  // what is offered beyond the capacity (< 0: it drains)
    int64_t event_ps = -1;  // a pending threshold event
  };

  State& state(uint32_t conn, int64_t line_rate_bps);
  void arm(uint32_t link);  // every DCQCN flow on the port: its first CNP is on the way
  void lift(uint32_t link);  // the port's queue filled or emptied: its flows' caps follow
  bool behind_queue(const State& s) const;  // a queue on its path is not empty
  // What flow `flow` sends into `link` per channel (its rate, or Rc where the port holds it).
  double send_rate_bps(uint32_t flow, uint32_t link) const;
  int64_t cnp_interval_ps(const State& s) const;
  void sync(State& s);    // the bytes sent since the last sync, and the RP's due timers
  void apply(State& s);   // the cap follows Rc
  double mark_probability(double queue_bytes) const;  // RED at the congestion point
  // The probability that one CNP interval of the flow's packets carries a mark; `congested`:
  // a queue on its path is at or past Kmin.
  double cnp_probability(const State& s, bool& congested) const;
  void plan(State& s, uint32_t conn);  // the next kFluidCc event

  transport::DcqcnParams p_;
  net::EcnConfig ecn_;
  FluidFabric& fabric_;
  Scheduler& sched_;
  std::vector<uint8_t> marks_;
  double payload_per_wire_;
  double queue_max_bytes_;
  double mtu_bytes_;
  std::vector<Queue> queues_;     // per switch port (marks_)
  std::vector<uint32_t> stale_links_;  // flush's list
  std::vector<uint32_t> flushing_;
  std::vector<uint32_t> conn_of_flow_;
  std::vector<int32_t> slot_;  // per connection: its index in states_ (-1: none yet)
  std::vector<State> states_;
  int64_t cnps_ = 0;
};

}  // namespace fabricsim::scenario
