#include "core/event_queue.h"

#include <cstdio>
#include <cstdlib>

namespace fabricsim {

void EventQueue::refill() {
  int i = 1;
  while (buckets_[i].empty()) ++i;  // REQUIRES: !empty(), so some bucket holds events
  std::vector<Event>& from = buckets_[i];
  // The new reference time is the bucket's minimum; its events all differ from the old one in
  // bit i-1, and from the new one only in lower bits, so each lands in a lower bucket.
  int64_t min_ps = from.front().time_ps;
  for (const Event& e : from) min_ps = e.time_ps < min_ps ? e.time_ps : min_ps;
  last_ps_ = min_ps;
  buckets_[0].clear();
  head0_ = 0;
  for (const Event& e : from) {
    const uint64_t diff = static_cast<uint64_t>(e.time_ps ^ last_ps_);
    buckets_[diff == 0 ? 0 : 64 - __builtin_clzll(diff)].push_back(e);
  }
  from.clear();
}

void EventQueue::past_event(int64_t time_ps) const {
  std::fprintf(stderr, "fabricsim: internal error: event scheduled at %lld ps, before now (%lld ps)\n",
               static_cast<long long>(time_ps), static_cast<long long>(last_ps_));
  std::abort();
}

}  // namespace fabricsim
