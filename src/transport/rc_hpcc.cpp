// HPCC on the RDMA transport (transport/hpcc.h; docs/cc.md "HPCC"): the INT table the switches
// stamp, the window that holds a QP, and the ACK that feeds the sender rule.
#include <bit>

#include "core/error.h"
#include "transport/rc.h"

namespace fabricsim::transport {

void RoceTransport::enable_hpcc() {
  if (ib()) throw InputError("fabric.roce.cc", "HPCC runs on RoCE (Ethernet), not InfiniBand");
  int_header_bytes_ = static_cast<uint16_t>(kHpccIntHeaderBytes);
  // A PSN's INT slot must outlive its packet until its ACK is read: the sender reads it before
  // PSN + slots is sent when at most `slots` packets are in flight. The window never exceeds
  // W_max = B x T (R <= B), so slots >= ceil(W_max / MTU) + 1 (the packet that overshoots the
  // window by less than an MTU) can never be overrun; a power of two for the table's mask.
  const int64_t line = net_.port(net_.nic_port(0)).rate_bps;
  const double w_max_bytes = static_cast<double>(line) / 8 * hpcc_.base_rtt_ps * 1e-12;
  const auto max_window_pkts = static_cast<uint64_t>(w_max_bytes / cfg_.mtu_bytes) + 2;
  if (max_window_pkts > (1u << 20)) {
    throw InputError("fabric.roce.hpcc.base_rtt",
                     "a window of " + std::to_string(max_window_pkts) +
                         " packets (B x T) is beyond the INT table's 2^20 slots per QP");
  }
  net_.enable_int(std::bit_ceil(static_cast<uint32_t>(max_window_pkts)));
}

bool RoceTransport::window_full(uint32_t qp_id) const {
  const Qp& q = qps_[qp_id];
  // HPCC's sender holds when the bytes on the fly reach the window (rdma-queue-pair.cc
  // IsWinBound: on-the-fly >= win), counted in MTU payloads as the PSNs go.
  const int64_t in_flight_bytes = static_cast<int64_t>(q.snd_nxt - q.snd_una) * cfg_.mtu_bytes;
  return in_flight_bytes >= rps_[qp_id].window_bytes();
}

void RoceTransport::on_hpcc_ack(uint32_t qp_id, uint32_t psn) {
  Qp& q = qps_[qp_id];
  if (const net::IntRecord* rec = net_.int_table()->find(qp_id, psn); rec != nullptr) {
    rps_[qp_id].hpcc()->on_ack(*rec, psn, q.snd_nxt);
    repace(qp_id);
  }
  activate(qp_id);  // the window may have room again (activate ignores an active QP)
}

}  // namespace fabricsim::transport
