#include "net/hash.h"

#include <array>

namespace fabricsim::net {
namespace {

constexpr std::array<uint32_t, 256> make_crc_table() {
  std::array<uint32_t, 256> table{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    table[i] = c;
  }
  return table;
}
constexpr std::array<uint32_t, 256> kCrcTable = make_crc_table();

inline uint32_t crc_byte(uint32_t crc, uint8_t b) {
  return kCrcTable[(crc ^ b) & 0xFF] ^ (crc >> 8);
}
inline uint32_t crc_u32(uint32_t crc, uint32_t v) {  // network byte order, as on the wire
  crc = crc_byte(crc, static_cast<uint8_t>(v >> 24));
  crc = crc_byte(crc, static_cast<uint8_t>(v >> 16));
  crc = crc_byte(crc, static_cast<uint8_t>(v >> 8));
  return crc_byte(crc, static_cast<uint8_t>(v));
}

}  // namespace

uint32_t crc32_tuple(const FiveTuple& t, uint32_t seed) {
  uint32_t crc = ~seed;
  crc = crc_u32(crc, t.src_ip);
  crc = crc_u32(crc, t.dst_ip);
  crc = crc_byte(crc, t.protocol);
  crc = crc_u32(crc, (static_cast<uint32_t>(t.src_port) << 16) | t.dst_port);
  return ~crc;
}

uint32_t xor_fold_tuple(const FiveTuple& t, uint32_t seed) {
  uint32_t x = (t.src_ip >> 16) ^ (t.src_ip & 0xFFFF) ^ (t.dst_ip >> 16) ^ (t.dst_ip & 0xFFFF) ^
               t.protocol ^ t.src_port ^ t.dst_port;
  return (x ^ (seed >> 16) ^ (seed & 0xFFFF)) & 0xFFFF;
}

}  // namespace fabricsim::net
