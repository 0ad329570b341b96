// Checked integer arithmetic and the ranges that let the hot path do without it.
//
// Simulated time is int64 picoseconds (core/time.h): 2^63 ps is 106 days. Products of a rate, a
// size and a time (serialization times, BDPs, pause quanta, byte counters, flow sizes x counts)
// overflow it quickly at extreme inputs: 1 MiB at 1 bps is 8.4e18 ps. The scenario layer keeps
// every key inside the ranges below and checks the products a scenario implies once, at
// validation (resolve/ranges.h), with the helpers here; per-packet code then adds a bounded
// delay to a bounded clock and cannot wrap.
#pragma once

#include <cstdint>
#include <optional>

#include "core/time.h"

namespace fabricsim {

// The simulated-time horizon: no run goes past 10^6 s (11.6 days) of simulated time, and no
// time key may be larger. Any delay the simulator schedules is derived from keys bounded by it,
// so `now + delay` stays below 2 x 10^18 ps, a factor 4.6 inside int64. Simulating even one
// second of a 400 Gb/s fabric takes minutes of wall time, so nothing realistic comes near it.
inline constexpr int64_t kSimHorizonPs = 1'000'000 * kPsPerSecond;

// The slowest link a scenario may have: 1 Mb/s, the lowest rate anything in a modelled fabric
// is paced at (DCQCN's rpg_min_rate default, transport/dcqcn.cpp) and 1000x below the slowest
// Ethernet an AI fabric uses. At 1 Mb/s the longest PAUSE (65535 quanta x 512 bit times,
// IEEE 802.1Qbb) lasts 33.5 s and a 4 KiB frame 33 ms, both far inside the horizon. 1 bps made
// the PAUSE time alone 3.4e19 ps, past int64.
inline constexpr int64_t kMinLinkRateBps = 1'000'000;
// The fastest rate any rate key may have: 100 Tb/s, 62x the fastest standard port (1.6 Tb/s,
// IEEE 802.3dj). It keeps a 64-byte frame's serialization at >= 5 ps, so integer-ps time still
// orders frames, and rate x count products (DCQCN increases) far from int64.
inline constexpr int64_t kMaxRateBps = 100'000'000'000'000;
// The largest size any byte key (or flow-list size) may have: 1 TiB. A training job's largest
// single transfer is a gradient bucket or a checkpoint shard of a few GiB. Bytes x 8 bits of
// it is 2^43, far inside int64, and 2^22 such sizes still sum to less than 2^63.
inline constexpr int64_t kMaxSizeBytes = int64_t{1} << 40;

// The longest latency one device may add per packet or message (switch port-to-port, each
// NIC/host part): 1 s, 10^6 x a real switch's or NIC's ~1 us. An ideal FCT sums a dozen such
// terms per hop (transport/frames.cpp), which then stays below 10^13 ps instead of reaching
// int64 with a dozen horizon-sized latencies.
inline constexpr int64_t kMaxDeviceLatencyPs = kPsPerSecond;

// a * b, or nullopt when it does not fit in int64.
inline std::optional<int64_t> checked_mul(int64_t a, int64_t b) {
  int64_t out = 0;
  if (__builtin_mul_overflow(a, b, &out)) return std::nullopt;
  return out;
}

// a + b, or nullopt when it does not fit in int64.
inline std::optional<int64_t> checked_add(int64_t a, int64_t b) {
  int64_t out = 0;
  if (__builtin_add_overflow(a, b, &out)) return std::nullopt;
  return out;
}

// serialization_ps (core/time.h) without its silent narrowing: nullopt when the time to clock
// `size_bytes` onto `rate_bps` does not fit in int64 ps. REQUIRES: rate_bps > 0, size_bytes >= 0.
inline std::optional<int64_t> checked_serialization_ps(int64_t size_bytes, int64_t rate_bps) {
  const __int128 bits_ps = static_cast<__int128>(size_bytes) * 8 * kPsPerSecond;
  const __int128 ps = (bits_ps + rate_bps / 2) / rate_bps;
  if (ps > INT64_MAX) return std::nullopt;
  return static_cast<int64_t>(ps);
}

}  // namespace fabricsim
