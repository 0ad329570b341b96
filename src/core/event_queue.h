// The simulation's event list. Events are ordered by (time, kind, owner rank, sequence):
//   - kind: at one instant the network's events run before the transports', the transports'
//     before the GPU nodes' and the workload's (core/scheduler.h numbers the kinds by layer);
//   - owner: the port, NIC or node whose state the event belongs to (for a QP timer the QP's
//     NIC, for a message completion the NIC completing it), an index fixed by the topology.
//     Owners of one instant are taken in an order that is a permutation of the owner indices
//     drawn from the instant's time (owner XOR a hash of the time): a fixed order would let port
//     0 win every tie against port 1 for the whole run, and in a synchronized fabric (equal
//     rates, flows started together) ties are the rule, so that bias would show in shares and
//     drops (measured: the DCQCN two-flow test's shares 0.943 / 1.056 with owner order, and
//     a slower convergence). The permutation is the same wherever the event is pushed.
//   - sequence: insertion order, which only ever decides between events of one owner and kind
//     at one instant, and those are scheduled by that owner's own handlers, one after another.
// No part of the key depends on which component happened to schedule first. So a run split into
// partitions (each with its own queue and its own insertion counter, issue 21 item 3) orders the
// events of every owner exactly as the sequential run does: the SST / UNISON rule, where ties
// break on what an event acts on, not on a global insertion count.
// An event carries no callback: `kind` selects the handler in the simulation's dispatch switch
// and `target` the component. Buckets are chains of fixed-size chunks from one free list
// (EventChunks below), so scheduling allocates only when more events are pending than ever
// before, and a chunk a drained bucket gives back is the next one filled, while still in cache.
//
// Structure: a radix heap (Ahuja, Mehlhorn, Orlin & Tarjan, "Faster algorithms for the shortest
// path problem", JACM 1990) on 6-bit digits instead of bits. A discrete-event simulator's keys are
// monotone (nothing is scheduled before the current time), which is all a radix heap needs: an
// event goes into the bucket (level, digit) where level is the highest 6-bit digit in which its
// time differs from the last time popped and digit its own value there; insertion is an append,
// and each event moves at most once per level. With one bucket per bit (the first version) an
// event ~1 us ahead was moved about ten times before its instant came (cachegrind, k=8 bench:
// the redistribution was 27 % of all instructions); with 6-bit digits it is moved at most four
// times. Occupancy bitmasks find the earliest bucket without scanning. The events of the current
// instant are sorted when it begins; those a handler schedules for the same instant wait in a
// small heap and take their place among the rest.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <utility>
#include <vector>

namespace fabricsim {

// Owners are indices below 2^24 (16.7 M ports, NICs or nodes); resolve refuses a fabric with
// more ports than that before anything is built (resolve/ranges.cpp).
inline constexpr uint32_t kMaxEventOwners = 1u << 24;

struct Event {
  int64_t time_ps;
  uint64_t seq;     // insertion order: the last tie-break, between events of one owner and kind
  uint32_t target;  // component index (port, QP, NIC, ...) interpreted by the kind
  uint32_t order;   // kind << 24 | (owner ^ instant_mask(time_ps)): the tie-break before seq
  uint32_t kind() const { return order >> 24; }  // handler selector (core/scheduler.h)
  uint32_t owner() const { return (order ^ instant_mask(time_ps)) & (kMaxEventOwners - 1); }
  // The instant's owner permutation (see above): 24 bits of a multiplicative hash of the time
  // (Knuth's golden-ratio constant).
  static uint32_t instant_mask(int64_t time_ps) {
    return static_cast<uint32_t>((static_cast<uint64_t>(time_ps) * 0x9E3779B97F4A7C15ull) >> 40);
  }
};
static_assert(sizeof(Event) == 24, "events stay small: buckets move them");

// A growable array of events: the append is inlined everywhere (std::vector's was not, once the
// queue had three callers of it), growth is out of line. Events are trivially copyable.
class EventBuf {
 public:
  EventBuf() = default;
  EventBuf(const EventBuf&) = delete;
  EventBuf& operator=(const EventBuf&) = delete;
  ~EventBuf() { std::free(data_); }
  void push_back(const Event& e) {
    if (size_ == cap_) grow();
    data_[size_++] = e;
  }
  void pop_back() { --size_; }
  void clear() { size_ = 0; }
  void swap(EventBuf& o) {
    std::swap(data_, o.data_);
    std::swap(size_, o.size_);
    std::swap(cap_, o.cap_);
  }
  bool empty() const { return size_ == 0; }
  size_t size() const { return size_; }
  Event& operator[](size_t i) { return data_[i]; }
  const Event& operator[](size_t i) const { return data_[i]; }
  Event* begin() { return data_; }
  Event* end() { return data_ + size_; }
  const Event& back() const { return data_[size_ - 1]; }

 private:
  void grow();
  Event* data_ = nullptr;
  size_t size_ = 0;
  size_t cap_ = 0;
};

// Radix-heap buckets as chains of chunks. A bucket used to be a growable array: 704 of them each
// kept the capacity of its fullest moment, far beyond the events pending at once, and freeing a
// drained large one (session 15's fix) made it regrow by realloc each time it filled again
// (cachegrind, k=32 profile: 3.9 M of 51.7 M last-level misses in memcpy, and 4.0 M in refill's
// reads of buffers last touched many microseconds before). Chunks come from a LIFO free list:
// memory follows the events pending (plus a partly filled chunk per non-empty bucket), nothing
// is copied to grow, and refill's redistribution refills the chunks it has just emptied.
struct EventChunk {
  static constexpr uint32_t kEvents = 42;  // 1,008 bytes of events + the link: 16 cache lines
  Event events[kEvents];
  EventChunk* next;
};

// One bucket: its chain, appended at the tail.
struct EventChain {
  EventChunk* head = nullptr;
  EventChunk* tail = nullptr;
  uint32_t tail_used = 0;  // events in the tail chunk
};

class EventQueue {
 public:
  EventQueue() = default;
  EventQueue(const EventQueue&) = delete;
  EventQueue& operator=(const EventQueue&) = delete;
  ~EventQueue();
  // REQUIRES: time_ps >= the time of the last event popped (aborts otherwise: an event in the
  // past is a simulator bug, never something to reorder silently); kind < 256; owner < 2^24.
  void push(int64_t time_ps, uint32_t kind, uint32_t target, uint32_t owner) {
    if (time_ps < last_ps_) past_event(time_ps);
    const Event e{time_ps, next_seq_++, target,
                  (kind << 24) | ((owner ^ Event::instant_mask(time_ps)) & (kMaxEventOwners - 1))};
    const uint64_t diff = static_cast<uint64_t>(time_ps ^ last_ps_);
    if (diff == 0) {
      late_push(e);
    } else {
      place(e, diff);
    }
    ++size_;
  }
  bool empty() const { return size_ == 0; }
  size_t size() const { return size_; }
  // The next event if it is already known without redistributing (else null); safe anywhere.
  const Event* peek_ready() const {
    const bool have_now = head_ < now_.size();
    if (late_.empty()) return have_now ? &now_[head_] : nullptr;
    return have_now && before(now_[head_], late_[0]) ? &now_[head_] : &late_[0];
  }
  // REQUIRES: !empty(). May redistribute a bucket to find the earliest event, after which
  // nothing earlier than that event may be pushed: call it between events.
  Event pop() {
    --size_;
    if (late_.empty()) {
      if (head_ == now_.size()) refill();
      return now_[head_++];
    }
    return pop_mixed();
  }
  uint64_t pushed() const { return next_seq_; }
  // The smallest (time, order) among the pending events, found without moving any (so events
  // earlier than it may still be pushed, down to the last time popped). False when empty.
  // Costs a scan of the earliest bucket when the current instant is consumed.
  bool min_key(int64_t& time_ps, uint32_t& order) const;
  // Whether the earliest pending event comes before (time_ps, order); never redistributes.
  // Cheap when the earliest bucket lies wholly before or after that time (one scan otherwise).
  bool next_below(int64_t time_ps, uint32_t order) const;
  // A time no pending event is earlier than, without scanning: the current instant's, or the
  // start of the earliest bucket's range. INT64_MAX when empty.
  int64_t time_lower_bound() const;
  // Moves every pending event into `out` (appended, in no particular order) and leaves the
  // queue empty at the same current time, so that the caller can push them again, some at
  // other times (mode: hybrid re-times a group of components, engine/hybrid/steady_skip.h).
  // Pushed again in ascending `seq`, events keep their relative order wherever their keys
  // tie. Costs one pass over the pending events.
  void drain(std::vector<Event>& out);

  // True if a runs before b among events of one instant.
  static bool before(const Event& a, const Event& b) {
    return ((static_cast<unsigned __int128>(a.order) << 64) | a.seq) <
           ((static_cast<unsigned __int128>(b.order) << 64) | b.seq);
  }

 private:
  static constexpr int kDigitBits = 6;
  static constexpr int kDigits = 1 << kDigitBits;
  static constexpr int kLevels = (64 + kDigitBits - 1) / kDigitBits;
  // Appends an event not of the current instant (diff = its time XOR last_ps_, non-zero) to its
  // bucket: the highest differing digit's level, its own digit there.
  void place(const Event& e, uint64_t diff) {
    const int level = (63 - __builtin_clzll(diff)) / kDigitBits;
    const int digit =
        static_cast<int>(static_cast<uint64_t>(e.time_ps) >> (level * kDigitBits)) & (kDigits - 1);
    append(buckets_[level][digit], e);
    digit_mask_[level] |= uint64_t{1} << digit;
    level_mask_ |= 1u << level;
  }
  void append(EventChain& c, const Event& e) {
    if (c.tail == nullptr || c.tail_used == EventChunk::kEvents) [[unlikely]] {
      EventChunk* k = take_chunk();
      k->next = nullptr;
      if (c.tail == nullptr) {
        c.head = k;
      } else {
        c.tail->next = k;
      }
      c.tail = k;
      c.tail_used = 0;
    }
    c.tail->events[c.tail_used++] = e;
  }
  EventChunk* take_chunk() {
    if (free_ == nullptr) return new_chunk();
    EventChunk* k = free_;
    free_ = k->next;
    return k;
  }
  EventChunk* new_chunk();  // out of line: only while the pending events reach a new peak
  void give_chunk(EventChunk* k) {
    k->next = free_;
    free_ = k;
  }
  // Takes the earliest non-empty bucket; its events are moved down, around its minimum time,
  // and the events of the new instant are sorted into now_.
  void refill();
  // The instant's events pushed while it runs wait in late_, a binary min-heap, and are merged
  // with now_'s sorted rest at each pop.
  void late_push(const Event& e);
  Event late_pop();
  Event pop_mixed();
  [[noreturn]] void past_event(int64_t time_ps) const;
  // REQUIRES: the current instant consumed, some bucket non-empty. The times the earliest
  // bucket can hold: [lo_ps, hi_ps].
  void earliest_bucket_range(int64_t& lo_ps, int64_t& hi_ps) const;

  // buckets_[l][d]: events whose time first differs from last_ps_ in digit l, where it is d.
  // Every event of level l is later than every event of a lower level, and among one level's
  // buckets the lower digit is earlier.
  EventChain buckets_[kLevels][kDigits];
  EventChunk* free_ = nullptr;  // drained chunks, most recently drained first
  uint64_t digit_mask_[kLevels] = {};  // bit d of [l]: buckets_[l][d] is non-empty
  uint32_t level_mask_ = 0;            // bit l: some bucket of level l is non-empty
  EventBuf now_;    // the current instant's events, sorted; now_[head_..] still to run
  size_t head_ = 0;
  EventBuf late_;   // events for the current instant pushed since it was sorted (a heap)
  size_t size_ = 0;
  int64_t last_ps_ = 0;
  uint64_t next_seq_ = 0;
};

}  // namespace fabricsim
