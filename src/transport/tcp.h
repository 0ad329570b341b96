// TCP (kernel sockets) and iWARP (TCP offloaded in an RNIC): one transport engine, two host
// stacks. Facts, sources and the latency formula: docs/transports.md "TCP" and "iWARP".
//
// One TCP connection per (source NIC, destination NIC) pair carries that pair's messages, in
// posting order, as one byte stream (a socket per peer, as NCCL's socket transport opens; it
// opens several per peer, which this model does not). Segments are numbered in sending order
// (Packet::psn = segment index); a segment carries up to one MSS of the stream (kernel: it may
// span messages, TCP_NODELAY so no Nagle wait; iWARP: one FPDU per segment and within one
// message, RFC 5044 §8 FPDU alignment). Retransmissions resend the same segment. A segment's
// header says where it sits in the stream (TcpMessage's anchor; Packet::msg is the message
// holding its first byte): the receiver places it from that and its own state alone.
//
// Sender: slow start from 10 segments (RFC 6928), congestion avoidance with byte counting
// (RFC 5681, RFC 3465), SACK loss detection (RFC 6675 IsLost: 3 SACKed segments above a hole)
// and one window reduction per recovery (RFC 6582 recovery point), RTO per RFC 6298 with
// Karn's rule, backoff and a floor; DCTCP per RFC 8257. Receiver: cumulative ACK + SACK (the
// segment that triggered the ACK always reported, RFC 2018 §4), delayed ACKs every second
// segment or on a timer (RFC 5681 §4.2), at once on out-of-order data and while a hole is
// open, and at once when the CE state changes (RFC 8257 §3.2).
//
// Per packet nothing is allocated (rings grow by doubling while a connection's window grows,
// as UET's) and nothing is virtual: the network calls the net::Endpoint function pointers.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "core/id_list.h"
#include "core/id_window.h"
#include "core/ring.h"
#include "core/rng.h"
#include "core/scheduler.h"
#include "core/slot_table.h"
#include "transport/ack_annex.h"
#include "net/network.h"
#include "net/nic_context_cache.h"
#include "transport/connection_index.h"
#include "transport/nic_core.h"
#include "transport/tcp_config.h"
#include "transport/tcp_window_cc.h"
#include "transport/transport.h"

namespace fabricsim::transport {

// ---- wire sizes (transport/tcp_frames.cpp) ----
// TCP header with the timestamps option: 20 + 12 (RFC 9293 §3.1, RFC 7323 §3 padded with NOPs).
inline constexpr uint32_t kTcpHeaderBytes = 32;
// MSS: the IP MTU less IPv4 20 (RFC 791) and TCP 32 = 1448 B at MTU 1500.
uint32_t tcp_mss_bytes(const TcpConfig& cfg);
// iWARP framing inside each segment: MPA length 2 + CRC32c 4 (RFC 5044 §4), DDP tagged header
// 14 (RFC 5041 §4: DDP/RDMAP control 2 + STag 4 + tagged offset 8; RDMA WRITE is tagged, the
// untagged SEND header is 18), the ULPDU padded to 4 B, and with markers a 4-B marker per 512 B
// of stream (RFC 5044 §5). 0 for kernel TCP.
uint32_t tcp_segment_tcp_bytes(const TcpConfig& cfg, uint32_t payload_bytes);  // TCP payload
// Application bytes a full segment carries: the MSS (kernel) or the MSS less iWARP framing.
uint32_t tcp_payload_per_segment(const TcpConfig& cfg);
// Frame with FCS: Ethernet 14 + IPv4 20 + TCP 32 + TCP payload + FCS 4 (IEEE 802.3; 1518 B
// for a full kernel segment at MTU 1500), at least 64 B.
uint32_t tcp_data_frame_bytes(const TcpConfig& cfg, uint32_t payload_bytes);
// A pure ACK: 70 B; with SACK blocks the option adds 2 NOP + kind/len 2 + 8 per block
// (RFC 2018 §3; at most 3 blocks beside timestamps).
uint32_t tcp_ack_frame_bytes(uint32_t sack_blocks);
// Completion time of one message alone on an idle path (the flow table's ideal FCT), host
// stack included: the formula of docs/transports.md "TCP" / "iWARP".
int64_t tcp_ideal_fct_ps(const TcpConfig& cfg, int64_t size_bytes, int switch_hops,
                         const net::LinkConfig& link, const net::SwitchConfig& sw,
                         const net::NicConfig& nic);
// The kernel stack's copy of `bytes` between user and kernel memory (0 for iWARP: zero copy).
int64_t tcp_copy_ps(const TcpConfig& cfg, int64_t bytes);

struct TcpMessage : MessageRecord {
  uint32_t conn = 0;
  int64_t first_byte = 0;    // stream offset of its first byte
  int64_t stream_bytes = 0;  // bytes it occupies in the stream (size, at least 1)
  // The segments whose first byte lies in this message are numbered consecutively from
  // anchor_seg, the first at stream byte anchor_byte, each one full segment after the one
  // before (only the last may be short: a short segment ends where the data ready to send
  // ended, a message boundary at or past this message's end). So the segment k that starts
  // here starts at anchor_byte + (k - anchor_seg) x the full payload: the sequence number
  // (kernel TCP) or DDP tagged offset (iWARP) its header carries, which the 32-byte
  // net::Packet has no room for. Written once, when the first such segment is cut and before
  // it is sent; never changed (so a receiver on another thread reads it only after a packet
  // that depends on it has crossed a barrier: tcp_rx.cpp).
  int64_t anchor_byte = 0;
  uint32_t anchor_seg = 0;
  bool anchored = false;
  bool delivered = false;
  bool app_done = false;  // its kMsgComplete has run: the application has seen it
  // Copies of segments starting here: sent (sender), arrived (receiver), reported dropped. A
  // record stays until they balance, since every copy reads it (an empty message attributes no
  // payload byte, so its bytes alone would not hold it: retire_front).
  uint32_t copies_sent = 0;
  uint32_t copies_arrived = 0;
  uint32_t copies_dropped = 0;
  int64_t end_byte() const { return first_byte + stream_bytes; }
};

// Sender state of one segment (slot seg % ring size).
struct TcpTxSlot {
  int64_t sent_ps = 0;
  int64_t start_byte = 0;
  uint32_t seg = 0;
  uint32_t msg = 0;        // the message holding the segment's first byte
  uint16_t payload = 0;    // application bytes
  uint16_t tcp_bytes = 0;  // TCP payload (iWARP: with MPA/DDP framing); what cwnd counts
  uint8_t state = 0;       // kTcp* below
  uint8_t sends = 0;
};
static_assert(sizeof(TcpTxSlot) == 32, "two sender slots per cache line");
inline constexpr uint8_t kTcpFree = 0, kTcpInFlight = 1, kTcpLost = 2, kTcpSacked = 3;

struct TcpConn {
  uint32_t src_nic = 0;
  uint32_t dst_nic = 0;
  // The 5-tuple's source port, the ECMP entropy of both directions: a hash of (source,
  // destination, index within the pair), not of the connection's number, which follows
  // global post order (core/event_queue.h).
  uint16_t sport = 0;
  IdList msgs;  // its messages in posting order, from the oldest not retired
  int64_t retired_sent_bytes = 0;  // sent_bytes of its retired messages (telemetry's total)
  // ---- sender ----
  int64_t stream_end = 0;      // bytes posted
  int64_t ready_end = 0;       // bytes whose message is ready to send
  int64_t snd_nxt_byte = 0;    // next new byte to send
  int64_t snd_una_byte = 0;    // every byte below is acknowledged
  uint32_t snd_nxt = 0;        // next new segment number
  uint32_t snd_una = 0;        // every segment below is acknowledged
  uint32_t nxt_msg = 0;        // msgs[] index holding snd_nxt_byte
  uint32_t una_msg = 0;        // msgs[] index of the oldest message not yet acknowledged
  uint32_t ready_msg = 0;      // msgs[] index of the first message not yet ready
  int64_t last_ready_ps = 0;
  // Kernel stack: each connection's work runs on one core per side (RSS/XPS steer a flow to
  // one queue and core), busy until these times.
  int64_t tx_cpu_free_ps = 0;
  int64_t rx_cpu_free_ps = 0;
  TcpWindow win;               // cwnd, ssthresh (TCP payload bytes): transport/tcp_window_cc.h
  int64_t in_flight = 0;       // RFC 6675 pipe: bytes sent, not SACKed, not presumed lost
  bool in_recovery = false;
  bool active = false;         // in its NIC's round-robin
  bool hit_by_failure = false;
  uint32_t recover = 0;        // RFC 6582 recovery point (segment)
  // RFC 6298 estimator
  int64_t srtt_ps = -1;
  int64_t rttvar_ps = 0;
  int64_t rto_ps = 0;
  int backoff = 0;
  int64_t rto_deadline_ps = -1;  // -1: nothing outstanding
  int64_t timer_ps = -1;         // pending kQpTimer event
  TcpWindowCc cc;                // its congestion-control rule (NewReno, DCTCP, CUBIC, ...)
  // RFC 6675 loss marking: segments below loss_ptr have been decided (lost or SACKed)
  uint32_t loss_ptr = 0;
  uint32_t sacked_count = 0;     // SACKed segments at or above snd_una
  uint32_t sacked_below_ptr = 0; // of which below loss_ptr
  uint32_t lost_end = 0;         // failure recovery: one past the highest segment lost to link down
  std::vector<TcpTxSlot> tx;     // grows by doubling up to the segment window
  std::vector<uint32_t> rtx;     // lost segments to resend, FIFO rtx[rtx_head..]
  uint32_t rtx_head = 0;
  uint32_t rtx_pending() const { return static_cast<uint32_t>(rtx.size()) - rtx_head; }
  // ---- receiver ----
  uint32_t rcv_nxt = 0;          // every segment below has arrived
  uint32_t rcv_high = 0;         // one past the highest segment arrived
  int64_t rcv_nxt_byte = 0;      // stream bytes below rcv_nxt: the end of segment rcv_nxt - 1
  uint32_t rx_msg = 0;           // msgs[] index of the next message to deliver
  std::vector<uint64_t> rcv_bits;  // bit seg % window for rcv_nxt <= seg < rcv_nxt + window
  // The receiver's own record of where each segment it holds above a hole ends (slot seg %
  // size, valid where rcv_bits is set): when the hole fills, rcv_nxt_byte is read here. Grows
  // by doubling to the span of segments held, as the sender's ring; empty while none arrived
  // out of order.
  std::vector<int64_t> rcv_end;
  int unacked_segs = 0;
  int quickacks_left = 0;
  bool ce_state = false;         // RFC 8257 §3.2 DCTCP.CE
  int64_t delack_deadline_ps = -1;
  int64_t delack_timer_ps = -1;  // pending kCcTimer event
};

// On the shared NIC core (transport/nic_core.h).
class TcpTransport final : public NicCore<TcpTransport> {
 public:
  TcpTransport(const TcpConfig& cfg, net::Network& net, uint64_t seed);

  uint32_t post(uint32_t src_nic, uint32_t dst_nic, int64_t size_bytes, uint64_t tag,
                int sl = -1) override;
  // On NCCL channel `channel`'s connections (connections_per_pair of them): NCCL's socket
  // transport opens sockets per channel connection (net_socket.cc) and iWARP, through net_ib,
  // QPs per channel, as RoCE does (Transport::post_channel).
  uint32_t post_channel(uint32_t src_nic, uint32_t dst_nic, int64_t size_bytes, uint64_t tag,
                        uint32_t channel) override;
  const TcpMessage& message(uint32_t id) const override { return msgs_[id]; }
  uint32_t num_messages() const override { return msgs_.end_id(); }
  uint32_t first_live_message() const override { return msgs_.front_id(); }
  uint32_t peak_live_messages() const override { return msgs_.max_live(); }
  bool retire_messages(RetireFn retire) override;
  // NicCore's kMsgComplete, after on_delivered: the message may now be retired.
  void on_completed(uint32_t msg) {
    msgs_[msg].app_done = true;
    retire_front();
  }
  const TransportCounters& counters() const override { return counters_; }
  // Partitioned runs (transport.h): the sender's half of a connection is touched only at its
  // source NIC, the receiver's only at its destination NIC; a segment's stream position comes
  // from its own header (the message's anchor above), never from the sender's ring; an ACK's
  // SACK details travel in acks_, whose partitioned slots are freed at the barriers.
  bool partitionable() const override { return true; }
  void on_barrier() override { acks_.flush_frees(); }
  int64_t ideal_fct_ps(int64_t size_bytes, int switch_hops, const net::LinkConfig& link,
                       const net::SwitchConfig& sw, const net::NicConfig& nic) const override;
  double payload_rate_bps(int64_t link_rate_bps) const override;
  // One loss kind per connection (data it must see acknowledged): the losses pending are the
  // connections.
  int64_t failure_unrecovered_connections() const override { return failure_.pending(); }
  // Telemetry: one sample per connection (transport/qp_samples.cpp).
  void sample_qps(std::vector<QpSample>& out, bool with_bytes) const override;

  // iWARP: the RNICs keep each connection's state (TCB + QP context) in a context cache
  // (net/nic_context_cache.h; transport/tcp_ctxcache.cpp). REQUIRES: before the first post.
  void set_context_cache(const net::ContextCacheConfig& cfg, int64_t miss_latency_ps);

  const TcpConfig& config() const { return cfg_; }
  uint32_t num_connections() const { return static_cast<uint32_t>(conns_.size()); }
  const TcpConn& connection(uint32_t id) const { return conns_[id]; }
  // The connection a message from src to dst takes, made and rotated exactly as post() does
  // (the flow engine, engine/flow, reads its source port to walk the message's path).
  uint32_t open_connection(uint32_t src_nic, uint32_t dst_nic) { return conn_for(src_nic, dst_nic); }
  // The source port the first connection of NCCL channel `channel` between the two NICs has or
  // would have, without opening it (flow mode walks each folded channel's path).
  uint16_t channel_sport(uint32_t src_nic, uint32_t dst_nic, uint32_t channel) const;
  // Segments a connection may have outstanding (sender ring and receiver bitmap size).
  uint32_t window_segments() const { return window_segs_; }

 private:
  friend class NicCore<TcpTransport>;
  // ---- NicCore hooks (transport/nic_core.h); entries are connections ----
  static constexpr bool kContextCache = true;  // iWARP's RNIC (tcp_ctxcache.cpp)
  static constexpr bool kQuietRing = false;  // not measured; send_state reads more state
  bool admit(uint8_t paused_classes) const {
    return !(paused_classes & (1u << cfg_.data_priority));
  }
  // May the connection send now? Blocked by its windows (or nothing to send): an ACK or a post
  // activates it again; later while its next message is not ready or its host core is busy.
  SendState send_state(uint32_t conn, int64_t& at_ps);
  // Sends its next segment; it keeps its turn (the next pull re-checks it).
  bool send(uint32_t conn, net::Packet& out) {
    send_segment(conn, out);
    return true;
  }
  void deactivate(uint32_t conn) { conns_[conn].active = false; }
  uint32_t context_of(uint32_t conn) const { return conn; }
  // Data segments and ACKs look their connection's context up.
  static bool has_context(const net::Packet& p) {
    return p.type == net::PacketType::kData || p.type == net::PacketType::kAck;
  }
  void receive(uint32_t nic, const net::Packet& pkt);
  void on_dropped(const net::Packet& pkt, net::DropReason reason);
  void on_timer(uint32_t conn) { on_rto(conn); }        // kQpTimer: the RTO
  void on_cc_timer(uint32_t conn) { on_delack(conn); }  // kCcTimer: the delayed ACK

  // An ACK's SACK information beyond the 32-byte packet, indexed by the ACK's `msg` field (the
  // wire size is the real ACK with its SACK option).
  struct AckInfo {
    uint64_t sack_bits = 0;  // bit i: segment cum + 1 + i has arrived
    uint32_t trigger = 0;    // the segment that caused the ACK (RFC 2018 §4 first block)
    bool has_trigger = false;
  };
  uint32_t conn_for(uint32_t src, uint32_t dst, uint32_t channel = 0);
  uint16_t sport_of(uint64_t pair_key, uint32_t k, uint32_t channel) const;
  uint32_t post_on(uint32_t cid, uint32_t src_nic, uint32_t dst_nic, int64_t size_bytes,
                   uint64_t tag);
  // Stream byte where segment `seg`, whose first byte lies in message `m`, starts (the
  // sequence number its header carries: TcpMessage's anchor).
  int64_t seg_start(const TcpMessage& m, uint32_t seg) const {
    return m.anchor_byte + static_cast<int64_t>(seg - m.anchor_seg) * seg_payload_;
  }
  void activate(uint32_t conn);
  void send_segment(uint32_t conn, net::Packet& out);
  void grow_tx(TcpConn& c);
  TcpTxSlot& slot(TcpConn& c, uint32_t seg) {
    return c.tx[seg & (static_cast<uint32_t>(c.tx.size()) - 1)];
  }
  // Adds `len` stream bytes from `start` to the field of each message they belong to, from
  // message index `msg` on.
  void attribute(uint32_t msg, int64_t start, int64_t len, int64_t MessageRecord::*field);
  // sender (tcp_ack.cpp)
  void on_ack(const net::Packet& pkt);
  void on_rto(uint32_t conn);
  void arm_rto(uint32_t conn);
  void rtt_sample(TcpConn& c, int64_t rtt_ps);
  void mark_lost(TcpConn& c, TcpTxSlot& s);
  void detect_losses(TcpConn& c);
  void enter_recovery(TcpConn& c);
  TcpWindowCc make_cc(uint32_t connection) const;  // the rule fabric.tcp.cc (_scheme) names
  // ECT(0) data and the exact CE echo (RFC 8257 §3.1-3.2): DCTCP and registered rules.
  bool ecn_capable() const { return cfg_.cc == TcpCc::kDctcp || cfg_.cc == TcpCc::kScheme; }
  const TcpCcFactory* scheme_ = nullptr;  // cc kScheme
  void cc_on_ack(TcpConn& c, int64_t newly_bytes, bool ece);
  void advance_una(uint32_t conn, uint32_t cum);
  // receiver (tcp_rx.cpp)
  void on_data(const net::Packet& pkt);
  void send_ack(uint32_t conn, bool ece, uint32_t trigger, bool has_trigger);
  void on_delack(uint32_t conn);
  void deliver(uint32_t msg, uint32_t nic);

  TcpConfig cfg_;
  uint32_t mss_ = 0;           // TCP payload bytes of a full segment
  uint32_t seg_payload_ = 0;   // application bytes of a full segment
  uint32_t window_segs_ = 0;
  std::vector<TcpConn> conns_;
  // Every message not yet retired (all of them unless retire_messages() was called), by id.
  IdWindow<TcpMessage> msgs_;
  RetireFn retire_;
  // Hands the oldest messages that nothing can change any more to retire_ and frees them.
  void retire_front();
  // The receiver puts an ACK's details here, the sender takes them (Packet::msg is the slot).
  // In a partitioned run the slots carry the receiver's partition (core/slot_table.h), so the
  // numbers differ from a sequential run's: nothing may hash an ACK's msg (partitioned_run.cpp
  // keeps TCP on Dragonfly and multi-plane fabrics, whose routing can, on one partition).
  SlotTable<AckInfo> acks_;
  TransportCounters& own_counters() override { return counters_; }
  void on_partitioned(uint32_t partitions) override {
    acks_.begin_partitioned(partitions, &current_partition);
  }
  void on_sequential() override { acks_.end_partitioned(); }
  // Across ranks, an ACK's SACK details go with it, and a segment's anchor (the sequence number
  // its header carries, which the receiver reads from its message) with the segment
  // (transport/ack_annex.h).
  AckAnnex<AckInfo> annex_;
  static constexpr uint8_t kAnchorRecord = AckAnnex<AckInfo>::kFirstOwnKind;
  void annex(uint32_t rank, const net::Packet& p) override {
    annex_.note(rank, acks_, p);
    if (p.type != net::PacketType::kData) return;
    const TcpMessage& m = msgs_[p.msg];
    ByteWriter w(annex_.block(rank));
    w.put(kAnchorRecord);
    w.put(p.msg);
    w.put(m.anchor_byte);
    w.put(m.anchor_seg);
  }
  void on_ranked(uint32_t ranks, uint32_t first, uint32_t end) override {
    acks_.set_owned_parts(first, end);
    annex_.begin(ranks);
  }
  void pack_shared(std::vector<std::vector<char>>& out,
                   const std::vector<uint32_t>& rank_of) override {
    annex_.pack(out, acks_, rank_of);
  }
  void unpack_shared(ByteReader& in) override {
    uint8_t kind = 0;
    if (annex_.unpack(in, acks_, kind)) return;
    if (kind != kAnchorRecord) throw std::logic_error("TCP: unknown rank record");
    const auto id = in.get<uint32_t>();
    TcpMessage& m = msgs_[id];
    m.anchor_byte = in.get<int64_t>();
    m.anchor_seg = in.get<uint32_t>();
    m.anchored = true;
  }
  ConnectionIndex conn_index_;  // (src << 32 | dst, channel) -> the first of its connections
  std::vector<uint32_t> pair_turn_;  // per pair (first connection / connections_per_pair): next
  // Phase jitter, one stream per sending NIC (only that NIC's ACK handling draws from it).
  std::vector<Rng> jitter_rng_;
  uint64_t seed_;
  TransportCounters counters_;
};

}  // namespace fabricsim::transport
