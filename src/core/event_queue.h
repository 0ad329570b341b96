// The simulation's event list: a 4-ary min-heap of small event records ordered by
// (time, insertion sequence), so simultaneous events run in the order they were scheduled and a
// run is deterministic (the ns-3 rule, STYLE anchors). An event carries no callback: `kind`
// selects the handler in the simulation's dispatch switch and `target` the component, so
// scheduling never allocates (the heap's array grows geometrically and is then reused).
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
static_assert(sizeof(Event) == 24, "events stay small: the heap moves them on every push/pop");

class EventQueue {
 public:
  void push(int64_t time_ps, uint32_t kind, uint32_t target) {
    heap_.push_back(Event{time_ps, next_seq_++, target, kind});
    sift_up(heap_.size() - 1);
  }
  bool empty() const { return heap_.empty(); }
  size_t size() const { return heap_.size(); }
  const Event& top() const { return heap_.front(); }
  // REQUIRES: !empty().
  Event pop();
  uint64_t pushed() const { return next_seq_; }

 private:
  static bool before(const Event& a, const Event& b) {
    return a.time_ps < b.time_ps || (a.time_ps == b.time_ps && a.seq < b.seq);
  }
  void sift_up(size_t i);
  void sift_down(size_t i);

  std::vector<Event> heap_;
  uint64_t next_seq_ = 0;
};

}  // namespace fabricsim
