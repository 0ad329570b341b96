// UET entropy choice: single path, oblivious spraying and REPS (docs/reference/uet-sim.md §3).
#include "transport/uet_lb.h"

namespace fabricsim::transport {

UetEntropy::UetEntropy(UetLoadBalancing mode, int paths, uint64_t seed, uint64_t stream)
    : rng_(seed, stream),
      mode_(mode),
      path_mask_(static_cast<uint16_t>(paths - 1)) {
  base_ = static_cast<uint16_t>(rng_.next_u64() & ~static_cast<uint64_t>(path_mask_) & 0xFFFF);
  fixed_ev_ = random_ev();
  mask_ = static_cast<uint16_t>(rng_.next_u64() & path_mask_);
}

uint16_t UetEntropy::next(int64_t now_ps) {
  switch (mode_) {
    case UetLoadBalancing::kSinglePath:
      return fixed_ev_;
    case UetLoadBalancing::kOblivious: {
      // htsim UecMpOblivious::nextEntropy: (index XOR mask) & (paths - 1) walks every EV once
      // per round of `paths` packets; the mask is redrawn at the start of each round.
      const uint16_t ev = static_cast<uint16_t>(base_ | ((index_ ^ mask_) & path_mask_));
      if (++index_ > path_mask_) {
        index_ = 0;
        mask_ = static_cast<uint16_t>(rng_.next_u64() & path_mask_);
      }
      return ev;
    }
    case UetLoadBalancing::kReps:
      break;
  }
  if (now_ps < freeze_until_ps_) {
    // Frozen after a timeout: cycle through the cached EVs without consuming them (htsim
    // UecMpReps: a failure may have destroyed the ACKs that would refill the ring).
    if (count_ == 0) return random_ev();
    const uint16_t ev = evs_[(head_ + freeze_pos_ % count_) % kRepsBufferSize];
    ++freeze_pos_;
    return ev;
  }
  if (explore_left_ > 0) {
    --explore_left_;
    return random_ev();
  }
  if (count_ > 0) {  // the earliest recycled EV
    const uint16_t ev = evs_[head_];
    head_ = (head_ + 1) % kRepsBufferSize;
    --count_;
    return ev;
  }
  return random_ev();
}

void UetEntropy::on_feedback(uint16_t ev, bool congested) {
  if (mode_ != UetLoadBalancing::kReps || congested) return;
  if (count_ == kRepsBufferSize) {  // full: the oldest entry gives way
    head_ = (head_ + 1) % kRepsBufferSize;
    --count_;
  }
  evs_[(head_ + count_) % kRepsBufferSize] = ev;
  ++count_;
}

void UetEntropy::on_timeout(int64_t now_ps) {
  if (mode_ != UetLoadBalancing::kReps) return;
  if (now_ps >= freeze_until_ps_) explore_left_ = kRepsExploreAfterFreeze;
  freeze_until_ps_ = now_ps + kRepsFreezePs;
  freeze_pos_ = 0;
}

}  // namespace fabricsim::transport
