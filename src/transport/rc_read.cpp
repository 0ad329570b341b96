// RDMA READ on an RC QP (IBTA 9.4.3 and 9.7; reference infiniband.md §5): the requester sends one
// READ REQUEST (BTH + RETH) per message, asking for the message's PSN range; the responder
// streams READ RESPONSE packets (AETH on FIRST/LAST/ONLY) back, unacknowledged. Responses are the
// requester's acknowledgements: each in-order response advances snd_una; a response beyond
// snd_una means some were lost, and the requester re-issues the READ from snd_una (as it does on
// its retransmit timeout). A request for a PSN below what the responder is sending rewinds it
// (a duplicate READ is re-executed); a later one extends the range it serves.
#include <algorithm>

#include "net/wire.h"
#include "transport/rc.h"

namespace fabricsim::transport {

using net::Packet;
using net::PacketType;

void RoceTransport::make_read_request(uint32_t qp_id, Packet& p) {
  Qp& q = qps_[qp_id];
  const uint32_t msg_id = q.msgs[q.nxt_msg];
  Message& m = msgs_[msg_id];
  p.src_nic = q.src_nic;
  p.dst_nic = q.dst_nic;
  p.qp = qp_id;
  p.psn = q.snd_nxt;  // a re-issued READ asks from the first missing response on
  p.msg = msg_id;
  p.payload_bytes = 0;
  p.frame_bytes = static_cast<uint16_t>(read_request_frame_bytes(cfg_));
  p.entropy = q.entropy;
  p.type = PacketType::kReadRequest;
  p.priority = q.priority;
  p.ecn = data_ecn();
  p.flags = static_cast<uint8_t>(q.sl << net::kFlagSlShift);
  if (q.snd_una == q.snd_nxt) q.last_progress_ps = sched_.now();  // the RTO clock starts
  if (q.snd_nxt < q.high_sent) {
    ++m.retransmitted_packets;
    ++ctr(counters_).retransmitted_packets;
  }
  q.snd_nxt = m.first_psn + m.npkts;  // one request covers the rest of the message
  q.high_sent = std::max(q.high_sent, q.snd_nxt);
  ++q.nxt_msg;
  ++ctr(counters_).read_requests;
  if (!q.timer_pending) arm_timer(qp_id, sched_.now() + rto_ps_);
}

void RoceTransport::on_read_request(const Packet& p) {
  Qp& q = qps_[p.qp];
  const Message& m = msgs_[p.msg];
  if (p.psn < q.resp_next || q.resp_next >= q.resp_end) {
    // Idle, or a re-issued READ: serve from the PSN it asks for.
    q.resp_next = p.psn;
    q.resp_msg = q.msgs.first() +
                 static_cast<uint32_t>(std::upper_bound(q.msgs.begin(), q.msgs.end(), p.psn,
                                                        [this](uint32_t psn, uint32_t id) {
                                                          return psn < msgs_[id].first_psn;
                                                        }) -
                                       q.msgs.begin()) -
                 1;
  }
  q.resp_end = std::max(q.resp_end, m.first_psn + m.npkts);
  ring_changed(q.dst_nic);
  activate_responder(p.qp);
}

void RoceTransport::activate_responder(uint32_t qp_id) {
  Qp& q = qps_[qp_id];
  if (q.resp_active || q.resp_next >= q.resp_end) return;
  q.resp_active = true;
  enqueue(q.dst_nic, qp_id | kResponderEntry);
}

void RoceTransport::make_read_response(uint32_t qp_id, Packet& p) {
  Qp& q = qps_[qp_id];
  const uint32_t msg_id = q.msgs[q.resp_msg];
  Message& m = msgs_[msg_id];
  const uint32_t index = q.resp_next - m.first_psn;
  const bool first = index == 0;
  const bool last = index + 1 == m.npkts;
  const uint32_t payload =
      last ? static_cast<uint32_t>(m.size_bytes - static_cast<int64_t>(index) * cfg_.mtu_bytes)
           : static_cast<uint32_t>(cfg_.mtu_bytes);
  p.src_nic = q.dst_nic;  // the data flows from the responder back to the requester
  p.dst_nic = q.src_nic;
  p.qp = qp_id;
  p.psn = q.resp_next;
  p.msg = msg_id;
  p.payload_bytes = static_cast<uint16_t>(payload);
  p.frame_bytes = static_cast<uint16_t>(data_frame_bytes(cfg_, payload, first, last));
  p.entropy = ib() ? lid_of(q, q.src_nic) : q.entropy;
  p.type = PacketType::kData;
  p.priority = q.priority;
  p.ecn = data_ecn();
  p.flags = static_cast<uint8_t>((first ? net::kFlagFirst : 0) | (last ? net::kFlagLast : 0) |
                                 net::kFlagResponse | (q.sl << net::kFlagSlShift));
  if (q.resp_next < q.resp_high) {
    ++m.retransmitted_packets;
    ++ctr(counters_).retransmitted_packets;
  }
  ++q.resp_next;
  q.resp_high = std::max(q.resp_high, q.resp_next);
  if (last) ++q.resp_msg;
  m.sent_bytes += payload;
  ++ctr(counters_).data_packets_sent;
  ctr(counters_).data_bytes_sent += payload;
}

void RoceTransport::on_read_response(const Packet& p) {
  Qp& q = qps_[p.qp];
  Message& m = msgs_[p.msg];
  m.delivered_bytes += p.payload_bytes;
  ctr(counters_).data_bytes_delivered += p.payload_bytes;
  if (p.psn == q.snd_una) {
    m.placed_bytes += p.payload_bytes;
    q.read_reissued = false;
    acknowledge(q, q.snd_una + 1);  // completes the READ when it is the message's last
  } else if (p.psn > q.snd_una && !q.read_reissued && !q.failed) {
    // Responses are missing: ask again from the first one not received.
    q.read_reissued = true;
    rewind(q, q.snd_una);
    activate(p.qp);
  }
}

}  // namespace fabricsim::transport
