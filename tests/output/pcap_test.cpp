// Byte layout of synthesized frames (output/pcap/pcap.h): every field at its offset, the IPv4 header
// checksum, the ICRC against an independent bitwise CRC-32, PFC frames and the pcap container.
// Offsets follow shared/reference/rocev2.md §2-§3 for an untagged frame: Ethernet 0, IPv4 14,
// UDP 34, BTH 42, RETH/AETH/CNP body 54.
#include "output/pcap/pcap.h"

#include <gtest/gtest.h>

#include <algorithm>

#include <cstdint>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "net/wire.h"

namespace fabricsim::output {
namespace pcap_test {

using net::PacketType;
using scenario::CapturedFrame;
using Frame = std::vector<uint8_t>;

constexpr size_t kIp = 14, kUdp = 34, kBth = 42, kExt = 54;  // untagged offsets

uint32_t be(const Frame& f, size_t at, int bytes) {
  uint32_t v = 0;
  for (int i = 0; i < bytes; ++i) v = v << 8 | f.at(at + i);
  return v;
}
uint32_t le32(const Frame& f, size_t at) {
  return f.at(at) | f.at(at + 1) << 8 | f.at(at + 2) << 16 | uint32_t{f.at(at + 3)} << 24;
}
MacAddress mac_at(const Frame& f, size_t at) {
  return {f.at(at), f.at(at + 1), f.at(at + 2), f.at(at + 3), f.at(at + 4), f.at(at + 5)};
}

// Bit by bit, straight from the definition (IEEE 802.3 CRC-32: reflected polynomial
// 0xEDB88320, initial value all ones, final complement): shares no code with the table-driven
// implementation under test.
uint32_t bitwise_crc_state(const std::vector<uint8_t>& bytes, uint32_t state = 0xFFFFFFFF) {
  for (uint8_t byte : bytes) {
    state ^= byte;
    for (int bit = 0; bit < 8; ++bit) state = (state >> 1) ^ (state & 1 ? 0xEDB88320u : 0);
  }
  return state;
}

// The ICRC the frame should carry, rebuilt from its own bytes by rocev2.md §3's recipe.
uint32_t expected_icrc(const Frame& f, size_t ip) {
  const size_t ip_len = be(f, ip + 2, 2);
  std::vector<uint8_t> in(8 + ip_len - 4, 0xFF);  // masked pseudo-LRH, then IP..payload
  std::copy(f.begin() + ip, f.begin() + ip + ip_len - 4, in.begin() + 8);
  uint8_t* h = in.data() + 8;
  h[1] = h[8] = h[10] = h[11] = 0xFF;  // TOS, TTL, header checksum
  h[26] = h[27] = 0xFF;                // UDP checksum
  h[32] = 0xFF;                        // BTH byte 4
  return ~bitwise_crc_state(in);
}

void expect_icrc_ok(const Frame& f, size_t ip, const std::string& what) {
  const size_t icrc_at = ip + be(f, ip + 2, 2) - 4;
  EXPECT_EQ(le32(f, icrc_at), expected_icrc(f, ip))
      << what << ": ICRC (little-endian, the last 4 bytes of the IP packet)";
}

// RFC 1071: the one's-complement sum of a correct header, checksum included, is 0xFFFF.
void expect_ip_checksum_ok(const Frame& f, size_t ip, const std::string& what) {
  uint32_t sum = 0;
  for (size_t i = 0; i < 20; i += 2) sum += be(f, ip + i, 2);
  while (sum >> 16) sum = (sum & 0xFFFF) + (sum >> 16);
  EXPECT_EQ(sum, 0xFFFFu) << what << ": IPv4 header checksum must verify";
}

CapturedFrame data_frame(uint32_t payload, uint8_t flags, bool vlan) {
  CapturedFrame c;
  c.time_ps = 1'000;
  c.from_node = 20, c.from_is_nic = true;  // NIC 1's node
  c.to_node = 9, c.to_is_nic = false;      // its leaf switch
  net::Packet& p = c.pkt;
  p.src_nic = 1, p.dst_nic = 2, p.qp = 5, p.msg = 7;
  p.psn = 0x1234567;  // beyond 24 bits: the wire keeps the low 24
  p.payload_bytes = static_cast<uint16_t>(payload);
  p.flags = flags;
  p.frame_bytes =
      static_cast<uint16_t>(net::roce_data_frame_bytes(payload, flags & net::kFlagFirst, vlan));
  p.entropy = 0xC123, p.priority = 3, p.ecn = 2, p.type = PacketType::kData;
  return c;
}

CapturedFrame control_frame(PacketType type) {
  CapturedFrame c;
  c.from_node = 12, c.from_is_nic = false;  // a leaf switch
  c.to_node = 20, c.to_is_nic = true;       // NIC 1, the requester
  net::Packet& p = c.pkt;
  p.src_nic = 2, p.dst_nic = 1, p.qp = 5, p.psn = 99, p.entropy = 0xC123;
  p.type = type;
  p.priority = type == PacketType::kCnp ? 6 : 3;
  const bool cnp = type == PacketType::kCnp;
  p.frame_bytes = static_cast<uint16_t>(cnp ? net::roce_cnp_frame_bytes(false)
                                            : net::roce_ack_frame_bytes(false));
  return c;
}

TEST(PcapFrame, FirstWritePacketFieldsAtTheirOffsets) {
  const CapturedFrame c = data_frame(4096, net::kFlagFirst, false);
  const Frame f = frame_bytes(c, [](uint32_t msg) { return msg == 7 ? 20'000 : -1; });
  ASSERT_EQ(f.size(), c.pkt.frame_bytes - 4u) << "a frame is frame_bytes without the FCS";
  EXPECT_EQ(mac_at(f, 0), switch_mac(9)) << "DA: the switch at the far end";
  EXPECT_EQ(mac_at(f, 6), nic_mac(1)) << "SA: the sending NIC";
  EXPECT_EQ(mac_at(f, 6), (MacAddress{0x02, 0, 0, 0, 0, 1})) << "NIC MAC scheme";
  EXPECT_EQ(mac_at(f, 0), (MacAddress{0x02, 0, 1, 0, 0, 9})) << "switch MAC scheme";
  EXPECT_EQ(be(f, 12, 2), 0x0800u) << "EtherType IPv4";
  EXPECT_EQ(f[kIp], 0x45) << "IPv4, 20-byte header";
  EXPECT_EQ(f[kIp + 1], 26 << 2 | 2) << "TOS: DSCP 26 (priority 3), ECN ECT(0)";
  EXPECT_EQ(be(f, kIp + 2, 2), f.size() - kIp) << "IP total length: to the end of the ICRC";
  EXPECT_EQ(be(f, kIp + 6, 2), 0x4000u) << "DF, fragment offset 0";
  EXPECT_EQ(f[kIp + 8], 64) << "TTL";
  EXPECT_EQ(f[kIp + 9], 17) << "protocol UDP";
  expect_ip_checksum_ok(f, kIp, "first packet");
  EXPECT_EQ(be(f, kIp + 12, 4), 0x0A000002u) << "source IP: NIC 1 = 10.0.0.2";
  EXPECT_EQ(be(f, kIp + 16, 4), 0x0A000003u) << "destination IP: NIC 2 = 10.0.0.3";
  EXPECT_EQ(be(f, kUdp, 2), 0xC123u) << "UDP source port = entropy";
  EXPECT_EQ(be(f, kUdp + 2, 2), 4791u) << "UDP destination port RoCEv2";
  EXPECT_EQ(be(f, kUdp + 4, 2), f.size() - kUdp) << "UDP length";
  EXPECT_EQ(be(f, kUdp + 6, 2), 0u) << "UDP checksum 0";
  EXPECT_EQ(f[kBth], 0x06) << "opcode RDMA WRITE First";
  EXPECT_EQ(f[kBth + 1], 0x00) << "SE, M, PadCnt 0, TVer 0";
  EXPECT_EQ(be(f, kBth + 2, 2), 0xFFFFu) << "P_Key";
  EXPECT_EQ(f[kBth + 4], 0x00) << "no FECN/BECN";
  EXPECT_EQ(be(f, kBth + 5, 3), 0x100u + 2 * 5 + 1) << "DestQP: the responder's QPN";
  EXPECT_EQ(f[kBth + 8], 0x00) << "no AckReq before the last packet";
  EXPECT_EQ(be(f, kBth + 9, 3), 0x234567u) << "PSN: low 24 bits";
  EXPECT_EQ(be(f, kExt, 4) | be(f, kExt + 4, 4), 0u) << "RETH virtual address 0";
  EXPECT_EQ(be(f, kExt + 8, 4), 7u) << "RETH R_Key = message id";
  EXPECT_EQ(be(f, kExt + 12, 4), 20'000u) << "RETH DMA length = message size";
  for (size_t i = kExt + 16; i < f.size() - 4; ++i) ASSERT_EQ(f[i], 0) << "payload byte " << i;
  expect_icrc_ok(f, kIp, "first packet");
}

TEST(PcapFrame, TaggedOnlyPacketWithPadAndAckReq) {
  const CapturedFrame c = data_frame(5, net::kFlagFirst | net::kFlagLast, true);
  const Frame f = frame_bytes(c);
  // The 3 pad bytes an unaligned payload needs (BTH PadCnt) are part of the frame.
  EXPECT_EQ(f.size(), 14 + 4 + 20 + 8 + 12 + 16 + 5 + 3 + 4u) << "tagged frame with 3 pad bytes";
  EXPECT_EQ(be(f, 12, 2), 0x8100u) << "802.1Q TPID";
  EXPECT_EQ(be(f, 14, 2), 3u << 13) << "PCP = priority 3, DEI 0, VID 0";
  EXPECT_EQ(be(f, 16, 2), 0x0800u) << "EtherType IPv4 after the tag";
  const size_t bth = kBth + 4;
  EXPECT_EQ(f[bth], 0x0A) << "opcode RDMA WRITE Only";
  EXPECT_EQ(f[bth + 1], 3 << 4) << "PadCnt 3";
  EXPECT_EQ(f[bth + 8], 0x80) << "AckReq on the last packet";
  EXPECT_EQ(be(f, bth + 12 + 12, 4), 5u) << "DMA length without a lookup: the payload";
  expect_ip_checksum_ok(f, kIp + 4, "tagged");
  expect_icrc_ok(f, kIp + 4, "tagged");
}

TEST(PcapFrame, MiddleAndLastOpcodes) {
  EXPECT_EQ(frame_bytes(data_frame(4096, 0, false))[kBth], 0x07) << "RDMA WRITE Middle";
  const Frame last = frame_bytes(data_frame(4096, net::kFlagLast, false));
  EXPECT_EQ(last[kBth], 0x08) << "RDMA WRITE Last";
  EXPECT_EQ(last[kBth + 8], 0x80) << "AckReq on the last packet";
}

TEST(PcapFrame, ShortFrameIsPaddedAfterTheIcrc) {
  const Frame f = frame_bytes(data_frame(0, 0, false));  // a middle packet with no payload
  ASSERT_EQ(f.size(), 60u) << "padded to the Ethernet minimum (64 with FCS)";
  EXPECT_EQ(be(f, kIp + 2, 2), 20 + 8 + 12 + 4u) << "IP length excludes the Ethernet padding";
  EXPECT_EQ(f[58] | f[59], 0) << "padding bytes are zero";
  expect_icrc_ok(f, kIp, "short frame");
}

TEST(PcapFrame, AckAndNakCarryAethToTheRequester) {
  for (PacketType type : {PacketType::kAck, PacketType::kNak}) {
    const CapturedFrame c = control_frame(type);
    const std::string what = type == PacketType::kAck ? "ACK" : "NAK";
    const Frame f = frame_bytes(c);
    ASSERT_EQ(f.size(), c.pkt.frame_bytes - 4u) << what << " length";
    EXPECT_EQ(mac_at(f, 0), nic_mac(1)) << what << " DA: the receiving NIC";
    EXPECT_EQ(mac_at(f, 6), switch_mac(12)) << what << " SA: the sending switch";
    EXPECT_EQ(be(f, kIp + 12, 4), 0x0A000003u) << what << " source IP: the responder";
    EXPECT_EQ(f[kBth], 0x11) << what << " opcode Acknowledge";
    EXPECT_EQ(be(f, kBth + 5, 3), 0x100u + 2 * 5) << what << " DestQP: the requester's QPN";
    EXPECT_EQ(be(f, kBth + 9, 3), 99u) << what << " PSN";
    EXPECT_EQ(f[kExt], type == PacketType::kAck ? 0x1F : 0x60) << what << " AETH syndrome";
    EXPECT_EQ(be(f, kExt + 1, 3), 0u) << what << " MSN";
    expect_ip_checksum_ok(f, kIp, what);
    expect_icrc_ok(f, kIp, what);
  }
}

TEST(PcapFrame, CnpMatchesTheReferenceBthBytes) {
  const CapturedFrame c = control_frame(PacketType::kCnp);
  const Frame f = frame_bytes(c);
  ASSERT_EQ(f.size(), c.pkt.frame_bytes - 4u) << "CNP length";
  EXPECT_EQ(f[kIp + 1] >> 2, 48) << "DSCP 48 (priority 6)";
  // rocev2.md §3 example CNP: 81 00 ff ff 40 | DestQP | 00 | PSN.
  const std::vector<uint8_t> head(f.begin() + kBth, f.begin() + kBth + 5);
  EXPECT_EQ(head, (std::vector<uint8_t>{0x81, 0x00, 0xFF, 0xFF, 0x40})) << "CNP BTH, BECN set";
  for (size_t i = kExt; i < kExt + 16; ++i) EXPECT_EQ(f[i], 0) << "reserved CNP byte " << i;
  expect_icrc_ok(f, kIp, "CNP");
}

// The run's service and verb choose opcodes and extension headers (output/pcap/pcap.h "Opcode");
// the frame sizes come from net/wire.h as the transport computes them.
CapturedFrame verb_frame(uint32_t payload, uint8_t flags, uint32_t after_bth_extra) {
  CapturedFrame c = data_frame(payload, flags, false);
  c.pkt.frame_bytes = static_cast<uint16_t>(
      net::roce_frame_bytes(payload + net::bth_pad_bytes(payload) + after_bth_extra, false));
  return c;
}

TEST(PcapVerbs, SendHasNoRethAndSendOpcodes) {
  const Verbs send{transport::Service::kRc, transport::Operation::kSend};
  const Frame first = frame_bytes(verb_frame(4096, net::kFlagFirst, 0), {}, send);
  ASSERT_EQ(first.size(), 14 + 20 + 8 + 12 + 4096 + 4u) << "no RETH on a SEND";
  EXPECT_EQ(first[kBth], 0x00) << "SEND First";
  EXPECT_EQ(frame_bytes(verb_frame(4096, 0, 0), {}, send)[kBth], 0x01) << "SEND Middle";
  const Frame last = frame_bytes(verb_frame(100, net::kFlagLast, 0), {}, send);
  EXPECT_EQ(last[kBth], 0x02) << "SEND Last";
  EXPECT_EQ(last[kBth + 8], 0x80) << "AckReq on the last packet of an RC message";
  const Frame only = frame_bytes(verb_frame(100, net::kFlagFirst | net::kFlagLast, 0), {}, send);
  EXPECT_EQ(only[kBth], 0x04) << "SEND Only";
  expect_icrc_ok(only, kIp, "SEND Only");
}

TEST(PcapVerbs, UcUsesTheUcPrefixAndNoAckReq) {
  const Verbs uc{transport::Service::kUc, transport::Operation::kWrite};
  const Frame first = frame_bytes(verb_frame(4096, net::kFlagFirst, 16), {}, uc);
  EXPECT_EQ(first[kBth], 0x26) << "UC RDMA WRITE First";
  EXPECT_EQ(be(first, kExt + 8, 4), 7u) << "RETH R_Key on a UC WRITE First";
  const Frame last = frame_bytes(verb_frame(100, net::kFlagLast, 0), {}, uc);
  EXPECT_EQ(last[kBth], 0x28) << "UC RDMA WRITE Last";
  EXPECT_EQ(last[kBth + 8], 0x00) << "UC asks for no ACK";
  const Verbs uc_send{transport::Service::kUc, transport::Operation::kSend};
  EXPECT_EQ(frame_bytes(verb_frame(100, net::kFlagFirst | net::kFlagLast, 0), {}, uc_send)[kBth],
            0x24)
      << "UC SEND Only";
  EXPECT_THROW(frame_bytes(control_frame(PacketType::kAck), {}, uc), std::runtime_error)
      << "UC has no ACKs: refuse rather than write one";
}

TEST(PcapVerbs, UdSendOnlyCarriesDeth) {
  const Verbs ud{transport::Service::kUd, transport::Operation::kSend};
  const Frame f = frame_bytes(verb_frame(13, net::kFlagFirst | net::kFlagLast, 8), {}, ud);
  ASSERT_EQ(f.size(), 14 + 20 + 8 + 12 + 8 + 13 + 3 + 4u) << "BTH, DETH, payload, pad, ICRC";
  EXPECT_EQ(f[kBth], 0x64) << "UD SEND Only";
  EXPECT_EQ(f[kBth + 8], 0x00) << "UD asks for no ACK";
  EXPECT_EQ(be(f, kExt, 4), 0x01234567u) << "DETH Q_Key (rdma_cm RDMA_UDP_QKEY)";
  EXPECT_EQ(f[kExt + 4], 0) << "DETH reserved byte";
  EXPECT_EQ(be(f, kExt + 5, 3), 0x100u + 2 * 5) << "DETH source QP: the requester's QPN";
  expect_icrc_ok(f, kIp, "UD");
  EXPECT_THROW(frame_bytes(verb_frame(4096, net::kFlagFirst, 8), {}, ud), std::runtime_error)
      << "a UD message is one packet";
}

TEST(PcapVerbs, ReadRequestAndResponses) {
  const Verbs read{transport::Service::kRc, transport::Operation::kRead};
  CapturedFrame req = verb_frame(0, 0, 16);
  req.pkt.type = PacketType::kReadRequest;
  const MessageBytes size = [](uint32_t) -> int64_t { return 9'000; };
  const Frame r = frame_bytes(req, size, read);
  EXPECT_EQ(r[kBth], 0x0C) << "RDMA READ Request";
  EXPECT_EQ(be(r, kBth + 5, 3), 0x100u + 2 * 5 + 1) << "the request goes to the responder";
  EXPECT_EQ(r[kBth + 8], 0x80) << "AckReq on a READ request";
  EXPECT_EQ(be(r, kExt + 12, 4), 9'000u) << "RETH DMA length = the message size";
  CapturedFrame first = verb_frame(4096, net::kFlagFirst | net::kFlagResponse, 4);
  first.pkt.src_nic = 2, first.pkt.dst_nic = 1;
  const Frame f = frame_bytes(first, {}, read);
  EXPECT_EQ(f[kBth], 0x0D) << "READ Response First";
  EXPECT_EQ(be(f, kBth + 5, 3), 0x100u + 2 * 5) << "responses go back to the requester";
  EXPECT_EQ(f[kExt], 0x1F) << "AETH on READ Response First";
  CapturedFrame middle = verb_frame(4096, net::kFlagResponse, 0);
  EXPECT_EQ(frame_bytes(middle, {}, read)[kBth], 0x0E) << "READ Response Middle, no AETH";
  CapturedFrame last = verb_frame(8, net::kFlagLast | net::kFlagResponse, 4);
  EXPECT_EQ(frame_bytes(last, {}, read)[kBth], 0x0F) << "READ Response Last";
  CapturedFrame only = verb_frame(8, net::kFlagFirst | net::kFlagLast | net::kFlagResponse, 4);
  EXPECT_EQ(frame_bytes(only, {}, read)[kBth], 0x10) << "READ Response Only";
}

TEST(PcapVerbs, FrameOfAnotherSizeIsRefused) {
  // A WRITE-sized first packet (RETH counted) in a SEND run: 16 bytes the frame would not have.
  const Verbs send{transport::Service::kRc, transport::Operation::kSend};
  try {
    frame_bytes(data_frame(4096, net::kFlagFirst, false), {}, send);
    ADD_FAILURE() << "a frame whose synthesized size differs must be refused";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("trace.pcap"), std::string::npos)
        << "the message names trace.pcap: " << e.what();
  }
  CapturedFrame pause;
  pause.pkt.type = PacketType::kPause;
  pause.pkt.frame_bytes = 68;  // a PFC frame is 64 bytes with its FCS
  EXPECT_THROW(frame_bytes(pause), std::runtime_error) << "PFC frame of the wrong size";
  CapturedFrame credit;
  credit.pkt.type = PacketType::kCredit;
  credit.pkt.frame_bytes = 6;
  EXPECT_THROW(frame_bytes(credit), std::runtime_error) << "no Ethernet form of an IB credit";
}

TEST(PcapIcrc, IndependentCrcAgreesWithKnownAnswers) {
  const std::string check = "123456789";
  EXPECT_EQ(~bitwise_crc_state({check.begin(), check.end()}), 0xCBF43926u)
      << "the test's own CRC-32 gives the standard check value";
  EXPECT_EQ(crc32_ieee(reinterpret_cast<const uint8_t*>(check.data()), check.size()), 0xCBF43926u)
      << "crc32_ieee gives the standard check value";
  EXPECT_EQ(bitwise_crc_state(std::vector<uint8_t>(8, 0xFF)), 0xDEBB20E3u)
      << "rocev2.md §3: RXE's seed is the CRC state after the 8-byte masked pseudo-LRH";
}

TEST(PcapIcrc, CoversInvariantFieldsOnly) {
  CapturedFrame c = data_frame(64, net::kFlagLast, false);
  const Frame ect = frame_bytes(c);
  c.pkt.ecn = 3;  // a switch marked CE: TOS and IP checksum change, the ICRC must not
  const Frame ce = frame_bytes(c);
  EXPECT_NE(be(ect, kIp + 10, 2), be(ce, kIp + 10, 2)) << "the IP checksum covers the TOS";
  EXPECT_EQ(le32(ect, ect.size() - 4), le32(ce, ce.size() - 4)) << "the ICRC masks the TOS";
  c.pkt.psn += 1;
  const Frame next = frame_bytes(c);
  EXPECT_NE(le32(ce, ce.size() - 4), le32(next, next.size() - 4)) << "the ICRC covers the PSN";
  expect_icrc_ok(next, kIp, "CE-marked");
}

TEST(PcapFrame, PfcFrameIsTheReferenceLayout) {
  CapturedFrame c;
  c.from_node = 4, c.from_is_nic = false;
  c.to_node = 21, c.to_is_nic = true;
  c.pkt.type = PacketType::kPause;
  c.pkt.qp = 0x48;     // classes 3 and 6
  c.pkt.psn = 70'000;  // beyond 16 bits: the field saturates
  c.pkt.frame_bytes = 64;
  const Frame f = frame_bytes(c);
  ASSERT_EQ(f.size(), 60u) << "rocev2.md §2: 60 bytes before the FCS";
  EXPECT_EQ(mac_at(f, 0), (MacAddress{0x01, 0x80, 0xC2, 0x00, 0x00, 0x01})) << "PFC DA";
  EXPECT_EQ(mac_at(f, 6), switch_mac(4)) << "SA: the sending port";
  EXPECT_EQ(be(f, 12, 2), 0x8808u) << "EtherType MAC Control";
  EXPECT_EQ(be(f, 14, 2), 0x0101u) << "opcode PFC";
  EXPECT_EQ(be(f, 16, 2), 0x0048u) << "class-enable vector, high byte 0";
  for (int cls = 0; cls < 8; ++cls) {
    const uint32_t want = (cls == 3 || cls == 6) ? 0xFFFF : 0;
    EXPECT_EQ(be(f, 18 + 2 * cls, 2), want) << "time[" << cls << "]";
  }
  for (size_t i = 34; i < 60; ++i) EXPECT_EQ(f[i], 0) << "pad byte " << i;
}

TEST(PcapFile, HeaderAndRecordLayout) {
  CapturedFrame c = data_frame(4096, net::kFlagFirst, false);
  c.time_ps = 1'500'000'123'456;  // 1.5 s + 123.456 ns: the record keeps whole nanoseconds
  std::ostringstream out;
  write_pcap(out, {c});
  const std::string s = out.str();
  const Frame file(s.begin(), s.end());
  const Frame frame = frame_bytes(c);
  ASSERT_EQ(file.size(), 24 + 16 + frame.size()) << "global header, record header, frame";
  EXPECT_EQ(le32(file, 0), 0xA1B23C4Du) << "nanosecond pcap magic, little-endian";
  EXPECT_EQ(le32(file, 4), 2u | 4u << 16) << "version 2.4";
  EXPECT_EQ(le32(file, 20), 1u) << "LINKTYPE_ETHERNET";
  EXPECT_GE(le32(file, 16), frame.size()) << "snap length holds the frame";
  EXPECT_EQ(le32(file, 24), 1u) << "ts_sec";
  EXPECT_EQ(le32(file, 28), 500'000'123u) << "ts_nsec";
  EXPECT_EQ(le32(file, 32), frame.size()) << "captured length";
  EXPECT_EQ(le32(file, 36), frame.size()) << "original length (no FCS)";
  EXPECT_TRUE(std::equal(frame.begin(), frame.end(), file.begin() + 40)) << "frame bytes";
}

TEST(PcapNaming, QpnsAndDscp) {
  EXPECT_EQ(requester_qpn(0), 0x100u) << "first requester QPN";
  EXPECT_EQ(responder_qpn(0), 0x101u) << "its responder";
  const uint32_t big = requester_qpn(0x7FFFFFFF);
  EXPECT_TRUE(big >= 0x100 && big <= 0xFFFFFF && big % 2 == 0) << "wraps within 24 bits, even";
  EXPECT_EQ(roce_dscp(PacketType::kData, 3), 26) << "NVIDIA RoCE default";
  EXPECT_EQ(roce_dscp(PacketType::kAck, 3), 26) << "ACKs travel with the data class";
  EXPECT_EQ(roce_dscp(PacketType::kCnp, 6), 48) << "NVIDIA CNP default";
  EXPECT_EQ(roce_dscp(PacketType::kData, 6) >> 3, 6) << "DSCP >> 3 is the priority";
  const std::vector<scenario::FlowRecord> flows = {{.id = 0, .size_bytes = 10},
                                                   {.id = 1, .size_bytes = 20}};
  const MessageBytes lookup = message_bytes_of(flows);
  EXPECT_EQ(lookup(1), 20) << "message size by id";
  EXPECT_EQ(lookup(2), -1) << "unknown message";
}

}  // namespace pcap_test
}  // namespace fabricsim::output
