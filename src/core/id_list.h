// A connection's message ids in posting order, addressed by their position since the first
// (a QP's nxt_msg, una_msg, rx_msg: transport/rc.h), from which the oldest can be dropped once
// no position points at them (issue 24 item 1). Positions never change: list[i] is the i-th id
// ever appended, for i from first() to size() - 1.
#pragma once

#include <cstdint>
#include <vector>

namespace fabricsim {

class IdList {
 public:
  void push_back(uint32_t id) {
    recent_[size() % kRecent] = id;
    ids_.push_back(id);
  }
  // REQUIRES: first() <= i < size().
  uint32_t operator[](uint32_t i) const {
    return size() - i <= kRecent ? recent_[i % kRecent] : ids_[i - base_];
  }
  uint32_t size() const { return base_ + static_cast<uint32_t>(ids_.size()); }  // ever appended
  uint32_t first() const { return base_ + head_; }  // position of the oldest kept
  bool empty() const { return first() == size(); }
  uint32_t front() const { return ids_[head_]; }

  // Drops the oldest kept id. Amortized O(1): the dropped prefix is erased once it is at least
  // half of the storage.
  void pop_front() {
    ++head_;
    if (head_ >= 32 && 2 * head_ >= ids_.size()) {
      ids_.erase(ids_.begin(), ids_.begin() + head_);
      base_ += head_;
      head_ = 0;
    }
  }

  // The kept ids, oldest first (for a search by PSN: position = first() + offset).
  std::vector<uint32_t>::const_iterator begin() const { return ids_.begin() + head_; }
  std::vector<uint32_t>::const_iterator end() const { return ids_.end(); }

 private:
  // The newest kRecent ids again, position p in recent_[p % kRecent], inside the list itself.
  // A connection reads the positions it is at (sending, acknowledging, receiving) per packet,
  // and they are nearly always among its newest messages: kept here they are read from the
  // connection's own cache lines, not from a separate heap block one miss further on (with a
  // QP per NCCL channel that miss was most of acknowledge's and make_data_packet's time;
  // docs/performance.md, session 30).
  static constexpr uint32_t kRecent = 8;
  std::vector<uint32_t> ids_;
  uint32_t base_ = 0;  // position of ids_[0]
  uint32_t head_ = 0;  // ids_[0, head_) are dropped
  uint32_t recent_[kRecent] = {};
};

}  // namespace fabricsim
