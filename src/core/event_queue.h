// The simulation's event list, ordered by (time, insertion sequence) so simultaneous events run
// in the order they were scheduled and a run is deterministic (the ns-3 rule, STYLE anchors).
// An event carries no callback: `kind` selects the handler in the simulation's dispatch switch
// and `target` the component, so scheduling never allocates once the buckets have grown.
//
// Structure: a radix heap (Ahuja, Mehlhorn, Orlin & Tarjan, "Faster algorithms for the shortest
// path problem", JACM 1990). A discrete-event simulator's keys are monotone (nothing is scheduled
// before the current time), which is all a radix heap needs: an event goes into the bucket of
// the highest bit in which its time differs from the last time popped, insertion is an append,
// and each event is moved at most once per bit. Ties stay in insertion order because every bucket
// is kept sorted by sequence: appends come in sequence order, and a bucket is redistributed only
// into buckets that are empty at that moment.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace fabricsim {

struct Event {
  int64_t time_ps;
  uint64_t seq;
  uint32_t target;  // component index (port, QP, NIC, ...) interpreted by `kind`
  uint32_t kind;    // handler selector
};
static_assert(sizeof(Event) == 24, "events stay small: buckets move them");

class EventQueue {
 public:
  // REQUIRES: time_ps >= the time of the last event popped (aborts otherwise: an event in the
  // past is a simulator bug, never something to reorder silently).
  void push(int64_t time_ps, uint32_t kind, uint32_t target) {
    if (time_ps < last_ps_) past_event(time_ps);
    const uint64_t diff = static_cast<uint64_t>(time_ps ^ last_ps_);
    buckets_[diff == 0 ? 0 : 64 - __builtin_clzll(diff)].push_back(
        Event{time_ps, next_seq_++, target, kind});
    ++size_;
  }
  bool empty() const { return size_ == 0; }
  size_t size() const { return size_; }
  // REQUIRES: !empty(). Not const: it may redistribute a bucket to find the earliest event,
  // after which nothing earlier than that event may be pushed. So call it between events, not
  // inside a handler that may still schedule.
  const Event& top() {
    if (head0_ == buckets_[0].size()) refill();
    return buckets_[0][head0_];
  }
  // The next event if it is already known without redistributing (else null); safe anywhere.
  const Event* peek_ready() const {
    return head0_ < buckets_[0].size() ? &buckets_[0][head0_] : nullptr;
  }
  // REQUIRES: !empty().
  Event pop() {
    const Event e = top();
    if (++head0_ == buckets_[0].size()) {
      buckets_[0].clear();
      head0_ = 0;
    }
    --size_;
    return e;
  }
  uint64_t pushed() const { return next_seq_; }

 private:
  static constexpr int kBuckets = 65;
  // Moves the earliest non-empty bucket's events down, around its minimum time.
  void refill();
  [[noreturn]] void past_event(int64_t time_ps) const;

  std::vector<Event> buckets_[kBuckets];
  size_t head0_ = 0;  // bucket 0 is consumed from the front (all its events share one time)
  size_t size_ = 0;
  int64_t last_ps_ = 0;
  uint64_t next_seq_ = 0;
};

}  // namespace fabricsim
