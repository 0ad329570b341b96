// A table of values addressed by a 32-bit slot number that a packet can carry (an ACK's
// details while the ACK is on the wire: transport/tcp.h, transport/uet.h). Freed slots are
// reused last-in first-out, so the table grows only to the most values alive at once and a
// steady state allocates nothing.
#pragma once

#include <cstdint>
#include <vector>

namespace fabricsim {

template <typename T>
class SlotTable {
 public:
  // Stores `value` and returns its slot.
  uint32_t put(const T& value) {
    if (free_.empty()) {
      values_.push_back(value);
      return static_cast<uint32_t>(values_.size() - 1);
    }
    const uint32_t slot = free_.back();
    free_.pop_back();
    values_[slot] = value;
    return slot;
  }
  // The value in `slot`, whose slot is then free.
  T take(uint32_t slot) {
    free_.push_back(slot);
    return values_[slot];
  }
  // Frees `slot` without reading it (its packet was dropped).
  void release(uint32_t slot) { free_.push_back(slot); }

 private:
  std::vector<T> values_;
  std::vector<uint32_t> free_;
};

}  // namespace fabricsim
