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

inline uint32_t ecmp_hash(EcmpHash kind, const FiveTuple& t, uint32_t seed) {
  return kind == EcmpHash::kCrc32 ? crc32_tuple(t, seed) : xor_fold_tuple(t, seed);
}

}  // namespace fabricsim::net
