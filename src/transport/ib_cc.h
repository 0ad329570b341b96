// InfiniBand congestion control (IBA vol 1 Annex A10): the source HCA's reaction to BECNs.
//
// A switch marks FECN on a data packet leaving an egress VL queue that holds more than the
// threshold (the network's ECN step marking, configured by resolve for IB CC). The destination
// HCA returns a congestion notification (a CNP, BTH opcode 0x80 — the Annex lets it ride in an
// ACK or travel alone; the model sends one per marked packet). The source HCA keeps a
// Congestion Control Table Index (CCTI) per QP:
//   each BECN:              CCTI <- min(CCTI + CCTI_Increase, CCTI_Limit)
//   each CCTI_Timer expiry: CCTI <- max(CCTI - 1, CCTI_Min)
// and delays injection by CCT[CCTI]. A 16-bit CCT entry is shift (2 bits) : multiplier (14
// bits); the inter-packet delay is (max_pkt_time >> shift) x multiplier, max_pkt_time being the
// time of a largest (MTU) packet at the port's rate (Linux hfi1 init.c set_link_ipg; OpenSM
// osm_congestion_control.c packs the entries the same way). The timer unit is 1.024 us (IBA
// CACongestionSetting CCTI_Timer; shared/reference/infiniband.md §7).
// The model turns the delay into a rate: an MTU packet and its delay take
// max_pkt_time x (1 + multiplier / 2^shift), so rate = line / (1 + multiplier / 2^shift), exact
// for MTU-sized packets (the bulk of a transfer); smaller packets are spaced at the same rate.
// Control is per QP (CACongestionSetting Port_Control bit 0 = 0, "QP based").
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "transport/param_error.h"
#include "transport/transport.h"  // kNoTimer

namespace fabricsim::transport {

struct IbCcEntry {
  uint8_t shift = 0;        // 0..3
  uint16_t multiplier = 0;  // 0..16383
};

struct IbCcParams {
  int ccti_increase = 1;
  int64_t ccti_timer_ps = 0;  // one decrement per expiry; a multiple of 1.024 us on the wire
  int ccti_min = 0;
  int ccti_limit = 0;  // the highest index used: at most cct.size() - 1
  std::vector<IbCcEntry> cct;
  // Switch marking: FECN on data leaving an egress VL queue above this many bytes.
  int64_t threshold_bytes = 0;
  // Switch Marking_Rate: eligible packets left unmarked between two marks (0: mark every one).
  int marking_rate = 0;
  // CACongestionSetting Control_Map: bit i set, the QPs on SL i react to BECNs (their CCTI
  // moves); a QP on another SL keeps the line rate. Per traffic class, as the Annex selects it.
  uint16_t control_map = 0xFFFF;
};

// The defaults (values and sources in ib_cc.cpp; docs/cc.md "InfiniBand CC").
IbCcParams ib_cc_defaults();

using IbCcParamError = ParamError;  // transport/param_error.h
void validate_ib_cc_params(const IbCcParams& p);

// The reaction point of one QP. REQUIRES (every call): now_ps never decreases.
class IbCcRp {
 public:
  // REQUIRES: `p` outlives the RP (the transport keeps one table for all its QPs).
  IbCcRp(const IbCcParams& p, int64_t line_rate_bps);

  int64_t rate_bps() const { return rate_bps_; }
  int ccti() const { return ccti_; }
  int64_t next_timer_ps() const { return timer_ps_; }
  // A BECN (the CNP of a FECN-marked packet) reached the source HCA.
  void on_cnp(int64_t now_ps);
  void on_bytes_sent(int64_t, int64_t) {}
  // Runs every CCTI_Timer expiry due at or before now_ps.
  void on_timer(int64_t now_ps);

 private:
  void set_ccti(int ccti);

  const IbCcParams* p_;  // owned by the transport, outlives every RP
  int64_t line_rate_bps_;
  int ccti_;
  int64_t rate_bps_;
  int64_t timer_ps_ = kNoTimer;  // runs while CCTI is above CCTI_Min
};

}  // namespace fabricsim::transport
