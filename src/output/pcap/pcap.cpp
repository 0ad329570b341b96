#include "output/pcap/pcap.h"

#include <algorithm>
#include <fstream>
#include <stdexcept>

#include "net/network.h"
#include "net/wire.h"
#include "output/byte_writer.h"
#include "output/pcap/pcap_file.h"

namespace fabricsim::output {
namespace {

using net::Packet;
using net::PacketType;

// Ethernet (IEEE 802.3 / 802.1Q) and IP constants.
constexpr uint16_t kEtherTypeIpv4 = 0x0800;
constexpr uint16_t kEtherTypeVlan = 0x8100;        // 802.1Q TPID
constexpr uint16_t kEtherTypeMacControl = 0x8808;  // 802.3 Annex 31A; PFC rides on it
constexpr uint16_t kPfcOpcode = 0x0101;            // 802.1Qbb class-based pause (rocev2.md §2)
constexpr MacAddress kPfcDestination = {0x01, 0x80, 0xC2, 0x00, 0x00, 0x01};  // rocev2.md §2
constexpr uint32_t kMinFrameNoFcs = net::kMinFrameBytes - net::kFcsBytes;     // 60
constexpr uint8_t kIpv4VersionIhl = 0x45;  // version 4, 5 words: no options (RFC 791)
// DF set and ID 0: a RoCE NIC never fragments, and RFC 6864 §4.1 lets an atomic datagram
// (DF=1, not a fragment) carry any ID.
constexpr uint16_t kIpv4FlagsDf = 0x4000;
constexpr uint8_t kIpv4Ttl = 64;           // Linux's default ip_default_ttl; no hop decrement
constexpr uint8_t kIpProtoUdp = 17;        // IANA protocol number
constexpr uint16_t kDefaultPKey = 0xFFFF;  // IBTA default partition, full member
// ACK whose credit field 0b11111 advertises no end-to-end credit limit (RXE rxe_hdr.h
// AETH_ACK_UNLIMITED; rocev2.md §3: ACK syndromes are 0x00-0x1F).
constexpr uint8_t kAethAck = 0x1F;
constexpr uint8_t kAethNakPsnError = 0x60;  // NAK: PSN sequence error (rocev2.md §3)


void put_mac(ByteWriter& b, const MacAddress& m) {
  for (const uint8_t octet : m) b.u8(octet);
}

MacAddress mac_with(uint8_t kind, uint32_t id) {
  const auto byte = [id](int shift) { return static_cast<uint8_t>(id >> shift); };
  return {0x02, 0x00, kind, byte(16), byte(8), byte(0)};
}

// RFC 1071 Internet checksum of a header.
uint16_t internet_checksum(const uint8_t* p, size_t len) {
  uint32_t sum = 0;
  for (size_t i = 0; i + 1 < len; i += 2) sum += (uint32_t{p[i]} << 8) | p[i + 1];
  if (len % 2) sum += uint32_t{p[len - 1]} << 8;
  while (sum >> 16) sum = (sum & 0xFFFF) + (sum >> 16);
  return static_cast<uint16_t>(~sum);
}

constexpr std::array<uint32_t, 256> make_crc_table() {
  std::array<uint32_t, 256> t{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;  // reflected poly
    t[i] = c;
  }
  return t;
}
constexpr std::array<uint32_t, 256> kCrcTable = make_crc_table();

using transport::Operation;
using transport::Service;

const char* type_name(PacketType t) {
  switch (t) {
    case PacketType::kData:
      return "data";
    case PacketType::kAck:
      return "ACK";
    case PacketType::kNak:
      return "NAK";
    case PacketType::kCnp:
      return "CNP";
    case PacketType::kPause:
      return "PFC";
    case PacketType::kCredit:
      return "flow-control";
    case PacketType::kReadRequest:
      return "READ request";
    case PacketType::kUetControl:
      return "UET control";
    case PacketType::kSharp:
      return "SHARP aggregation";
  }
  return "?";
}

[[noreturn]] void refuse(const Packet& p, const std::string& why) {
  throw std::runtime_error("trace.pcap: cannot synthesize the " + std::string(type_name(p.type)) +
                           " packet of QP " + std::to_string(p.qp) + " PSN " +
                           std::to_string(p.psn) + ": " + why);
}

// The simulator sized the frame with net/wire.h; the tag is there exactly when the size is the
// tagged one (the two sizes always differ, even after minimum-frame padding).
bool vlan_tagged(const Packet& p, const Verbs& verbs) {
  const uint32_t pad = p.type == PacketType::kData ? net::bth_pad_bytes(p.payload_bytes) : 0;
  const uint32_t after_bth = bth_extension_bytes(p, verbs) + p.payload_bytes + pad;
  return p.frame_bytes == net::roce_frame_bytes(after_bth, true);
}

// Ethernet header of a RoCEv2 frame: the link ends' MACs, the optional tag, IPv4.
void ethernet_header(ByteWriter& b, const scenario::CapturedFrame& f, const Verbs& verbs) {
  const Packet& p = f.pkt;
  put_mac(b, f.to_is_nic ? nic_mac(p.dst_nic) : switch_mac(f.to_node));
  put_mac(b, f.from_is_nic ? nic_mac(p.src_nic) : switch_mac(f.from_node));
  if (vlan_tagged(p, verbs)) {
    b.u16(kEtherTypeVlan);
    b.u16(uint32_t{p.priority & 7u} << 13);  // PCP(3) DEI(1)=0 VID(12)=0
  }
  b.u16(kEtherTypeIpv4);
}

void pfc_frame(std::vector<uint8_t>& out, const scenario::CapturedFrame& f) {
  ByteWriter b(out);
  put_mac(b, kPfcDestination);
  put_mac(b, f.from_is_nic ? nic_mac(f.pkt.src_nic) : switch_mac(f.from_node));
  b.u16(kEtherTypeMacControl);
  b.u16(kPfcOpcode);
  const uint8_t enabled = static_cast<uint8_t>(f.pkt.qp);
  b.u16(enabled);  // high byte must be 0 (rocev2.md §2)
  const uint32_t quanta = std::min<uint32_t>(f.pkt.psn, 0xFFFF);
  for (int c = 0; c < net::kPriorities; ++c) b.u16((enabled >> c) & 1 ? quanta : 0);
  b.zeros(kMinFrameNoFcs - b.size());  // the 26 pad bytes
}

void roce_frame(std::vector<uint8_t>& out, const scenario::CapturedFrame& f,
                const MessageBytes& message_bytes, const Verbs& verbs) {
  const Packet& p = f.pkt;
  const uint8_t opcode = bth_opcode(p, verbs);  // refuses what it cannot name, before any byte
  ByteWriter b(out);
  ethernet_header(b, f, verbs);

  const uint32_t pad = p.type == PacketType::kData ? net::bth_pad_bytes(p.payload_bytes) : 0;
  const uint32_t udp_len = net::kUdpHeaderBytes + net::kBthBytes + bth_extension_bytes(p, verbs) +
                           p.payload_bytes + pad + net::kIcrcBytes;
  const size_t ip = b.size();
  b.u8(kIpv4VersionIhl);
  b.u8(uint32_t{roce_dscp(p.type, p.priority)} << 2 | (p.ecn & 3u));  // RFC 3168: ECN low 2
  b.u16(net::kIpv4HeaderBytes + udp_len);
  b.u16(0);  // identification
  b.u16(kIpv4FlagsDf);
  b.u8(kIpv4Ttl);
  b.u8(kIpProtoUdp);
  b.u16(0);  // checksum, filled below
  b.u32(net::Network::nic_ip(p.src_nic));
  b.u32(net::Network::nic_ip(p.dst_nic));
  const uint16_t sum = internet_checksum(out.data() + ip, net::kIpv4HeaderBytes);
  out[ip + 10] = static_cast<uint8_t>(sum >> 8);
  out[ip + 11] = static_cast<uint8_t>(sum);

  b.u16(p.entropy);  // UDP source port carries the flow entropy (rocev2.md §3)
  b.u16(net::kRoceUdpPort);
  b.u16(udp_len);
  b.u16(0);  // no UDP checksum, as RXE sends (rocev2.md §3; RFC 768 allows 0 over IPv4)

  b.u8(opcode);
  b.u8(pad << 4);  // SE 0, MigReq 0, PadCnt, TVer 0
  b.u16(kDefaultPKey);
  b.u8(p.type == PacketType::kCnp ? kBthBecn : 0);
  b.u24(dest_qpn(p));
  b.u8(bth_ack_req(p, verbs) ? kBthAckReq : 0);
  b.u24(p.psn & kMask24);

  const auto reth = [&] {
    const int64_t known = message_bytes ? message_bytes(p.msg) : -1;
    const int64_t length = known >= 0 ? known : p.payload_bytes;
    b.u64(0);      // virtual address
    b.u32(p.msg);  // R_Key
    b.u32(static_cast<uint32_t>(std::min<int64_t>(length, 0xFFFFFFFF)));
  };
  switch (p.type) {
    case PacketType::kData:
      if (p.flags & net::kFlagResponse) {
        if (bth_extension_bytes(p, verbs) == net::kAethBytes) {
          b.u8(kAethAck);
          b.u24(0);  // MSN
        }
      } else if (verbs.service == Service::kUd) {
        b.u32(kUdQkey);
        b.u8(0);  // reserved
        b.u24(requester_qpn(p.qp));
      } else if (verbs.operation == Operation::kWrite && (p.flags & net::kFlagFirst)) {
        reth();
      }
      b.zeros(p.payload_bytes + pad);
      break;
    case PacketType::kReadRequest:
      reth();
      break;
    case PacketType::kAck:
    case PacketType::kNak:
      b.u8(p.type == PacketType::kAck ? kAethAck : kAethNakPsnError);
      b.u24(0);  // MSN
      break;
    case PacketType::kCnp:
      b.zeros(net::kCnpReservedBytes);
      break;
    case PacketType::kPause:
    case PacketType::kCredit:
    case PacketType::kUetControl:  // UET runs write no pcap (engine/packet/simulation.cpp)
    case PacketType::kSharp:       // SHARP runs write no pcap (resolve/infiniband.cpp)
      break;
  }
  const uint32_t icrc = roce_icrc(out.data() + ip, b.size() - ip);
  b.lsb_first(icrc, 4);
  if (b.size() < kMinFrameNoFcs) b.zeros(kMinFrameNoFcs - b.size());
}


}  // namespace

uint32_t requester_qpn(uint32_t qp) {
  constexpr uint32_t span = (kMask24 + 1) - kQpnBase;  // even, so parity survives the wrap
  return kQpnBase + static_cast<uint32_t>((2ull * qp) % span);
}
uint32_t responder_qpn(uint32_t qp) { return requester_qpn(qp) + 1; }

MacAddress nic_mac(uint32_t nic) { return mac_with(0x00, nic); }
MacAddress switch_mac(uint32_t node) { return mac_with(0x01, node); }

uint8_t roce_dscp(PacketType type, uint8_t priority) {
  const uint8_t cs = static_cast<uint8_t>((priority & 7u) << 3);  // class selector (RFC 2474)
  const bool assured = type != PacketType::kCnp && priority >= 1 && priority <= 4;
  return assured ? cs | 0x02 : cs;  // AFx1 = 8x + 2 (RFC 2597 §6)
}

Verbs verbs_of(const scenario::RunResult& result) { return {result.service, result.operation}; }

uint8_t bth_opcode(const Packet& p, const Verbs& verbs) {
  // IBTA Vol. 1 Table 38 (reference infiniband.md §5): SEND FIRST 0x00, MIDDLE 0x01, LAST 0x02,
  // ONLY 0x04; RDMA WRITE FIRST 0x06, MIDDLE 0x07, LAST 0x08, ONLY 0x0A; READ REQUEST 0x0C;
  // READ RESPONSE FIRST 0x0D, MIDDLE 0x0E, LAST 0x0F, ONLY 0x10; UC = RC | 0x20.
  constexpr uint8_t kSendFirst = 0x00, kSendMiddle = 0x01, kSendLast = 0x02, kSendOnly = 0x04;
  constexpr uint8_t kReadRequest = 0x0C, kReadResponseFirst = 0x0D, kReadResponseMiddle = 0x0E,
                    kReadResponseLast = 0x0F, kReadResponseOnly = 0x10;
  constexpr uint8_t kUcPrefix = 0x20, kUdSendOnly = 0x64;
  const bool first = p.flags & net::kFlagFirst;
  const bool last = p.flags & net::kFlagLast;
  const auto pick = [first, last](uint8_t only, uint8_t f, uint8_t middle, uint8_t l) {
    return first && last ? only : first ? f : last ? l : middle;
  };
  switch (p.type) {
    case PacketType::kData: {
      if (p.flags & net::kFlagResponse) {
        if (verbs.service != Service::kRc) refuse(p, "READ responses exist only on RC");
        return pick(kReadResponseOnly, kReadResponseFirst, kReadResponseMiddle, kReadResponseLast);
      }
      if (verbs.operation == Operation::kRead) {
        refuse(p, "an RDMA READ requester sends requests, not data");
      }
      if (verbs.service == Service::kUd) {
        if (!(first && last)) refuse(p, "a UD message must be one packet (SEND ONLY)");
        return kUdSendOnly;
      }
      const uint8_t op =
          verbs.operation == Operation::kWrite
              ? pick(kOpRdmaWriteOnly, kOpRdmaWriteFirst, kOpRdmaWriteMiddle, kOpRdmaWriteLast)
              : pick(kSendOnly, kSendFirst, kSendMiddle, kSendLast);
      return verbs.service == Service::kUc ? static_cast<uint8_t>(op | kUcPrefix) : op;
    }
    case PacketType::kReadRequest:
      if (verbs.service != Service::kRc) refuse(p, "RDMA READ exists only on RC");
      return kReadRequest;
    case PacketType::kAck:
    case PacketType::kNak:
      if (verbs.service != Service::kRc) refuse(p, "only RC acknowledges (UC and UD have no ACK)");
      return kOpAcknowledge;
    case PacketType::kCnp:
      return kOpCnp;
    case PacketType::kPause:
    case PacketType::kCredit:
    case PacketType::kUetControl:  // UET runs write no pcap (engine/packet/simulation.cpp)
    case PacketType::kSharp:       // SHARP runs write no pcap (resolve/infiniband.cpp)
      break;
  }
  refuse(p, "it has no BTH");
}

uint32_t bth_extension_bytes(const Packet& p, const Verbs& verbs) {
  const bool first = p.flags & net::kFlagFirst;
  const bool last = p.flags & net::kFlagLast;
  switch (p.type) {
    case PacketType::kData:
      if (p.flags & net::kFlagResponse) return first || last ? net::kAethBytes : 0;
      if (verbs.service == Service::kUd) return net::kDethBytes;
      return verbs.operation == Operation::kWrite && first ? net::kRethBytes : 0;
    case PacketType::kReadRequest:
      return net::kRethBytes;
    case PacketType::kAck:
    case PacketType::kNak:
      return net::kAethBytes;
    case PacketType::kCnp:
      return net::kCnpReservedBytes;
    case PacketType::kPause:
    case PacketType::kCredit:
    case PacketType::kUetControl:  // UET runs write no pcap (engine/packet/simulation.cpp)
    case PacketType::kSharp:       // SHARP runs write no pcap (resolve/infiniband.cpp)
      break;
  }
  return 0;
}

bool to_responder(const Packet& p) {
  return (p.type == PacketType::kData && !(p.flags & net::kFlagResponse)) ||
         p.type == PacketType::kReadRequest;
}

uint32_t dest_qpn(const Packet& p) {
  return to_responder(p) ? responder_qpn(p.qp) : requester_qpn(p.qp);
}

bool bth_ack_req(const Packet& p, const Verbs& verbs) {
  if (verbs.service != Service::kRc) return false;
  return p.type == PacketType::kReadRequest ||
         (p.type == PacketType::kData && !(p.flags & net::kFlagResponse) &&
          (p.flags & net::kFlagLast));
}

MessageBytes message_bytes_of(const std::vector<scenario::FlowRecord>& flows) {
  return [&flows](uint32_t msg) -> int64_t {
    return msg < flows.size() && flows[msg].id == msg ? flows[msg].size_bytes : -1;
  };
}

MessageBytes message_bytes_of(const scenario::RunResult& r) {
  if (r.message_bytes.empty()) return message_bytes_of(r.flows);
  return [&sizes = r.message_bytes](uint32_t msg) -> int64_t {
    return msg < sizes.size() ? sizes[msg] : -1;
  };
}

std::vector<uint8_t> frame_bytes(const scenario::CapturedFrame& frame,
                                 const MessageBytes& message_bytes, const Verbs& verbs) {
  const Packet& p = frame.pkt;
  std::vector<uint8_t> out;
  out.reserve(p.frame_bytes + 8u);
  if (p.type == PacketType::kPause) {
    pfc_frame(out, frame);
  } else {
    roce_frame(out, frame, message_bytes, verbs);
  }
  // What the simulator sent and what is written must be the same number of bytes.
  if (out.size() + net::kFcsBytes != p.frame_bytes) {
    refuse(p, "the simulator sent a " + std::to_string(p.frame_bytes) +
                  "-byte frame (FCS included) but the synthesized one has " +
                  std::to_string(out.size() + net::kFcsBytes) +
                  " (a header the capture does not know about?)");
  }
  return out;
}

uint32_t crc32_ieee(const uint8_t* data, size_t len, uint32_t crc) {
  crc = ~crc;
  for (size_t i = 0; i < len; ++i) crc = kCrcTable[(crc ^ data[i]) & 0xFF] ^ (crc >> 8);
  return ~crc;
}

uint32_t roce_icrc(const uint8_t* ip, size_t len) {
  // The invariant fields: the masked pseudo-LRH, then IP, UDP and BTH with the fields that
  // routers and switches may rewrite set to all ones (rocev2.md §3).
  constexpr size_t kHeaders = net::kIpv4HeaderBytes + net::kUdpHeaderBytes + net::kBthBytes;
  if (len < kHeaders) throw std::invalid_argument("roce_icrc: shorter than IPv4+UDP+BTH");
  uint8_t masked[8 + kHeaders];
  std::fill_n(masked, 8, 0xFF);
  std::copy_n(ip, kHeaders, masked + 8);
  uint8_t* h = masked + 8;
  h[1] = 0xFF;                   // TOS (DSCP + ECN)
  h[8] = 0xFF;                   // TTL
  h[10] = h[11] = 0xFF;          // header checksum
  h[20 + 6] = h[20 + 7] = 0xFF;  // UDP checksum
  h[28 + 4] = 0xFF;              // BTH FECN, BECN, reserved
  const uint32_t crc = crc32_ieee(masked, sizeof masked);
  return crc32_ieee(ip + kHeaders, len - kHeaders, crc);
}

void write_pcap(std::ostream& out, const std::vector<scenario::CapturedFrame>& frames,
                const MessageBytes& message_bytes, const Verbs& verbs) {
  write_pcap_header(out, kLinktypeEthernet);
  for (const scenario::CapturedFrame& f : frames) {
    // The FCS is never part of a capture, so captured and original length are the frame's.
    write_pcap_record(out, f.time_ps, frame_bytes(f, message_bytes, verbs));
  }
}

void write_pcap_file(const std::string& path, const std::vector<scenario::CapturedFrame>& frames,
                     const MessageBytes& message_bytes, const Verbs& verbs) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  write_pcap(out, frames, message_bytes, verbs);
  out.close();
  if (!out) throw std::runtime_error("cannot write " + path);
}

}  // namespace fabricsim::output
