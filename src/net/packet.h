// A packet as the simulator moves it: header fields only, no payload bytes (SPEC §3). Byte-exact
// headers are synthesized from these fields only when a pcap is written.
#pragma once

#include <cstdint>

namespace fabricsim::net {

// kPause is an IEEE 802.1Qbb PFC frame: `qp` holds its class-enable vector and `psn` the pause
// time in quanta of 512 bit times (0 = resume) for every enabled class.
// kCredit is an InfiniBand flow-control packet: `qp` holds the VL and `psn` the flow-control
// credit limit (FCCL) in 64-byte blocks, as an absolute count that never wraps in the model.
// kReadRequest is an RDMA READ request (RETH, no payload): `psn` is the first PSN it asks for and
// `msg` the message; the responses come back as kData with kFlagResponse.
// kUetControl is a UET PDS control packet (transport/uet.h): `msg` holds its control type
// (CREDIT: `psn` the bytes granted; CREDIT_REQ) and `qp` the PDC.
// kSharp is an InfiniBand SHARP aggregation packet (net/sharp.h): `qp` holds the tree, `psn`
// the sequence within the tree's stream, kFlagSharpDown its direction; the switches of the tree
// consume and emit it, the transport never sees it.
enum class PacketType : uint8_t {
  kData, kAck, kNak, kCnp, kPause, kCredit, kReadRequest, kUetControl, kSharp
};

inline constexpr int kPriorities = 8;  // IEEE 802.1p / PFC classes

// 32 bytes: two packets per cache line, since queued packets are the bulk of a run's memory.
struct Packet {
  uint32_t src_nic = 0;
  uint32_t dst_nic = 0;
  uint32_t qp = 0;             // the sender's QP; ACK/NAK/CNP carry the QP they refer to
  uint32_t psn = 0;            // packet sequence number (not wrapped at 24 bits internally)
  uint32_t msg = 0;            // message (flow) index, for per-flow accounting
  uint16_t payload_bytes = 0;
  uint16_t frame_bytes = 0;    // the L2 frame with FCS: what a switch buffer holds; the wire adds
                               // the network's per-frame overhead (Network::wire_bytes)
  uint16_t in_port = 0;        // inside a switch: the ingress port, local to the switch (PFC)
  uint16_t entropy = 0;        // RoCEv2: UDP source port (flow entropy); InfiniBand: the DLID
  PacketType type = PacketType::kData;
  uint8_t priority = 0;        // Ethernet: 802.1p class; InfiniBand: the VL
  uint8_t ecn : 2 = 0;         // 0 Not-ECT, 2 ECT(0), 3 CE (RFC 3168 code points)
  // Dragonfly routing (routing/dragonfly.h), in the 6 bits ecn leaves free. Inside a switch,
  // in_class is the class the packet arrived in: its ingress PFC/credit accounting, while
  // `priority` is the egress class after the switch moved it up a class at a global hop
  // (deadlock freedom). valiant: the source switch sent it non-minimally; the intermediate
  // group is a function of the header (Network::dragonfly_intermediate), so it need not travel.
  uint8_t in_class : 3 = 0;
  uint8_t valiant : 1 = 0;
  uint8_t flags = 0;
};
static_assert(sizeof(Packet) == 32, "keep Packet at half a cache line");

inline constexpr uint8_t kFlagFirst = 1;  // first packet of a message (carries RETH)
inline constexpr uint8_t kFlagLast = 2;   // last packet of a message
// On an ACK: a packet it acknowledges arrived CE-marked. RoCEv2 ACKs carry no ECN echo; the
// model adds one only for PLB's per-round marked fraction (HPCC's simulator likewise flags its
// ACKs), and it costs no bytes on the wire.
inline constexpr uint8_t kFlagEce = 4;
// On data: an RDMA READ response, flowing from the responder back to the requester.
inline constexpr uint8_t kFlagResponse = 8;
// On kSharp: a result travelling down the tree (clear: a contribution travelling up).
inline constexpr uint8_t kFlagSharpDown = 8;
// On data (Ethernet only): a switch trimmed the packet to its header instead of dropping it
// (UEC packet trimming, net::TrimConfig): payload_bytes is 0 and frame_bytes the trimmed size;
// the receiver NACKs it so the sender retransmits at once.
inline constexpr uint8_t kFlagTrimmed = 16;
// With kFlagTrimmed: the trimming switch's egress port faces the destination NIC, i.e. the trim
// was at the last hop (uet-htsim tells this by comparing TTLs, UecSink::processTrimmed); the
// receiver NACKs it TRIMMED_LASTHOP. Ethernet only (bits 4-7 carry the SL on InfiniBand).
inline constexpr uint8_t kFlagTrimmedLastHop = 64;
// InfiniBand: the packet's service level sits in the upper nibble of `flags` (the VL, which a
// switch derives from it, is in `priority`); only pcap output reads it.
inline constexpr int kFlagSlShift = 4;
inline constexpr uint8_t ib_sl_of(uint8_t flags) { return flags >> kFlagSlShift; }

}  // namespace fabricsim::net
