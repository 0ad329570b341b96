// A FIFO ring buffer with power-of-two capacity that grows by doubling and never shrinks, so a
// queue reaches its working size once and then costs no allocation per push/pop. Packed to 20
// bytes so that a port's hot state, delay line included, fits one cache line.
#pragma once

#include <cstdint>
#include <utility>

namespace fabricsim {

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
  ~Ring() { delete[] buf_; }

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
  void swap(Ring& o) {
    std::swap(buf_, o.buf_);
    std::swap(head_, o.head_);
    std::swap(tail_, o.tail_);
    std::swap(mask_, o.mask_);
  }
  [[gnu::noinline]] void grow() {
    const uint32_t cap = buf_ ? capacity() * 2 : 8;
    T* next = new T[cap];
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
