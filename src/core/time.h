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

}  // namespace fabricsim
