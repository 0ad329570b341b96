// trace.pcap: byte-exact RoCEv2 and PFC frames synthesized from captured packet headers
// (STYLE §4: packets carry header fields only; bytes exist only here).
//
// File: nanosecond-resolution pcap (magic 0xA1B23C4D), LINKTYPE_ETHERNET, frames without FCS.
// Frames (shared/reference/rocev2.md §2, §3):
//   RoCEv2  Ethernet [802.1Q] / IPv4 / UDP 4791 / BTH [RETH | AETH | 16 reserved] / payload /
//           pad / ICRC, then zero padding up to the 60-byte Ethernet minimum
//   PFC     the 60-byte 802.1Qbb MAC Control frame
//
// What is not in a net::Packet is filled in by these fixed, documented rules:
//   MACs    each link end's own address, rewritten hop by hop as IP routers do:
//           NIC n      02:00:00:nn:nn:nn (n = NIC index, 24 bits)
//           switch     02:00:01:ss:ss:ss (s = node id, 24 bits; one address for all its ports)
//           First octet 0x02: the U/L bit set, I/G clear = locally administered unicast
//           (IEEE Std 802), so no vendor OUI is claimed.
//           The NIC at a link end is found from the packet (a NIC transmits only its own
//           packets and receives only its own), so node ids are used only for switches.
//   IPs     net::Network::nic_ip(): 10.0.0.0/8, host part = NIC index + 1.
//   QPNs    requester QPN = kQpnBase + 2 * qp, responder QPN = that + 1 (mod 2^24, never 0 or 1,
//           which IBTA reserves for QP0/QP1). Data goes to the responder; ACK, NAK and CNP go
//           back to the requester.
//   DSCP    priority p -> AF p1 (8p + 2) for data/ACK/NAK when 1 <= p <= 4 (RFC 2597 defines
//           AF classes 1-4), else CS p (8p); CNP -> CS p. With the defaults (data 3, CNP 6) that
//           is DSCP 26 and 48, NVIDIA's RoCE defaults, and DSCP >> 3 = p always holds, which
//           is the default DSCP-to-priority map of mlx5 in DSCP trust mode.
//   VLAN    an 802.1Q tag (PCP = priority, VID 0 = priority-tagged) exactly when the packet's
//           frame_bytes is the tagged size (net/wire.h), i.e. when RoceConfig::vlan_tag was on.
//   RETH    VA 0, R_Key = message id (to match flows.csv), DMA length = message size from the
//           MessageBytes lookup, else this packet's payload (exact for single-packet messages).
//   AETH    ACK syndrome 0x1F, NAK syndrome 0x60 (PSN sequence error); MSN 0 (not modelled).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "net/packet.h"
#include "scenario/result.h"

namespace fabricsim::output {

using MacAddress = std::array<uint8_t, 6>;

// Base of the synthesized QP numbers: 0x100 clears QP0/QP1 and reads as "not a special QP".
inline constexpr uint32_t kQpnBase = 0x100;
uint32_t requester_qpn(uint32_t qp);
uint32_t responder_qpn(uint32_t qp);

MacAddress nic_mac(uint32_t nic);
MacAddress switch_mac(uint32_t node);

// DSCP of a RoCEv2 packet (see the rule above).
uint8_t roce_dscp(net::PacketType type, uint8_t priority);

// IBTA Vol. 1 §9.2 Table 38: RC opcodes (prefix 000) and the RoCEv2 CNP opcode (Annex A17).
inline constexpr uint8_t kOpRdmaWriteFirst = 0x06;
inline constexpr uint8_t kOpRdmaWriteMiddle = 0x07;
inline constexpr uint8_t kOpRdmaWriteLast = 0x08;
inline constexpr uint8_t kOpRdmaWriteOnly = 0x0A;
inline constexpr uint8_t kOpAcknowledge = 0x11;
inline constexpr uint8_t kOpCnp = 0x81;
uint8_t bth_opcode(const net::Packet& pkt);

// A message's size in bytes, or a negative value when unknown.
using MessageBytes = std::function<int64_t(uint32_t msg)>;
// Lookup into a run's flows (FlowRecord ids are message ids).
MessageBytes message_bytes_of(const std::vector<scenario::FlowRecord>& flows);

// The bytes of one captured frame as a capture on that link shows them (no FCS).
// REQUIRES: a kPause frame sent by a NIC has src_nic = that NIC.
std::vector<uint8_t> frame_bytes(const scenario::CapturedFrame& frame,
                                 const MessageBytes& message_bytes = {});

// Standard CRC-32 (IEEE 802.3, reflected, as zlib), continuing from `crc` (the complemented
// running value; 0 to start).
uint32_t crc32_ieee(const uint8_t* data, size_t len, uint32_t crc = 0);
// RoCEv2 ICRC of an IPv4 packet that starts at `ip` and runs through its pad bytes (the ICRC
// itself excluded): rocev2.md §3. The wire carries its least significant byte first.
uint32_t roce_icrc(const uint8_t* ip, size_t len);

// pcap file: global header, then one record per frame in order. Throws std::runtime_error if
// `path` cannot be written.
void write_pcap(std::ostream& out, const std::vector<scenario::CapturedFrame>& frames,
                const MessageBytes& message_bytes = {});
void write_pcap_file(const std::string& path, const std::vector<scenario::CapturedFrame>& frames,
                     const MessageBytes& message_bytes = {});

}  // namespace fabricsim::output
