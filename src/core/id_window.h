// Records addressed by a dense 32-bit id that are created in id order and released from the
// oldest on (issue 24 item 1: a transport's message records, retired once nothing can touch
// them again). Storage is pages of 2^kPageShift records; a page is freed when its last record
// is released, so memory follows the ids between the oldest live record and the newest, not
// every id ever given. Ids are never reused: id i stays i (the flows.csv row, the workloads'
// message handle).
//
// Hot path: operator[] is a shift, one load of the page pointer and an index, so a per-packet
// record lookup costs one more load than a flat vector's. No record moves once created (pages
// are never reallocated), so a reference stays valid until its record is released.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

namespace fabricsim {

template <typename T, int kPageShift = 12>
class IdWindow {
 public:
  static constexpr uint32_t kPageRecords = uint32_t{1} << kPageShift;

  // Appends a record and returns its id.
  uint32_t push_back(const T& value) {
    const uint32_t id = end_;
    const uint32_t page = id >> kPageShift;
    if ((id & (kPageRecords - 1)) == 0) {
      if (page >= pages_.size()) pages_.resize(page + 1);
      pages_[page] = spare_ ? std::move(spare_) : std::make_unique<T[]>(kPageRecords);
    }
    pages_[page][id & (kPageRecords - 1)] = value;
    ++end_;
    if (end_ - front_ > max_live_) max_live_ = end_ - front_;
    return id;
  }

  // REQUIRES: front_id() <= id < end_id().
  T& operator[](uint32_t id) { return pages_[id >> kPageShift][id & (kPageRecords - 1)]; }
  const T& operator[](uint32_t id) const {
    return pages_[id >> kPageShift][id & (kPageRecords - 1)];
  }

  uint32_t front_id() const { return front_; }  // the oldest live id
  uint32_t end_id() const { return end_; }      // one past the newest id (ids given so far)
  bool empty() const { return front_ == end_; }
  uint32_t live() const { return end_ - front_; }
  uint32_t max_live() const { return max_live_; }  // the most records live at once so far

  // Releases the oldest live record. REQUIRES: !empty().
  void pop_front() {
    ++front_;
    // The last record of a page released: the page is free.
    if ((front_ & (kPageRecords - 1)) == 0) release_page((front_ - 1) >> kPageShift);
  }

  // Bytes held: the live pages, a spare and the page table.
  size_t bytes() const {
    size_t held = 0;
    for (const auto& p : pages_) held += p ? kPageRecords * sizeof(T) : 0;
    return held + (spare_ ? kPageRecords * sizeof(T) : 0) + pages_.capacity() * sizeof(void*);
  }

 private:
  void release_page(uint32_t page) {
    // One page is kept for the next push_back, so a steady state allocates nothing.
    if (!spare_) {
      spare_ = std::move(pages_[page]);
    } else {
      pages_[page].reset();
    }
  }

  std::vector<std::unique_ptr<T[]>> pages_;  // by page number; released pages are null
  std::unique_ptr<T[]> spare_;
  uint32_t front_ = 0;
  uint32_t end_ = 0;
  uint32_t max_live_ = 0;
};

}  // namespace fabricsim
