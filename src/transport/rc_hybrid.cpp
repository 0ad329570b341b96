// mode: hybrid (engine/hybrid/steady_skip.h): a QP whose group is in steady state carries part
// of its current message analytically. The skipped PSNs sit strictly inside the message (never
// its first or last packet), so message boundaries, completions and the last packet's size are
// untouched; the requester jumps over them when it sends (also after a go-back-N rewind), the
// responder when its expected PSN reaches them, and the cumulative ACK that follows covers them.
#include "transport/rc.h"

namespace fabricsim::transport {

uint32_t RoceTransport::skippable_packets(uint32_t qp_id, uint32_t margin) const {
  const Qp& q = qps_[qp_id];
  if (!reliable() || cfg_.operation == Operation::kRead || q.failed || q.skip_count != 0) return 0;
  if (q.nxt_msg >= q.msgs.size()) return 0;
  const Message& m = msgs_[q.msgs[q.nxt_msg]];
  if (q.snd_nxt <= m.first_psn || q.snd_nxt < q.high_sent) return 0;  // not started, or resending
  const uint32_t last_psn = m.first_psn + m.npkts - 1;
  const uint32_t before_last = last_psn - q.snd_nxt;
  return before_last > margin ? before_last - margin : 0;
}

void RoceTransport::skip_packets(uint32_t qp_id, uint32_t packets) {
  Qp& q = qps_[qp_id];
  Message& m = msgs_[q.msgs[q.nxt_msg]];
  q.skip_psn = q.snd_nxt;
  q.skip_count = packets;
  q.snd_nxt += packets;
  ring_changed(q.src_nic);
  q.high_sent = q.snd_nxt;
  const int64_t bytes = static_cast<int64_t>(packets) * cfg_.mtu_bytes;
  m.sent_bytes += bytes;
  ctr(counters_).data_packets_sent += packets;
  ctr(counters_).data_bytes_sent += bytes;
  // Nothing of the QP in flight: the responder already expects the first skipped PSN.
  if (q.epsn == q.skip_psn) receive_skipped(q);
}

void RoceTransport::unskip_packets(uint32_t qp_id, uint32_t packets) {
  Qp& q = qps_[qp_id];
  Message& m = msgs_[q.msgs[q.nxt_msg]];
  const int64_t bytes = static_cast<int64_t>(packets) * cfg_.mtu_bytes;
  if (q.epsn == q.skip_psn + q.skip_count) {  // the responder had moved past them: back too
    q.epsn -= packets;
    m.placed_bytes -= bytes;
    m.delivered_bytes -= bytes;
    ctr(counters_).data_bytes_delivered -= bytes;
  }
  q.skip_count -= packets;
  q.snd_nxt -= packets;
  ring_changed(q.src_nic);
  q.high_sent = q.snd_nxt;
  m.sent_bytes -= bytes;
  ctr(counters_).data_packets_sent -= packets;
  ctr(counters_).data_bytes_sent -= bytes;
}

void RoceTransport::receive_skipped(Qp& q) {
  // The skip lies inside one message (skippable_packets), the one being received.
  Message& m = msgs_[q.msgs[q.rx_msg]];
  const int64_t bytes = static_cast<int64_t>(q.skip_count) * cfg_.mtu_bytes;
  q.epsn += q.skip_count;
  m.placed_bytes += bytes;
  m.delivered_bytes += bytes;
  ctr(counters_).data_bytes_delivered += bytes;
}

void RoceTransport::shift_qp_time(uint32_t qp_id, int64_t delta_ps) {
  Qp& q = qps_[qp_id];
  q.last_progress_ps += delta_ps;
  q.next_send_ps += delta_ps;
  ring_changed(q.src_nic);
  q.last_send_ps += delta_ps;
  if (q.rtt_sent_ps >= 0) q.rtt_sent_ps += delta_ps;
  // Congestion control keeps real time (its timers, its CNP interval): a skip ends before its
  // next timer (engine/hybrid/steady_skip.h), which then runs when it would have.
}

void RoceTransport::count_skipped_for_cc(uint32_t qp_id, uint32_t packets) {
  if (!cc_enabled() || packets == 0) return;
  // What DCQCN's byte counter would have counted: the frames of the skipped packets.
  const auto frame = static_cast<int64_t>(data_frame_bytes(cfg_, cfg_.mtu_bytes, false, false));
  rps_[qp_id].on_bytes_sent(frame * packets, sched_.now());
  repace(qp_id);
  arm_cc_timer(qp_id);
}

int64_t RoceTransport::data_wire_bytes() const {
  net::Packet p;
  p.frame_bytes = static_cast<uint16_t>(
      data_frame_bytes(cfg_, static_cast<uint32_t>(cfg_.mtu_bytes), false, false) +
      int_header_bytes_);
  return net_.wire_bytes(p);
}

int64_t RoceTransport::ack_wire_bytes() const {
  net::Packet p;
  p.frame_bytes = static_cast<uint16_t>(
      (ib() ? net::ib_packet_bytes(net::kAethBytes) : net::roce_ack_frame_bytes(cfg_.vlan_tag)) +
      int_header_bytes_);
  return net_.wire_bytes(p);
}

net::Packet RoceTransport::data_header(uint32_t qp_id) const {
  const Qp& q = qps_[qp_id];
  net::Packet p;
  p.src_nic = q.src_nic;
  p.dst_nic = q.dst_nic;
  p.qp = qp_id;
  p.entropy = q.entropy;
  p.type = net::PacketType::kData;
  p.priority = q.priority;
  p.flags = static_cast<uint8_t>(q.sl << net::kFlagSlShift);
  return p;
}

net::Packet RoceTransport::ack_header(uint32_t qp_id) const {
  const Qp& q = qps_[qp_id];
  net::Packet p;
  p.src_nic = q.dst_nic;
  p.dst_nic = q.src_nic;
  p.qp = qp_id;
  p.entropy = ib() ? lid_of(q, q.src_nic) : q.entropy;
  p.type = net::PacketType::kAck;
  p.priority = q.priority;
  p.flags = static_cast<uint8_t>(q.sl << net::kFlagSlShift);
  return p;
}

}  // namespace fabricsim::transport
