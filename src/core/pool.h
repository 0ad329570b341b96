// An index-based object pool. Objects live in one growing array and are named by a 32-bit index,
// so queues hold 4-byte handles and a freed slot is reused before the array grows. Debug builds
// catch double frees and use-after-free through a live flag.
#pragma once

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace fabricsim {

template <typename T>
class Pool {
 public:
  uint32_t alloc() {
    uint32_t id;
    if (!free_.empty()) {
      id = free_.back();
      free_.pop_back();
    } else {
      id = static_cast<uint32_t>(items_.size());
      items_.emplace_back();
#ifndef NDEBUG
      live_.push_back(false);
#endif
    }
#ifndef NDEBUG
    assert(!live_[id] && "pool slot allocated twice");
    live_[id] = true;
#endif
    ++in_use_;
    return id;
  }
  void free(uint32_t id) {
#ifndef NDEBUG
    assert(live_[id] && "pool slot freed twice");
    live_[id] = false;
#endif
    free_.push_back(id);
    --in_use_;
  }
  T& operator[](uint32_t id) {
#ifndef NDEBUG
    assert(live_[id] && "use of a freed pool slot");
#endif
    return items_[id];
  }
  const T& operator[](uint32_t id) const { return items_[id]; }
  uint32_t in_use() const { return in_use_; }
  size_t capacity() const { return items_.size(); }

 private:
  std::vector<T> items_;
  std::vector<uint32_t> free_;
#ifndef NDEBUG
  std::vector<bool> live_;
#endif
  uint32_t in_use_ = 0;
};

}  // namespace fabricsim
