// What the network hands to the layers above and counts for them: the transport's hooks at the
// endpoints, the pcap tap, why a packet was dropped, and the fabric's counters (net/network.h
// owns them; moved here so that a layer which only reports or observes need not read the
// packet-moving core).
#pragma once

#include <cstdint>

#include "net/packet.h"

namespace fabricsim::net {

// Why the fabric discarded a packet; each reason has its counter in NetCounters.
enum class DropReason : uint8_t {
  kBuffer,         // tail drop: shared buffer or dynamic threshold (lossy class), full NIC buffer
  kLossless,       // a PFC class beyond XOFF + headroom (undersized headroom)
  kWatchdog,       // a queue the PFC watchdog declared stormed
  kHeadOfQueue,    // an IB VL stalled past its head-of-queue lifetime
  kLinkDown,       // on, or queued for, a failed link
  kCorrupted,      // lost on the wire (fabric.link.loss_rate)
  kUnroutable,     // no forwarding entry
  kCreditOverrun,  // beyond the receiver's IB credits (a model defect if it ever happens)
};

// The transport's hooks at the endpoints. Plain function pointers: one indirect call per packet
// at a NIC, none inside the fabric.
struct Endpoint {
  void* ctx = nullptr;
  // A packet has been fully received by `nic`.
  void (*deliver)(void* ctx, uint32_t nic, const Packet& pkt) = nullptr;
  // Fills `out` with the next data packet `nic` should send now, not of a class in
  // `paused_classes` (PFC); false if none.
  bool (*pull)(void* ctx, uint32_t nic, uint8_t paused_classes, Packet& out) = nullptr;
  // `pkt` was dropped in the fabric (for per-flow accounting and failure recovery).
  void (*dropped)(void* ctx, const Packet& pkt, DropReason reason) = nullptr;
};

// An observer of every frame a port starts to transmit (for pcap capture). Off unless set.
struct Tap {
  void* ctx = nullptr;
  void (*on_transmit)(void* ctx, int64_t time_ps, uint32_t port, const Packet& pkt) = nullptr;
};

// mode: hybrid (engine/hybrid/steady_skip.h): the ports of a group whose steady state is being
// skipped are frozen (Port::frozen); whatever would put a frame on one of them or wake it first
// calls `touch`, which ends the skip there (at its end, or undoing the part not yet reached).
struct FreezeHook {
  void* ctx = nullptr;
  void (*touch)(void* ctx, uint32_t port) = nullptr;
};

struct NetCounters {
  int64_t data_packet_hops = 0;
  int64_t dropped_packets = 0;
  int64_t dropped_payload_bytes = 0;
  int64_t unroutable_packets = 0;
  int64_t lossless_drops = 0;  // packets of a PFC-protected class dropped: headroom overflow
  int64_t pause_frames = 0;    // PAUSE/RESUME frames sent
  int64_t watchdog_storms = 0;  // queues the PFC watchdog declared stormed
  int64_t watchdog_drops = 0;
  int64_t ecn_marks = 0;
  int64_t link_losses = 0;  // data frames lost to fabric.link.loss_rate
  int64_t link_down_drops = 0;  // packets lost on or queued for a failed link
  // InfiniBand link layer
  int64_t credit_packets = 0;     // flow-control packets sent
  int64_t credit_waits = 0;       // times a VL's head packet had to wait for credits
  int64_t credit_violations = 0;  // packets that arrived beyond the receiver's VL buffer
  int64_t credit_stalls = 0;      // VLs stalled past the head-of-queue lifetime
  int64_t hoq_discards = 0;       // packets discarded by a stalled VL
  int64_t first_credit_stall_ps = -1;
  // Packet trimming (net/trim.cpp): data packets cut to their header instead of dropped, and
  // the payload bytes they lost (the sender retransmits them on the receiver's NACK).
  int64_t trimmed_packets = 0;
  int64_t trimmed_payload_bytes = 0;
  int64_t sharp_drops = 0;  // SHARP packets lost (a failed link): their operation never ends
};

// Adds one partition's counters into the run's (core/partitions.h: a partitioned run keeps
// them per partition); first_credit_stall_ps is the earliest of the two.
inline void add_counters(NetCounters& to, const NetCounters& c) {
  to.data_packet_hops += c.data_packet_hops;
  to.dropped_packets += c.dropped_packets;
  to.dropped_payload_bytes += c.dropped_payload_bytes;
  to.unroutable_packets += c.unroutable_packets;
  to.lossless_drops += c.lossless_drops;
  to.pause_frames += c.pause_frames;
  to.watchdog_storms += c.watchdog_storms;
  to.watchdog_drops += c.watchdog_drops;
  to.ecn_marks += c.ecn_marks;
  to.link_losses += c.link_losses;
  to.link_down_drops += c.link_down_drops;
  to.credit_packets += c.credit_packets;
  to.credit_waits += c.credit_waits;
  to.credit_violations += c.credit_violations;
  to.credit_stalls += c.credit_stalls;
  to.hoq_discards += c.hoq_discards;
  if (c.first_credit_stall_ps >= 0 &&
      (to.first_credit_stall_ps < 0 || c.first_credit_stall_ps < to.first_credit_stall_ps)) {
    to.first_credit_stall_ps = c.first_credit_stall_ps;
  }
  to.trimmed_packets += c.trimmed_packets;
  to.trimmed_payload_bytes += c.trimmed_payload_bytes;
  to.sharp_drops += c.sharp_drops;
}

}  // namespace fabricsim::net
