// UET receiver (PDS, docs/reference/uet-sim.md §5): placing packets, delivering messages once,
// ACK coalescing with SACK, NACKs for trimmed packets and for ROD gaps.
#include <algorithm>

#include "transport/uet.h"

namespace fabricsim::transport {

using net::Packet;
using net::PacketType;

void UetTransport::on_data(const Packet& p) {
  UetPdc& q = pdcs_[p.qp];
  const bool ce = p.ecn == 3;
  if (cfg_.rccc) {
    // The packet's credit target (RUD_CC_REQ credit_target; the model reads the value the
    // sender stored for this PSN when it sent it).
    const UetTxSlot& s = q.tx[p.psn & (static_cast<uint32_t>(q.tx.size()) - 1)];
    if (s.psn == p.psn) note_target(p.qp, s.pull_target);
  }
  if (p.flags & net::kFlagTrimmed) {
    // The payload the switch cut off, for the message's accounting (retire_front).
    UetMessage& tm = msgs_[p.msg];
    const uint32_t index = p.psn - tm.first_psn;
    tm.trimmed_bytes += index + 1 == tm.npkts
                            ? tm.size_bytes - static_cast<int64_t>(index) * cfg_.mtu_bytes
                            : static_cast<int64_t>(cfg_.mtu_bytes);
    // Only the header arrived: NACK it at once so the sender resends it (htsim processTrimmed).
    // TRIMMED_LASTHOP when the switch that trimmed it faces this NIC (net::kFlagTrimmedLastHop).
    ++ctr(counters_).trims_seen;
    // First flush a coalesced ACK the sender may be waiting for: a NACK carries no cumulative
    // ACK, and a sender whose window shrank at this NACK below its packets still in flight would
    // otherwise wait for its RTO. It echoes no EV (the trimmed packet's path is not good).
    if (q.rx.unacked_bytes > 0) send_ack(p.qp, p, q.rx.ce_pending, /*echo=*/false);
    // The highest trimmed PSN: until the holes up to it fill, every arrival is ACKed at once.
    if (!q.rx.ack_after_trim || p.psn > q.rx.ack_after_trim_psn) q.rx.ack_after_trim_psn = p.psn;
    q.rx.ack_after_trim = true;
    send_nack(p.qp, p.psn,
              (p.flags & net::kFlagTrimmedLastHop) ? kNackTrimmedLastHop : kNackTrimmed,
              p.entropy, ce);
    if (cfg_.rccc) {
      // htsim processTrimmed: with receiver credit the trim also puts the sender in the pull
      // queue, for the resend. The header carries the sender's pull target (read from sender
      // state, as for data, transport/uet_rccc.h); the resend needs one frame more than it.
      // Without this a sender whose credit ran out waits for its RTO: the trimmed header
      // overtakes the data packet before it (control class), so the ACK flushed above cannot
      // cover that packet, and nothing else brings credit (6 RTOs in a 32:1 incast).
      const UetTxSlot& slot = q.tx[p.psn & (static_cast<uint32_t>(q.tx.size()) - 1)];
      note_target(p.qp, pull_target(q, p.qp) + slot.frame);
    }
    return;
  }
  if (ce) ++ctr(counters_).ecn_marked_packets;
  UetMessage& m = msgs_[p.msg];
  UetRx& r = q.rx;
  const bool first_ever = r.high == 0 && r.cack == 0;
  if (r.has(p.psn)) {  // a duplicate (a spurious or overtaken retransmission): ACK at once
    send_ack(p.qp, p, ce);
    return;
  }
  if (cfg_.delivery == UetDelivery::kRod && p.psn != r.cack) {
    // ROD accepts only the next PSN; NACK the gap once (ROD_OOO) and drop the packet.
    ++ctr(counters_).out_of_order_packets;
    if (!r.rod_nack_sent) {
      r.rod_nack_sent = true;
      send_nack(p.qp, r.cack, kNackRodOoo, p.entropy, ce);
    }
    return;
  }
  if (p.psn != r.cack) ++ctr(counters_).out_of_order_packets;
  const bool late = p.psn + 1 < r.high;  // arrived after a later PSN: it fills a hole
  r.mark(p.psn, d_.window_pkts);
  r.rod_nack_sent = false;
  m.delivered_bytes += p.payload_bytes;
  m.placed_bytes += p.payload_bytes;  // a PSN not seen before: each byte once
  ctr(counters_).data_bytes_delivered += p.payload_bytes;
  const bool completed = ++m.rcvd_pkts == m.npkts;
  if (completed) deliver(p.msg, q.dst_nic);
  if (ce) r.ce_pending = true;
  r.unacked_bytes += p.payload_bytes;
  // Coalesced ACKs (§5: ACK_GEN_TRIGGER 16 KiB; htsim shouldSack): at once on CE, on the
  // connection's first packet, on a message's last and on the sender's AR flag.
  // Also when the packet completes a message or closes the last hole (htsim: AR forces an ACK
  // when the out-of-order queue drains): a message's last packet may arrive before the others,
  // and the ACK it triggered then leaves the sender waiting for its RTO.
  if (r.unacked_bytes >= cfg_.ack_every_bytes || ce || first_ever || completed ||
      (late && r.cack == r.high) || r.ack_after_trim ||
      (p.flags & (net::kFlagLast | kFlagAckReq))) {
    if (r.cack > r.ack_after_trim_psn) r.ack_after_trim = false;
    send_ack(p.qp, p, r.ce_pending);
  }
}

void UetTransport::send_ack(uint32_t id, const Packet& trigger, bool ce, bool echo) {
  UetPdc& q = pdcs_[id];
  UetRx& r = q.rx;
  AckInfo a;
  a.sack_base = r.sack_base();
  a.sack_bits = r.sack_bits(a.sack_base);
  a.trigger_psn = echo ? trigger.psn : kNoTrigger;
  Packet p;
  p.src_nic = q.dst_nic;
  p.dst_nic = q.src_nic;
  p.qp = id;
  p.psn = r.cack;
  p.msg = acks_.put(a);
  p.entropy = echo ? trigger.entropy : 0;  // the EV of the packet that triggered it (§3)
  p.type = PacketType::kAck;
  p.priority = static_cast<uint8_t>(cfg_.control_priority);
  p.flags = ce ? net::kFlagEce : 0;
  p.frame_bytes = static_cast<uint16_t>(uet_ack_frame_bytes(cfg_));
  r.unacked_bytes = 0;
  r.ce_pending = false;
  net_.nic_send(q.dst_nic, p);
}

void UetTransport::send_nack(uint32_t id, uint32_t psn, uint32_t code, uint16_t ev, bool ce) {
  const UetPdc& q = pdcs_[id];
  Packet p;
  p.src_nic = q.dst_nic;
  p.dst_nic = q.src_nic;
  p.qp = id;
  p.psn = psn;
  p.msg = code;
  p.entropy = ev;
  p.type = PacketType::kNak;
  p.priority = static_cast<uint8_t>(cfg_.control_priority);
  p.flags = ce ? net::kFlagEce : 0;
  p.frame_bytes = static_cast<uint16_t>(uet_control_frame_bytes(cfg_));
  net_.nic_send(q.dst_nic, p);
}

void UetTransport::send_control(uint32_t from_nic, uint32_t to_nic, uint32_t id, uint32_t subtype,
                                uint32_t value) {
  Packet p;
  p.src_nic = from_nic;
  p.dst_nic = to_nic;
  p.qp = id;
  p.psn = value;
  p.msg = subtype;
  // htsim UecSink::nextEntropy: pulls cycle through a 7-bit counter EV (TGT_EV_SIZE = 7, §3),
  // so one failed path cannot swallow every grant of a connection. The counter is the
  // connection's, as htsim's sink's (it was one counter for the whole fabric, which made a
  // connection's EVs depend on every other connection's traffic).
  p.entropy = static_cast<uint16_t>(pdcs_[id].ctl_ev++ & 0x7F);
  p.type = PacketType::kUetControl;
  p.priority = static_cast<uint8_t>(cfg_.control_priority);
  p.frame_bytes = static_cast<uint16_t>(uet_control_frame_bytes(cfg_));
  net_.nic_send(from_nic, p);
}

void UetTransport::deliver(uint32_t msg, uint32_t nic) {
  UetMessage& m = msgs_[msg];
  m.delivered = true;
  if (!partitioned()) delivery_order_.push_back(msg);  // tests' record; one thread only
  const int64_t delay = net_.nic_config(nic).completion_ps();
  m.rx_done_ps = sched_.now() + delay;
  complete_at(msg, sched_.now() + delay, nic);
}

}  // namespace fabricsim::transport
