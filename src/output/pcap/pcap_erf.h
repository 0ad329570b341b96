// ERF (Endace Extensible Record Format) records inside a pcap file with LINKTYPE_ERF (197): how
// InfiniBand captures are stored so that an unmodified Wireshark/tshark 4.0 dissects them. This
// is the encapsulation Mellanox ibdump writes ([IBD] ibdump.h DLT_ERF 197, erf_header_t;
// ibdump.c: "IB must have an ERF header"), and Wireshark reads it in every release, while
// Wireshark 4.0 refuses LINKTYPE_INFINIBAND (247) files ("network type 247 unknown or
// unsupported").
//
// Each pcap record holds one ERF record: a 16-byte ERF header, then the packet.
//   bytes 0-7   timestamp: little-endian 64-bit fixed point, seconds since the Unix epoch in
//               the high 32 bits, the binary fraction of the second in the low 32 (a
//               resolution of 2^-32 s, about 233 ps) [WIKI; WS pcap-common.c
//               pcap_read_erf_pseudoheader: pletoh64, secs = ts >> 32,
//               nsecs = rounded (ts & 0xffffffff) * 10^9 / 2^32]. Wireshark takes the frame
//               time from it, not from the pcap record header.
//   byte 8      type: bit 7 = an extension header follows (never here), bits 6-0 the record
//               type; 21 = ERF_TYPE_INFINIBAND, a packet from its LRH [WS wiretap/erf_record.h;
//               IBD ibdump.h ERF_TYPE_INFINIBAND 21]. (25 = ERF_TYPE_INFINIBAND_LINK, link-level
//               flow-control packets, is not written: output/pcap/pcap_trace.h says why.)
//   byte 9      flags: bits 1-0 capture interface (0; newer ERF adds bit 6 as its high bit),
//               bit 2 varying-length record (set: no pad to 8 bytes follows the packet), bit 3
//               truncated, bit 4 RX error, bit 5 DS error, bit 7 reserved [WIKI; WS erf_record.h
//               ERF_HDR_*_MASK]. We write 0x04, as ibdump does (hdr->erf.flags = 4).
//   bytes 10-11 rlen, big-endian: the whole ERF record, header included (the next record starts
//               rlen bytes after this one's timestamp) [WIKI; WS pntoh16]. ibdump: len + 16.
//   bytes 12-13 lctr, big-endian: records lost before this one on the stream; 0 (nothing lost).
//   bytes 14-15 wlen, big-endian: the packet's length on the wire [WIKI]; Wireshark takes the
//               frame length from it (pcap_read_post_process: len = wlen) and the captured
//               length as min(wlen, what the record holds). ibdump: the bytes its sniffer QP
//               received. Here: the IB packet, LRH through VCRC.
// The pcap record's own header keeps the pcap rules (output/pcap/pcap_file.h, nanoseconds truncated),
// with captured = original length = 16 + packet (ibdump: orig_len = len + sizeof(erf)), so tools
// that read only the pcap layer see the same instant to about 1 ns (truncation < 1 ns, ERF
// rounding <= 117 ps).
//
// Sources:
//   [WIKI] wiki.wireshark.org/ERF, "Generic ERF header" (from Endace's ERF Types Reference
//          Guide EDM11-01).
//   [WS]   wireshark/wireshark wiretap/erf_record.h (record types, header masks; 13c8a2f),
//          wiretap/pcap-common.c (pcap_read_erf_pseudoheader, pcap_process_pseudo_header,
//          pcap_read_post_process; 00974e1), epan/dissectors/packet-erf.c (field layout).
//   [IBD]  Mellanox/ibdump 52fdbae: ibdump.h (erf_header_t, DLT_ERF, ERF_TYPE_INFINIBAND),
//          ibdump.c (the pcap and ERF headers it writes per packet).
// Checked against the installed tshark 4.0.17 (Debian 12): frame time from the ERF timestamp,
// frame length from wlen, ERF flags and lengths as above, LRH/BTH dissected, nothing malformed
// (tests/output/pcap_ib_tshark_test.cpp, pcap_ib_run_test.cpp).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <vector>

namespace fabricsim::output {

inline constexpr uint32_t kLinktypeErf = 197;  // LINKTYPE_ERF (tcpdump.org; IBD DLT_ERF)
inline constexpr uint8_t kErfTypeInfiniband = 21;
inline constexpr uint8_t kErfFlagVaryingLength = 0x04;
inline constexpr uint32_t kErfHeaderBytes = 16;

// The ERF timestamp of `time_ps` (>= 0): whole seconds in the high 32 bits, the rest rounded to
// the nearest 2^-32 s (the error is at most 2^-33 s, about 116 ps). 2^32 / 10^12 = 2^20 / 5^12,
// so the fraction is computed exactly in 64 bits (ps < 10^12, times 2^20 < 2^60). The seconds
// always fit in 32 bits: an int64_t of picoseconds ends after 9.2e6 s. Throws
// std::invalid_argument for a negative time.
inline uint64_t erf_timestamp(int64_t time_ps) {
  constexpr int64_t kPsPerSecond = 1'000'000'000'000;
  constexpr uint64_t kFive12 = 244'140'625;  // 5^12
  if (time_ps < 0) throw std::invalid_argument("ERF timestamp: negative time");
  uint64_t seconds = static_cast<uint64_t>(time_ps / kPsPerSecond);
  const uint64_t frac_ps = static_cast<uint64_t>(time_ps % kPsPerSecond);
  uint64_t fraction = ((frac_ps << 20) + kFive12 / 2) / kFive12;  // 5^12 is odd: no ties
  if (fraction == (uint64_t{1} << 32)) {  // rounded up to the next second
    fraction = 0;
    ++seconds;
  }
  return seconds << 32 | fraction;
}

// One ERF record: the 16-byte header (see above) followed by `packet`. Throws
// std::invalid_argument for a negative time or a packet rlen cannot describe.
inline std::vector<uint8_t> erf_record(int64_t time_ps, uint8_t type,
                                       const std::vector<uint8_t>& packet) {
  if (packet.size() > 0xFFFF - kErfHeaderBytes) {
    throw std::invalid_argument("ERF record: packet too long for rlen (16 bits)");
  }
  const uint64_t ts = erf_timestamp(time_ps);
  const auto rlen = static_cast<uint16_t>(kErfHeaderBytes + packet.size());
  const auto wlen = static_cast<uint16_t>(packet.size());
  std::vector<uint8_t> out;
  out.reserve(rlen);
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<uint8_t>(ts >> (8 * i)));  // LE
  out.push_back(type);
  out.push_back(kErfFlagVaryingLength);
  out.push_back(static_cast<uint8_t>(rlen >> 8));  // big-endian from here
  out.push_back(static_cast<uint8_t>(rlen));
  out.push_back(0);  // lctr: nothing lost
  out.push_back(0);
  out.push_back(static_cast<uint8_t>(wlen >> 8));
  out.push_back(static_cast<uint8_t>(wlen));
  out.insert(out.end(), packet.begin(), packet.end());
  return out;
}

}  // namespace fabricsim::output
