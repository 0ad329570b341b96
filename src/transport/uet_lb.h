// Per-connection entropy-value (EV) choice of the UET sender: which of `paths` EVs a packet
// carries, so that switches hashing the EV like a UDP source port spread one connection over
// many paths (docs/reference/uet-sim.md §3, §6; uet-htsim uec_mp.cpp and buffer_reps.cpp).
// One small value object per connection: no allocation, no virtual call per packet.
#pragma once

#include <cstdint>

#include "core/rng.h"
#include "core/time.h"
#include "transport/uet_config.h"

namespace fabricsim::transport {

// REPS constants, uet-sim.md §3 (htsim buffer_reps.h repsBufferSize = 8; uec_mp.cpp
// exit_freeze_after = 1e10 ps = 10 ms, then 16 random explorations).
inline constexpr int kRepsBufferSize = 8;
inline constexpr int64_t kRepsFreezePs = 10 * kPsPerMs;
inline constexpr int kRepsExploreAfterFreeze = 16;

class UetEntropy {
 public:
  // REQUIRES: paths a power of two in [1, 65536].
  UetEntropy(UetLoadBalancing mode, int paths, uint64_t seed, uint64_t stream);

  // The EV of the next packet sent at `now_ps`.
  uint16_t next(int64_t now_ps);
  // An ACK (or NACK) came back echoing `ev`; `congested` when it echoed a CE mark or reports a
  // trim. REPS recycles only uncongested EVs.
  void on_feedback(uint16_t ev, bool congested);
  // A retransmission timeout: REPS freezes (reuses its cached EVs) for kRepsFreezePs.
  void on_timeout(int64_t now_ps);

  // For tests: EVs cached for reuse, and whether REPS is frozen at `now_ps`.
  int cached() const { return count_; }
  bool frozen(int64_t now_ps) const { return now_ps < freeze_until_ps_; }

 private:
  uint16_t random_ev() { return static_cast<uint16_t>(base_ | (rng_.next_u64() & path_mask_)); }

  Rng rng_;
  UetLoadBalancing mode_;
  uint16_t path_mask_;   // paths - 1
  uint16_t base_;        // the EV's upper bits: a per-connection random constant (htsim)
  uint16_t fixed_ev_;    // single path
  uint32_t index_ = 0;   // oblivious: position in the current round
  uint16_t mask_ = 0;    // oblivious: this round's XOR mask
  // REPS ring, oldest first: evs_[(head_ + i) % 8] for i < count_.
  uint16_t evs_[kRepsBufferSize] = {};
  int head_ = 0;
  int count_ = 0;
  int freeze_pos_ = 0;
  int explore_left_ = 0;
  int64_t freeze_until_ps_ = -1;
};

}  // namespace fabricsim::transport
