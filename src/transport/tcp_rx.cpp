// TCP receiver: reassembly, in-order delivery of the stream's messages, the host stack's
// receive costs and the ACK policy (RFC 5681 §4.2 delayed ACKs, RFC 2018 SACK, RFC 8257 §3.2
// DCTCP's CE echo).
#include <algorithm>
#include <bit>

#include "core/time.h"
#include "transport/tcp.h"

namespace fabricsim::transport {

using net::Packet;
using net::PacketType;

namespace {

bool has_seg(const TcpConn& c, uint32_t seg) {
  if (seg < c.rcv_nxt) return true;
  const uint32_t window = static_cast<uint32_t>(c.rcv_bits.size()) * 64;
  if (seg - c.rcv_nxt >= window) return false;
  const uint32_t b = seg & (window - 1);
  return (c.rcv_bits[b / 64] >> (b % 64)) & 1;
}

// Records where `seg`, held above a hole (rcv_nxt < seg < rcv_nxt + window), ends. The ring
// grows by doubling until it spans every segment held; doubling re-places those held.
void note_end(TcpConn& c, uint32_t seg, int64_t end_byte) {
  const uint32_t span = seg - c.rcv_nxt + 1;
  if (span > c.rcv_end.size()) {
    std::vector<int64_t> bigger(std::bit_ceil(std::max<uint32_t>(span, 16)));
    const uint32_t big_mask = static_cast<uint32_t>(bigger.size()) - 1;
    const uint32_t mask = static_cast<uint32_t>(c.rcv_end.size()) - 1;
    for (uint32_t s = c.rcv_nxt + 1; !c.rcv_end.empty() && s < c.rcv_high; ++s) {
      if (has_seg(c, s)) bigger[s & big_mask] = c.rcv_end[s & mask];
    }
    c.rcv_end.swap(bigger);
  }
  c.rcv_end[seg & (static_cast<uint32_t>(c.rcv_end.size()) - 1)] = end_byte;
}

void set_seg(TcpConn& c, uint32_t seg, bool on) {
  const uint32_t b = seg & (static_cast<uint32_t>(c.rcv_bits.size()) * 64 - 1);
  if (on) {
    c.rcv_bits[b / 64] |= 1ull << (b % 64);
  } else {
    c.rcv_bits[b / 64] &= ~(1ull << (b % 64));
  }
}

}  // namespace

void TcpTransport::send_ack(uint32_t id, bool ece, uint32_t trigger, bool has_trigger) {
  TcpConn& c = conns_[id];
  c.unacked_segs = 0;
  c.delack_deadline_ps = -1;
  AckInfo a;
  a.trigger = trigger;
  a.has_trigger = has_trigger;
  uint32_t blocks = 0;
  bool in_run = false;
  for (uint32_t i = 0; i < 64; ++i) {
    const uint32_t seg = c.rcv_nxt + 1 + i;
    if (seg >= c.rcv_high) break;
    const bool on = has_seg(c, seg);
    if (on) a.sack_bits |= 1ull << i;
    if (on && !in_run) ++blocks;
    in_run = on;
  }
  if (has_trigger && trigger > c.rcv_nxt + 64) ++blocks;
  Packet p;
  p.src_nic = c.dst_nic;
  p.dst_nic = c.src_nic;
  p.qp = id;
  p.psn = c.rcv_nxt;
  p.msg = acks_.put(a);
  p.entropy = c.sport;
  p.type = PacketType::kAck;
  p.priority = static_cast<uint8_t>(cfg_.data_priority);
  p.flags = ece ? net::kFlagEce : 0;
  p.frame_bytes = static_cast<uint16_t>(tcp_ack_frame_bytes(blocks));
  net_.nic_send(c.dst_nic, p);
}

void TcpTransport::on_delack(uint32_t id) {
  TcpConn& c = conns_[id];
  const int64_t now = sched_.now();
  if (c.delack_timer_ps != now) return;
  c.delack_timer_ps = -1;
  if (c.delack_deadline_ps < 0 || c.unacked_segs == 0) return;
  if (c.delack_deadline_ps > now) {
    c.delack_timer_ps = c.delack_deadline_ps;
    sched_.at(c.delack_timer_ps, kCcTimer, id, c.dst_nic);  // the receiver's timer
    return;
  }
  send_ack(id, c.ce_state, 0, false);
}

void TcpTransport::deliver(uint32_t msg, uint32_t nic) {
  TcpMessage& m = msgs_[msg];
  m.delivered = true;
  const int64_t now = sched_.now();
  int64_t done;
  if (cfg_.stack == TcpStack::kKernel) {
    // After the last segment's stack pass and copy (rx_cpu_free_ps): wake-up and recv().
    TcpConn& c = conns_[m.conn];
    done = std::max(now, c.rx_cpu_free_ps) + cfg_.host_rx_message_ps;
    c.rx_cpu_free_ps = done;
    ctr(counters_).host_cpu_ps += cfg_.host_rx_message_ps;
  } else {
    done = now + net_.nic_config(nic).completion_ps();  // DMA write + poll, as RoCE
  }
  m.rx_done_ps = done;
  complete_at(msg, done, nic);  // through an event, as every transport's (transport/nic_core.h)
}

void TcpTransport::on_data(const Packet& p) {
  const uint32_t id = p.qp;
  TcpConn& c = conns_[id];
  const int64_t now = sched_.now();
  if (c.rcv_bits.empty()) c.rcv_bits.assign(window_segs_ / 64, 0);  // once per connection
  const uint32_t seg = p.psn;
  // The segment's place in the stream is what its header says (TcpMessage's anchor), whether
  // the sender still holds it or not: the receiver knows only what the segments it receives
  // carry and what it has received.
  TcpMessage& holder = msgs_[p.msg];
  ++holder.copies_arrived;
  const int64_t start = seg_start(holder, seg);
  // Every copy that reaches the NIC is delivered payload, duplicates included (as the
  // counter): each sent copy is delivered or dropped, which retire_front checks per message.
  ctr(counters_).data_bytes_delivered += p.payload_bytes;
  attribute(p.msg, start, p.payload_bytes, &MessageRecord::delivered_bytes);
  const bool ce = p.ecn == 3;
  if (ce) ++ctr(counters_).ecn_marked_packets;
  const uint32_t window = static_cast<uint32_t>(c.rcv_bits.size()) * 64;
  // New data: not held yet (has_seg covers everything below rcv_nxt) and within the window.
  const bool fresh = !has_seg(c, seg) && seg - c.rcv_nxt < window;
  if (cfg_.stack == TcpStack::kKernel) {
    // The segment's DMA into the receive ring, then on the connection's core (after what it is
    // still doing) its pass through the driver and TCP/IP and, for new data, the copy to the
    // user buffer (recvmsg copies as data arrives).
    const int64_t cpu = cfg_.host_rx_segment_ps + (fresh ? tcp_copy_ps(cfg_, p.payload_bytes) : 0);
    c.rx_cpu_free_ps = std::max(now + net_.nic_config(c.dst_nic).mem_write_ps, c.rx_cpu_free_ps) + cpu;
    ctr(counters_).host_cpu_ps += cpu;
  }
  // RFC 8257 §3.2: when the CE state changes, ACK what arrived before at once with the old
  // state's ECE, so the sender sees exactly which bytes were marked.
  if (ecn_capable() && ce != c.ce_state) {
    if (c.unacked_segs > 0) send_ack(id, c.ce_state, 0, false);
    c.ce_state = ce;
  }
  if (!fresh) {
    if (seg >= c.rcv_nxt && seg - c.rcv_nxt >= window) ++ctr(counters_).ooo_window_drops;
    send_ack(id, c.ce_state, seg, true);  // a duplicate is ACKed at once (RFC 5681 §4.2)
    return;
  }
  set_seg(c, seg, true);
  attribute(p.msg, start, p.payload_bytes, &MessageRecord::placed_bytes);
  const bool in_order = seg == c.rcv_nxt;
  const bool hole_before = c.rcv_high > c.rcv_nxt;
  if (!in_order) {
    ++ctr(counters_).out_of_order_packets;
    note_end(c, seg, start + p.payload_bytes);
  }
  c.rcv_high = std::max(c.rcv_high, seg + 1);
  if (in_order) {
    while (c.rcv_nxt < c.rcv_high && has_seg(c, c.rcv_nxt)) {
      set_seg(c, c.rcv_nxt, false);
      ++c.rcv_nxt;
    }
    // The end of the last segment now in order: this one, or one held above the hole it filled.
    c.rcv_nxt_byte = c.rcv_nxt == seg + 1
                         ? start + p.payload_bytes
                         : c.rcv_end[(c.rcv_nxt - 1) & (static_cast<uint32_t>(c.rcv_end.size()) - 1)];
    while (c.rx_msg < c.msgs.size() && msgs_[c.msgs[c.rx_msg]].end_byte() <= c.rcv_nxt_byte) {
      deliver(c.msgs[c.rx_msg], c.dst_nic);
      ++c.rx_msg;
    }
  }
  // RFC 5681 §4.2: ACK at once an out-of-order segment and one that fills (part of) a hole;
  // Linux quick-ack mode at a connection's start; otherwise every ack_every segments or when
  // the delayed-ACK timer runs out.
  bool now_ack = !in_order || hole_before || cfg_.delack_ps == 0 || cfg_.ack_every_segments <= 1;
  if (!now_ack && c.quickacks_left > 0) {
    --c.quickacks_left;
    now_ack = true;
  }
  if (!now_ack && ++c.unacked_segs >= cfg_.ack_every_segments) now_ack = true;
  if (now_ack) {
    send_ack(id, c.ce_state, seg, true);
    return;
  }
  if (c.delack_deadline_ps < 0) c.delack_deadline_ps = now + cfg_.delack_ps;
  if (c.delack_timer_ps < 0) {
    c.delack_timer_ps = c.delack_deadline_ps;
    sched_.at(c.delack_timer_ps, kCcTimer, id, c.dst_nic);  // the receiver's timer
  }
}

}  // namespace fabricsim::transport
