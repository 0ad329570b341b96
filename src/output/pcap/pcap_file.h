// The pcap container both trace writers use (tcpdump.org "pcap savefile format"): a little-endian
// global header with the nanosecond magic 0xA1B23C4D, version 2.4, GMT offset 0, accuracy 0, a
// 64 KiB snap length (every frame the simulator sends fits) and the link type; then per record
// seconds, nanoseconds, captured and original length (equal: whole frames), and the bytes.
#pragma once

#include <cstdint>
#include <ostream>
#include <vector>

namespace fabricsim::output {

inline constexpr uint32_t kLinktypeEthernet = 1;
// InfiniBand captures use LINKTYPE_ERF (197): output/pcap/pcap_erf.h.

// The InfiniBand transport header (BTH) fields both writers set, RoCEv2's BTH being IBA's
// (IBA vol 1 §9.2; rocev2.md §3): byte 4 bit 6 is BECN (a CNP carries it), byte 8 bit 7 the
// AckReq bit; PSN and destination QP are 24-bit fields.
inline constexpr uint8_t kBthBecn = 0x40;
inline constexpr uint8_t kBthAckReq = 0x80;
inline constexpr uint32_t kMask24 = 0xFFFFFF;

namespace pcap_detail {
inline void put_le(std::ostream& out, uint32_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out.put(static_cast<char>(v >> (8 * i)));
}
}  // namespace pcap_detail

inline void write_pcap_header(std::ostream& out, uint32_t linktype) {
  using pcap_detail::put_le;
  put_le(out, 0xA1B23C4D, 4);
  put_le(out, 2, 2);
  put_le(out, 4, 2);
  put_le(out, 0, 4);
  put_le(out, 0, 4);
  put_le(out, 0x10000, 4);
  put_le(out, linktype, 4);
}

// REQUIRES: time_ps >= 0.
inline void write_pcap_record(std::ostream& out, int64_t time_ps, const std::vector<uint8_t>& bytes) {
  using pcap_detail::put_le;
  constexpr int64_t kPsPerSecond = 1'000'000'000'000;
  put_le(out, static_cast<uint32_t>(time_ps / kPsPerSecond), 4);
  put_le(out, static_cast<uint32_t>(time_ps % kPsPerSecond / 1000), 4);  // ps -> ns
  put_le(out, static_cast<uint32_t>(bytes.size()), 4);
  put_le(out, static_cast<uint32_t>(bytes.size()), 4);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

}  // namespace fabricsim::output
