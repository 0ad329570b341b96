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

// The hash a switch uses to pick an ECMP member: the function, seeded, then rotated by a
// seed-dependent offset. The offset matters: CRC and XOR are affine over GF(2), so two switches
// that differ only in the CRC's initial value still pick members from the same low-order bits
// and polarize just as identical switches do. Selecting different hash bits per switch (SONiC's
// `hash_offset`, Cisco's "universal" per-router ID) is what breaks the correlation.
inline uint32_t ecmp_hash(EcmpHash kind, const FiveTuple& t, uint32_t seed) {
  const unsigned offset = seed >> 27;  // 0..31
  if (kind == EcmpHash::kCrc32) {
    const uint32_t h = crc32_tuple(t, seed);
    return offset == 0 ? h : (h >> offset) | (h << (32 - offset));
  }
  const uint32_t h = xor_fold_tuple(t, seed);  // 16 bits
  const unsigned o16 = offset & 15;
  return o16 == 0 ? h : ((h >> o16) | (h << (16 - o16))) & 0xFFFF;
}

}  // namespace fabricsim::net
