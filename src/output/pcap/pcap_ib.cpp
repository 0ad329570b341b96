#include "output/pcap/pcap_ib.h"

#include <algorithm>
#include <array>
#include <fstream>
#include <stdexcept>

#include "net/wire.h"
#include "output/byte_writer.h"
#include "output/pcap/pcap_erf.h"
#include "output/pcap/pcap_file.h"
#include "output/pcap/pcap.h"  // crc32_ieee

namespace fabricsim::output {
namespace {

constexpr uint8_t kLnhBth = 2;  // LRH.LNH: IBA local, BTH follows (infiniband.md §6)
// LRH byte 0 = VL<<4 | LVer; byte 1 = SL<<4 | 2 reserved bits | LNH [WS LRH masks; K ib_hdrs.h].
constexpr uint8_t kLrhVlMask = 0xF0;
constexpr uint8_t kLrhLnhMask = 0x03;
// BTH byte 1 = SE | M | PadCnt(2) | TVer(4); byte 4 = FECN | BECN | 6 reserved (Resv8a);
// byte 8 = AckReq | 7 reserved [WS BTH masks; K ib_hdrs.h IB_BECN_SHIFT/IB_FECN_SHIFT].
constexpr uint8_t kBthSe = 0x80;
constexpr uint8_t kBthMigReq = 0x40;
constexpr int kBthPadShift = 4;
constexpr uint8_t kBthFecn = 0x80;
constexpr size_t kBthResv8aOffset = net::kLrhBytes + 4;  // BTH byte 4, from the LRH


// CRC-16 with polynomial 0x100B, processed reflected (0xD008 is 0x100B bit-reversed).
constexpr std::array<uint16_t, 256> make_vcrc_table() {
  std::array<uint16_t, 256> t{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xD008u ^ (c >> 1) : c >> 1;
    t[i] = static_cast<uint16_t>(c);
  }
  return t;
}
constexpr std::array<uint16_t, 256> kVcrcTable = make_vcrc_table();

void require(bool ok, const char* what) {
  if (!ok) throw std::invalid_argument(std::string("IB packet: ") + what);
}

// Checks the fields and returns the extension header bytes they describe.
uint32_t checked_extension_bytes(const IbPacketFields& f) {
  require(f.vl <= 0xF, "VL must fit in 4 bits");
  require(f.sl <= 0xF, "SL must fit in 4 bits");
  require(f.dest_qp <= kMask24, "DestQP must fit in 24 bits");
  require(!f.deth || f.deth->src_qp <= kMask24, "DETH source QP must fit in 24 bits");
  const std::optional<IbOpcodeHeaders> want = ib_opcode_headers(f.opcode);
  require(want.has_value(), "opcode not supported (atomics, RD, invalidate or reserved)");
  require(want->deth == f.deth.has_value(), "DETH present iff the opcode carries one");
  require(want->reth == f.reth.has_value(), "RETH present iff the opcode carries one");
  require(want->aeth == f.aeth.has_value(), "AETH present iff the opcode carries one");
  require(want->immediate == f.immediate.has_value(), "ImmDt present iff the opcode carries one");
  return (f.deth ? net::kDethBytes : 0) + (f.reth ? net::kRethBytes : 0) + (f.aeth ? net::kAethBytes : 0) +
         (f.immediate ? net::kImmDtBytes : 0);
}


}  // namespace

std::optional<IbOpcodeHeaders> ib_opcode_headers(uint8_t opcode) {
  IbOpcodeHeaders h;
  switch (opcode) {
    case kIbOpUdSendOnly:
      h.deth = true;
      return h;
    case kIbOpUdSendOnlyImm:
      h.deth = h.immediate = true;
      return h;
    case kIbOpCnp:  // BTH only; body UNVERIFIED (see the header) [K ib_pack.h IB_OPCODE_CNP]
      return h;
    default:
      break;
  }
  const uint8_t transport = opcode & 0xE0;
  const uint8_t op = opcode & 0x1F;
  // UC has SEND and RDMA WRITE only; RC adds READ and ACK (IBTA Table 38).
  if (transport == kIbOpUcTransport && op > kIbOpWriteOnlyImm) return std::nullopt;
  if (transport != 0 && transport != kIbOpUcTransport) return std::nullopt;
  switch (op) {
    case kIbOpSendFirst:
    case kIbOpSendMiddle:
    case kIbOpSendLast:
    case kIbOpSendOnly:
    case kIbOpWriteMiddle:
    case kIbOpWriteLast:
    case kIbOpReadResponseMiddle:
      return h;
    case kIbOpSendLastImm:
    case kIbOpSendOnlyImm:
    case kIbOpWriteLastImm:
      h.immediate = true;
      return h;
    case kIbOpWriteFirst:
    case kIbOpWriteOnly:
    case kIbOpReadRequest:
      h.reth = true;
      return h;
    case kIbOpWriteOnlyImm:
      h.reth = h.immediate = true;
      return h;
    case kIbOpReadResponseFirst:
    case kIbOpReadResponseLast:
    case kIbOpReadResponseOnly:
    case kIbOpAcknowledge:
      h.aeth = true;
      return h;
    default:
      return std::nullopt;
  }
}

uint32_t ib_header_bytes(const IbPacketFields& f) {
  return net::kLrhBytes + net::kBthBytes + (f.deth ? net::kDethBytes : 0) + (f.reth ? net::kRethBytes : 0) +
         (f.aeth ? net::kAethBytes : 0) + (f.immediate ? net::kImmDtBytes : 0) + net::kIcrcBytes +
         net::kVcrcBytes;
}

uint32_t ib_wire_bytes(const IbPacketFields& f) {
  return ib_header_bytes(f) + f.payload_bytes + ib_pad_bytes(f.payload_bytes);
}

std::vector<uint8_t> ib_packet_bytes(const IbPacketFields& f) {
  const uint32_t extension = checked_extension_bytes(f);
  const uint32_t pad = ib_pad_bytes(f.payload_bytes);
  // PktLen counts 4-byte words from the LRH through the ICRC, the VCRC excluded
  // (infiniband.md §6). 64-bit sum: a huge payload must not wrap into a small length.
  const uint64_t through_icrc =
      uint64_t{net::kLrhBytes} + net::kBthBytes + extension + f.payload_bytes + pad + net::kIcrcBytes;
  require(through_icrc / 4 <= kIbMaxPktLenWords, "packet too long for LRH.PktLen (11 bits)");

  std::vector<uint8_t> out;
  out.reserve(through_icrc + net::kVcrcBytes);
  ByteWriter w(out);
  // LRH (infiniband.md §6): LVer 0, reserved bits 0.
  w.u8(uint32_t{f.vl} << 4);
  w.u8(uint32_t{f.sl} << 4 | kLnhBth);
  w.u16(f.dlid);
  w.u16(static_cast<uint32_t>(through_icrc / 4));
  w.u16(f.slid);
  // BTH: TVer 0 (the only transport header version).
  w.u8(f.opcode);
  w.u8((f.solicited ? kBthSe : 0) | (f.migreq ? kBthMigReq : 0) | pad << kBthPadShift);
  w.u16(f.pkey);
  w.u8((f.fecn ? kBthFecn : 0) | (f.becn ? kBthBecn : 0));
  w.u24(f.dest_qp);
  w.u8(f.ack_req ? kBthAckReq : 0);
  w.u24(f.psn & kMask24);
  // Extension headers in IBTA order: DETH, RETH, AETH, ImmDt.
  if (f.deth) {
    w.u32(f.deth->qkey);
    w.u8(0);  // reserved
    w.u24(f.deth->src_qp);
  }
  if (f.reth) {
    w.u64(f.reth->va);
    w.u32(f.reth->rkey);
    w.u32(f.reth->dma_length);
  }
  if (f.aeth) {
    w.u8(f.aeth->syndrome);
    w.u24(f.aeth->msn & kMask24);
  }
  if (f.immediate) w.u32(*f.immediate);
  w.zeros(f.payload_bytes + pad);
  w.lsb_first(ib_icrc(out.data(), out.size()), net::kIcrcBytes);
  w.lsb_first(ib_vcrc(out.data(), out.size()), net::kVcrcBytes);
  return out;
}

uint32_t ib_icrc(const uint8_t* lrh, size_t len_through_pad) {
  constexpr size_t kHeaders = net::kLrhBytes + net::kBthBytes;
  if (len_through_pad < kHeaders) throw std::invalid_argument("ib_icrc: shorter than LRH+BTH");
  if ((lrh[1] & kLrhLnhMask) != kLnhBth) {
    throw std::invalid_argument("ib_icrc: only local packets (LNH = 2, BTH follows)");
  }
  // The variant fields of a local packet become ones [SH Figure 25-15]; everything else of the
  // LRH stays in, unlike rxe's all-ones pseudo-LRH for (global) RoCE packets (see the header).
  std::array<uint8_t, kHeaders> masked;
  std::copy_n(lrh, kHeaders, masked.begin());
  masked[0] |= kLrhVlMask;
  masked[kBthResv8aOffset] = 0xFF;
  const uint32_t crc = crc32_ieee(masked.data(), masked.size());
  return crc32_ieee(lrh + kHeaders, len_through_pad - kHeaders, crc);
}

uint16_t ib_vcrc(const uint8_t* lrh, size_t len_through_icrc) {
  uint16_t crc = 0xFFFF;
  for (size_t i = 0; i < len_through_icrc; ++i) {
    crc = static_cast<uint16_t>(kVcrcTable[(crc ^ lrh[i]) & 0xFF] ^ (crc >> 8));
  }
  return static_cast<uint16_t>(crc ^ 0xFFFF);
}

void write_ib_pcap(std::ostream& out, const std::vector<IbCapturedPacket>& packets) {
  write_pcap_header(out, kLinktypeErf);
  for (const IbCapturedPacket& p : packets) {
    if (p.time_ps < 0) throw std::invalid_argument("write_ib_pcap: negative capture time");
    write_pcap_record(out, p.time_ps, erf_record(p.time_ps, kErfTypeInfiniband,
                                                 ib_packet_bytes(p.fields)));
  }
}

void write_ib_pcap_file(const std::string& path, const std::vector<IbCapturedPacket>& packets) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw std::runtime_error("cannot open " + path);
  write_ib_pcap(out, packets);
  out.close();
  if (!out) throw std::runtime_error("cannot write " + path);
}

}  // namespace fabricsim::output
