// One simulation split into partitions that run side by side, each on its own thread, with
// results identical at any partition count (issue 26 item 1).
//
// Every event belongs to an owner (core/event_queue.h): a port, a NIC, a node or a fabric-wide
// controller. A partition owns a set of owners and has its own event list and clock; events of
// fabric-wide controllers, the workload and the samplers stay in the serial list (the
// Scheduler's own), run between windows while no partition runs. Partitions synchronize
// conservatively in windows (Chandy & Misra's lookahead, as ns-3's MPI simulator, SST and
// UNISON do): no partition can affect another sooner than the lookahead L (the shortest delay
// of a cable between two partitions), so within [T, T + L), T the earliest pending event, every
// partition runs its own events in parallel. An event for another partition goes into a
// mailbox and joins that partition's list at the barrier that ends the window.
//
// Why the result does not depend on the count: the event order is (time, kind, owner,
// sequence), where the sequence only breaks ties between events of one owner and kind at one
// instant, and those are all scheduled by that owner's own handlers, in one partition. So each
// partition runs its owners' events in the sequential run's order, and events of different
// partitions inside one window commute (neither can see the other before the window ends).
//
// This file has what is independent of the model: the owner -> partition tables, the lists
// and mailboxes, and the window loop (run_windows), which calls back into the model for
// everything else. A model built on it must route every push through Scheduler::at, touch only
// state of the owner it handles (or the serial phase), and keep counters per partition
// (current_partition() indexes them).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <functional>
#include <limits>
#include <vector>

#include "core/event_queue.h"
#include "core/scheduler.h"

namespace fabricsim {

class ByteReader;  // core/rank_exchange.h

// The partition the calling thread is executing: its index while a partition's window runs,
// Partitions::serial() in the serial phase of a partitioned run, and 0 in any sequential run
// (so per-partition counters indexed by it are one slot there).
// Inline and constant-initialized, so reading it is one thread-pointer-relative load.
inline constinit thread_local uint32_t tls_partition = 0;
inline uint32_t current_partition() { return tls_partition; }
// Sets it (the window loop, for the thread it runs a partition or the serial phase on).
inline void set_current_partition(uint32_t p) { tls_partition = p; }

// An event's place in the run order, without its sequence number: (time, kind << 24 | owner
// permutation). The bound of a window is one: a partition runs its events with keys below it.
struct EventKey {
  int64_t time_ps = std::numeric_limits<int64_t>::max();
  uint32_t order = 0;
  friend bool operator<(const EventKey& a, const EventKey& b) {
    return a.time_ps != b.time_ps ? a.time_ps < b.time_ps : a.order < b.order;
  }
  friend bool operator==(const EventKey& a, const EventKey& b) = default;
};
inline EventKey key_of(const Event& e) { return EventKey{e.time_ps, e.order}; }
inline constexpr EventKey kNoEventKey{};

// Which owner table an event kind uses (core/scheduler.h kinds).
enum class OwnerSpace : uint8_t {
  kSerial,   // fabric-wide: the serial list
  kPort,     // the partition of the port's own node
  kFarPort,  // the partition of the node at the far end of the port's cable (arrivals)
  kNic,      // the partition of the NIC
  kNode,     // the partition of the GPU node
};
OwnerSpace owner_space(uint32_t kind);

class Partitions {
 public:
  struct Tables {
    std::vector<uint16_t> port;      // per port: the partition of its node
    std::vector<uint16_t> far_port;  // per port: the partition of the far end of its cable
    std::vector<uint16_t> nic;       // per NIC
    std::vector<uint16_t> node;      // per GPU node (may be empty: no node events)
  };
  // `count` partitions (>= 1) over `sched`, whose own list and clock become the serial phase's.
  // `lookahead_ps` > 0: the least time between an event of one partition and any event it
  // causes in another (std::numeric_limits<int64_t>::max() when nothing crosses).
  Partitions(Scheduler& sched, uint32_t count, Tables tables, int64_t lookahead_ps);
  Partitions(const Partitions&) = delete;
  Partitions& operator=(const Partitions&) = delete;

  uint32_t count() const { return count_; }
  uint32_t serial() const { return count_; }
  int64_t lookahead_ps() const { return lookahead_ps_; }
  uint32_t route(uint32_t kind, uint32_t owner) const;

  // An event pushed for another partition: what Scheduler::at was given.
  struct Mail {
    int64_t time_ps;
    uint32_t kind;
    uint32_t target;
    uint32_t owner;
  };
  struct Part {
    EventQueue queue;
    int64_t now_ps = 0;
    int64_t events = 0;  // events this partition ran
    // Events for other partitions (and the serial list), joined at the barrier: per target.
    std::vector<std::vector<Mail>> out;
    std::exception_ptr error;  // the first exception a handler threw here
  };
  Part& part(uint32_t p) { return parts_[p]; }
  const Part& part(uint32_t p) const { return parts_[p]; }
  // The clock of the calling context (a partition's, or the serial phase's).
  int64_t now() const;
  void push(int64_t time_ps, uint32_t kind, uint32_t target, uint32_t owner);

  // Moves the scheduler's pending events to their partitions (the serial ones stay) and sets
  // every clock to the scheduler's: the start of a partitioned run.
  // `retarget(kind, target)` gives each event's target in the partitioned run (the network marks
  // arrivals over cut cables); gather's turns them back.
  using Retarget = std::function<uint32_t(uint32_t kind, uint32_t target)>;
  void scatter(const Retarget& retarget = {});
  // The reverse, at its end: every pending event back into the scheduler's list, which then
  // runs on as a sequential run would (a later run() call, or the caller's own events).
  void gather(int64_t now_ps, const Retarget& retarget = {});
  // The mailboxes' events into their lists (serial phase only).
  void join_mailboxes();
  size_t mailbox_events() const;  // events waiting in the mailboxes
  // The earliest key over the partitions' lists (kNoEventKey if all are empty): a scan.
  EventKey earliest_partition_key() const;
  // A time no partition has an event before, without scanning (INT64_MAX if all are empty).
  int64_t partition_time_lower_bound() const;
  // Window bound for partitions whose earliest event is at `earliest`: the lookahead, or the
  // serial list's next event if that comes first.
  EventKey window_bound(EventKey earliest, EventKey serial_next) const;
  int64_t events() const;  // events the partitions ran

  // The current window's bound (a push to another partition before it is a model error:
  // the lookahead was wrong).
  EventKey bound() const { return bound_; }
  void set_bound(EventKey b) { bound_ = b; }

  // ---- partitions spread over ranks (core/rank_run.h; partition_mail.cpp) ----
  // This process runs partitions [first, first + count) only; the others' lists hold what the
  // serial phase pushed for them here and are never run. earliest_partition_key() and
  // partition_time_lower_bound() look at the owned ones only (the window loop combines the
  // ranks'). Default: all of them.
  void set_owned(uint32_t first, uint32_t count);
  bool owned(uint32_t p) const { return p >= owned_first_ && p < owned_end_; }
  uint32_t owned_first() const { return owned_first_; }
  uint32_t owned_end() const { return owned_end_; }
  // The owned partitions' outboxes, to the ranks whose partitions they are for (the serial
  // list's to every rank), appended to `out[rank]` by sending partition; the outboxes are
  // emptied. `rank_of(p)` is partition p's rank. Returns the earliest time among them
  // (INT64_MAX: none): the join pushes nothing earlier.
  template <class RankOf>
  int64_t pack_mail(std::vector<std::vector<char>>& out, RankOf&& rank_of);
  // What pack_mail() wrote, from one rank's block, into the inboxes (per sending partition).
  void unpack_mail(ByteReader& in);
  // Anything in the owned outboxes or in the inboxes.
  bool mail_pending() const;
  // Empties the lists of the partitions not owned, before gather(): what they hold here is what
  // this rank's serial phase pushed for them, stale, never run (their ranks ran them).
  void drop_unowned();
  // The inboxes into their lists, by sending partition, each in the order it was filled: the
  // order join_mailboxes() pushes in (serial phase only).
  void join_inboxes();

 private:
  [[noreturn]] void lookahead_violation(int64_t time_ps, uint32_t kind, uint32_t from,
                                        uint32_t to) const;
  Scheduler& sched_;
  uint32_t count_;
  Tables tables_;
  int64_t lookahead_ps_;
  std::vector<Part> parts_;
  EventKey bound_ = kNoEventKey;
  uint32_t owned_first_ = 0;
  uint32_t owned_end_ = 0;  // set to count_ by the constructor
  std::vector<std::vector<Mail>> inbox_;  // per sending partition (ranks only)
  void pack_one(uint32_t from, std::vector<char>& block, uint32_t rank,
                const std::vector<uint32_t>& rank_of_target);
};

template <class RankOf>
int64_t Partitions::pack_mail(std::vector<std::vector<char>>& out, RankOf&& rank_of) {
  std::vector<uint32_t> ranks(count_ + 1);
  for (uint32_t p = 0; p < count_; ++p) ranks[p] = rank_of(p);
  ranks[count_] = UINT32_MAX;  // the serial list: every rank
  for (uint32_t r = 0; r < out.size(); ++r) {
    const uint32_t senders = owned_end_ - owned_first_;
    const size_t at = out[r].size();
    out[r].resize(at + sizeof(senders));
    std::memcpy(out[r].data() + at, &senders, sizeof(senders));
    for (uint32_t from = owned_first_; from < owned_end_; ++from) pack_one(from, out[r], r, ranks);
  }
  int64_t earliest = std::numeric_limits<int64_t>::max();
  for (uint32_t from = owned_first_; from < owned_end_; ++from) {
    for (auto& box : parts_[from].out) {
      for (const Mail& m : box) earliest = std::min(earliest, m.time_ps);
      box.clear();
    }
  }
  return earliest;
}

// The smallest key among the events of `q` (kNoEventKey if empty), without redistributing
// anything: events earlier than it may still be pushed afterwards.
EventKey peek_key(const EventQueue& q);

// Runs `q`'s events with keys below `bound` in order through `handle(const Event&)`, setting
// `now_ps` to each one's time; stops early (returning false) when `stop()` says so before an
// event, or after the last one (a partition may park on its last event of a window). Returns
// true when every event below the bound has run.
template <class Handle, class Stop>
bool run_below(EventQueue& q, int64_t& now_ps, EventKey bound, int64_t& events, Handle&& handle,
               Stop&& stop) {
  for (;;) {
    if (stop()) return false;
    if (q.empty()) return true;
    const Event* ready = q.peek_ready();
    if (ready != nullptr) {
      if (!(key_of(*ready) < bound)) return true;
    } else if (!q.next_below(bound.time_ps, bound.order)) {
      return true;
    }
    const Event ev = q.pop();
    now_ps = ev.time_ps;
    ++events;
    handle(ev);
  }
}

}  // namespace fabricsim
