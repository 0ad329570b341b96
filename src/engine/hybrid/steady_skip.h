// mode: hybrid (docs/modes.md): the packet engine, with steady state skipped.
//
// Every window (one base RTT of the fabric) the controller samples each busy RoCE/IB QP's
// acknowledged and highest sent PSNs. QPs are joined into groups by the cables their data and
// ACK paths cross (union-find over ports, both directions of a cable). A group's rates are
//   - known without measuring (analytic_rates) when every QP sends as fast as its NIC port lets
//     it and no other port is over its line rate; or, without congestion control,
//   - measured: each QP's last W windows acknowledged the same number of packets within
//     epsilon (one packet allowed) and it sent as many as were acknowledged (within epsilon or
//     four packets: its packets in flight, so its queues, held still).
// A group with rates, whose ports carry nothing but its own packets, no mark set in the
// windows, and room before any of its messages nears its end, is advanced analytically by
// dt = min over its QPs of (packets it may skip / its rate), also bounded by the next timer of
// its congestion control, any pending fabric-wide event (a failure, a route update) and, at
// measured rates, kMaxSkipSpans spans of W windows:
//   - each QP carries round(rate x dt) packets of its current message without sending them
//     (transport/rc_hybrid.cpp): counted sent, and received when the responder reaches them;
//   - every pending event of the group's ports, QPs' retransmission timers and NICs moves dt
//     later, and every time in their state with it (net/time_shift.cpp,
//     RoceTransport::shift_qp_time): queues, packets on the cables and PFC pauses are carried
//     as they were; congestion control keeps real time (its timers are not moved);
//   - its ports count the carried packets' data and ACK wire bytes and packet-hops, and advance
//     their ECN marks, pause frames and paused time at the windows' rates.
// The group's ports stay frozen until t0 + dt. A frame from outside reaching one of them (a
// message posted elsewhere whose packets arrive, a NIC woken for a new QP) first undoes the part
// of the skip not yet reached: the events move back, the packets not yet due are taken back,
// the counters likewise, and the group resumes at that instant as if the skip had been that
// long. So the skip never hides an interaction; what it assumes is only that the group's rates
// would have stayed as they were between its own events.
#pragma once

#include <cstdint>
#include <vector>

#include "core/scheduler.h"
#include "net/network.h"
#include "transport/rc.h"

namespace fabricsim::scenario {

struct HybridParams {
  double epsilon = 0.05;  // hybrid.epsilon
  int window_rtts = 4;    // hybrid.window_rtts: W
  int64_t window_ps = 0;  // one window: the fabric's base RTT (SteadySkip::base_rtt_ps)
};

struct HybridStats {
  int64_t skips = 0;             // groups advanced analytically
  int64_t cut_short = 0;         // skips an outside event ended early (their rest undone)
  int64_t skipped_packets = 0;   // data packets carried without being simulated
  int64_t skipped_bytes = 0;     // their payload
  int64_t skipped_group_ps = 0;  // summed over the groups skipped
  int64_t ticks = 0;             // windows sampled
};

class SteadySkip {
 public:
  SteadySkip(Scheduler& sched, net::Network& net, transport::RoceTransport& rc,
             const HybridParams& p);
  SteadySkip(const SteadySkip&) = delete;
  SteadySkip& operator=(const SteadySkip&) = delete;

  // The fabric's base RTT across its diameter, every hop taken as NIC 0's link: propagation
  // and the far end's latency both ways, an MTU frame's serialization out and an ACK's back.
  static int64_t base_rtt_ps(const net::Network& net, int diameter_switch_hops, int mtu_bytes);

  void on_post(uint32_t qp);     // every message posted (RoceTransport's post hook)
  void on_touch(uint32_t port);  // something reached a frozen port (net::FreezeHook)
  void on_tick();                // kHybridTick
  void on_thaw(uint32_t slot);   // kHybridThaw: a skip ran to its end
  // Ends every skip at the current time (before results are read).
  void settle();
  const HybridStats& stats() const { return stats_; }
  const HybridParams& params() const { return p_; }

 private:
  struct Group {
    bool active = false;
    int64_t t0_ps = 0;
    int64_t until_ps = 0;
    std::vector<uint32_t> qps;
    std::vector<double> rate_ppps;  // per QP: packets per ps
    std::vector<uint32_t> carried;  // per QP: packets skipped
    std::vector<uint32_t> ports;
    std::vector<net::Network::PortTally> port_rate_num;  // per port: counter deltas over span_
    std::vector<net::Network::PortTally> credited;       // per port: what was added
    std::vector<uint32_t> nics;
  };
  // A skip at measured rates lasts at most this many W-window spans (steady_skip.cpp).
  static constexpr int64_t kMaxSkipSpans = 8;
  Scheduler& sched_;
  net::Network& net_;
  transport::RoceTransport& rc_;
  HybridParams p_;
  int w_;            // W
  int64_t span_ps_;  // W windows
  HybridStats stats_;
  bool tick_pending_ = false;
  // Busy QPs (posted to, not yet idle).
  std::vector<uint32_t> listed_;
  std::vector<uint8_t> in_list_;
  // Per QP: acknowledged PSNs at the last ticks (W + 1 slots), how many are valid.
  std::vector<uint32_t> hist_;
  std::vector<uint8_t> hist_n_;
  // Per QP: its cables' ports (both directions) and its data path's hop count, walked once.
  std::vector<std::vector<uint32_t>> path_;
  std::vector<std::vector<uint32_t>> fwd_ports_;  // the data packets' ports
  std::vector<std::vector<uint32_t>> rev_ports_;  // the ACKs' ports
  // Per QP: when its ACKs moved snd_una to each sample (last_progress_ps).
  std::vector<int64_t> prog_;
  // Per QP: the highest PSN sent at each sample (high_sent): in flight = sent - acknowledged.
  std::vector<uint32_t> sent_;
  // Per port: the last time a QP joined or left it.
  std::vector<int64_t> port_changed_ps_;
  // Per port: counters at the last W + 1 ticks (ring of snapshots).
  std::vector<net::Network::PortTally> snap_;
  int snap_head_ = 0;  // the newest snapshot's slot
  int snap_n_ = 0;
  // Frozen membership (-1: none).
  std::vector<int32_t> group_of_port_;
  std::vector<int32_t> group_of_qp_;
  std::vector<int32_t> group_of_nic_;
  std::vector<Group> groups_;
  // Scratch.
  std::vector<uint32_t> uf_;
  std::vector<int32_t> comp_at_root_;
  std::vector<double> load_at_;       // analytic_rates: wire bytes per ps per port
  std::vector<uint32_t> senders_at_;  // analytic_rates: sending QPs per NIC port
  std::vector<Event> drained_;

  void grow_qps(uint32_t n);
  const std::vector<uint32_t>& path_of(uint32_t qp);
  uint32_t find(uint32_t port);
  void sample();
  void evaluate();
  int32_t group_of_event(const Event& e) const;
  // Drains the event list and pushes every event again, those of group g moved by delta.
  void apply(uint32_t slot, int64_t dt_ps);
  void undo_rest(uint32_t slot);
  void thaw(uint32_t slot);
  void reset_history(uint32_t qp) { hist_n_[qp] = 0; }
  // Counts `packets` (either sign) of the QP as carried on its ports: data and ACK wire bytes
  // (links.csv) and data packet-hops.
  void carry_bytes(uint32_t qp, int64_t packets);
  void cap_rates(Group& g);
  // Rates (packets per ps) of a group whose every QP sends as fast as its NIC port lets it:
  // the port's line rate less the ACKs it sends for the QPs it receives (ACKs go first), shared
  // round-robin by the port's sending QPs; false unless each QP is sending now unpaced (its
  // congestion control at the line rate) with room to skip, and no port is over its line rate.
  // `room`: each QP's skippable packets (keeping its last two).
  bool analytic_rates(const std::vector<uint32_t>& qps, std::vector<double>& rate,
                      std::vector<uint32_t>& room);
  const net::Network::PortTally& snap(int age, uint32_t port) const;
};

}  // namespace fabricsim::scenario
