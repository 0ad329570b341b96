// RoCEv2 frame sizes (SPEC §8 "Headers"; IBTA Annex A17 RoCEv2; IEEE 802.3).
// On the wire a data packet costs preamble+SFD 8, Ethernet 14, IPv4 20, UDP 8, BTH 12,
// payload, ICRC 4, FCS 4 and an inter-frame gap of 12: 82 bytes beyond the payload, +16 RETH on
// the first packet of an RDMA WRITE and +4 with an 802.1Q tag.
#pragma once

#include <cstdint>

namespace fabricsim::net {

inline constexpr uint32_t kPreambleSfdBytes = 8;
inline constexpr uint32_t kInterFrameGapBytes = 12;
inline constexpr uint32_t kEthernetHeaderBytes = 14;
inline constexpr uint32_t kVlanTagBytes = 4;
inline constexpr uint32_t kIpv4HeaderBytes = 20;
inline constexpr uint32_t kUdpHeaderBytes = 8;
inline constexpr uint32_t kBthBytes = 12;
inline constexpr uint32_t kRethBytes = 16;
inline constexpr uint32_t kAethBytes = 4;
inline constexpr uint32_t kIcrcBytes = 4;
inline constexpr uint32_t kFcsBytes = 4;
inline constexpr uint32_t kCnpReservedBytes = 16;  // CNP body after BTH (rocev2.md §3)
inline constexpr uint32_t kMinFrameBytes = 64;     // IEEE 802.3 minimum frame incl. FCS
inline constexpr uint32_t kRoceUdpPort = 4791;

// Per-frame cost on the wire that never reaches a buffer.
inline constexpr uint32_t kWireOnlyBytes = kPreambleSfdBytes + kInterFrameGapBytes;

// L2 frame bytes (with FCS) of a RoCEv2 packet whose transport headers after BTH and payload
// total `after_bth_bytes`.
constexpr uint32_t roce_frame_bytes(uint32_t after_bth_bytes, bool vlan) {
  const uint32_t f = kEthernetHeaderBytes + (vlan ? kVlanTagBytes : 0) + kIpv4HeaderBytes +
                     kUdpHeaderBytes + kBthBytes + after_bth_bytes + kIcrcBytes + kFcsBytes;
  return f < kMinFrameBytes ? kMinFrameBytes : f;
}

// Bytes that pad a payload to a multiple of 4 (BTH PadCnt, IBTA 9.2).
constexpr uint32_t bth_pad_bytes(uint32_t payload_bytes) { return (4 - payload_bytes % 4) % 4; }

constexpr uint32_t roce_data_frame_bytes(uint32_t payload_bytes, bool first_of_write, bool vlan) {
  return roce_frame_bytes(
      payload_bytes + bth_pad_bytes(payload_bytes) + (first_of_write ? kRethBytes : 0), vlan);
}
constexpr uint32_t roce_ack_frame_bytes(bool vlan) { return roce_frame_bytes(kAethBytes, vlan); }
constexpr uint32_t roce_cnp_frame_bytes(bool vlan) {
  return roce_frame_bytes(kCnpReservedBytes, vlan);
}

// InfiniBand packets (SPEC §8 "Headers"; reference infiniband.md §6): LRH 8, BTH 12, extension
// headers, payload and pad, ICRC 4, VCRC 2. No GRH inside one subnet.
inline constexpr uint32_t kLrhBytes = 8;
inline constexpr uint32_t kDethBytes = 8;
inline constexpr uint32_t kVcrcBytes = 2;
inline constexpr uint32_t kImmDtBytes = 4;  // immediate data (SEND/WRITE with immediate)
constexpr uint32_t ib_packet_bytes(uint32_t after_bth_bytes) {
  return kLrhBytes + kBthBytes + after_bth_bytes + kIcrcBytes + kVcrcBytes;
}
static_assert(ib_packet_bytes(4096 + kRethBytes) == 4138, "LRH+BTH+RETH+4096+ICRC+VCRC");

static_assert(roce_data_frame_bytes(4096, false, false) + kWireOnlyBytes == 4096 + 82,
              "SPEC §8: 82 bytes of RoCEv2 overhead per packet");

}  // namespace fabricsim::net
