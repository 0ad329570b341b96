// A table of values addressed by a 32-bit slot number that a packet can carry (an ACK's
// details while the ACK is on the wire: transport/tcp.h, transport/uet.h). Freed slots are
// reused last-in first-out, so the table grows only to the most values alive at once and a
// steady state allocates nothing.
//
// In a partitioned run (core/partitions.h) a value is put by one partition (an ACK's receiver)
// and taken by another (the data's sender), on another thread. Between begin_partitioned() and
// end_partitioned() each partition puts into its own part, whose slots carry the partition
// (kPartitioned | partition << 22 | index) and whose storage never moves (fixed chunks), so
// that another partition may read it once the packet has crossed a barrier; a freed slot goes
// back to its part at the next barrier (flush_frees(), the serial phase). The slot numbers
// then differ from a sequential run's (reuse follows the barriers): what reads them must only
// use them to find the value (transport/uet.h says which routing choices would hash them).
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <vector>

namespace fabricsim {

template <typename T>
class SlotTable {
 public:
  static constexpr uint32_t kPartitioned = 0x80000000u;
  static constexpr uint32_t kIndexBits = 22;  // 9 bits of partition: 512
  static constexpr uint32_t kChunk = 4096;
  static constexpr uint32_t kChunks = (1u << kIndexBits) / kChunk;

  // Stores `value` and returns its slot.
  uint32_t put(const T& value) {
    if (partitioned_) [[unlikely]] return put_partitioned(value);
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
    if (slot & kPartitioned) [[unlikely]] {
      const T v = at(slot);
      release(slot);
      return v;
    }
    free_.push_back(slot);
    return values_[slot];
  }
  // Frees `slot` without reading it (its packet was dropped).
  void release(uint32_t slot) {
    if (slot & kPartitioned) [[unlikely]] {
      if (partitioned_) {
        freed_[current_()].push_back(slot);  // back to its part at the next barrier
      } else {
        parts_[part_of(slot)].free.push_back(index_of(slot));
      }
      return;
    }
    free_.push_back(slot);
  }

  // Partitioned runs: `partitions` parts (and one for the serial phase) from now on;
  // `current()` gives the calling thread's partition (the serial phase: `partitions`).
  void begin_partitioned(uint32_t partitions, uint32_t (*current)()) {
    current_ = current;
    if (parts_.size() < partitions + 1) parts_.resize(partitions + 1);
    freed_.assign(partitions + 1, {});
    partitioned_ = true;
  }
  // The barrier (serial phase): slots freed since the last one go back to their parts (across
  // ranks, a part this rank does not own gets its slots back through foreign_frees()).
  void flush_frees() {
    for (std::vector<uint32_t>& f : freed_) {
      for (uint32_t slot : f) {
        const uint32_t p = part_of(slot);
        if (ranked_ && (p < owned_first_ || p >= owned_end_)) {
          foreign_.push_back(slot);
        } else {
          parts_[p].free.push_back(index_of(slot));
        }
      }
      f.clear();
    }
  }

  // Partitions spread over ranks (core/rank_run.h). A value is put on the rank of the
  // partition that puts it and read on the rank of the one that takes it, in another process:
  // the packet carrying the slot takes the value along (slot_value, then store_at on the far
  // rank, at the same slot), and the slot, freed there, goes back to the putting rank
  // (foreign_frees, then give_back there). Only parts [first, end) are put into here.
  void set_owned_parts(uint32_t first, uint32_t end) {
    ranked_ = true;
    owned_first_ = first;
    owned_end_ = end;
  }
  // The value of a partitioned slot (nullptr for a sequential one).
  const T* slot_value(uint32_t slot) const {
    if (!(slot & kPartitioned)) return nullptr;
    return &at(slot);
  }
  void store_at(uint32_t slot, const T& value) {
    const uint32_t p = part_of(slot), index = index_of(slot);
    if (parts_.size() <= p) parts_.resize(p + 1);
    Part& part = parts_[p];
    if (!part.chunks[index / kChunk]) part.chunks[index / kChunk] = std::make_unique<T[]>(kChunk);
    part.chunks[index / kChunk][index % kChunk] = value;
  }
  std::vector<uint32_t>& foreign_frees() { return foreign_; }
  static uint32_t partition_of(uint32_t slot) { return part_of(slot); }
  void give_back(uint32_t slot) { parts_[part_of(slot)].free.push_back(index_of(slot)); }
  // Back to sequential puts; values still out in partitioned slots stay readable.
  void end_partitioned() {
    flush_frees();
    partitioned_ = false;
  }

 private:
  struct Part {
    std::vector<std::unique_ptr<T[]>> chunks = std::vector<std::unique_ptr<T[]>>(kChunks);
    uint32_t used = 0;
    std::vector<uint32_t> free;
  };
  static uint32_t part_of(uint32_t slot) { return (slot & ~kPartitioned) >> kIndexBits; }
  static uint32_t index_of(uint32_t slot) { return slot & ((1u << kIndexBits) - 1); }
  uint32_t put_partitioned(const T& value) {
    const uint32_t p = current_();
    Part& part = parts_[p];
    uint32_t index;
    if (!part.free.empty()) {
      index = part.free.back();
      part.free.pop_back();
    } else {
      if (part.used == (1u << kIndexBits)) throw std::length_error("SlotTable: a partition is full");
      index = part.used++;
      if (!part.chunks[index / kChunk]) part.chunks[index / kChunk] = std::make_unique<T[]>(kChunk);
    }
    part.chunks[index / kChunk][index % kChunk] = value;
    return kPartitioned | (p << kIndexBits) | index;
  }
  const T& at(uint32_t slot) const {
    const uint32_t index = index_of(slot);
    return parts_[part_of(slot)].chunks[index / kChunk][index % kChunk];
  }

  std::vector<T> values_;
  std::vector<uint32_t> free_;
  bool partitioned_ = false;
  // Partitioned runs: a part per partition and the serial phase (its chunks never move), and
  // per freeing partition the slots freed since the last barrier.
  std::vector<Part> parts_;
  std::vector<std::vector<uint32_t>> freed_;
  uint32_t (*current_)() = nullptr;
  bool ranked_ = false;
  uint32_t owned_first_ = 0, owned_end_ = 0;
  std::vector<uint32_t> foreign_;  // freed here, owned by another rank's part
};

}  // namespace fabricsim
