// Byte-exact native InfiniBand packets and their pcap files (ERF records, LINKTYPE_ERF 197).
//
// Self-contained: it takes header field values (IbPacketFields), not net::Packet, so whatever
// models IB in the simulator maps its packets onto these fields when it captures them.
//
// Packet (shared/reference/infiniband.md §6; big-endian fields) as the IB wire carries it,
// less the physical layer's start/end delimiters and idles:
//   LRH 8 | BTH 12 | [DETH 8] [RETH 16] [AETH 4] [ImmDt 4] | payload | pad 0-3 | ICRC 4 | VCRC 2
// Local subnet only: LNH = 2 (BTH follows), never a GRH. Extension headers appear in the
// IBTA order (DETH, RETH, AETH, ImmDt; [K] ib_pack.h IB_OPCODE_* / rxe opcode table) and must
// be exactly those the opcode carries (ib_opcode_headers), or Wireshark would misparse them
// [WS], which picks headers from the opcode.
//
// CRCs:
//   ICRC  CRC-32 (IEEE 802.3: reflected, init all ones, final complement; output/pcap/pcap.h
//         crc32_ieee) over LRH..pad with the variant fields set to ones. For a local packet those
//         are LRH.VL and BTH byte 4 (FECN, BECN, reserved) [SH "Packet CRCs", Figure 25-15].
//         rxe ([K] rxe_icrc.c) seeds its CRC with 8 bytes of 0xFF because RoCE has no LRH and
//         the IP header takes the GRH's place, i.e. every RoCE packet is a global one, whose LRH
//         is wholly variant. A native local packet keeps its LRH: only the VL nibble is masked,
//         so SL, LNH, DLID, PktLen and SLID are protected end to end.
//         Stored least significant byte first, as rxe stores its ICRC (infiniband.md §6).
//   VCRC  CRC-16, polynomial 0x100B (reflected 0xD008), init 0xFFFF, final XOR 0xFFFF, over
//         LRH..ICRC (infiniband.md §6, parameters from Endace dagcrc.c).
//         Byte order UNVERIFIED (the fact sheet has no source for it): we store it least
//         significant byte first, the natural order of a reflected CRC (as the Ethernet FCS and
//         the ICRC are sent), so a receiver's CRC over LRH..VCRC ends in a constant residue.
//
// pcap: nanosecond-resolution (magic 0xA1B23C4D), LINKTYPE_ERF (197); each record is one ERF
// record of type 21 (InfiniBand) holding one whole packet, ICRC and VCRC included (Wireshark
// reads the last 6 bytes as them [WS]): what Mellanox ibdump writes, and what Wireshark 4.0
// (Debian 12) dissects as it stands (output/pcap/pcap_erf.h has the ERF header and its sources).
// LINKTYPE_INFINIBAND (247, "raw InfiniBand frames, starting with the Local Routing Header")
// would hold the same bytes without the ERF header, but Wireshark 4.0 maps no pcap link type to
// its InfiniBand dissector and refuses such files ("network type 247 unknown or unsupported").
// Flow-control packets are not IB packets with an LRH and are not written here (a run's capture
// writes them to credits.csv: output/pcap/pcap_trace.h says why). Wireshark parses the payload of a
// packet to QP0/QP1 as a MAD, so zero payloads there show as malformed MADs.
//
// CNP (0x80, IBA Annex A10): BTH only, BECN set by the caller. Its body, if any, is not in our
// sources (UNVERIFIED); payload_bytes adds zero bytes if one is wanted. Wireshark 4.0 names the
// opcode and shows everything after the BTH, the CRCs included, as vendor data.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace fabricsim::output {

// IBTA Vol. 1 Table 38 opcodes (infiniband.md §5; [K] ib_pack.h). Upper 3 bits = transport.
inline constexpr uint8_t kIbOpSendFirst = 0x00;
inline constexpr uint8_t kIbOpSendMiddle = 0x01;
inline constexpr uint8_t kIbOpSendLast = 0x02;
inline constexpr uint8_t kIbOpSendLastImm = 0x03;
inline constexpr uint8_t kIbOpSendOnly = 0x04;
inline constexpr uint8_t kIbOpSendOnlyImm = 0x05;
inline constexpr uint8_t kIbOpWriteFirst = 0x06;
inline constexpr uint8_t kIbOpWriteMiddle = 0x07;
inline constexpr uint8_t kIbOpWriteLast = 0x08;
inline constexpr uint8_t kIbOpWriteLastImm = 0x09;
inline constexpr uint8_t kIbOpWriteOnly = 0x0A;
inline constexpr uint8_t kIbOpWriteOnlyImm = 0x0B;
inline constexpr uint8_t kIbOpReadRequest = 0x0C;
inline constexpr uint8_t kIbOpReadResponseFirst = 0x0D;
inline constexpr uint8_t kIbOpReadResponseMiddle = 0x0E;
inline constexpr uint8_t kIbOpReadResponseLast = 0x0F;
inline constexpr uint8_t kIbOpReadResponseOnly = 0x10;
inline constexpr uint8_t kIbOpAcknowledge = 0x11;
inline constexpr uint8_t kIbOpUcTransport = 0x20;  // OR onto SEND/WRITE opcodes for UC
inline constexpr uint8_t kIbOpUdSendOnly = 0x64;
inline constexpr uint8_t kIbOpUdSendOnlyImm = 0x65;
inline constexpr uint8_t kIbOpCnp = 0x80;  // IB congestion notification (Annex A10)

// LRH.PktLen is 11 bits of 4-byte words (LRH..ICRC): the longest packet it can describe.
inline constexpr uint32_t kIbMaxPktLenWords = 0x7FF;

struct IbRethFields {
  uint64_t va = 0;
  uint32_t rkey = 0;
  uint32_t dma_length = 0;
};
struct IbAethFields {
  uint8_t syndrome = 0x1F;  // ACK with credit field 0b11111 = credits invalid ([K] ib_hdrs.h)
  uint32_t msn = 0;         // 24 bits on the wire; wraps
};
struct IbDethFields {
  uint32_t qkey = 0;
  uint32_t src_qp = 0;  // 24 bits
};

// Header field values of one packet. Out-of-range values throw std::invalid_argument in
// ib_packet_bytes, except the sequence numbers (PSN, MSN), which wrap modulo 2^24.
struct IbPacketFields {
  uint8_t vl = 0, sl = 0;  // 4 bits each
  uint16_t dlid = 0, slid = 0;
  uint8_t opcode = 0;
  bool solicited = false, migreq = true;
  uint16_t pkey = 0xFFFF;  // default partition, full member
  bool fecn = false, becn = false;
  uint32_t dest_qp = 0;  // 24 bits
  bool ack_req = false;
  uint32_t psn = 0;  // wraps modulo 2^24
  std::optional<IbRethFields> reth;
  std::optional<IbAethFields> aeth;
  std::optional<IbDethFields> deth;
  std::optional<uint32_t> immediate;
  uint32_t payload_bytes = 0;  // the payload bytes are zeros
};

// Which extension headers an opcode carries ([K] rxe opcode table; infiniband.md §5).
struct IbOpcodeHeaders {
  bool deth = false, reth = false, aeth = false, immediate = false;
};
// nullopt for opcodes this file does not synthesize (atomics, RD, SEND with invalidate,
// reserved codes).
std::optional<IbOpcodeHeaders> ib_opcode_headers(uint8_t opcode);

// Pad bytes after the payload so that payload + pad is a multiple of 4 (BTH.PadCnt).
inline constexpr uint32_t ib_pad_bytes(uint32_t payload_bytes) {
  return (4 - payload_bytes % 4) % 4;
}

// LRH + BTH + the extension headers present + ICRC + VCRC: everything but payload and pad.
uint32_t ib_header_bytes(const IbPacketFields& f);
// The whole packet on the wire: ib_header_bytes + payload + pad = ib_packet_bytes(f).size().
uint32_t ib_wire_bytes(const IbPacketFields& f);

// LRH .. payload, pad, ICRC, VCRC. Throws std::invalid_argument if a field is out of range,
// the extension headers do not match the opcode, or the packet is too long for LRH.PktLen.
std::vector<uint8_t> ib_packet_bytes(const IbPacketFields& f);

// ICRC of a local packet (LNH = 2) that starts at `lrh` and runs through its pad bytes.
// Throws std::invalid_argument if it is shorter than LRH + BTH or its LNH is not 2.
uint32_t ib_icrc(const uint8_t* lrh, size_t len_through_pad);
// VCRC over `len_through_icrc` bytes from the LRH.
uint16_t ib_vcrc(const uint8_t* lrh, size_t len_through_icrc);

struct IbCapturedPacket {
  int64_t time_ps = 0;  // >= 0
  IbPacketFields fields;
};

// pcap file: global header, then one record per packet in order, each an ERF record (header +
// packet); the pcap record time is truncated to whole nanoseconds, the ERF time rounded to the
// nearest 2^-32 s (output/pcap/pcap_erf.h). Throws std::invalid_argument for a negative time or a
// bad packet.
void write_ib_pcap(std::ostream& out, const std::vector<IbCapturedPacket>& packets);
// Also throws std::runtime_error if `path` cannot be written.
void write_ib_pcap_file(const std::string& path, const std::vector<IbCapturedPacket>& packets);

}  // namespace fabricsim::output
