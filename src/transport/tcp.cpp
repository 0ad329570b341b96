// TCP / iWARP sender side: connections, posting (with the kernel stack's host costs), the send
// gate and segmentation. ACK processing and congestion control: tcp_ack.cpp; the receiver:
// tcp_rx.cpp; wire sizes: tcp_frames.cpp.
#include "transport/tcp.h"

#include <algorithm>
#include <bit>

#include "core/error.h"
#include "core/time.h"
#include "net/wire.h"

namespace fabricsim::transport {

using net::Packet;
using net::PacketType;

TcpTransport::TcpTransport(const TcpConfig& cfg, net::Network& net, uint64_t seed)
    : NicCore(net), cfg_(cfg), seed_(seed) {
  if (cfg_.mtu_bytes < 576 || cfg_.mtu_bytes > 9216) {
    throw InputError("fabric.tcp.mtu", "must be 576 to 9216 bytes");
  }
  if (cfg_.cc == TcpCc::kScheme) {
    scheme_ = find_tcp_cc(cfg_.cc_scheme);
    if (scheme_ == nullptr) {
      throw std::invalid_argument("no TCP congestion-control rule '" + cfg_.cc_scheme +
                                  "' is registered");
    }
  }
  mss_ = tcp_mss_bytes(cfg_);
  seg_payload_ = tcp_payload_per_segment(cfg_);
  // Segment window: twice the receive window in full segments (room for small segments and for
  // holes while later segments keep flowing), a power of two for the rings.
  const int64_t segs = 2 * (cfg_.rwnd_bytes + mss_ - 1) / mss_;
  window_segs_ = std::bit_ceil(static_cast<uint32_t>(std::clamp<int64_t>(segs, 64, 1 << 20)));
  if (cfg_.phase_jitter) {
    jitter_rng_.reserve(net.num_nics());
    for (uint32_t nic = 0; nic < net.num_nics(); ++nic) {
      jitter_rng_.emplace_back(seed, (0x544350ull << 32) | nic);  // "TCP", per NIC
    }
  }
  register_endpoint();
}

void TcpTransport::receive(uint32_t /*nic*/, const Packet& p) {
  if (p.type == PacketType::kData) {
    on_data(p);
  } else if (p.type == PacketType::kAck) {
    on_ack(p);
  }  // nothing else is TCP's (link-layer frames are consumed in net/)
}

void TcpTransport::on_dropped(const Packet& p, net::DropReason reason) {
  if (p.type == PacketType::kAck) {
    acks_.release(p.msg);
  } else if (p.type == PacketType::kData) {
    // From the packet's own header, not the sender's ring: the copy may be a duplicate of a
    // segment acknowledged since (its slot freed or reused), and in a partitioned run a drop
    // found in another partition is accounted at the barrier, when the ring has moved on.
    // Every copy's bytes are dropped or delivered, so a message's sent bytes balance.
    TcpMessage& m = msgs_[p.msg];
    ++m.copies_dropped;
    attribute(p.msg, seg_start(m, p.psn), p.payload_bytes, &MessageRecord::dropped_bytes);
  }
  if (reason != net::DropReason::kLinkDown) return;
  if (p.type != PacketType::kData && p.type != PacketType::kAck) return;
  TcpConn& c = conns_[p.qp];
  failure_.hit(c.hit_by_failure);
  if (p.type == PacketType::kData && p.psn >= c.snd_una) failure_.lost(c.lost_end, p.psn);
}

TcpWindowCc TcpTransport::make_cc(uint32_t connection) const {
  switch (cfg_.cc) {
    case TcpCc::kNewReno: return TcpWindowCc(TcpNewReno{});
    case TcpCc::kCubic: return TcpWindowCc(TcpCubic{});
    case TcpCc::kScheme: {
      std::unique_ptr<TcpCcScheme> s = (*scheme_)(connection);
      if (!s) throw std::invalid_argument("TCP rule '" + cfg_.cc_scheme + "' made no controller");
      return TcpWindowCc(std::move(s));
    }
    default: return TcpWindowCc(TcpDctcp(cfg_.dctcp_g, cfg_.dctcp_initial_alpha));
  }
}

uint16_t TcpTransport::sport_of(uint64_t pair_key, uint32_t k, uint32_t channel) const {
  uint64_t ident = seed_ ^ pair_key ^ (0xD6E8FEB86659FD93ull * (k + 1));
  ident ^= ConnectionIndex::channel_salt(channel);  // channel 0 keeps the pair's port
  return static_cast<uint16_t>(splitmix64(ident));
}

uint16_t TcpTransport::channel_sport(uint32_t src_nic, uint32_t dst_nic, uint32_t channel) const {
  return sport_of((static_cast<uint64_t>(src_nic) << 32) | dst_nic, 0, channel);
}

uint32_t TcpTransport::conn_for(uint32_t src, uint32_t dst, uint32_t channel) {
  const uint64_t key = (static_cast<uint64_t>(src) << 32) | dst;
  const auto [first_conn, inserted] =
      conn_index_.find_or_add(key, channel, static_cast<uint32_t>(conns_.size()));
  const auto per_pair = static_cast<uint32_t>(cfg_.connections_per_pair);
  if (inserted) pair_turn_.push_back(0);
  for (uint32_t k = 0; inserted && k < per_pair; ++k) {
    const auto id = static_cast<uint32_t>(conns_.size());
    TcpConn c;
    c.src_nic = src;
    c.dst_nic = dst;
    c.sport = sport_of(key, k, channel);
    c.win.cwnd = static_cast<int64_t>(cfg_.init_cwnd_segments) * mss_;  // RFC 6928
    c.win.ssthresh = INT64_MAX / 4;  // RFC 5681 §3.1: arbitrarily high
    c.rto_ps = std::clamp(cfg_.rto_initial_ps, cfg_.rto_min_ps, cfg_.rto_max_ps);
    c.cc = make_cc(id);
    c.quickacks_left = cfg_.quickacks;
    conns_.push_back(std::move(c));
    if (ctx_.enabled()) {  // the connection's context at both RNICs, written at set-up
      ctx_.add_connection(src, id);
      ctx_.add_connection(dst, id);
    }
  }
  if (per_pair == 1) return first_conn;
  uint32_t& turn = pair_turn_[first_conn / per_pair];
  const uint32_t id = first_conn + turn;
  turn = turn + 1 == per_pair ? 0 : turn + 1;
  return id;
}

uint32_t TcpTransport::post(uint32_t src_nic, uint32_t dst_nic, int64_t size_bytes, uint64_t tag,
                            int /*sl: one class*/) {
  return post_on(conn_for(src_nic, dst_nic), src_nic, dst_nic, size_bytes, tag);
}

uint32_t TcpTransport::post_channel(uint32_t src_nic, uint32_t dst_nic, int64_t size_bytes,
                                    uint64_t tag, uint32_t channel) {
  return post_on(conn_for(src_nic, dst_nic, channel), src_nic, dst_nic, size_bytes, tag);
}

uint32_t TcpTransport::post_on(uint32_t cid, uint32_t src_nic, uint32_t dst_nic,
                               int64_t size_bytes, uint64_t tag) {
  TcpConn& c = conns_[cid];
  const net::NicConfig& nic = net_.nic_config(src_nic);
  const int64_t now = sched_.now();
  TcpMessage m;
  m.conn = cid;
  m.connection = cid;
  m.traffic_class = cfg_.data_priority;
  m.size_bytes = size_bytes;
  m.stream_bytes = std::max<int64_t>(size_bytes, 1);  // an empty message still sends a byte
  m.first_byte = c.stream_end;
  m.post_ps = now;
  if (cfg_.stack == TcpStack::kKernel) {
    // The connection's core runs the send() syscall after what it still has to do; then the
    // first segment's copy into the socket buffer and pass through TCP/IP and the driver (each
    // segment pays these in send_segment), the doorbell and the NIC's fetch of descriptor and
    // payload. Later segments' copies overlap the wire, as tcp_sendmsg pushes while it copies.
    const int64_t cpu_end = std::max(now, c.tx_cpu_free_ps) + cfg_.host_tx_message_ps;
    c.tx_cpu_free_ps = cpu_end;
    ctr(counters_).host_cpu_ps += cfg_.host_tx_message_ps;
    const int64_t first = std::min<int64_t>(std::max<int64_t>(size_bytes, 0), seg_payload_);
    m.ready_ps = cpu_end + cfg_.host_tx_segment_ps + tcp_copy_ps(cfg_, first) + nic.doorbell_ps +
                 nic.dma_read_ps;
  } else {
    m.ready_ps = now + nic.send_overhead_ps(size_bytes);  // verbs post, as RoCE
  }
  m.ready_ps = std::max(m.ready_ps, c.last_ready_ps);  // the stream keeps posting order
  c.last_ready_ps = m.ready_ps;
  m.tag = tag;
  m.src_nic = src_nic;
  m.dst_nic = dst_nic;
  c.stream_end += m.stream_bytes;
  const uint32_t id = msgs_.push_back(m);
  c.msgs.push_back(id);
  ++owed_of_nic(src_nic).unacked;  // posts run in the serial phase of a partitioned run
  activate(cid);
  return id;
}

void TcpTransport::activate(uint32_t id) {
  TcpConn& c = conns_[id];
  if (c.active) return;
  if (c.rtx_pending() == 0 && c.snd_nxt_byte >= c.stream_end) return;
  c.active = true;
  enqueue(c.src_nic, id);
}

SendState TcpTransport::send_state(uint32_t id, int64_t& at_ps) {
  TcpConn& c = conns_[id];
  const int64_t now = sched_.now();
  // Messages become sendable at their ready time, in stream order.
  while (c.ready_msg < c.msgs.size() && msgs_[c.msgs[c.ready_msg]].ready_ps <= now) {
    c.ready_end = msgs_[c.msgs[c.ready_msg]].end_byte();
    ++c.ready_msg;
  }
  // Skip resend entries that an ACK has since covered.
  while (c.rtx_pending() > 0) {
    const uint32_t seg = c.rtx[c.rtx_head];
    const TcpTxSlot& s = slot(c, seg);
    if (seg >= c.snd_una && s.seg == seg && s.state == kTcpLost) break;
    if (++c.rtx_head == c.rtx.size()) {
      c.rtx.clear();
      c.rtx_head = 0;
    }
  }
  int64_t bytes = 0;
  if (c.rtx_pending() > 0) {
    bytes = slot(c, c.rtx[c.rtx_head]).tcp_bytes;
  } else {
    if (c.snd_nxt_byte >= c.stream_end) return SendState::kBlocked;  // nothing to send
    if (c.snd_nxt_byte >= c.ready_end) {
      at_ps = msgs_[c.msgs[c.ready_msg]].ready_ps;
      return SendState::kLater;
    }
    if (c.snd_nxt - c.snd_una >= window_segs_) return SendState::kBlocked;  // segment window
    // Receive window full.
    if (c.snd_nxt_byte - c.snd_una_byte >= cfg_.rwnd_bytes) return SendState::kBlocked;
    bytes = std::min<int64_t>(mss_, tcp_segment_tcp_bytes(cfg_, static_cast<uint32_t>(std::min<int64_t>(
                                        seg_payload_, c.ready_end - c.snd_nxt_byte))));
  }
  // RFC 6675 / RFC 5681: send while pipe + the segment fits the congestion window (one segment
  // may always go when nothing is in flight).
  if (c.in_flight > 0 && c.in_flight + bytes > c.win.cwnd) return SendState::kBlocked;
  // The kernel's sending core passes one segment at a time through the stack (and either stack
  // waits out the phase jitter after an ACK).
  if (c.tx_cpu_free_ps > now) {
    at_ps = c.tx_cpu_free_ps;
    return SendState::kLater;
  }
  return SendState::kReady;
}

void TcpTransport::grow_tx(TcpConn& c) {
  // Slots live at seg % size: re-place those in use [snd_una, snd_nxt) in a ring twice as large.
  // Rare: each connection doubles at most log2(window / 16) times.
  std::vector<TcpTxSlot> bigger(c.tx.empty() ? 16 : 2 * c.tx.size());
  const uint32_t big_mask = static_cast<uint32_t>(bigger.size()) - 1;
  if (!c.tx.empty()) {
    for (uint32_t seg = c.snd_una; seg != c.snd_nxt; ++seg) bigger[seg & big_mask] = slot(c, seg);
  }
  c.tx.swap(bigger);
}

void TcpTransport::attribute(uint32_t msg, int64_t start, int64_t len,
                             int64_t MessageRecord::*field) {
  // A kernel segment may hold the tail of one message and the heads of the next ones.
  while (len > 0 && msg < msgs_.end_id()) {
    TcpMessage& m = msgs_[msg];
    const int64_t end = m.end_byte();
    if (start < end) {
      const int64_t take = std::min(len, end - start);
      m.*field += std::min(take, m.size_bytes);  // an empty message's byte is not payload
      start += take;
      len -= take;
    }
    if (len <= 0) break;
    // The next message of the same connection.
    const TcpConn& c = conns_[m.conn];
    const auto it = std::upper_bound(c.msgs.begin(), c.msgs.end(), msg);
    if (it == c.msgs.end()) break;
    msg = *it;
  }
}

void TcpTransport::send_segment(uint32_t id, Packet& p) {
  TcpConn& c = conns_[id];
  const int64_t now = sched_.now();
  TcpTxSlot* s;
  if (c.rtx_pending() > 0) {  // send_state left a valid lost segment at the head
    s = &slot(c, c.rtx[c.rtx_head]);
    if (++c.rtx_head == c.rtx.size()) {
      c.rtx.clear();
      c.rtx_head = 0;
    }
    ++msgs_[s->msg].retransmitted_packets;
    ++ctr(counters_).retransmitted_packets;
  } else {
    if (c.tx.empty() || c.snd_nxt - c.snd_una >= c.tx.size()) grow_tx(c);
    while (msgs_[c.msgs[c.nxt_msg]].end_byte() <= c.snd_nxt_byte) ++c.nxt_msg;
    const TcpMessage& m = msgs_[c.msgs[c.nxt_msg]];
    int64_t len = std::min<int64_t>(seg_payload_, c.ready_end - c.snd_nxt_byte);
    // iWARP: one FPDU per segment, within one RDMA WRITE (RFC 5044 §8 FPDU alignment).
    if (cfg_.stack == TcpStack::kIwarp) len = std::min(len, m.end_byte() - c.snd_nxt_byte);
    s = &slot(c, c.snd_nxt);
    s->seg = c.snd_nxt++;
    s->msg = c.msgs[c.nxt_msg];
    s->start_byte = c.snd_nxt_byte;
    s->payload = static_cast<uint16_t>(len);
    s->tcp_bytes = static_cast<uint16_t>(tcp_segment_tcp_bytes(cfg_, static_cast<uint32_t>(len)));
    s->sends = 0;
    TcpMessage& holder = msgs_[s->msg];
    if (!holder.anchored) {  // the first segment starting in it: its header's sequence anchor
      holder.anchored = true;
      holder.anchor_seg = s->seg;
      holder.anchor_byte = s->start_byte;
    }
    c.snd_nxt_byte += len;
    // Past every message now wholly sent, at once (not at the next send): a finished message's
    // position must not hold it back from retirement while the connection idles.
    while (c.nxt_msg < c.msgs.size() && msgs_[c.msgs[c.nxt_msg]].end_byte() <= c.snd_nxt_byte) {
      ++c.nxt_msg;
    }
  }
  s->state = kTcpInFlight;
  s->sent_ps = now;
  if (s->sends < 255) ++s->sends;
  c.in_flight += s->tcp_bytes;
  if (cfg_.stack == TcpStack::kKernel) {
    // Stack pass and (first send only) the copy of this segment's bytes from the user buffer:
    // the core is busy for them before the next segment.
    const int64_t cpu = cfg_.host_tx_segment_ps + (s->sends == 1 ? tcp_copy_ps(cfg_, s->payload) : 0);
    c.tx_cpu_free_ps = std::max(now, c.tx_cpu_free_ps) + cpu;
    ctr(counters_).host_cpu_ps += cpu;
  }
  ++msgs_[s->msg].copies_sent;
  attribute(s->msg, s->start_byte, s->payload, &MessageRecord::sent_bytes);
  p.src_nic = c.src_nic;
  p.dst_nic = c.dst_nic;
  p.qp = id;
  p.psn = s->seg;
  p.msg = s->msg;
  p.payload_bytes = s->payload;
  p.frame_bytes = static_cast<uint16_t>(tcp_data_frame_bytes(cfg_, s->payload));
  p.entropy = c.sport;  // one 5-tuple per connection: one ECMP path
  p.type = PacketType::kData;
  p.priority = static_cast<uint8_t>(cfg_.data_priority);
  p.ecn = ecn_capable() ? 2 : 0;  // ECT(0) only with DCTCP (RFC 8257 §3.1) or a registered rule
  const TcpMessage& first = msgs_[s->msg];
  const bool last = s->start_byte + s->payload >= first.end_byte();
  p.flags = static_cast<uint8_t>((s->start_byte == first.first_byte ? net::kFlagFirst : 0) |
                                 (last ? net::kFlagLast : 0));
  ++ctr(counters_).data_packets_sent;
  ctr(counters_).data_bytes_sent += s->payload;
  if (c.rto_deadline_ps < 0) arm_rto(id);
}

int64_t TcpTransport::ideal_fct_ps(int64_t size_bytes, int switch_hops, const net::LinkConfig& link,
                                   const net::SwitchConfig& sw, const net::NicConfig& nic) const {
  return tcp_ideal_fct_ps(cfg_, size_bytes, switch_hops, link, sw, nic);
}

double TcpTransport::payload_rate_bps(int64_t link_rate_bps) const {
  const double frame = tcp_data_frame_bytes(cfg_, seg_payload_) + net::kWireOnlyBytes;
  return static_cast<double>(link_rate_bps) * seg_payload_ / frame;
}

bool TcpTransport::retire_messages(RetireFn retire) {
  retire_ = std::move(retire);
  retire_front();
  return true;
}

// A message is final when the application has seen it, its last byte is acknowledged, every
// payload byte attributed to it (a segment may carry the tail of one message and the head of the
// next) has arrived or been reported dropped, and so has every copy of a segment starting in it
// (each reads its anchor). It is the oldest message of its connection; it
// leaves only once every position of the connection (sending, acknowledged, ready, received) is
// past it; send_segment moves the sending position past a message as soon as it is wholly sent.
void TcpTransport::retire_front() {
  if (!retire_) return;
  while (!msgs_.empty()) {
    const uint32_t id = msgs_.front_id();
    const TcpMessage& m = msgs_[id];
    if (!m.app_done || m.tx_done_ps < 0 || m.sent_bytes != m.delivered_bytes + m.dropped_bytes ||
        m.copies_sent != m.copies_arrived + m.copies_dropped) {
      return;
    }
    TcpConn& c = conns_[m.conn];
    const uint32_t pos = c.msgs.first();
    if (c.nxt_msg <= pos || c.una_msg <= pos || c.ready_msg <= pos || c.rx_msg <= pos) return;
    c.retired_sent_bytes += m.sent_bytes;
    c.msgs.pop_front();
    retire_(id, m);
    msgs_.pop_front();
  }
}

}  // namespace fabricsim::transport
