#include "transport/rc.h"

#include <algorithm>

#include "core/error.h"
#include "net/wire.h"

namespace fabricsim::transport {

using net::Packet;
using net::PacketType;

RoceTransport::RoceTransport(const RoceConfig& cfg, net::Network& net, uint64_t seed,
                             const DcqcnParams& dcqcn, const IbCcParams& ib_cc,
                             const HpccParams& hpcc)
    : NicCore(net),
      cfg_(cfg),
      seed_(seed),
      rto_ps_(cfg.retransmit_timeout_ps()),
      dcqcn_(dcqcn),
      ib_cc_(ib_cc),
      hpcc_(hpcc) {
  // HPCC and Swift read telemetry and delay, not marks: their data is not ECN-capable.
  data_ecn_ = (ib() && cfg_.cc != CongestionControl::kIbCc) ||
                      cfg_.cc == CongestionControl::kHpcc || cfg_.cc == CongestionControl::kSwift
                  ? 0
                  : 2;
  if (cfg_.cc == CongestionControl::kHpcc) enable_hpcc();
  if (cfg_.cc == CongestionControl::kIbCc) validate_ib_cc_params(ib_cc_);  // the RPs index its CCT
  if (cfg_.cc == CongestionControl::kTimely) validate_timely_params(cfg_.timely_params);
  if (cfg_.cc == CongestionControl::kSwift) enable_swift();
  if (cfg_.cc == CongestionControl::kDctcp) {
    validate_dctcp_rdma_params(cfg_.dctcp_params, net_.port(net_.nic_port(0)).rate_bps);
  }
  if (cfg_.cc == CongestionControl::kScheme) {
    scheme_ = find_rate_cc(cfg_.cc_scheme);
    if (scheme_ == nullptr) {
      throw std::invalid_argument("no congestion-control scheme '" + cfg_.cc_scheme +
                                  "' is registered");
    }
  }
  if (cfg_.spray && cfg_.operation == Operation::kRead) {
    // READ responses flow from the responder, which re-issues nothing: spraying them would make
    // every reordered response re-issue the READ. Only WRITE/SEND data is sprayed.
    throw InputError("fabric.transport.operation",
                     "spraying applies to WRITE and SEND, not READ");
  }
  register_endpoint();
}

void RoceTransport::activate(uint32_t qp_id) {
  Qp& q = qps_[qp_id];
  if (q.active || q.failed || q.snd_nxt >= q.psn_end) return;
  q.active = true;
  enqueue(q.src_nic, qp_id);
}

SendState RoceTransport::send_state(uint32_t entry, int64_t& at_ps) {
  if (entry & kResponderEntry) {  // an RDMA READ responder: responses are not paced
    const Qp& q = qps_[entry & ~kResponderEntry];
    if (q.resp_next >= q.resp_end) return SendState::kBlocked;
    return (paused_classes_ & (1u << q.priority)) ? SendState::kPaused : SendState::kReady;
  }
  const Qp& q = qps_[entry];
  if (q.failed || q.snd_nxt >= q.psn_end) return SendState::kBlocked;
  // Its class is paused: the next QP may go.
  if (paused_classes_ & (1u << q.priority)) return SendState::kPaused;
  // Paced by congestion control, or the next message's WQE is still on its way to the NIC.
  // The head message's ready_ps is at most q.last_ready_ps (a QP's messages are ready in
  // posting order, rc_qps.cpp post_on). When that bound has passed, or pacing holds the QP
  // until after it, the head's time cannot change the answer, and its record is not read: the
  // QP's message list and the record are two more cache misses, each after the one before, on
  // every look at a paced QP in its NIC's round-robin (docs/performance.md, session 30).
  const int64_t now = sched_.now();
  int64_t not_before = q.next_send_ps;
  if (q.last_ready_ps > std::max(not_before, now)) {
    if (const Message& head = msgs_[q.msgs[q.nxt_msg]]; q.snd_nxt == head.first_psn) {
      not_before = std::max(not_before, head.ready_ps);
    }
  }
  if (not_before > now) {
    at_ps = not_before;
    return SendState::kLater;
  }
  // A window (HPCC, Swift, DCTCP) holds the QP until an ACK frees room (on_hpcc_ack,
  // on_swift_ack, on_dctcp_ack activate it again).
  if (windowed() && window_full(entry)) return SendState::kBlocked;
  return SendState::kReady;
}

void RoceTransport::deactivate(uint32_t entry) {
  if (entry & kResponderEntry) {
    qps_[entry & ~kResponderEntry].resp_active = false;
  } else {
    qps_[entry].active = false;
  }
}

bool RoceTransport::send(uint32_t entry, Packet& out) {
  if (entry & kResponderEntry) {
    const uint32_t qp_id = entry & ~kResponderEntry;
    make_read_response(qp_id, out);
    return qps_[qp_id].resp_next < qps_[qp_id].resp_end;
  }
  const uint32_t qp_id = entry;
  Qp& q = qps_[qp_id];
  const bool first_transmission = q.snd_nxt >= q.high_sent;
  make_data_packet(qp_id, out);
  if (cc_enabled()) {
    const int64_t now = sched_.now();
    RateCc& rp = rps_[qp_id];
    if (rp.wants_acks() && q.rtt_sent_ps < 0 && first_transmission &&
        out.type == PacketType::kData) {
      q.rtt_sent_ps = now;  // a first transmission: time it
      q.rtt_psn = out.psn;
    }
    if (SwiftCc* w = rp.swift(); w != nullptr && out.type == PacketType::kData) {
      w->on_sent(out.psn, first_transmission, now);  // its delay sample's start
    }
    q.last_wire_bytes = net_.wire_bytes(out);
    q.last_send_ps = now;
    rp.on_bytes_sent(out.frame_bytes, now);
    q.next_send_ps = now + serialization_ps(q.last_wire_bytes, rp.rate_bps());
    arm_cc_timer(qp_id);
  }
  return q.snd_nxt < q.psn_end;
}

void RoceTransport::on_cnp(uint32_t qp_id) {
  Qp& q = qps_[qp_id];
  if (q.round_cnps < UINT16_MAX) ++q.round_cnps;
  if (!cc_enabled()) return;
  // InfiniBand CC per SL: a BECN for a QP whose SL is off in the Control_Map changes nothing.
  if (cfg_.cc == CongestionControl::kIbCc && !((ib_cc_.control_map >> q.sl) & 1u)) return;
  rps_[qp_id].on_cnp(sched_.now());
  repace(qp_id);
  arm_cc_timer(qp_id);
}

RateCc RoceTransport::make_cc(uint32_t qp_id, uint32_t src_nic, uint32_t dst_nic) {
  const int64_t line = net_.port(net_.nic_port(src_nic)).rate_bps;
  switch (cfg_.cc) {
    case CongestionControl::kDcqcn: return RateCc(DcqcnRp(dcqcn_, line));
    case CongestionControl::kIbCc: return RateCc(IbCcRp(ib_cc_, line));
    case CongestionControl::kTimely: return RateCc(TimelyRp(cfg_.timely_params, line));
    case CongestionControl::kHpcc: return RateCc(HpccCc(hpcc_, line));
    case CongestionControl::kSwift: return make_swift(src_nic, dst_nic, line);
    case CongestionControl::kDctcp: return RateCc(DctcpRdma(cfg_.dctcp_params, line));
    default: {
      std::unique_ptr<RateCcScheme> s =
          (*scheme_)(RateCcContext{qp_id, src_nic, dst_nic, line, cfg_.mtu_bytes});
      if (!s) {
        throw std::invalid_argument("scheme '" + cfg_.cc_scheme + "' made no controller");
      }
      return RateCc(std::move(s));
    }
  }
}

void RoceTransport::repace(uint32_t qp_id) {
  Qp& q = qps_[qp_id];
  if (q.last_wire_bytes == 0) return;  // nothing sent yet
  const int64_t next =
      q.last_send_ps + serialization_ps(q.last_wire_bytes, rps_[qp_id].rate_bps());
  if (next == q.next_send_ps) return;
  const bool was_waiting = q.next_send_ps > sched_.now();
  q.next_send_ps = next;
  ring_changed(q.src_nic);
  // A QP waiting for its pacing time may now go sooner: make sure its NIC looks again then.
  if (was_waiting && q.active) wake_at(q.src_nic, std::max(next, sched_.now()));
}

void RoceTransport::arm_cc_timer(uint32_t qp_id) {
  Qp& q = qps_[qp_id];
  const int64_t next = rps_[qp_id].next_timer_ps();
  if (next < q.cc_timer_ps) {
    q.cc_timer_ps = next;
    sched_.at(next, kCcTimer, qp_id, q.src_nic);  // the event order's owner: the QP's NIC
  }
}

void RoceTransport::on_cc_timer(uint32_t qp_id) {
  Qp& q = qps_[qp_id];
  if (q.cc_timer_ps != sched_.now()) return;  // superseded by an earlier timer
  q.cc_timer_ps = kNoTimer;
  rps_[qp_id].on_timer(sched_.now());
  repace(qp_id);
  arm_cc_timer(qp_id);
}

void RoceTransport::make_data_packet(uint32_t qp_id, Packet& p) {
  if (cfg_.operation == Operation::kRead) {
    make_read_request(qp_id, p);
    return;
  }
  Qp& q = qps_[qp_id];
  // mode: hybrid: PSNs carried analytically are never sent (a go-back-N resend skips them too).
  if (q.skip_count != 0 && q.snd_nxt == q.skip_psn) [[unlikely]] q.snd_nxt += q.skip_count;
  const uint32_t msg_id = q.msgs[q.nxt_msg];
  Message& m = msgs_[msg_id];
  const uint32_t index = q.snd_nxt - m.first_psn;
  const bool last = index + 1 == m.npkts;
  const uint32_t payload =
      last ? static_cast<uint32_t>(m.size_bytes - static_cast<int64_t>(index) * cfg_.mtu_bytes)
           : static_cast<uint32_t>(cfg_.mtu_bytes);
  p.src_nic = q.src_nic;
  p.dst_nic = q.dst_nic;
  p.qp = qp_id;
  p.psn = q.snd_nxt;
  p.msg = msg_id;
  p.payload_bytes = static_cast<uint16_t>(payload);
  p.frame_bytes =
      static_cast<uint16_t>(data_frame_bytes(cfg_, payload, index == 0, last) + int_header_bytes_);
  p.entropy = cfg_.spray ? spray_entropy(q) : q.entropy;
  p.type = PacketType::kData;
  p.priority = q.priority;
  p.ecn = data_ecn();  // ECT(0): RoCEv2 NICs send ECN-capable traffic
  p.flags = static_cast<uint8_t>((index == 0 ? net::kFlagFirst : 0) |
                                 (last ? net::kFlagLast : 0) | (q.sl << net::kFlagSlShift));

  if (q.snd_una == q.snd_nxt) q.last_progress_ps = sched_.now();  // the RTO clock starts
  if (q.snd_nxt < q.high_sent) {
    ++m.retransmitted_packets;
    ++ctr(counters_).retransmitted_packets;
    if (q.snd_nxt < q.gbn_resend_end) ++ctr(counters_).go_back_n_retransmits;
  }
  ++q.snd_nxt;
  q.high_sent = std::max(q.high_sent, q.snd_nxt);
  if (last) ++q.nxt_msg;
  m.sent_bytes += payload;
  ++ctr(counters_).data_packets_sent;
  ctr(counters_).data_bytes_sent += payload;
  if (!reliable()) {
    // UC and UD expect no acknowledgement: the requester is done once the packet is out.
    q.snd_una = q.snd_nxt;
    if (last) {
      m.tx_done_ps = sched_.now();
      --owed().unacked;
      ++q.una_msg;
    }
    return;
  }
  if (!q.timer_pending) arm_timer(qp_id, sched_.now() + rto_ps_);
}

void RoceTransport::send_control(const Qp& q, PacketType type, uint32_t qp_id, uint32_t psn,
                                 bool ece) {
  Packet p;
  p.src_nic = q.dst_nic;  // from the responder back to the requester
  p.dst_nic = q.src_nic;
  p.qp = qp_id;
  p.psn = psn;
  p.msg = kNoMessage;
  p.entropy = ib() ? lid_of(q, q.src_nic) : q.entropy;
  p.type = type;
  p.flags = static_cast<uint8_t>((ece ? net::kFlagEce : 0) | (q.sl << net::kFlagSlShift));
  if (type == PacketType::kCnp && ib()) {
    // IBA A10.3.2: a CNP is BTH opcode 0x80 with no payload, on the QP's own SL (VL).
    p.frame_bytes = static_cast<uint16_t>(net::ib_packet_bytes(0));
    p.priority = q.priority;
  } else if (type == PacketType::kCnp) {
    p.frame_bytes = static_cast<uint16_t>(net::roce_cnp_frame_bytes(cfg_.vlan_tag));
    p.priority = static_cast<uint8_t>(cfg_.cnp_priority);
  } else {
    p.frame_bytes = static_cast<uint16_t>((ib() ? net::ib_packet_bytes(net::kAethBytes)
                                                : net::roce_ack_frame_bytes(cfg_.vlan_tag)) +
                                          int_header_bytes_);  // HPCC: the echoed INT
    p.priority = q.priority;
    ++ctr(counters_).ack_packets;
  }
  net_.nic_send(q.dst_nic, p);
}

void RoceTransport::on_data(const Packet& p) {
  Qp& q = qps_[p.qp];
  Message& m = msgs_[p.msg];
  if (p.ecn == 3) {
    ++ctr(counters_).ecn_marked_packets;
    // Notification point: DCQCN's sends at most one CNP per QP per interval (reference §1);
    // InfiniBand CC returns a BECN for every FECN (cnp_interval 0: dcqcn_ is unset).
    // DCTCP hears of marks through the ACKs' ECN echo, not CNPs.
    if (cc_enabled() && cfg_.cc != CongestionControl::kDctcp &&
        (q.last_cnp_ps < 0 || sched_.now() - q.last_cnp_ps >= dcqcn_.cnp_interval_ps)) {
      q.last_cnp_ps = sched_.now();
      ++ctr(counters_).cnps_sent;
      send_control(q, PacketType::kCnp, p.qp, 0);
    }
  }
  m.delivered_bytes += p.payload_bytes;
  ctr(counters_).data_bytes_delivered += p.payload_bytes;
  const bool last = p.flags & net::kFlagLast;
  if (!reliable()) {
    // UC/UD: no ACK, no retransmission. A gap voids the message in progress; the next packet
    // that starts a message resynchronizes (IBA 9.7.5.2 UC responder, rxe_resp.c check_psn).
    if (p.psn < q.epsn) return;
    if (p.psn > q.epsn || (p.flags & net::kFlagFirst)) {
      q.uc_discard = !(p.flags & net::kFlagFirst);
    }
    q.epsn = p.psn + 1;
    m.placed_bytes += p.payload_bytes;
    if (last && !q.uc_discard) deliver(p.msg, q.dst_nic);
    return;
  }
  if (p.psn == q.epsn) {
    accept_in_order(q, p.qp, last, p.ecn == 3);
  } else if (p.psn > q.epsn) {
    if (cfg_.out_of_order) {
      place_out_of_order(q, p.qp, p.psn);
      return;
    }
    if (!q.nak_sent) start_go_back_n(q, p.qp);
  } else if (q.epsn > 0) {
    send_control(q, PacketType::kAck, p.qp, q.epsn - 1);  // duplicate: re-ACK
  }
}

void RoceTransport::accept_in_order(Qp& q, uint32_t qp_id, bool last, bool ce) {
  credit_placed(q, q.epsn, 1);
  ++q.epsn;
  if (q.skip_count != 0 && q.epsn == q.skip_psn) [[unlikely]] receive_skipped(q);
  const uint32_t accepted = 1 + drain_placed(q);  // placed packets now in order (counted then)
  q.nak_sent = false;
  check_recovered(q, q.epsn);
  if (ce) q.ce_since_ack = true;
  const uint32_t done_before = q.rx_msg;
  complete_received(q);
  q.since_ack += accepted;
  // Coalesced ACKs: the responder answers the packets whose AckReq bit the requester set, every
  // ack_every-th one and each message's last (reference §5; transport/config.h ack_every).
  if (q.since_ack >= static_cast<uint32_t>(cfg_.ack_every) || last || q.rx_msg != done_before) {
    q.since_ack = 0;
    send_control(q, PacketType::kAck, qp_id, q.epsn - 1, q.ce_since_ack);
    q.ce_since_ack = false;
  }
}

// MessageRecord::placed_bytes: what the responder holds, each byte once, counted when a packet
// is accepted in order or placed out of order, and taken back if a go-back-N fallback discards
// placed packets. PSNs >= epsn belong to the messages from rx_msg on, in PSN order.
void RoceTransport::credit_placed(Qp& q, uint32_t psn, int sign) {
  size_t lo = q.rx_msg, hi = q.msgs.size();
  while (hi - lo > 1) {  // the last message starting at or before psn
    const size_t mid = lo + (hi - lo) / 2;
    if (msgs_[q.msgs[mid]].first_psn <= psn) lo = mid; else hi = mid;
  }
  if (lo >= q.msgs.size()) return;
  Message& m = msgs_[q.msgs[lo]];
  if (psn < m.first_psn || psn >= m.first_psn + m.npkts) return;
  const int64_t mtu = cfg_.mtu_bytes;
  const int64_t offset = static_cast<int64_t>(psn - m.first_psn) * mtu;
  m.placed_bytes += sign * std::min(mtu, m.size_bytes - offset);
}

void RoceTransport::complete_received(Qp& q) {
  while (q.rx_msg < q.msgs.size()) {
    const uint32_t id = q.msgs[q.rx_msg];
    Message& m = msgs_[id];
    if (m.first_psn + m.npkts > q.epsn) break;
    ++q.rx_msg;
    deliver(id, q.dst_nic);
  }
}

void RoceTransport::deliver(uint32_t msg, uint32_t nic) {
  const int64_t delay = net_.nic_config(nic).completion_ps();
  msgs_[msg].rx_done_ps = sched_.now() + delay;
  complete_at(msg, sched_.now() + delay, nic);
}

void RoceTransport::acknowledge(Qp& q, uint32_t ack_upto) {
  if (ack_upto <= q.snd_una || q.failed) return;
  q.snd_una = ack_upto;
  if (q.skip_count != 0 && q.snd_una >= q.skip_psn + q.skip_count) q.skip_count = 0;  // both passed it
  q.last_progress_ps = sched_.now();
  q.retries = 0;
  check_acked_recovered(q);
  while (q.una_msg < q.msgs.size()) {
    Message& m = msgs_[q.msgs[q.una_msg]];
    if (m.first_psn + m.npkts > q.snd_una) break;
    m.tx_done_ps = sched_.now();
    --owed().unacked;
    ++q.una_msg;
    if (cfg_.operation == Operation::kRead) {
      // A READ completes where its data lands: at the requester, with its last response.
      deliver(q.msgs[q.una_msg - 1], q.src_nic);
    }
  }
  if (q.snd_nxt < q.snd_una) rewind(q, q.snd_una);
  retire_front();
}

bool RoceTransport::retire_messages(RetireFn retire) {
  // A re-issued READ request can still reach the responder after its message completed (the
  // responses that completed it overtook it), so READ keeps every record.
  if (cfg_.operation == Operation::kRead) return false;
  retire_ = std::move(retire);
  retire_front();
  return true;
}

// A message is final when the application has seen it (its kMsgComplete ran), its sender has
// seen it acknowledged, and every payload byte it sent has arrived or been reported dropped (no
// duplicate is on its way). Then no position of its QP points at it (una_msg, rx_msg and
// nxt_msg are past it; READ never retires) and no packet names it: it is the oldest message of
// its QP, and both are released. Called where a message can become final (an acknowledgement,
// a completion); one whose last duplicate was still in flight then is retired at a later call.
void RoceTransport::retire_front() {
  if (!retire_) return;
  while (!msgs_.empty()) {
    const uint32_t id = msgs_.front_id();
    const Message& m = msgs_[id];
    if (!m.app_done || m.tx_done_ps < 0 || m.sent_bytes != m.delivered_bytes + m.dropped_bytes) {
      return;
    }
    Qp& q = qps_[m.qp];
    q.retired_sent_bytes += m.sent_bytes;
    q.msgs.pop_front();
    retire_(id, m);
    msgs_.pop_front();
  }
}

void RoceTransport::rewind(Qp& q, uint32_t psn) {
  q.snd_nxt = psn;
  ring_changed(q.src_nic);
  q.nxt_msg = q.una_msg;
  while (q.nxt_msg < q.msgs.size()) {
    const Message& m = msgs_[q.msgs[q.nxt_msg]];
    if (m.first_psn + m.npkts > psn) break;
    ++q.nxt_msg;
  }
}

void RoceTransport::on_ack(uint32_t qp_id, uint32_t psn, bool ece) {
  Qp& q = qps_[qp_id];
  const uint32_t before = q.snd_una;
  acknowledge(q, psn + 1);
  if (cfg_.plb.enabled && q.snd_una > before) plb_round(qp_id, q.snd_una - before, ece);
  if (cfg_.cc == CongestionControl::kHpcc) on_hpcc_ack(qp_id, psn);
  if (cfg_.cc == CongestionControl::kDctcp) on_dctcp_ack(qp_id, ece);
  if (cfg_.cc == CongestionControl::kSwift && q.snd_una > before) {
    on_swift_ack(qp_id, psn, q.snd_una - before);
  }
  if (cc_enabled() && q.snd_una > before && rps_[qp_id].wants_acks()) {
    int64_t rtt_ps = -1;
    if (q.rtt_sent_ps >= 0 && q.snd_una > q.rtt_psn) {
      rtt_ps = sched_.now() - q.rtt_sent_ps;
      q.rtt_sent_ps = -1;
    }
    const int64_t mtu = cfg_.mtu_bytes;  // payload bytes a full packet carries
    rps_[qp_id].on_ack(static_cast<int64_t>(q.snd_una - before) * mtu, rtt_ps, ece,
                       sched_.now());
    repace(qp_id);
    arm_cc_timer(qp_id);
  }
}

void RoceTransport::on_nak(uint32_t qp_id, uint32_t psn) {
  Qp& q = qps_[qp_id];
  ++ctr(counters_).naks;
  if (q.failed) return;
  acknowledge(q, psn);  // a sequence NAK acknowledges every PSN below it
  if (q.snd_nxt > psn) {
    if (cfg_.cc == CongestionControl::kSwift) on_swift_loss(qp_id, false);
    q.gbn_resend_end = std::max(q.gbn_resend_end, q.high_sent);
    rewind(q, psn);
    activate(qp_id);
  }
}

void RoceTransport::arm_timer(uint32_t qp_id, int64_t at_ps) {
  qps_[qp_id].timer_pending = true;
  sched_.at(at_ps, kQpTimer, qp_id, qps_[qp_id].src_nic);
}

void RoceTransport::on_timer(uint32_t qp_id) {
  Qp& q = qps_[qp_id];
  q.timer_pending = false;
  if (q.failed || q.snd_una >= q.snd_nxt) return;  // nothing outstanding; a send re-arms
  const int64_t deadline = q.last_progress_ps + rto_ps_;
  if (sched_.now() < deadline) {
    arm_timer(qp_id, deadline);
    return;
  }
  ++ctr(counters_).timeouts;
  if (q.retries++ >= cfg_.retry_count) {
    // Retries exhausted: the QP enters the error state (IBTA); its unfinished messages fail.
    q.failed = true;
    ring_changed(q.src_nic);
    ++ctr(counters_).qp_errors;
    owed().unacked -= static_cast<int64_t>(q.msgs.size() - q.una_msg);
    return;
  }
  q.last_progress_ps = sched_.now();
  if (cfg_.cc == CongestionControl::kSwift) on_swift_loss(qp_id, true);
  q.gbn_resend_end = 0;  // what it resends now, it resends for the timeout
  rewind(q, q.snd_una);
  activate(qp_id);
  arm_timer(qp_id, sched_.now() + rto_ps_);
}

}  // namespace fabricsim::transport
