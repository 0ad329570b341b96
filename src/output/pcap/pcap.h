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
//           which IBTA reserves for QP0/QP1). Data and READ requests go to the responder; ACK,
//           NAK, CNP and READ responses go back to the requester.
//   DSCP    priority p -> AF p1 (8p + 2) for data/ACK/NAK when 1 <= p <= 4 (RFC 2597 defines
//           AF classes 1-4), else CS p (8p); CNP -> CS p. With the defaults (data 3, CNP 6) that
//           is DSCP 26 and 48, NVIDIA's RoCE defaults, and DSCP >> 3 = p always holds, which
//           is the default DSCP-to-priority map of mlx5 in DSCP trust mode.
//   VLAN    an 802.1Q tag (PCP = priority, VID 0 = priority-tagged) exactly when the packet's
//           frame_bytes is the tagged size (net/wire.h), i.e. when RoceConfig::vlan_tag was on.
//   Opcode  from the run's transport service and verb (Verbs, below) and the packet's first/last
//           flags: RC RDMA WRITE FIRST/MIDDLE/LAST/ONLY (RETH on FIRST and ONLY) or SEND
//           FIRST/MIDDLE/LAST/ONLY (no RETH); UC the same with the 0x20 transport prefix; UD
//           SEND ONLY 0x64 with a DETH (a UD message is one packet). ACK/NAK 0x11 (RC only).
//           RDMA READ: the request 0x0C (RETH, no payload), the responses (kData with
//           net::kFlagResponse) READ RESPONSE FIRST/MIDDLE/LAST/ONLY 0x0D-0x10, AETH on all but
//           MIDDLE.
//   AckReq  on the last packet of an RC message and on a READ request (rxe's requester asks for
//           the ACK there; the responder's coalesced ACKs in between are its own decision and
//           leave no trace in the request packets); never on UC/UD.
//   RETH    VA 0, R_Key = message id (to match flows.csv), DMA length = message size from the
//           MessageBytes lookup, else this packet's payload (exact for single-packet messages).
//           A READ request's DMA length is the message size (the lookup is then required for a
//           true value: a request has no payload to fall back on).
//   DETH    Q_Key 0x01234567 (RDMA_UDP_QKEY of Linux rdma_cm.h: what a UD QP created through
//           librdmacm uses; the high bit clear = not a controlled Q_Key), source QP = the
//           requester QPN.
//   AETH    ACK syndrome 0x1F, NAK syndrome 0x60 (PSN sequence error); MSN 0 (not modelled).
// Every synthesized frame must have exactly the size the simulator gave the packet
// (net::Packet::frame_bytes less the FCS): write_pcap refuses, with std::runtime_error, to write a
// frame that would differ, rather than write a packet the simulator did not send.
//
// InfiniBand runs do not come here: output/pcap/pcap_trace.h writes their trace.pcap as ERF records
// (LINKTYPE_ERF 197, output/pcap/pcap_erf.h).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "net/packet.h"
#include "results/result.h"
#include "transport/config.h"

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

// The transport service and verb a run's messages used (RunResult::service / operation): they
// choose the opcodes and extension headers of its data packets.
struct Verbs {
  transport::Service service = transport::Service::kRc;
  transport::Operation operation = transport::Operation::kWrite;
};
Verbs verbs_of(const scenario::RunResult& result);

// IBTA Vol. 1 §9.2 Table 38: RC opcodes (prefix 000) and the RoCEv2 CNP opcode (Annex A17); the
// full table is in output/pcap/pcap_ib.h.
inline constexpr uint8_t kOpRdmaWriteFirst = 0x06;
inline constexpr uint8_t kOpRdmaWriteMiddle = 0x07;
inline constexpr uint8_t kOpRdmaWriteLast = 0x08;
inline constexpr uint8_t kOpRdmaWriteOnly = 0x0A;
inline constexpr uint8_t kOpAcknowledge = 0x11;
inline constexpr uint8_t kOpCnp = 0x81;
// Q_Key of synthesized UD packets (DETH), see above.
inline constexpr uint32_t kUdQkey = 0x01234567;
// The BTH opcode of a data, ACK, NAK or CNP packet under `verbs`. Throws std::runtime_error for
// what no opcode describes (a PFC or flow-control frame, a UD packet that is not a whole message,
// an ACK on UC/UD, an RDMA READ).
uint8_t bth_opcode(const net::Packet& pkt, const Verbs& verbs = {});
// Bytes of the extension headers (DETH, RETH, AETH, CNP body) the packet carries after its BTH.
uint32_t bth_extension_bytes(const net::Packet& pkt, const Verbs& verbs = {});
// Whether the packet travels from requester to responder (WRITE/SEND data, a READ request) rather
// than back (ACK, NAK, CNP, READ responses); its BTH DestQP follows from that.
bool to_responder(const net::Packet& pkt);
uint32_t dest_qpn(const net::Packet& pkt);
// The BTH AckReq bit (see the rule above).
bool bth_ack_req(const net::Packet& pkt, const Verbs& verbs = {});

// A message's size in bytes, or a negative value when unknown.
using MessageBytes = std::function<int64_t(uint32_t msg)>;
// Lookup into a run's flows (FlowRecord ids are message ids).
MessageBytes message_bytes_of(const std::vector<scenario::FlowRecord>& flows);
// A run's: its message sizes by id (RunResult::message_bytes, the harvest's when frames were
// captured), else its kept records.
MessageBytes message_bytes_of(const scenario::RunResult& r);

// The bytes of one captured frame as a capture on that link shows them (no FCS).
// REQUIRES: a kPause frame sent by a NIC has src_nic = that NIC.
// Throws std::runtime_error if the frame cannot be synthesized as the simulator sized it.
std::vector<uint8_t> frame_bytes(const scenario::CapturedFrame& frame,
                                 const MessageBytes& message_bytes = {}, const Verbs& verbs = {});

// Standard CRC-32 (IEEE 802.3, reflected, as zlib), continuing from `crc` (the complemented
// running value; 0 to start).
uint32_t crc32_ieee(const uint8_t* data, size_t len, uint32_t crc = 0);
// RoCEv2 ICRC of an IPv4 packet that starts at `ip` and runs through its pad bytes (the ICRC
// itself excluded): rocev2.md §3. The wire carries its least significant byte first.
uint32_t roce_icrc(const uint8_t* ip, size_t len);

// pcap file: global header, then one record per frame in order. Throws std::runtime_error if
// a frame cannot be synthesized (see frame_bytes) or `path` cannot be written.
void write_pcap(std::ostream& out, const std::vector<scenario::CapturedFrame>& frames,
                const MessageBytes& message_bytes = {}, const Verbs& verbs = {});
void write_pcap_file(const std::string& path, const std::vector<scenario::CapturedFrame>& frames,
                     const MessageBytes& message_bytes = {}, const Verbs& verbs = {});

}  // namespace fabricsim::output
