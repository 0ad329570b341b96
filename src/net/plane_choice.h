// How a multi-plane NIC spreads its traffic over its plane ports (topology.planes > 1,
// topo/multi_plane.h; fabric.planes.split).
//
// A NIC with P plane ports is modelled as the NIC (its transport's single endpoint, at the NIC's
// aggregate rate) cabled to a zero-latency plane selector inside the NIC, whose P uplinks are
// the plane ports. The selector is a switch whose every multi-port group is the set of its
// plane ports, resolved here (Switch::lb == kLbPlane) instead of by the ECMP hash:
//   kConnection: every packet of a connection (the packet's `qp`: RoCE QP, UET PDC) on one
//                plane, the planes dealt round-robin to connections in the order their first
//                packet leaves the NIC. An RC QP is bound to one port; this is Spectrum-X
//                "Software Plane Load Balancing" (swplb: one PF per plane, software spreads
//                across them; NVIDIA Network Operator 26.4 docs). Order within the QP is kept.
//   kMessage:    the same per message (the packet's `msg`): a connection's consecutive messages
//                take different planes, so a later one can overtake an earlier one.
//   kPacket:     data packets round-robin over the planes, one each in turn (spraying); reorders.
//                Spectrum-X "Hardware Plane Load Balancing" (hwplb, ConnectX-8, NIC LAG) fans
//                out over the planes in the NIC; its granularity is not published (UNVERIFIED:
//                modelled as per packet).
// Control packets (ACK/NAK/CNP/credits) follow their connection's or message's plane when the
// selector has one for it, else a fixed plane (key mod P); they never advance the round-robin.
// A plane port that is down is skipped at once: the NIC sees its own link go down (PHY link
// state), without waiting for routing to converge. A remembered plane that went down is
// replaced by the next plane in turn.
//
// The assignments live in a fixed table per selector (Switch::flowlets, unused by a selector
// otherwise; allocated once): nothing is allocated per packet. A key is looked for in a window of
// kPlaneProbe slots from its hash and is never moved once placed, so a connection keeps its plane
// for the whole run (RoCE order depends on it). Connections are never removed; a message's entry
// is freed when its last packet leaves (a later retransmission of it takes the next plane in
// turn, which per-message split accepts). A key whose window is full when it first appears (more
// than kPlaneSlots connections at one NIC, or a crowded window) gets the fixed plane hash mod P
// instead, for good: consistent, only not round-robin.
//
// InfiniBand (Switch::lb == kLbHcaPorts) chooses nothing here. Every plane is its own subnet
// (routing/plane_subnets.h) and an RC QP is bound to one HCA port, in the plane of that port's
// subnet, at both ends (the connection is made between two ports of one subnet). The transport
// binds each QP when it creates it (transport/rc.h: round-robin over the source HCA's working
// ports) and addresses its packets to the peer's LID in that plane; the selector only moves a
// packet from the NIC out of its QP's port and a packet from any plane in to the NIC. A QP whose
// port fails does not move: its packets are lost there (kLinkDown) until its retries are
// exhausted and it enters the error state, as on any single-port HCA (IBTA; Automatic Path
// Migration to an alternate port is not modelled).
#pragma once

#include <cstdint>

#include "net/network.h"

namespace fabricsim::net {

enum class PlaneSplit : uint8_t { kConnection = 0, kMessage = 1, kPacket = 2 };

// Assignment slots per plane selector (a power of two): 2048 x 16 bytes = 32 KiB per NIC, room
// for an all-to-all's connections among 1024 NICs, probed kPlaneProbe at a time.
inline constexpr uint32_t kPlaneSlots = 2048;
inline constexpr uint32_t kPlaneProbe = 16;

// Turns switch `sw` into a plane selector with the given split (allocates its table once).
void make_plane_selector(Switch& sw, PlaneSplit split);

// The plane port (one of `members[0..n)`, global port ids) `pkt` leaves by.
uint32_t choose_plane(const Switch& sw, const Packet& pkt, const uint32_t* members, uint32_t n,
                      const Port* ports);

// A plane selector of either kind: it sits inside a NIC and never forwards between its planes.
inline bool is_plane_selector(const Switch& sw) {
  return sw.lb == kLbPlane || sw.lb == kLbHcaPorts;
}

// Turns plane selector `sw` into an InfiniBand HCA's ports (kLbHcaPorts).
void make_hca_ports(Switch& sw);

// The global port of NIC `nic`'s plane selector on plane `plane` (topo/multi_plane.h: local port
// 0 faces the NIC, local port 1 + p is plane p's).
inline uint32_t plane_port_of(const Network& net, uint32_t nic, uint32_t plane) {
  const Port& selector_side = net.port(net.port(net.nic_port(nic)).peer);
  return net.switch_at(static_cast<uint32_t>(selector_side.switch_index)).first_port + 1 + plane;
}

// A kLbHcaPorts selector's egress for a packet that arrived on its local port `in_local`, of a QP
// bound to `plane`: in from a plane to the NIC, out from the NIC by the QP's port.
inline uint32_t hca_port_egress(const Switch& sw, uint16_t in_local, uint8_t plane) {
  return in_local != 0 ? sw.first_port : sw.first_port + 1 + plane;
}

}  // namespace fabricsim::net
