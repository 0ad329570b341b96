#include "core/event_queue.h"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <new>

namespace fabricsim {

void EventBuf::grow() {
  const size_t cap = cap_ == 0 ? 16 : cap_ * 2;
  auto* data = static_cast<Event*>(std::realloc(data_, cap * sizeof(Event)));
  if (data == nullptr) throw std::bad_alloc();
  data_ = data;
  cap_ = cap;
}

// late_ is a binary heap whose front runs first. Most instants get no late events, or one.
void EventQueue::late_push(const Event& e) {
  EventBuf& h = late_;
  size_t i = h.size();
  h.push_back(e);
  while (i > 0) {
    const size_t parent = (i - 1) / 2;
    if (!before(e, h[parent])) break;
    h[i] = h[parent];
    i = parent;
  }
  h[i] = e;
}

Event EventQueue::late_pop() {
  EventBuf& h = late_;
  const Event top = h[0];
  const Event last = h.back();
  h.pop_back();
  const size_t n = h.size();
  if (n == 0) return top;
  size_t i = 0;
  for (;;) {
    size_t child = 2 * i + 1;
    if (child >= n) break;
    if (child + 1 < n && before(h[child + 1], h[child])) ++child;
    if (!before(h[child], last)) break;
    h[i] = h[child];
    i = child;
  }
  h[i] = last;
  return top;
}

Event EventQueue::pop_mixed() {
  if (head_ < now_.size() && before(now_[head_], late_[0])) return now_[head_++];
  return late_pop();
}

EventQueue::~EventQueue() {
  auto free_chain = [](EventChunk* k) {
    while (k != nullptr) {
      EventChunk* next = k->next;
      delete k;
      k = next;
    }
  };
  for (auto& level : buckets_) {
    for (EventChain& c : level) free_chain(c.head);
  }
  free_chain(free_);
}

EventChunk* EventQueue::new_chunk() { return new EventChunk; }

void EventQueue::refill() {
  // REQUIRES: now_ consumed and late_ empty, and some bucket holds events.
  now_.clear();
  head_ = 0;
  const int level = __builtin_ctz(level_mask_);
  const int digit = __builtin_ctzll(digit_mask_[level]);
  digit_mask_[level] &= ~(uint64_t{1} << digit);
  if (digit_mask_[level] == 0) level_mask_ &= ~(1u << level);
  EventChain from = buckets_[level][digit];
  buckets_[level][digit] = EventChain{};
  auto used = [&from](const EventChunk* k) {
    return k == from.tail ? from.tail_used : EventChunk::kEvents;
  };
  if (level == 0) {
    // Every event of a level-0 bucket has one time (all digits above the lowest are last_ps_'s,
    // the lowest is the bucket's): the bucket is the new instant, taken whole.
    last_ps_ = from.head->events[0].time_ps;
    for (EventChunk* k = from.head; k != nullptr;) {
      EventChunk* next = k->next;
      for (uint32_t i = 0, n = used(k); i < n; ++i) now_.push_back(k->events[i]);
      give_chunk(k);
      k = next;
    }
  } else {
    // The new reference time is the bucket's minimum; its events all share the digits from
    // `level` up with it, so each lands in a lower level (or is of the new instant).
    int64_t min_ps = from.head->events[0].time_ps;
    for (const EventChunk* k = from.head; k != nullptr; k = k->next) {
      for (uint32_t i = 0, n = used(k); i < n; ++i) {
        min_ps = k->events[i].time_ps < min_ps ? k->events[i].time_ps : min_ps;
      }
    }
    last_ps_ = min_ps;
    // Each chunk goes back to the free list once its events are placed, so the lower buckets
    // go on filling the chunks just read (in cache) rather than cold ones.
    for (EventChunk* k = from.head; k != nullptr;) {
      for (uint32_t i = 0, n = used(k); i < n; ++i) {
        const Event& e = k->events[i];
        const uint64_t diff = static_cast<uint64_t>(e.time_ps ^ last_ps_);
        if (diff == 0) {
          now_.push_back(e);
        } else {
          place(e, diff);
        }
      }
      EventChunk* next = k->next;
      give_chunk(k);
      k = next;
    }
  }
  // now_ is already in insertion order: appends come in sequence order, and a bucket is only
  // ever redistributed into buckets that are empty at that moment (every bucket of a lower
  // level; the instant's own buffer was consumed). So a stable sort on `order`
  // alone gives (order, seq). Most instants hold one to three events (2.8 on average in the
  // k=16 permutation benchmark): an insertion sort handles them; large synchronized instants
  // (a few per cent of them, up to ~1,000 events) take std::sort on the full key.
  const size_t n = now_.size();
  if (n > 24) {
    std::sort(now_.begin(), now_.end(), [](const Event& a, const Event& b) { return before(a, b); });
    return;
  }
  for (size_t k = 1; k < n; ++k) {
    const Event e = now_[k];
    size_t j = k;
    while (j > 0 && e.order < now_[j - 1].order) {
      now_[j] = now_[j - 1];
      --j;
    }
    now_[j] = e;
  }
}

void EventQueue::drain(std::vector<Event>& out) {
  out.reserve(out.size() + size_);
  for (size_t i = head_; i < now_.size(); ++i) out.push_back(now_[i]);
  for (size_t i = 0; i < late_.size(); ++i) out.push_back(late_[i]);
  now_.clear();
  head_ = 0;
  late_.clear();
  for (int level = 0; level < kLevels; ++level) {
    for (int digit = 0; digit < kDigits; ++digit) {
      EventChain& c = buckets_[level][digit];
      for (EventChunk* k = c.head; k != nullptr;) {
        const uint32_t n = k == c.tail ? c.tail_used : EventChunk::kEvents;
        for (uint32_t i = 0; i < n; ++i) out.push_back(k->events[i]);
        EventChunk* next = k->next;
        give_chunk(k);
        k = next;
      }
      c = EventChain{};
    }
    digit_mask_[level] = 0;
  }
  level_mask_ = 0;
  size_ = 0;
}

bool EventQueue::min_key(int64_t& time_ps, uint32_t& order) const {
  if (size_ == 0) return false;
  if (const Event* e = peek_ready()) {
    time_ps = e->time_ps;
    order = e->order;
    return true;
  }
  // The current instant is consumed: the earliest event is in the lowest non-empty bucket.
  const int level = __builtin_ctz(level_mask_);
  const int digit = __builtin_ctzll(digit_mask_[level]);
  const EventChain& c = buckets_[level][digit];
  bool first = true;
  for (const EventChunk* k = c.head; k != nullptr; k = k->next) {
    const uint32_t n = k == c.tail ? c.tail_used : EventChunk::kEvents;
    for (uint32_t i = 0; i < n; ++i) {
      const Event& e = k->events[i];
      if (first || e.time_ps < time_ps || (e.time_ps == time_ps && e.order < order)) {
        time_ps = e.time_ps;
        order = e.order;
        first = false;
      }
    }
  }
  return !first;
}

void EventQueue::earliest_bucket_range(int64_t& lo_ps, int64_t& hi_ps) const {
  // The lowest non-empty bucket holds times sharing last_ps_'s digits above its level and its
  // own digit there.
  const int level = __builtin_ctz(level_mask_);
  const int digit = __builtin_ctzll(digit_mask_[level]);
  const int shift = level * kDigitBits;
  const int upper = shift + kDigitBits;
  const uint64_t last = static_cast<uint64_t>(last_ps_);
  const uint64_t high = upper >= 64 ? 0 : (last >> upper) << upper;
  const uint64_t lo = high | (static_cast<uint64_t>(digit) << shift);
  lo_ps = static_cast<int64_t>(lo);
  hi_ps = static_cast<int64_t>(lo | ((uint64_t{1} << shift) - 1));
}

int64_t EventQueue::time_lower_bound() const {
  if (size_ == 0) return std::numeric_limits<int64_t>::max();
  if (const Event* e = peek_ready()) return e->time_ps;
  int64_t lo = 0;
  int64_t hi = 0;
  earliest_bucket_range(lo, hi);
  return lo;
}

bool EventQueue::next_below(int64_t time_ps, uint32_t order) const {
  if (size_ == 0) return false;
  if (const Event* e = peek_ready()) {
    return e->time_ps != time_ps ? e->time_ps < time_ps : e->order < order;
  }
  int64_t lo = 0;
  int64_t hi = 0;
  earliest_bucket_range(lo, hi);
  if (hi < time_ps) return true;
  if (lo > time_ps) return false;
  int64_t t = 0;
  uint32_t o = 0;
  min_key(t, o);
  return t != time_ps ? t < time_ps : o < order;
}

void EventQueue::past_event(int64_t time_ps) const {
  std::fprintf(stderr, "fabricsim: internal error: event scheduled at %lld ps, before now (%lld ps)\n",
               static_cast<long long>(time_ps), static_cast<long long>(last_ps_));
  std::abort();
}

}  // namespace fabricsim
