// Strong unit types for simulated time, sizes and rates.
//
// Time is int64 picoseconds (SPEC §3): 2^63 ps is about 106 days of simulated time, and integer
// time makes runs bit-for-bit deterministic. Hot paths use the raw integer (`.ps`) in fields whose
// names end in `_ps`; these wrappers keep units straight at API boundaries.
#pragma once

#include <compare>  // the defaulted operator<=> (clang requires it; libstdc++ with gcc pulls it in)
#include <cstdint>

namespace fabricsim {

struct Time {
  int64_t ps = 0;

  static constexpr Time from_ps(int64_t v) { return Time{v}; }
  static constexpr Time from_ns(double v) { return Time{static_cast<int64_t>(v * 1e3 + 0.5)}; }
  static constexpr Time from_us(double v) { return Time{static_cast<int64_t>(v * 1e6 + 0.5)}; }
  constexpr double ns() const { return static_cast<double>(ps) * 1e-3; }
  constexpr double us() const { return static_cast<double>(ps) * 1e-6; }
  constexpr double seconds() const { return static_cast<double>(ps) * 1e-12; }

  friend constexpr Time operator+(Time a, Time b) { return Time{a.ps + b.ps}; }
  friend constexpr Time operator-(Time a, Time b) { return Time{a.ps - b.ps}; }
  friend constexpr auto operator<=>(Time a, Time b) = default;
};

struct Bytes {
  int64_t count = 0;
  friend constexpr Bytes operator+(Bytes a, Bytes b) { return Bytes{a.count + b.count}; }
  friend constexpr auto operator<=>(Bytes a, Bytes b) = default;
};

struct BitsPerSecond {
  int64_t bps = 0;
  constexpr double gbps() const { return static_cast<double>(bps) * 1e-9; }
  friend constexpr auto operator<=>(BitsPerSecond a, BitsPerSecond b) = default;
};

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
