// In-band network telemetry (INT) as HPCC uses it (Li et al., "HPCC: High Precision Congestion
// Control", SIGCOMM 2019, §3.2 and Fig. 4): every switch a data packet leaves through appends a
// record of that egress port — its queue length, the bytes it has transmitted, the time and its
// line rate — the receiver echoes the records in its ACK, and the sender compares them with the
// previous ACK's to get each hop's utilization.
//
// Packets move through the simulator by value at 32 bytes (net/packet.h), with no room for five
// records, so the records live beside them: one slot per (sender QP, PSN modulo the slots per
// QP), written as the packet crosses each egress and read by the sender when the PSN's ACK
// comes back. The NIC port a data packet leaves first empties its slot (the sender starts an
// empty INT stack). A slot is valid only for the PSN that wrote it last: the sender must read it
// before PSN + slots_per_qp is sent, which a window of at most slots_per_qp packets guarantees;
// a slot overwritten earlier reads as absent (IntTable::find), never as another packet's records.
// The wire bytes of the INT header are the transport's to add to the frames that carry it.
#pragma once

#include <cstdint>
#include <vector>

namespace fabricsim::net {

// HPCC's simulator stamps at most 5 hops (IntHeader::maxHop), a 3-tier fat-tree's longest path;
// further hops of a longer path (Dragonfly's Valiant routes) are not recorded (IntRecord::lost).
inline constexpr int kIntMaxHops = 5;

struct IntHop {
  int64_t ts_ps = 0;       // when the packet started leaving the port
  int64_t tx_bytes = 0;    // wire bytes the port had sent, this packet included
  int64_t qlen_bytes = 0;  // frame bytes still queued at the port, every class, after it left
  int64_t rate_bps = 0;    // the port's line rate
};

struct IntRecord {
  uint32_t psn = 0;  // the packet whose records these are
  uint8_t hops = 0;  // records written
  uint8_t lost = 0;  // hops beyond kIntMaxHops that could not be recorded
  IntHop hop[kIntMaxHops];
};

class IntTable {
 public:
  // REQUIRES: slots_per_qp is a power of two.
  explicit IntTable(uint32_t slots_per_qp);

  // The packet (qp, psn) starts with no records.
  void begin(uint32_t qp, uint32_t psn);
  // One more hop for (qp, psn); ignored if its slot was taken by a later PSN.
  void stamp(uint32_t qp, uint32_t psn, const IntHop& h);
  // The records of (qp, psn), or nullptr if it never began or its slot was reused since.
  const IntRecord* find(uint32_t qp, uint32_t psn) const;
  uint32_t slots_per_qp() const { return mask_ + 1; }

 private:
  IntRecord* slot(uint32_t qp, uint32_t psn);
  uint32_t mask_;
  std::vector<IntRecord> slots_;  // QP q's slots at [q * slots_per_qp, ...)
  std::vector<uint8_t> begun_;    // per slot: begin() ever ran on it
};

}  // namespace fabricsim::net
