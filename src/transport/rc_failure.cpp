// RoCE/IB transport: packets lost to drops and to failed links, and when a QP hit by a link
// failure has recovered (failure_affected_qps, docs/failures.md). Split from rc.cpp.
#include "transport/rc.h"

namespace fabricsim::transport {

using net::Packet;
using net::PacketType;

void RoceTransport::on_dropped(const Packet& p, net::DropReason reason) {
  if (p.type == PacketType::kData) msgs_[p.msg].dropped_bytes += p.payload_bytes;
  if (reason == net::DropReason::kLinkDown) on_failure_loss(p);
}

void RoceTransport::on_failure_loss(const Packet& p) {
  // Every packet of a QP counts, whichever way it travelled: data, READ requests and
  // responses, ACKs, NAKs and CNPs. A QP that lost only ACKs still retransmits (its requester
  // times out) and is affected as much as one that lost data.
  if (p.type != PacketType::kData && p.type != PacketType::kReadRequest &&
      p.type != PacketType::kAck && p.type != PacketType::kNak && p.type != PacketType::kCnp) {
    return;  // link-layer frames (PAUSE, IB flow control) belong to no QP
  }
  Qp& q = qps_[p.qp];
  failure_.hit(q.hit_by_failure);
  if (!reliable() || p.type == PacketType::kCnp) return;  // nothing is ever resent
  // What "recovered" means for the packet lost: the responder has every PSN up to it in order
  // (WRITE/SEND data), or the requester has seen it acknowledged (READ requests and responses,
  // ACKs, NAKs): snd_una moved past it. A packet already covered when it was lost (a duplicate
  // retransmission, an ACK overtaken by a later one) leaves nothing to recover.
  const bool responder_side = p.type == PacketType::kData && !(p.flags & net::kFlagResponse);
  if (responder_side) {
    if (p.psn >= q.epsn) failure_.lost(q.lost_to_failure_end, p.psn);
  } else if (p.psn >= q.snd_una) {
    failure_.lost(q.unacked_lost_end, p.psn);
  }
}

void RoceTransport::check_recovered(Qp& q, uint32_t in_order_end) {
  failure_.reached(q.lost_to_failure_end, in_order_end, sched_.now());
}

void RoceTransport::check_acked_recovered(Qp& q) {
  failure_.reached(q.unacked_lost_end, q.snd_una, sched_.now());
}

}  // namespace fabricsim::transport
