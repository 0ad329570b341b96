// RCCC, the UEC receiver-credit congestion control (docs/reference/uet-sim.md §2, read from
// uet-htsim uec.cpp UecPullPacer / UecSrc): each receiver NIC runs one pull pacer at 0.99 x line
// rate that grants credit_per_pull bytes at a time round-robin among the senders that asked for
// credit; a sender starts with speculative credit = maxwnd, drops any positive credit at its
// first feedback (ACK, NACK or credit) and from then on sends only while its credit is > 0.
// Every data packet carries the sender's cumulative credit target (the 24-bit credit_target of
// a RUD_CC_REQ header); a sender without credit and with a timeout asks with CREDIT_REQ (htsim's
// RTS).
#pragma once

#include <cstdint>

#include "core/ring.h"

namespace fabricsim::transport {

// htsim: _mtus_per_pull = 4 x the static 4096-B MSS = 64 quanta of 256 B = 16 384 B ("as per
// default in UEC spec": UNVERIFIED against the spec text); pacer at 0.99 x line rate
// (main_uec.cpp UecPullPacer(linkspeed, 0.99, ...)).
inline constexpr int64_t kRcccCreditPerPullBytes = 16384;
inline constexpr int kRcccPacerRatePercent = 99;

// Sender side of one PDC.
struct UetCredit {
  int64_t credit_bytes = 0;   // may go negative by the last packet's size (htsim)
  int64_t granted_seen = 0;   // cumulative credit received
  bool speculating = true;
};

// Receiver side of one NIC: the PDCs waiting for credit, and when it may grant next.
struct UetPacer {
  Ring<uint32_t> waiting;
  int64_t next_ps = 0;        // earliest next grant
  bool scheduled = false;     // a kCcTimer is pending for this NIC
};

}  // namespace fabricsim::transport
