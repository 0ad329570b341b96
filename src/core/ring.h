// A FIFO ring buffer with power-of-two capacity that grows by doubling and never shrinks, so a
// queue reaches its working size once and then costs no allocation per push/pop.
#pragma once

#include <cstdint>
#include <memory>

namespace fabricsim {

template <typename T>
class Ring {
 public:
  bool empty() const { return head_ == tail_; }
  uint32_t size() const { return tail_ - head_; }
  T& front() { return buf_[head_ & mask_]; }
  const T& front() const { return buf_[head_ & mask_]; }
  T& back() { return buf_[(tail_ - 1) & mask_]; }
  T& operator[](uint32_t i) { return buf_[(head_ + i) & mask_]; }
  void push_back(const T& v) {
    if (size() == capacity_) grow();
    buf_[tail_++ & mask_] = v;
  }
  T pop_front() { return buf_[head_++ & mask_]; }
  void clear() { head_ = tail_ = 0; }

 private:
  void grow() {
    const uint32_t cap = capacity_ ? capacity_ * 2 : 8;
    std::unique_ptr<T[]> next(new T[cap]);
    for (uint32_t i = 0; i < size(); ++i) next[i] = buf_[(head_ + i) & mask_];
    tail_ = size();
    head_ = 0;
    buf_ = std::move(next);
    capacity_ = cap;
    mask_ = cap - 1;
  }

  std::unique_ptr<T[]> buf_;
  uint32_t head_ = 0;  // wrap-around of the 32-bit counters is harmless: only differences matter
  uint32_t tail_ = 0;
  uint32_t capacity_ = 0;
  uint32_t mask_ = 0;
};

}  // namespace fabricsim
