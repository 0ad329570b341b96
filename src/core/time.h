// Units of simulated time.
//
// Time is int64 picoseconds (SPEC §3): 2^63 ps is about 106 days of simulated time, and integer
// time makes runs bit-for-bit deterministic. Times, sizes and rates are plain integers whose names
// carry the unit (`_ps`, `_bytes`, `_bps`); strong wrapper types were tried and never adopted, so
// they were removed (issue 21) rather than kept as a second, unused convention.
#pragma once

#include <cstdint>

namespace fabricsim {

inline constexpr int64_t kPsPerNs = 1000;
inline constexpr int64_t kPsPerUs = 1000 * kPsPerNs;
inline constexpr int64_t kPsPerMs = 1000 * kPsPerUs;
inline constexpr int64_t kPsPerSecond = 1000 * kPsPerMs;

// Time to clock `size_bytes` onto a link of `rate_bps`, rounded to the nearest picosecond.
// REQUIRES: rate_bps > 0, size_bytes >= 0.
constexpr int64_t serialization_ps(int64_t size_bytes, int64_t rate_bps) {
  const __int128 bits_ps = static_cast<__int128>(size_bytes) * 8 * kPsPerSecond;
  return static_cast<int64_t>((bits_ps + rate_bps / 2) / rate_bps);
}

// The same for one frame, on the per-hop path: a frame below 1 MiB keeps size * 8 * 10^12
// below 2^63, so a 64-bit division gives the identical result without the 128-bit one (a
// __divti3 call, 2% of the k=16 permutation benchmark's instructions).
inline int64_t frame_serialization_ps(uint32_t frame_bytes, int64_t rate_bps) {
  if (frame_bytes >= (1u << 20)) [[unlikely]] return serialization_ps(frame_bytes, rate_bps);
  const uint64_t bits_ps = static_cast<uint64_t>(frame_bytes) * 8 * kPsPerSecond;
  const auto rate = static_cast<uint64_t>(rate_bps);
  return static_cast<int64_t>((bits_ps + rate / 2) / rate);
}

}  // namespace fabricsim
