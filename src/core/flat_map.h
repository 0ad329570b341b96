// A hash map for small trivially copyable keys and values that come and go all run long (the GPU
// node's per-connection NVLink queues: an entry lives while its connection has a transfer in
// flight). std::unordered_map allocates a node per insert and frees it per erase, a malloc and a
// free per transfer; here entries live in one array (open addressing, linear probing) and erase
// shifts the probe run back (Knuth, TAOCP vol. 3, §6.4 Algorithm R), so there are no tombstones
// and no allocation once the array has grown to the most entries held at once.
//
// References are invalidated by the next insert or erase (entries move). Lookups only: there is
// no iteration, so the layout never shows in results.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace fabricsim {

// Hash: a callable Key -> size_t. The slot is the top bits of its Fibonacci product (Knuth,
// TAOCP vol. 3, §6.4), so a hash that leaves the low bits alike still spreads.
template <typename Key, typename Value, typename Hash>
class FlatMap {
 public:
  // The value of `key`, inserted value-initialized if absent.
  Value& operator[](const Key& key) {
    if (2 * (size_ + 1) > slots_.size()) grow();
    size_t i = home(key);
    while (slots_[i].used) {
      if (slots_[i].key == key) return slots_[i].value;
      i = (i + 1) & mask_;
    }
    slots_[i] = Slot{key, Value{}, true};
    ++size_;
    return slots_[i].value;
  }

  // Removes `key` if present.
  void erase(const Key& key) {
    if (slots_.empty()) return;
    size_t i = home(key);
    while (slots_[i].used && !(slots_[i].key == key)) i = (i + 1) & mask_;
    if (!slots_[i].used) return;
    // Algorithm R: move back each later entry of the run whose home does not lie cyclically in
    // (i, j], so that every entry stays reachable from its home without a tombstone.
    size_t j = i;
    for (;;) {
      j = (j + 1) & mask_;
      if (!slots_[j].used) break;
      const size_t h = home(slots_[j].key);
      const bool stays = i <= j ? (i < h && h <= j) : (i < h || h <= j);
      if (stays) continue;
      slots_[i] = slots_[j];
      i = j;
    }
    slots_[i].used = false;
    --size_;
  }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

 private:
  struct Slot {
    Key key{};
    Value value{};
    bool used = false;
  };
  size_t home(const Key& key) const {
    return static_cast<size_t>((static_cast<uint64_t>(Hash{}(key)) * 0x9E3779B97F4A7C15ull) >>
                               shift_);
  }
  void grow() {
    std::vector<Slot> old;
    old.swap(slots_);
    slots_.assign(std::max<size_t>(16, 2 * old.size()), Slot{});
    mask_ = slots_.size() - 1;
    shift_ = 64 - std::countr_zero(slots_.size());
    size_ = 0;
    for (const Slot& s : old) {
      if (s.used) (*this)[s.key] = s.value;
    }
  }

  std::vector<Slot> slots_;  // power-of-two size, at most half full
  size_t mask_ = 0;
  int shift_ = 64;
  size_t size_ = 0;
};

}  // namespace fabricsim
