// Byte layout of synthesized InfiniBand packets (output/pcap/pcap_ib.h): every LRH/BTH/extension
// header field at its bit position, pad and PktLen, sizes against independently summed header
// sizes, ICRC and VCRC against bit-by-bit reference CRCs written here, and the pcap container
// (pcap global and record headers, ERF record headers) against the format descriptions.
// Offsets (shared/reference/infiniband.md §6, local packets): LRH 0, BTH 8, extensions 20.
#include "output/pcap/pcap_ib.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "output/pcap/pcap.h"
#include "output/pcap/pcap_erf.h"

namespace fabricsim::output {
namespace pcap_ib_test {

using Bytes = std::vector<uint8_t>;

constexpr size_t kLrh = 0, kBth = 8, kExt = 20;
// Header sizes from the spec (IBTA Vol. 1 ch. 9; infiniband.md §5-§6), written out here rather
// than taken from the library's constants.
constexpr uint32_t kSpecLrh = 8, kSpecBth = 12, kSpecReth = 16, kSpecAeth = 4, kSpecDeth = 8,
                   kSpecImm = 4, kSpecIcrc = 4, kSpecVcrc = 2;

uint64_t be(const Bytes& b, size_t at, int n) {
  uint64_t v = 0;
  for (int i = 0; i < n; ++i) v = v << 8 | b.at(at + i);
  return v;
}
uint32_t le(const Bytes& b, size_t at, int n) {
  uint32_t v = 0;
  for (int i = n - 1; i >= 0; --i) v = v << 8 | b.at(at + i);
  return v;
}

// Bit by bit from the definitions; no code shared with the table-driven implementations.
// CRC-32 (IEEE 802.3): reflected polynomial 0xEDB88320, init all ones, final complement.
uint32_t bitwise_crc32(const uint8_t* p, size_t n) {
  uint32_t s = 0xFFFFFFFF;
  for (size_t i = 0; i < n; ++i) {
    s ^= p[i];
    for (int bit = 0; bit < 8; ++bit) s = (s >> 1) ^ (s & 1 ? 0xEDB88320u : 0);
  }
  return ~s;
}
// VCRC: polynomial 0x100B reflected (0xD008), init 0xFFFF, final XOR 0xFFFF.
uint16_t bitwise_crc16(const uint8_t* p, size_t n) {
  uint32_t s = 0xFFFF;
  for (size_t i = 0; i < n; ++i) {
    s ^= p[i];
    for (int bit = 0; bit < 8; ++bit) s = (s >> 1) ^ (s & 1 ? 0xD008u : 0);
  }
  return static_cast<uint16_t>(s ^ 0xFFFF);
}

// The ICRC a local packet must carry: LRH..pad with LRH.VL and BTH byte 4 set to ones
// [SH "Packet CRCs", Figure 25-15].
uint32_t reference_icrc(const Bytes& pkt) {
  Bytes masked(pkt.begin(), pkt.end() - 6);
  masked[0] |= 0xF0;
  masked[kBth + 4] = 0xFF;
  return bitwise_crc32(masked.data(), masked.size());
}

void expect_crcs_ok(const Bytes& p, const std::string& what) {
  ASSERT_GE(p.size(), 26u) << what;
  EXPECT_EQ(le(p, p.size() - 6, 4), reference_icrc(p))
      << what << ": ICRC = bitwise CRC-32 of the masked LRH..pad, least significant byte first";
  EXPECT_EQ(le(p, p.size() - 2, 2), bitwise_crc16(p.data(), p.size() - 2))
      << what << ": VCRC = bitwise CRC-16 of LRH..ICRC, least significant byte first";
}

void expect_pktlen_ok(const Bytes& p, const std::string& what) {
  EXPECT_EQ(p.size() % 4, 2u) << what << ": LRH..ICRC is whole words, then the 2-byte VCRC";
  EXPECT_EQ(be(p, kLrh + 4, 2), (p.size() - 2) / 4) << what << ": PktLen = (total - 2) / 4";
}

IbPacketFields rc(uint8_t opcode, uint32_t payload) {
  IbPacketFields f;
  f.dlid = 0x0011, f.slid = 0x0022;
  f.opcode = opcode;
  f.dest_qp = 0x000ABC;
  f.psn = 100;
  f.payload_bytes = payload;
  return f;
}

TEST(IbCrc, ReferenceLoopsMatchKnownCheckValuesAndTheLibrary) {
  const std::string check = "123456789";  // the CRC catalogue's check input
  const auto* p = reinterpret_cast<const uint8_t*>(check.data());
  EXPECT_EQ(bitwise_crc32(p, check.size()), 0xCBF43926u) << "CRC-32 check value";
  EXPECT_EQ(crc32_ieee(p, check.size()), 0xCBF43926u) << "the CRC the ICRC reuses";
  // No catalogued CRC-16 uses polynomial 0x100B, so the check value is the reference loop's,
  // pinned so that a change to either side shows.
  EXPECT_EQ(bitwise_crc16(p, check.size()), 0x0A3Du) << "VCRC parameters' check value";
  EXPECT_EQ(ib_vcrc(p, check.size()), 0x0A3Du) << "library VCRC = reference loop";
}

TEST(IbPacket, LrhFieldsSitAtTheirBits) {
  IbPacketFields f = rc(kIbOpWriteFirst, 4096);
  f.vl = 0x5, f.sl = 0xB;
  f.dlid = 0x1234, f.slid = 0xBEEF;
  f.reth = IbRethFields{};
  const Bytes p = ib_packet_bytes(f);
  EXPECT_EQ(p.at(0), 0x50) << "byte 0 = VL<<4 | LVer 0";
  EXPECT_EQ(p.at(1), 0xB2) << "byte 1 = SL<<4 | reserved 00 | LNH 2 (BTH follows)";
  EXPECT_EQ(be(p, 2, 2), 0x1234u) << "DLID";
  EXPECT_EQ(be(p, 4, 2), (8u + 12 + 16 + 4096 + 4) / 4) << "PktLen: LRH..ICRC in words";
  EXPECT_EQ(p.at(4) & 0xF8, 0) << "5 reserved bits above PktLen";
  EXPECT_EQ(be(p, 6, 2), 0xBEEFu) << "SLID";
  expect_pktlen_ok(p, "WRITE FIRST");

  f.vl = 15, f.sl = 0;  // VL15 and SL0: the nibbles do not bleed into each other
  const Bytes q = ib_packet_bytes(f);
  EXPECT_EQ(q.at(0), 0xF0) << "VL 15";
  EXPECT_EQ(q.at(1), 0x02) << "SL 0, LNH 2";
}

TEST(IbPacket, BthFieldsSitAtTheirBits) {
  IbPacketFields f = rc(kIbOpSendOnly, 8);
  f.migreq = false;
  Bytes p = ib_packet_bytes(f);
  EXPECT_EQ(p.at(kBth + 0), kIbOpSendOnly) << "opcode";
  EXPECT_EQ(p.at(kBth + 1), 0x00) << "SE 0, M 0, PadCnt 0, TVer 0";
  EXPECT_EQ(be(p, kBth + 2, 2), 0xFFFFu) << "default P_Key";
  EXPECT_EQ(p.at(kBth + 4), 0x00) << "FECN/BECN clear, reserved 0";
  EXPECT_EQ(be(p, kBth + 5, 3), 0x000ABCu) << "DestQP";
  EXPECT_EQ(p.at(kBth + 8), 0x00) << "AckReq clear";
  EXPECT_EQ(be(p, kBth + 9, 3), 100u) << "PSN";

  f.solicited = true;
  EXPECT_EQ(ib_packet_bytes(f).at(kBth + 1), 0x80) << "SE is bit 7 of BTH byte 1";
  f.solicited = false, f.migreq = true;
  EXPECT_EQ(ib_packet_bytes(f).at(kBth + 1), 0x40) << "MigReq is bit 6";
  f.migreq = false, f.payload_bytes = 5;
  EXPECT_EQ(ib_packet_bytes(f).at(kBth + 1), 0x30) << "PadCnt 3 in bits 5:4";
  f.payload_bytes = 8;
  f.fecn = true;
  EXPECT_EQ(ib_packet_bytes(f).at(kBth + 4), 0x80) << "FECN is bit 7 of BTH byte 4";
  f.fecn = false, f.becn = true;
  EXPECT_EQ(ib_packet_bytes(f).at(kBth + 4), 0x40) << "BECN is bit 6 of BTH byte 4";
  f.becn = false, f.ack_req = true;
  EXPECT_EQ(ib_packet_bytes(f).at(kBth + 8), 0x80) << "AckReq is bit 7 of BTH byte 8";
  f.pkey = 0x8001, f.dest_qp = 0xFFFFFF, f.psn = 0x1000005;
  p = ib_packet_bytes(f);
  EXPECT_EQ(be(p, kBth + 2, 2), 0x8001u) << "P_Key";
  EXPECT_EQ(be(p, kBth + 4, 4), 0x00FFFFFFu) << "24-bit DestQP does not touch byte 4";
  EXPECT_EQ(be(p, kBth + 8, 4), 0x80000005u) << "PSN wraps modulo 2^24 below AckReq";
}

TEST(IbPacket, WriteFirstCarriesRethThenPayload) {
  IbPacketFields f = rc(kIbOpWriteFirst, 4096);
  f.reth = IbRethFields{0x0123456789ABCDEFull, 0xCAFEF00D, 65536};
  const Bytes p = ib_packet_bytes(f);
  EXPECT_EQ(be(p, kExt + 0, 8), 0x0123456789ABCDEFull) << "RETH virtual address";
  EXPECT_EQ(be(p, kExt + 8, 4), 0xCAFEF00Du) << "RETH R_Key";
  EXPECT_EQ(be(p, kExt + 12, 4), 65536u) << "RETH DMA length";
  EXPECT_EQ(p.size(), kSpecLrh + kSpecBth + kSpecReth + 4096 + kSpecIcrc + kSpecVcrc);
  for (size_t i = kExt + 16; i < p.size() - 6; ++i) ASSERT_EQ(p[i], 0) << "zero payload at " << i;
  expect_pktlen_ok(p, "WRITE FIRST");
  expect_crcs_ok(p, "WRITE FIRST");
}

TEST(IbPacket, WriteMiddleHasNoExtensionHeader) {
  const Bytes p = ib_packet_bytes(rc(kIbOpWriteMiddle, 1024));
  EXPECT_EQ(p.at(kBth), kIbOpWriteMiddle);
  EXPECT_EQ(p.size(), kSpecLrh + kSpecBth + 1024 + kSpecIcrc + kSpecVcrc) << "payload at 20";
  expect_pktlen_ok(p, "WRITE MIDDLE");
  expect_crcs_ok(p, "WRITE MIDDLE");
}

TEST(IbPacket, AckCarriesAeth) {
  IbPacketFields f = rc(kIbOpAcknowledge, 0);
  f.aeth = IbAethFields{0x1F, 0x1234567};  // MSN beyond 24 bits wraps
  const Bytes p = ib_packet_bytes(f);
  EXPECT_EQ(p.at(kExt), 0x1F) << "AETH syndrome: ACK, credits invalid";
  EXPECT_EQ(be(p, kExt + 1, 3), 0x234567u) << "AETH MSN, 24 bits";
  EXPECT_EQ(p.size(), kSpecLrh + kSpecBth + kSpecAeth + kSpecIcrc + kSpecVcrc);
  EXPECT_EQ(p.size(), 30u);
  expect_pktlen_ok(p, "ACK");
  expect_crcs_ok(p, "ACK");

  f.aeth->syndrome = 0x60;  // NAK: PSN sequence error
  EXPECT_EQ(ib_packet_bytes(f).at(kExt), 0x60) << "NAK syndrome";
}

TEST(IbPacket, ReadRequestCarriesRethAndNoPayload) {
  IbPacketFields f = rc(kIbOpReadRequest, 0);
  f.reth = IbRethFields{0x1000, 7, 1 << 20};
  const Bytes p = ib_packet_bytes(f);
  EXPECT_EQ(be(p, kExt, 8), 0x1000u) << "VA";
  EXPECT_EQ(be(p, kExt + 8, 4), 7u) << "R_Key";
  EXPECT_EQ(be(p, kExt + 12, 4), 1u << 20) << "DMA length: the whole read";
  EXPECT_EQ(p.size(), kSpecLrh + kSpecBth + kSpecReth + kSpecIcrc + kSpecVcrc);
  expect_pktlen_ok(p, "READ REQUEST");
  expect_crcs_ok(p, "READ REQUEST");
}

TEST(IbPacket, ReadResponsesCarryAethExceptMiddle) {
  IbPacketFields f = rc(kIbOpReadResponseFirst, 256);
  f.aeth = IbAethFields{0x1F, 9};
  Bytes p = ib_packet_bytes(f);
  EXPECT_EQ(p.at(kExt), 0x1F) << "AETH syndrome";
  EXPECT_EQ(be(p, kExt + 1, 3), 9u) << "AETH MSN";
  EXPECT_EQ(p.size(), kSpecLrh + kSpecBth + kSpecAeth + 256 + kSpecIcrc + kSpecVcrc);
  expect_pktlen_ok(p, "READ RESPONSE FIRST");
  expect_crcs_ok(p, "READ RESPONSE FIRST");

  f.opcode = kIbOpReadResponseMiddle;
  f.aeth.reset();
  p = ib_packet_bytes(f);
  EXPECT_EQ(p.size(), kSpecLrh + kSpecBth + 256 + kSpecIcrc + kSpecVcrc) << "MIDDLE: no AETH";
  expect_crcs_ok(p, "READ RESPONSE MIDDLE");
}

TEST(IbPacket, UdSendOnlyCarriesDeth) {
  IbPacketFields f = rc(kIbOpUdSendOnly, 100);
  f.deth = IbDethFields{0x80010000, 0x00ABCD};
  const Bytes p = ib_packet_bytes(f);
  EXPECT_EQ(p.at(kBth), 0x64) << "UD SEND ONLY";
  EXPECT_EQ(be(p, kExt, 4), 0x80010000u) << "DETH Q_Key";
  EXPECT_EQ(p.at(kExt + 4), 0) << "DETH reserved byte";
  EXPECT_EQ(be(p, kExt + 5, 3), 0x00ABCDu) << "DETH source QP";
  EXPECT_EQ(p.size(), kSpecLrh + kSpecBth + kSpecDeth + 100 + kSpecIcrc + kSpecVcrc);
  expect_pktlen_ok(p, "UD SEND ONLY");
  expect_crcs_ok(p, "UD SEND ONLY");
}

TEST(IbPacket, ImmediateFollowsTheOtherExtensionHeaders) {
  IbPacketFields f = rc(kIbOpWriteOnlyImm, 4);
  f.reth = IbRethFields{1, 2, 4};
  f.immediate = 0xDEADBEEF;
  Bytes p = ib_packet_bytes(f);
  EXPECT_EQ(be(p, kExt + 12, 4), 4u) << "RETH first";
  EXPECT_EQ(be(p, kExt + 16, 4), 0xDEADBEEFu) << "then ImmDt";
  expect_crcs_ok(p, "WRITE ONLY IMM");

  IbPacketFields u = rc(kIbOpUdSendOnlyImm, 0);
  u.deth = IbDethFields{5, 6};
  u.immediate = 0x01020304;
  p = ib_packet_bytes(u);
  EXPECT_EQ(be(p, kExt + 5, 3), 6u) << "DETH first";
  EXPECT_EQ(be(p, kExt + 8, 4), 0x01020304u) << "then ImmDt";
  EXPECT_EQ(p.size(), kSpecLrh + kSpecBth + kSpecDeth + kSpecImm + kSpecIcrc + kSpecVcrc);
}

TEST(IbPacket, PayloadIsPaddedToWholeWords) {
  for (uint32_t payload = 0; payload <= 9; ++payload) {
    const std::string what = "payload " + std::to_string(payload);
    const Bytes p = ib_packet_bytes(rc(kIbOpSendOnly, payload));
    const uint32_t pad = (4 - payload % 4) % 4;
    EXPECT_EQ((p.at(kBth + 1) >> 4) & 3, pad) << what << ": PadCnt";
    EXPECT_EQ(ib_pad_bytes(payload), pad) << what;
    EXPECT_EQ(p.size(), kSpecLrh + kSpecBth + payload + pad + kSpecIcrc + kSpecVcrc) << what;
    for (size_t i = kExt; i < p.size() - 6; ++i) EXPECT_EQ(p[i], 0) << what << ": zeros";
    expect_pktlen_ok(p, what);
    expect_crcs_ok(p, what);
  }
}

TEST(IbPacket, SizesEqualTheSpecHeaderSums) {
  struct Case {
    const char* name;
    IbPacketFields f;
    uint32_t headers;  // summed from the spec sizes
  };
  IbPacketFields write_first = rc(kIbOpWriteFirst, 4096);
  write_first.reth = IbRethFields{};
  IbPacketFields ack = rc(kIbOpAcknowledge, 0);
  ack.aeth = IbAethFields{};
  IbPacketFields ud = rc(kIbOpUdSendOnlyImm, 33);
  ud.deth = IbDethFields{};
  ud.immediate = 1;
  IbPacketFields cnp = rc(kIbOpCnp, 0);
  cnp.becn = true;
  const uint32_t crcs = kSpecIcrc + kSpecVcrc;
  const std::vector<Case> cases = {
      {"WRITE FIRST", write_first, kSpecLrh + kSpecBth + kSpecReth + crcs},
      {"WRITE MIDDLE", rc(kIbOpWriteMiddle, 4096), kSpecLrh + kSpecBth + crcs},
      {"WRITE LAST", rc(kIbOpWriteLast, 1), kSpecLrh + kSpecBth + crcs},
      {"ACK", ack, kSpecLrh + kSpecBth + kSpecAeth + crcs},
      {"UD SEND ONLY IMM", ud, kSpecLrh + kSpecBth + kSpecDeth + kSpecImm + crcs},
      {"CNP", cnp, kSpecLrh + kSpecBth + crcs},
  };
  for (const Case& c : cases) {
    const uint32_t pad = (4 - c.f.payload_bytes % 4) % 4;
    EXPECT_EQ(ib_header_bytes(c.f), c.headers) << c.name;
    EXPECT_EQ(ib_wire_bytes(c.f), c.headers + c.f.payload_bytes + pad) << c.name;
    const Bytes p = ib_packet_bytes(c.f);
    EXPECT_EQ(p.size(), ib_wire_bytes(c.f)) << c.name << ": the bytes are what was accounted";
    expect_pktlen_ok(p, c.name);
    expect_crcs_ok(p, c.name);
  }
}

TEST(IbPacket, IcrcIgnoresOnlyTheVariantFields) {
  IbPacketFields base = rc(kIbOpWriteLast, 64);
  const Bytes p0 = ib_packet_bytes(base);
  const uint32_t icrc0 = le(p0, p0.size() - 6, 4);
  const uint32_t vcrc0 = le(p0, p0.size() - 2, 2);
  auto icrc_of = [](const IbPacketFields& f) {
    const Bytes p = ib_packet_bytes(f);
    return std::pair{le(p, p.size() - 6, 4), le(p, p.size() - 2, 2)};
  };
  IbPacketFields f = base;
  f.vl = 7;  // switches may change VL on each hop
  EXPECT_EQ(icrc_of(f).first, icrc0) << "VL is variant: ICRC unchanged";
  EXPECT_NE(icrc_of(f).second, vcrc0) << "but the hop's VCRC covers it";
  f = base, f.fecn = true;
  EXPECT_EQ(icrc_of(f).first, icrc0) << "FECN (BTH byte 4) is variant";
  f = base, f.becn = true;
  EXPECT_EQ(icrc_of(f).first, icrc0) << "BECN (BTH byte 4) is variant";
  f = base, f.sl = 1;
  EXPECT_NE(icrc_of(f).first, icrc0) << "SL is invariant in a local packet";
  f = base, f.dlid = 0x12;
  EXPECT_NE(icrc_of(f).first, icrc0) << "DLID is invariant in a local packet";
  f = base, f.psn = 101;
  EXPECT_NE(icrc_of(f).first, icrc0) << "PSN is invariant";
}

TEST(IbPacket, VcrcLeavesAConstantResidue) {
  // A reflected CRC appended least significant byte first makes the CRC over data + CRC a
  // constant, whatever the data: the receiver's check. 0xAA90 is that constant for these
  // parameters (reference loop over two unrelated inputs).
  const Bytes a = {'a'}, b = {1, 2, 3, 4, 5};
  auto residue = [](Bytes d) {
    const uint16_t v = bitwise_crc16(d.data(), d.size());
    d.push_back(static_cast<uint8_t>(v));
    d.push_back(static_cast<uint8_t>(v >> 8));
    return bitwise_crc16(d.data(), d.size());
  };
  ASSERT_EQ(residue(a), residue(b));
  for (uint8_t op : {kIbOpWriteMiddle, kIbOpSendOnly}) {
    const Bytes p = ib_packet_bytes(rc(op, 37));
    EXPECT_EQ(bitwise_crc16(p.data(), p.size()), residue(a)) << "packet passes a VCRC check";
  }
}

TEST(IbPacket, OpcodeHeaderTable) {
  auto headers = [](uint8_t op) {
    const auto h = ib_opcode_headers(op);
    if (!h) return std::string("unsupported");
    return std::string(h->deth ? "D" : "") + (h->reth ? "R" : "") + (h->aeth ? "A" : "") +
           (h->immediate ? "I" : "");
  };
  EXPECT_EQ(headers(0x00), "") << "SEND FIRST";
  EXPECT_EQ(headers(0x03), "I") << "SEND LAST IMM";
  EXPECT_EQ(headers(0x05), "I") << "SEND ONLY IMM";
  EXPECT_EQ(headers(0x06), "R") << "WRITE FIRST";
  EXPECT_EQ(headers(0x07), "") << "WRITE MIDDLE";
  EXPECT_EQ(headers(0x09), "I") << "WRITE LAST IMM";
  EXPECT_EQ(headers(0x0A), "R") << "WRITE ONLY";
  EXPECT_EQ(headers(0x0B), "RI") << "WRITE ONLY IMM";
  EXPECT_EQ(headers(0x0C), "R") << "READ REQUEST";
  EXPECT_EQ(headers(0x0D), "A") << "READ RESPONSE FIRST";
  EXPECT_EQ(headers(0x0E), "") << "READ RESPONSE MIDDLE";
  EXPECT_EQ(headers(0x0F), "A") << "READ RESPONSE LAST";
  EXPECT_EQ(headers(0x10), "A") << "READ RESPONSE ONLY";
  EXPECT_EQ(headers(0x11), "A") << "ACKNOWLEDGE";
  EXPECT_EQ(headers(0x26), "R") << "UC WRITE FIRST";
  EXPECT_EQ(headers(0x2C), "unsupported") << "UC has no READ";
  EXPECT_EQ(headers(0x12), "unsupported") << "ATOMIC ACKNOWLEDGE";
  EXPECT_EQ(headers(0x13), "unsupported") << "CMP_SWAP";
  EXPECT_EQ(headers(0x40), "unsupported") << "RD";
  EXPECT_EQ(headers(0x64), "D") << "UD SEND ONLY";
  EXPECT_EQ(headers(0x65), "DI") << "UD SEND ONLY IMM";
  EXPECT_EQ(headers(0x80), "") << "CNP: BTH only";
}

TEST(IbPacket, RejectsWhatTheWireCannotCarry) {
  IbPacketFields f = rc(kIbOpWriteFirst, 0);
  EXPECT_THROW(ib_packet_bytes(f), std::invalid_argument) << "WRITE FIRST without RETH";
  f = rc(kIbOpAcknowledge, 0);
  f.aeth = IbAethFields{};
  f.reth = IbRethFields{};
  EXPECT_THROW(ib_packet_bytes(f), std::invalid_argument) << "ACK with a RETH";
  EXPECT_THROW(ib_packet_bytes(rc(0x13, 0)), std::invalid_argument) << "atomic opcode";
  f = rc(kIbOpSendOnly, 0);
  f.vl = 16;
  EXPECT_THROW(ib_packet_bytes(f), std::invalid_argument) << "VL is 4 bits";
  f = rc(kIbOpSendOnly, 0);
  f.dest_qp = 1u << 24;
  EXPECT_THROW(ib_packet_bytes(f), std::invalid_argument) << "DestQP is 24 bits";
  // PktLen is 11 bits: 2047 words = 8188 bytes LRH..ICRC; 24 of them are LRH+BTH+ICRC.
  EXPECT_EQ(ib_packet_bytes(rc(kIbOpSendOnly, 8188 - 24)).size(), 8190u) << "longest packet";
  EXPECT_THROW(ib_packet_bytes(rc(kIbOpSendOnly, 8188 - 24 + 1)), std::invalid_argument)
      << "one byte more overflows PktLen";
  EXPECT_THROW(ib_packet_bytes(rc(kIbOpSendOnly, 0xFFFFFFFF)), std::invalid_argument)
      << "a huge payload must not wrap into a small PktLen";

  const Bytes ok = ib_packet_bytes(rc(kIbOpSendOnly, 0));
  EXPECT_THROW(ib_icrc(ok.data(), 19), std::invalid_argument) << "shorter than LRH+BTH";
  Bytes global = ok;
  global[1] = (global[1] & 0xFC) | 3;  // LNH 3: a GRH follows
  EXPECT_THROW(ib_icrc(global.data(), global.size() - 6), std::invalid_argument)
      << "only local packets";
}

// The ERF header (wiki.wireshark.org/ERF "Generic ERF header"; Wireshark wiretap/erf_record.h
// and pcap-common.c pcap_read_erf_pseudoheader; Mellanox ibdump.h erf_header_t):
//   0-7 timestamp, little-endian, seconds << 32 | binary fraction of the second
//   8 type (21 = InfiniBand, bit 7 = extension header)   9 flags (bit 2 = varying length)
//   10-11 rlen   12-13 lctr   14-15 wlen, all three big-endian.
constexpr size_t kErfHeader = 16;
constexpr uint8_t kErfInfiniband = 21;
constexpr uint8_t kErfVaryingLength = 0x04;

// Whether the ERF timestamp `ts` (read as a count of 2^-32 s) is the one nearest to `ps`
// picoseconds: |ts / 2^32 - ps / 10^12| <= 1 / 2^33, i.e. |ts * 10^12 - ps * 2^32| <= 10^12 / 2.
// 128-bit arithmetic, independent of the library's 2^20 / 5^12 shortcut.
bool nearest_erf_time(uint64_t ts, int64_t ps) {
  const __int128 diff = static_cast<__int128>(ts) * 1'000'000'000'000 -
                        static_cast<__int128>(ps) * (__int128{1} << 32);
  return 2 * (diff < 0 ? -diff : diff) <= 1'000'000'000'000;
}

TEST(IbPcap, ContainerHeaderAndRecords) {
  IbPacketFields ack = rc(kIbOpAcknowledge, 0);
  ack.aeth = IbAethFields{};
  const std::vector<IbCapturedPacket> pkts = {
      {1'500, rc(kIbOpWriteMiddle, 5)},          // 1.5 ns -> pcap 1 ns (truncated)
      {3'000'000'123'456, ack},                  // 3 s + 123.456 ns
      {1'999'999'999'999, rc(kIbOpSendOnly, 1)}, // 1 ps short of 2 s: the ERF time rounds up
  };
  std::ostringstream out;
  write_ib_pcap(out, pkts);
  const std::string s = out.str();
  const Bytes file(s.begin(), s.end());
  ASSERT_GE(file.size(), 24u);
  EXPECT_EQ(le(file, 0, 4), 0xA1B23C4Du) << "nanosecond-resolution magic";
  EXPECT_EQ(le(file, 4, 2), 2u) << "version major";
  EXPECT_EQ(le(file, 6, 2), 4u) << "version minor";
  EXPECT_GE(le(file, 16, 4), 8190u + kErfHeader) << "snap length fits the longest IB record";
  EXPECT_EQ(le(file, 20, 4), 197u) << "LINKTYPE_ERF, as ibdump writes IB captures";
  size_t at = 24;
  const uint32_t want_sec[] = {0, 3, 1}, want_ns[] = {1, 123, 999'999'999};
  // ERF times: seconds and the nearest 2^-32 s. 1500 ps * 2^32 / 10^12 = 6.44 -> 6;
  // 123456 ps -> 530.24 -> 530; 999999999999 ps -> 4294967295.996 -> 2^32: the next second.
  const uint64_t want_erf_sec[] = {0, 3, 2}, want_erf_frac[] = {6, 530, 0};
  for (size_t i = 0; i < pkts.size(); ++i) {
    const Bytes pkt = ib_packet_bytes(pkts[i].fields);
    const std::string rec = "record " + std::to_string(i);
    EXPECT_EQ(le(file, at, 4), want_sec[i]) << rec << ": pcap seconds";
    EXPECT_EQ(le(file, at + 4, 4), want_ns[i]) << rec << ": pcap nanoseconds";
    EXPECT_EQ(le(file, at + 8, 4), kErfHeader + pkt.size()) << rec << ": captured = ERF + packet";
    EXPECT_EQ(le(file, at + 12, 4), kErfHeader + pkt.size()) << rec << ": original length";
    const size_t erf = at + 16;
    ASSERT_LE(erf + kErfHeader + pkt.size(), file.size());
    const uint64_t ts = uint64_t{le(file, erf + 4, 4)} << 32 | le(file, erf, 4);
    EXPECT_EQ(ts >> 32, want_erf_sec[i]) << rec << ": ERF seconds (high word, little-endian)";
    EXPECT_EQ(ts & 0xFFFFFFFF, want_erf_frac[i]) << rec << ": ERF fraction of the second";
    EXPECT_TRUE(nearest_erf_time(ts, pkts[i].time_ps)) << rec << ": the nearest 2^-32 s";
    EXPECT_EQ(file[erf + 8], kErfInfiniband) << rec << ": ERF type 21, no extension header";
    EXPECT_EQ(file[erf + 9], kErfVaryingLength) << rec << ": flags: interface 0, varying length";
    EXPECT_EQ(be(file, erf + 10, 2), kErfHeader + pkt.size()) << rec << ": rlen, header included";
    EXPECT_EQ(be(file, erf + 12, 2), 0u) << rec << ": lctr: nothing lost";
    EXPECT_EQ(be(file, erf + 14, 2), pkt.size()) << rec << ": wlen = the IB packet, LRH..VCRC";
    EXPECT_TRUE(std::equal(pkt.begin(), pkt.end(), file.begin() + erf + kErfHeader))
        << rec << ": the packet's bytes, LRH first, right after the ERF header";
    at = erf + kErfHeader + pkt.size();
  }
  EXPECT_EQ(at, file.size()) << "nothing after the last record";

  std::ostringstream bad;
  EXPECT_THROW(write_ib_pcap(bad, {{-1, rc(kIbOpSendOnly, 0)}}), std::invalid_argument)
      << "negative capture time";
}

TEST(IbPcap, ErfTimestampIsTheNearest2To32ndOfASecond) {
  // Across second boundaries and picosecond steps, every time maps to its nearest ERF tick.
  for (int64_t t : {int64_t{0}, int64_t{1}, int64_t{116}, int64_t{117}, int64_t{232},
                    int64_t{233}, int64_t{999'999'999'883}, int64_t{999'999'999'884},
                    int64_t{5'000'000'000'000}, int64_t{123'456'789'012'345}}) {
    EXPECT_TRUE(nearest_erf_time(erf_timestamp(t), t)) << t << " ps";
  }
  uint64_t x = 88172645463325252ull;  // xorshift64: many times, reproducibly
  for (int i = 0; i < 10000; ++i) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    const int64_t t = static_cast<int64_t>(x % 4'000'000'000'000'000);  // up to 4000 s
    ASSERT_TRUE(nearest_erf_time(erf_timestamp(t), t)) << t << " ps";
  }
}

TEST(IbPcap, UnwritablePathThrows) {
  // A path below a regular file cannot be opened, whoever runs the test.
  const std::filesystem::path file =
      std::filesystem::temp_directory_path() / "fabricsim_pcap_ib_not_a_dir";
  std::ofstream(file) << "x";
  EXPECT_THROW(write_ib_pcap_file((file / "ib.pcap").string(), {}), std::runtime_error);
  std::filesystem::remove(file);
}

}  // namespace pcap_ib_test
}  // namespace fabricsim::output
