// Receiver state of a UET PDC (PDS, docs/reference/uet-sim.md §5): which PSNs have arrived, the
// cumulative ACK point and the 64-bit SACK bitmap the receiver reports.
//
// Arrived PSNs ahead of the cumulative point are kept in a bitmap of `window` bits (a power of
// two; transport/uet.cpp derives it). The sender never sends a PSN at or beyond its oldest
// unacknowledged PSN + window, and that PSN is never below the receiver's cumulative point, so
// every PSN that can arrive either lies below the cumulative point (a duplicate) or fits the
// bitmap: nothing is ever dropped for being out of window (htsim instead aborts beyond 2^14,
// uecMaxInFlightPkts).
#pragma once

#include <cstdint>
#include <vector>

namespace fabricsim::transport {

struct UetRx {
  uint32_t cack = 0;   // every PSN below has arrived
  uint32_t high = 0;   // one past the highest PSN arrived
  std::vector<uint64_t> bits;  // bit (psn & (window - 1)) for cack <= psn < cack + window
  int64_t unacked_bytes = 0;   // payload accepted since the last ACK (coalescing)
  bool ce_pending = false;     // an accepted packet since the last ACK was CE-marked
  bool rod_nack_sent = false;  // ROD: the gap at cack has been NACKed
  // Trimmed headers were NACKed: until the cumulative point passes the highest of them, every
  // arrival is ACKed at once (TCP likewise ACKs at once while it has a hole, RFC 5681 §4.2).
  // The header travels in the control class and can overtake the data packets sent just before
  // it (three, in a 32:1 incast), which the ACK flushed ahead of the NACK then cannot cover; and
  // a sender whose window quick adapt just cut to one packet may have that packet in flight past
  // the holes. Either would otherwise wait for its RTO.
  bool ack_after_trim = false;
  uint32_t ack_after_trim_psn = 0;
  // RCCC receiver side (transport/uet_rccc.h)
  int64_t pull_target = 0;     // the sender's latest cumulative credit target
  int64_t granted = 0;         // cumulative credit granted
  bool in_pacer = false;

  // REQUIRES: window a power of two, psn - cack < window.
  bool has(uint32_t psn) const {
    if (psn < cack) return true;
    if (bits.empty()) return false;
    const uint32_t b = psn & (static_cast<uint32_t>(bits.size()) * 64 - 1);
    return (bits[b / 64] >> (b % 64)) & 1;
  }
  // Marks `psn` arrived and moves the cumulative point over every arrived PSN.
  void mark(uint32_t psn, uint32_t window) {
    if (bits.empty()) bits.assign(window / 64 + (window % 64 != 0), 0);
    const uint32_t mask = static_cast<uint32_t>(bits.size()) * 64 - 1;
    const uint32_t b = psn & mask;
    bits[b / 64] |= 1ull << (b % 64);
    if (psn + 1 > high) high = psn + 1;
    for (;;) {
      const uint32_t c = cack & mask;
      if (!((bits[c / 64] >> (c % 64)) & 1)) break;
      bits[c / 64] &= ~(1ull << (c % 64));
      ++cack;
    }
  }
  // The SACK bitmap's base: the 64 PSNs ending at the highest arrival, but never below the
  // cumulative point (htsim UecSink::sackBitmapBase: max(epsn - 63, cack + 1)).
  uint32_t sack_base() const { return high > cack + 64 ? high - 64 : cack; }
  uint64_t sack_bits(uint32_t base) const {
    uint64_t v = 0;
    for (uint32_t i = 0; i < 64; ++i) {
      if (base + i >= high) break;
      if (has(base + i)) v |= 1ull << i;
    }
    return v;
  }
};

}  // namespace fabricsim::transport
