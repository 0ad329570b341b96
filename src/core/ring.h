// A FIFO ring buffer with power-of-two capacity that grows by doubling and never shrinks, so a
// queue reaches its working size once and then costs no allocation per push/pop. Packed to 20
// bytes so that a port's hot state, delay line included, fits one cache line.
#pragma once

#include <atomic>
#include <cstdint>
#include <utility>

namespace fabricsim {

// The bytes every Ring's buffer holds in this process, the most they ever held, and a limit.
// Rings hold the packets queued in ports and on cables, which depend on the traffic's dynamics:
// the memory pre-flight expects their peak from the fabric's congestion thresholds but can only
// bound it by every switch buffer full (preflight/resources.cpp), so a run watches them here
// instead. Touched only when a ring grows (at most log2 of its deepest backlog times), never
// per packet; atomic so that partitions on threads may share the count.
struct RingMemory {
  static inline std::atomic<int64_t> live_bytes{0};
  static inline std::atomic<int64_t> peak_bytes{0};
  // 0 = no limit. When a ring's growth would take live_bytes above it, on_limit is called
  // instead (it must not return: it throws), so a run stops with a clear error rather than
  // dying of memory (cli/ring_budget.h sets both from the pre-flight's budget).
  static inline int64_t limit_bytes = 0;
  static inline void (*on_limit)(int64_t need_bytes) = nullptr;
  static void add(int64_t bytes) {
    const int64_t now = live_bytes.fetch_add(bytes, std::memory_order_relaxed) + bytes;
    int64_t peak = peak_bytes.load(std::memory_order_relaxed);
    while (now > peak && !peak_bytes.compare_exchange_weak(peak, now)) {
    }
  }
};

template <typename T>
class __attribute__((packed)) Ring {
 public:
  Ring() = default;
  Ring(const Ring&) = delete;
  Ring& operator=(const Ring&) = delete;
  Ring(Ring&& o) noexcept { swap(o); }
  Ring& operator=(Ring&& o) noexcept {
    swap(o);
    return *this;
  }
  ~Ring() {
    if (buf_) RingMemory::add(-static_cast<int64_t>(capacity() * sizeof(T)));
    delete[] buf_;
  }

  bool empty() const { return head_ == tail_; }
  uint32_t size() const { return tail_ - head_; }
  uint32_t capacity() const { return buf_ ? mask_ + 1 : 0; }
  T& front() { return buf_[head_ & mask_]; }
  const T& front() const { return buf_[head_ & mask_]; }
  T& operator[](uint32_t i) { return buf_[(head_ + i) & mask_]; }
  // Per packet-hop: always inlined (with several rings per port the compiler stopped inlining
  // them, +3% instructions on the k=16 bench); the rare grow() stays out of line.
  [[gnu::always_inline]] void push_back(const T& v) {
    if (size() == capacity()) grow();
    buf_[tail_++ & mask_] = v;
    __builtin_prefetch(&buf_[(tail_ + 64 / sizeof(T)) & mask_], 1);  // next line, for writing
  }
  // The newest element (non-empty ring only): switches trimming the newest queued packet.
  T& back() { return buf_[(tail_ - 1) & mask_]; }
  T pop_back() { return buf_[--tail_ & mask_]; }
  [[gnu::always_inline]] T pop_front() {
    // The next slots are read at this ring's next pop, usually after thousands of other events
    // have evicted them: start fetching the following cache line now.
    __builtin_prefetch(&buf_[(head_ + 64 / sizeof(T) + 1) & mask_]);
    return buf_[head_++ & mask_];
  }

 private:
  // Through copies: a packed member cannot bind to std::swap's references.
  void swap(Ring& o) {
    T* const buf = buf_;
    const uint32_t head = head_, tail = tail_, mask = mask_;
    buf_ = o.buf_, head_ = o.head_, tail_ = o.tail_, mask_ = o.mask_;
    o.buf_ = buf, o.head_ = head, o.tail_ = tail, o.mask_ = mask;
  }
  [[gnu::noinline]] void grow() {
    const uint32_t cap = buf_ ? capacity() * 2 : 8;
    const int64_t more = static_cast<int64_t>((cap - capacity()) * sizeof(T));
    if (RingMemory::limit_bytes > 0 &&
        RingMemory::live_bytes.load(std::memory_order_relaxed) + more > RingMemory::limit_bytes &&
        RingMemory::on_limit != nullptr) {
      RingMemory::on_limit(RingMemory::live_bytes.load(std::memory_order_relaxed) + more);
    }
    T* next = new T[cap];
    RingMemory::add(more);
    for (uint32_t i = 0; i < size(); ++i) next[i] = buf_[(head_ + i) & mask_];
    tail_ = size();
    head_ = 0;
    delete[] buf_;
    buf_ = next;
    mask_ = cap - 1;
  }

  T* buf_ = nullptr;
  uint32_t head_ = 0;  // wrap-around of the 32-bit counters is harmless: only differences matter
  uint32_t tail_ = 0;
  uint32_t mask_ = 0;  // capacity - 1 once allocated
};

}  // namespace fabricsim
