// What every transport's NIC does the same way, written once: the network's endpoint hooks, the
// round-robin pull of the NIC's connections and its wake rule, the connection-context waits,
// the per-NIC event dispatch, completion delivery and the link-failure watch.
//
// NicCore<T> is a base of each transport T (CRTP: RoceTransport, UetTransport, TcpTransport).
// It calls T's per-packet hooks directly, never through a vtable (STYLE §6): the network calls
// the static hooks below through net::Endpoint function pointers, and they call T's members,
// which the compiler sees and inlines in T's translation unit. What T provides is listed in
// docs/transports.md "The shared NIC core"; in short:
//   SendState send_state(uint32_t entry, int64_t& at_ps)  may the entry send now?
//   bool send(uint32_t entry, net::Packet& out)  build its packet; true = keeps its turn
//   void deactivate(uint32_t entry)  it left the round-robin (clear its "active" flag)
//   bool admit(uint8_t paused_classes)  may the NIC send at all (PFC)?
//   void receive(uint32_t nic, const net::Packet&), void on_dropped(packet, reason)
//   void on_timer(uint32_t), void on_cc_timer(uint32_t)  its kQpTimer / kCcTimer
//   static constexpr bool kContextCache; with it uint32_t context_of(uint32_t entry) and
//   bool has_context(const net::Packet&)
//   static constexpr bool kQuietRing; with it T calls ring_changed(nic) wherever it changes
//   what send_state reads for an entry of that NIC's round-robin (pull's quiet record)
// An entry is T's own dense id of something that sends (a QP, PDC, connection, or RoCE's READ
// responder side of a QP).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "core/ring.h"
#include "core/scheduler.h"
#include "net/network.h"
#include "net/nic_context_cache.h"
#include "transport/transport.h"

namespace fabricsim::transport {

inline constexpr uint32_t kNoEntry = 0xFFFFFFFFu;

// May a connection send now (T::send_state)?
enum class SendState : uint8_t {
  kReady,    // a packet may go now
  // Nothing to send, or waiting for feedback (window, credit): it leaves the round-robin until
  // the transport activates it again (a post, an ACK, a grant).
  kBlocked,
  // Not before `at_ps` (pacing, a WQE still on its way, a busy host core): it keeps its turn and
  // the NIC wakes then.
  kLater,
  // Its traffic class is paused (PFC, IB credits): it keeps its turn; the link layer kicks the
  // NIC when the class may send again.
  kPaused,
};

// One NIC's send side as the core schedules it.
struct NicQueue {
  Ring<uint32_t> active;       // entries with something to send, served round-robin
  int64_t wake_ps = kNoTimer;  // the pending kNicWake (kNoTimer: none); the wake rule below
  // The quiet record (T::kQuietRing; NicCore::pull): the last pull found no entry that could
  // send, so it left the round-robin as it found it (every entry kLater, the soonest at
  // quiet_earliest_ps, or kPaused under quiet_paused). Valid until that time, until the paused
  // classes differ, or until T reports a change (NicCore::ring_changed).
  int64_t quiet_earliest_ps = kNoTimer;
  bool quiet = false;
  uint8_t quiet_paused = 0;
  // Context cache: entries parked while their context is read, in read-completion order; they
  // go before the round-robin once it has arrived. Empty without the cache.
  struct ParkedTx {
    int64_t ready_ps;
    uint32_t entry;
  };
  Ring<ParkedTx> ctx_wait;
  // Context cache: received packets in arrival order, each processed once its context is on the
  // NIC and the one ahead of it was (the receive pipeline keeps order).
  Ring<net::InFlight> rx_wait;
  // Packets this NIC sent that the fabric dropped, not yet accounted for (kDropNotice).
  struct DropNote {
    net::Packet packet;
    net::DropReason reason;
  };
  std::vector<DropNote> dropped;
};

// Link failures (Transport::failure_*): which connections lost a packet to a failed link and
// when the last such loss was recovered. A connection keeps, per kind of loss, one "lost end"
// (one past the highest PSN whose loss is unrecovered, 0 = none); the loss is recovered when
// its recovery point (in-order PSN, or acknowledged PSN) reaches it.
class FailureWatch {
 public:
  // A packet of the connection whose flag is `conn_hit` was lost: it is affected.
  void hit(bool& conn_hit) {
    if (conn_hit) return;
    conn_hit = true;
    ++affected_;
  }
  // The loss of `psn` must be recovered.
  void lost(uint32_t& lost_end, uint32_t psn) {
    if (lost_end == 0) ++pending_;
    lost_end = std::max(lost_end, psn + 1);
  }
  // The connection's recovery point reached `point` at `now_ps`.
  void reached(uint32_t& lost_end, uint32_t point, int64_t now_ps) {
    if (lost_end == 0 || point < lost_end) return;
    lost_end = 0;
    --pending_;
    last_recovery_ps_ = std::max(last_recovery_ps_, now_ps);
  }
  int64_t affected() const { return affected_; }
  int64_t pending() const { return pending_; }
  // When the last loss was recovered; -1 while one is pending or none needed recovering.
  int64_t recovered_ps() const { return pending_ == 0 ? last_recovery_ps_ : -1; }

 private:
  int64_t affected_ = 0;
  int64_t pending_ = 0;
  int64_t last_recovery_ps_ = -1;
};

template <class T>
class NicCore : public Transport {
 public:
  // The per-NIC events are the core's; the connections' timers are T's.
  void on_event(uint32_t kind, uint32_t target) final {
    switch (kind) {
      case kQpTimer:
        self().on_timer(target);
        return;
      case kCcTimer:
        self().on_cc_timer(target);
        return;
      case kNicWake:
        on_nic_wake(target);
        return;
      case kMsgComplete:
        --owed().completions;
        if (on_delivered) on_delivered(target);
        if constexpr (requires(T& t) { t.on_completed(target); }) self().on_completed(target);
        return;
      case kCtxRx:
        on_ctx_rx(target);
        return;
      case kDropNotice:
        on_drop_notice(target);
        return;
      default:
        return;  // not a transport event (Transport::is_event filters before the call)
    }
  }
  int64_t failure_affected_connections() const final { return failure_.affected(); }
  int64_t failure_recovered_ps() const final { return failure_.recovered_ps(); }
  const net::NicContextCache* context_cache() const final {
    return ctx_.enabled() ? &ctx_ : nullptr;
  }

 protected:
  explicit NicCore(net::Network& net)
      : net_(net), sched_(net.scheduler()), nics_(net.num_nics()) {}

  // Registers T with the network (once, at the end of T's constructor).
  void register_endpoint() {
    net::Endpoint ep;
    ep.ctx = this;
    ep.deliver = &NicCore::deliver_hook;
    ep.pull = &NicCore::pull_hook;
    ep.dropped = &NicCore::dropped_hook;
    net_.set_endpoint(ep);
  }

  // `entry` has something to send: into the round-robin of `nic`, which looks at once. The
  // caller checked it was not already there (its own "active" flag).
  void enqueue(uint32_t nic, uint32_t entry) {
    nics_[nic].active.push_back(entry);
    nics_[nic].quiet = false;
    const SerialNic scope(*this, nic);  // a post's kick in the serial phase: the NIC's counters
    net_.nic_kick(nic);
  }

  // T::kQuietRing: an entry of `nic`'s round-robin may answer send_state differently, other
  // than by time passing or by a pull serving it (its pacing time or send point moved, it
  // failed): the NIC's quiet record (pull) no longer holds.
  void ring_changed(uint32_t nic) { nics_[nic].quiet = false; }

  // The wake rule, the one place a NIC's kNicWake is scheduled. A NIC has at most one wake that
  // counts, at wake_ps: a new one is scheduled only if it is sooner (a later one would find
  // wake_ps unchanged when it fires and do nothing). wake_ps never lies in the past: the event
  // at wake_ps fires at that time and clears it (on_nic_wake), and a superseded event finds
  // wake_ps different and is ignored.
  void wake_at(uint32_t nic, int64_t at_ps) {
    NicQueue& n = nics_[nic];
    if (at_ps >= n.wake_ps) return;
    n.wake_ps = at_ps;
    sched_.at(at_ps, kNicWake, nic);
  }

  // The application sees message `msg` at `done_ps` (>= now). Always through a kMsgComplete
  // event, even at zero delay: its reaction (a post, which may open a connection and grow T's
  // tables) must not run while T's receive path holds references into them.
  // `nic` is the NIC completing it (the event's owner in the event order).
  void complete_at(uint32_t msg, int64_t done_ps, uint32_t nic) {
    ++owed().completions;
    sched_.at(done_ps, kMsgComplete, msg, nic);
  }

  net::Network& net_;
  Scheduler& sched_;
  std::vector<NicQueue> nics_;
  net::NicContextCache ctx_;  // disabled unless the transport enables it
  FailureWatch failure_;

 private:
  T& self() { return static_cast<T&>(*this); }

  static void deliver_hook(void* ctx, uint32_t nic, const net::Packet& p) {
    auto* core = static_cast<NicCore*>(ctx);
    if constexpr (T::kContextCache) {
      // A packet whose connection context is being read waits for it.
      if (core->ctx_.enabled() && core->wait_for_context(nic, p)) return;
    }
    core->self().receive(nic, p);
  }
  static bool pull_hook(void* ctx, uint32_t nic, uint8_t paused_classes, net::Packet& out) {
    auto* core = static_cast<NicCore*>(ctx);
    if (!core->self().admit(paused_classes)) return false;
    return core->pull(nic, paused_classes, out);
  }
  // A drop is data for the sending NIC, delivered by an event at that NIC, not a call into the
  // transport from wherever in the fabric it happened: in a partitioned run the drop and the
  // sender may be on different partitions (core/event_queue.h). Link-layer frames (PAUSE, IB
  // flow control) belong to no connection and are not reported.
  static void dropped_hook(void* ctx, const net::Packet& p, net::DropReason reason) {
    if (p.type == net::PacketType::kPause || p.type == net::PacketType::kCredit) return;
    auto* core = static_cast<NicCore*>(ctx);
    // In another partition than the NIC's, the report cannot be an event at the NIC now (no
    // lookahead): it waits for the barrier, where the serial phase does what the notice would
    // (Transport::apply_deferred_drops: accounting only, so the result is the same).
    if (core->drop_crosses(p.src_nic)) [[unlikely]] {
      core->defer_drop(p, reason, core->sched_.now());
      return;
    }
    std::vector<NicQueue::DropNote>& box = core->nics_[p.src_nic].dropped;
    if (box.empty()) core->sched_.at(core->sched_.now(), kDropNotice, p.src_nic);
    box.push_back({p, reason});
    ++core->owed().notices;
  }
  void account_drop(const net::Packet& p, net::DropReason reason) final {
    self().on_dropped(p, reason);
  }
  // kDropNotice: the NIC's transport accounts for its dropped packets, in drop order.
  void on_drop_notice(uint32_t nic) {
    std::vector<NicQueue::DropNote>& box = nics_[nic].dropped;
    for (size_t i = 0; i < box.size(); ++i) self().on_dropped(box[i].packet, box[i].reason);
    owed().notices -= static_cast<int64_t>(box.size());
    box.clear();
  }

  // The NIC port may send: the next entry in round-robin order that can send builds the packet
  // (true). Entries that may send later keep their turn and the NIC wakes at the soonest.
  //
  // A pull that finds nothing to send looks at every entry once and puts each back in the same
  // cyclic order (a kBlocked one leaves), so the round-robin is as it was. With paced QPs the
  // port pulls again after each control packet it sends (an ACK, a CNP) and finds the same
  // entries with the same answers: such rescans were most of the kLater answers on the
  // 1,024-GPU training bench (docs/performance.md, session 30). A kLater answer holds until its
  // time passes and a kPaused one while its class stays paused, unless T changes what
  // send_state reads, which T reports through ring_changed(). So until the soonest kLater
  // time, with the same paused classes and no report, the scan would give the same answer
  // again: the quiet record gives it without looking. The picks, the wake times and so the
  // results are the same as without it; debug builds rescan and compare (check_quiet).
  bool pull(uint32_t nic, uint8_t paused_classes, net::Packet& out) {
    NicQueue& n = nics_[nic];
    const int64_t now = sched_.now();
    bool quiet_hit = false;
    if constexpr (T::kQuietRing) {
      quiet_hit = n.quiet && now < n.quiet_earliest_ps && paused_classes == n.quiet_paused;
#ifdef NDEBUG
      if (quiet_hit) {
        if (n.quiet_earliest_ps != kNoTimer) wake_at(nic, n.quiet_earliest_ps);
        return false;
      }
#endif
      n.quiet = false;
    }
    int64_t earliest = kNoTimer;  // the soonest an entry may send, if none can now
    const uint32_t entries = n.active.size();
    for (uint32_t tries = n.active.size() + n.ctx_wait.size(); tries > 0; --tries) {
      // Entries whose context read completed go first; none without the cache.
      const uint32_t entry = n.ctx_wait.empty() ? n.active.pop_front() : next_entry(n, nic, now);
      if (entry == kNoEntry) break;  // only entries still waiting for their context
      int64_t at_ps = kNoTimer;
      switch (self().send_state(entry, at_ps)) {
        case SendState::kBlocked:
          self().deactivate(entry);
          continue;
        case SendState::kPaused:
          n.active.push_back(entry);
          continue;
        case SendState::kLater:
          earliest = std::min(earliest, at_ps);
          n.active.push_back(entry);
          continue;
        case SendState::kReady:
          break;
      }
      if constexpr (T::kContextCache) {
        // Its context must be on the NIC; else it is parked, or the scheduler waits.
        bool stall = false;
        if (ctx_.enabled() && !context_ready(n, nic, entry, now, earliest, stall)) {
          if (stall) break;
          continue;
        }
      }
      check_quiet(quiet_hit, n, false, earliest, entries);
      if (self().send(entry, out)) {
        n.active.push_back(entry);
      } else {
        self().deactivate(entry);
      }
      return true;
    }
    // An entry parked for its context is served when its read completes.
    if (!n.ctx_wait.empty()) earliest = std::min(earliest, n.ctx_wait.front().ready_ps);
    if constexpr (T::kQuietRing) {
      check_quiet(quiet_hit, n, true, earliest, entries);
      // With the context cache a pull also depends on the read engine's time: no record.
      if (!ctx_.enabled()) {
        n.quiet = true;
        n.quiet_earliest_ps = earliest;
        n.quiet_paused = paused_classes;
      }
    }
    if (earliest != kNoTimer) wake_at(nic, earliest);
    return false;
  }

  // Debug builds: a pull the quiet record answered must find, scanning, nothing to send, no
  // entry leaving (`entries` were there before the scan) and the same wake time.
  void check_quiet(bool quiet_hit, const NicQueue& n, bool idle, int64_t earliest,
                   uint32_t entries) const {
#ifndef NDEBUG
    if (quiet_hit &&
        (!idle || earliest != n.quiet_earliest_ps || n.active.size() != entries)) {
      std::fprintf(stderr, "fabricsim: NIC quiet record out of date (transport/nic_core.h)\n");
      std::abort();
    }
#else
    (void)quiet_hit, (void)n, (void)idle, (void)earliest, (void)entries;
#endif
  }

  void on_nic_wake(uint32_t nic) {
    NicQueue& n = nics_[nic];
    if (n.wake_ps != sched_.now()) return;  // superseded by an earlier wake
    n.wake_ps = kNoTimer;
    net_.nic_kick(nic);
  }

  // ---- connection contexts (net/nic_context_cache.h), T::kContextCache only ----

  // The next entry to serve: the round-robin's head while a context read could be issued (the
  // read engine never idles while entries wait), else a parked one whose context has arrived,
  // else the round-robin's head; kNoEntry when none.
  uint32_t next_entry(NicQueue& n, uint32_t nic, int64_t now_ps) {
    if (!n.active.empty() && ctx_.read_slot_free(nic, now_ps)) return n.active.pop_front();
    if (!n.ctx_wait.empty() && n.ctx_wait.front().ready_ps <= now_ps) {
      return n.ctx_wait.pop_front().entry;
    }
    return n.active.empty() ? kNoEntry : n.active.pop_front();
  }

  // Send side: the scheduler of `nic` picked `entry`; true if its context is on the NIC. Else
  // the entry is parked until its read completes (ctx_wait) or, when every read slot is busy,
  // keeps its turn and `stall` is set (the scheduler then waits: it does not scan ahead);
  // `earliest` is lowered to when it can go.
  bool context_ready(NicQueue& n, uint32_t nic, uint32_t entry, int64_t now_ps,
                     int64_t& earliest, bool& stall) {
    const net::ContextAccess a = ctx_.access(nic, self().context_of(entry), now_ps);
    if (a.ready_ps <= now_ps) return true;
    earliest = std::min(earliest, a.ready_ps);
    if (a.engine_busy) {  // nothing issued: it keeps its turn in the round-robin
      n.active.push_back(entry);
      stall = true;
      return false;
    }
    // Its read is under way: park it. Reads complete in issue order, so the parked list stays
    // in completion order (a read issued earlier for a received packet may complete sooner: it
    // then waits for the one ahead, never longer than one read).
    const int64_t ready = n.ctx_wait.empty() ? a.ready_ps
                                             : std::max(a.ready_ps, n.ctx_wait.back().ready_ps);
    n.ctx_wait.push_back(NicQueue::ParkedTx{ready, entry});
    return false;
  }

  // Receive side: true if `p` must wait for its connection's context (queued in rx_wait),
  // false if it can be processed now.
  bool wait_for_context(uint32_t nic, const net::Packet& p) {
    if (!self().has_context(p)) return false;  // link-layer frames belong to no connection
    NicQueue& n = nics_[nic];
    const int64_t now = sched_.now();
    int64_t ready = ctx_.access_waiting(nic, p.qp, now);
    if (n.rx_wait.empty() && ready <= now) return false;
    // Behind a packet that waits: the receive pipeline processes in arrival order.
    if (!n.rx_wait.empty()) ready = std::max(ready, n.rx_wait.back().arrive_ps);
    n.rx_wait.push_back(net::InFlight{ready, p});
    if (n.rx_wait.size() == 1) sched_.at(ready, kCtxRx, nic);  // one pending event per NIC
    return true;
  }

  // kCtxRx: the received packets of `nic` whose contexts have arrived are processed.
  void on_ctx_rx(uint32_t nic) {
    NicQueue& n = nics_[nic];
    while (!n.rx_wait.empty() && n.rx_wait.front().arrive_ps <= sched_.now()) {
      const net::InFlight w = n.rx_wait.pop_front();
      self().receive(nic, w.pkt);
    }
    if (!n.rx_wait.empty()) sched_.at(n.rx_wait.front().arrive_ps, kCtxRx, nic);
  }
};

}  // namespace fabricsim::transport
