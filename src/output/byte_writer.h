// Appends header fields to a byte vector in network order (most significant byte first), as
// Ethernet, IP, UDP and the InfiniBand headers all transmit them. Used only when a pcap is
// written (packets carry no bytes otherwise).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace fabricsim::output {

class ByteWriter {
 public:
  explicit ByteWriter(std::vector<uint8_t>& out) : out_(out) {}
  void u8(uint32_t v) { out_.push_back(static_cast<uint8_t>(v)); }
  void u16(uint32_t v) {
    u8(v >> 8);
    u8(v);
  }
  void u24(uint32_t v) {
    u8(v >> 16);
    u16(v);
  }
  void u32(uint32_t v) {
    u16(v >> 16);
    u16(v);
  }
  void u64(uint64_t v) {
    u32(static_cast<uint32_t>(v >> 32));
    u32(static_cast<uint32_t>(v));
  }
  // A reflected CRC goes out least significant byte first (RoCE ICRC, IB ICRC and VCRC).
  void lsb_first(uint32_t v, int bytes) {
    for (int i = 0; i < bytes; ++i) u8(v >> (8 * i));
  }
  void zeros(size_t n) { out_.insert(out_.end(), n, 0); }
  size_t size() const { return out_.size(); }

 private:
  std::vector<uint8_t>& out_;
};

}  // namespace fabricsim::output
