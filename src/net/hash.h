// ECMP hash functions over the RoCEv2 5-tuple. Switch vendors offer CRC variants and XOR folds
// (SONiC hash_algorithm CRC/XOR/CRC_CCITT; Fortinet xor16/crc16; shared/reference/rocev2.md §4).
#pragma once

#include <cstdint>

namespace fabricsim::net {

enum class EcmpHash : uint8_t { kCrc32, kXorFold };

struct FiveTuple {
  uint32_t src_ip;
  uint32_t dst_ip;
  uint16_t src_port;
  uint16_t dst_port;
  uint8_t protocol;
};

// CRC-32 (IEEE 802.3 polynomial, reflected) of the 13 tuple bytes, starting from `seed` as the
// CRC register: the usual way switch ASICs fold a per-switch seed into a CRC hash.
uint32_t crc32_tuple(const FiveTuple& t, uint32_t seed);
// XOR of the tuple's 16-bit words, then of the seed's halves: cheap, and weak by design.
uint32_t xor_fold_tuple(const FiveTuple& t, uint32_t seed);

// A bijective 32-bit mixer (MurmurHash3's fmix32 finalizer, public domain algorithm).
inline uint32_t fmix32(uint32_t h) {
  h ^= h >> 16;
  h *= 0x85EBCA6Bu;
  h ^= h >> 13;
  h *= 0xC2B2AE35u;
  return h ^ (h >> 16);
}

// The hash a switch uses to pick an ECMP member: the function over the 5-tuple, seeded, then
// the seed mixed in non-linearly. The mixing matters: CRC and XOR are affine over GF(2), so two
// switches that differ only in the CRC's initial value (or in which hash bits they select) still
// pick members from correlated bits and partly polarize. A non-linear per-switch finalizer, as
// HPCC's simulator seeds MurmurHash3 by switch and Cisco's "universal" algorithm adds a
// per-router ID (shared/reference/rocev2.md §4), decorrelates tiers; with the same seed at every
// switch the whole function is identical everywhere and polarization remains.
inline uint32_t ecmp_hash(EcmpHash kind, const FiveTuple& t, uint32_t seed) {
  const uint32_t h = kind == EcmpHash::kCrc32 ? crc32_tuple(t, seed) : xor_fold_tuple(t, seed);
  return fmix32(h ^ seed);
}

}  // namespace fabricsim::net
