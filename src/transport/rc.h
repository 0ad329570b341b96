// RoCEv2 Reliable Connection transport: what the NICs do with messages.
//
// Requester: a message posted on a QP (one per source/destination NIC pair) is segmented into
// MTU-sized packets with consecutive PSNs, pulled by the NIC port one packet at a time (NIC
// queue pairs are served round-robin at line rate). ACKs advance the unacknowledged PSN; a NAK
// (PSN sequence error) acknowledges everything below its PSN and rewinds the send point to it
// (go-back-N, Linux rxe_comp.c); if nothing is acknowledged for the Local ACK Timeout the
// requester rewinds to the oldest unacknowledged PSN.
// Responder: accepts only the expected PSN; on a gap it sends one NAK and drops out-of-order
// packets until the expected PSN arrives (rxe_resp.c check_psn); duplicates are re-ACKed.
// With out_of_order it places packets up to reorder_buffer_packets ahead instead, and falls back
// to that go-back-N only beyond them; with spray the requester gives every data packet a new
// UDP source port (both in transport/rc_spray.cpp).
//
// Congestion control (transport/rate_cc.h): with a scheme (DCQCN, InfiniBand CC, or one
// registered through the interface) each QP has its sender side whose rate paces it
// (send_state() holds a QP back until its next-send time); the responder is the notification
// point and sends CNPs for CE-marked (RoCEv2) or FECN-marked (InfiniBand) arrivals. PLB changes a QP's UDP source port
// after repeated congested rounds.
#pragma once

#include <cstdint>
#include <functional>
#include <unordered_map>
#include <vector>

#include "core/id_list.h"
#include "core/id_window.h"
#include "core/ring.h"
#include "core/scheduler.h"
#include "net/network.h"
#include "net/nic_context_cache.h"
#include "transport/config.h"
#include "transport/connection_index.h"
#include "transport/dcqcn.h"
#include "transport/rate_cc.h"
#include "transport/nic_core.h"
#include "transport/transport.h"

namespace fabricsim::transport {

inline constexpr uint32_t kNoMessage = 0xFFFFFFFFu;
// Marks a NIC round-robin entry as a QP's READ responder rather than its requester.
inline constexpr uint32_t kResponderEntry = 1u << 31;

// RoCE's message record: the generic one (transport.h) plus its QP and PSN range.
struct Message : MessageRecord {
  uint32_t qp = 0;
  uint32_t first_psn = 0;
  uint32_t npkts = 0;
  bool app_done = false;  // its kMsgComplete has run: the application has seen it
};

struct Qp {
  uint32_t src_nic = 0;
  uint32_t dst_nic = 0;
  uint16_t entropy = 0;          // UDP source port (PLB may change it); IB: the DLID
  uint8_t priority = 0;          // Ethernet traffic class, or the IB VL of its SL
  uint8_t sl = 0;                // IB service level (pcap's LRH.SL)
  uint8_t plane = 0;             // IB multi-plane: the plane (HCA port) the QP is bound to
  IdList msgs;                   // its messages in posting order, from the oldest not retired
  int64_t retired_sent_bytes = 0;  // sent_bytes of its retired messages (telemetry's total)
  // requester
  uint32_t psn_end = 0;          // next PSN to assign to a new message
  int64_t last_ready_ps = 0;     // ready_ps of the latest message: WQEs are processed in order
  uint32_t snd_nxt = 0;          // next PSN to send
  uint32_t snd_una = 0;          // oldest unacknowledged PSN
  uint32_t high_sent = 0;        // one past the highest PSN ever sent
  uint32_t nxt_msg = 0;          // msgs[] index holding snd_nxt
  uint32_t una_msg = 0;          // msgs[] index holding snd_una
  int64_t last_progress_ps = 0;  // last ACK progress (or first send after idle)
  bool timer_pending = false;
  bool active = false;           // in its NIC's round-robin list
  bool failed = false;           // error state: retries exhausted, sends nothing more
  uint8_t retries = 0;           // consecutive timeouts without progress
  // congestion control (requester): pacing at the scheme's rate
  int64_t next_send_ps = 0;      // earliest time the next packet may start
  int64_t last_send_ps = 0;      // when the last packet started, and its wire size: a rate
  uint32_t last_wire_bytes = 0;  // change re-spaces the next packet from them
  int64_t cc_timer_ps = kNoTimer;  // when the pending kCcTimer fires
  // RTT sampling for schemes that listen to ACKs (RateCc::wants_acks): one timed PSN at a time,
  // first transmissions only (Karn's rule), -1 = none in flight.
  int64_t rtt_sent_ps = -1;
  uint32_t rtt_psn = 0;
  // notification point (responder)
  int64_t last_cnp_ps = -1;
  bool ce_since_ack = false;     // an in-order packet since the last ACK was CE-marked
  // PLB (requester): the current round ends when snd_una reaches round_end_psn
  uint32_t round_end_psn = 0;
  uint32_t round_acked = 0;
  uint32_t round_marked = 0;
  uint16_t congested_rounds = 0;
  uint16_t repaths = 0;
  uint16_t round_cnps = 0;       // CNPs received in the current round (DCQCN: PLB's signal)
  // Who the QP is: a hash of (source, destination, SL, channel, index within the pair), never its
  // creation order, so its entropy is the same whichever NIC posted first (core/event_queue.h).
  uint64_t path_key = 0;
  // Spraying (requester, transport/rc_spray.cpp): data packets sent so far, and this round's
  // order of the spray_paths source ports.
  uint32_t spray_index = 0;
  uint16_t spray_mask = 0;
  // Go-back-N (requester): one past the highest PSN sent when the last NAK rewound the QP; a
  // resend below it is a go-back-N retransmission (0: none since the last timeout).
  uint32_t gbn_resend_end = 0;
  // responder
  uint32_t epsn = 0;             // expected PSN
  uint32_t since_ack = 0;        // in-order packets accepted since the last ACK
  bool nak_sent = false;
  // Out-of-order placement: bit (psn % reorder_buffer_packets) set = that PSN ahead of epsn has
  // arrived. Allocated at the QP's first out-of-order arrival.
  std::vector<uint64_t> ooo_bits;
  uint32_t rx_msg = 0;           // msgs[] index of the first message not yet fully received
  bool uc_discard = false;       // UC/UD: dropping the rest of a message that lost a packet
  // RDMA READ. Responder: responses still to send are PSNs [resp_next, resp_end), resp_next in
  // msgs[resp_msg]; resp_high is one past the highest response PSN ever sent. Requester:
  // read_reissued = a gap in the responses has already re-issued the request from snd_una.
  uint32_t resp_next = 0;
  uint32_t resp_end = 0;
  uint32_t resp_msg = 0;
  uint32_t resp_high = 0;
  bool resp_active = false;      // in the responder NIC's round-robin list
  // Failure recovery (RoceTransport::on_failure_loss): one past the highest WRITE/SEND data PSN a
  // link failure destroyed that the responder has not yet received in order, and one past the
  // highest PSN whose READ request or response, ACK or NAK it destroyed that the requester has
  // not yet seen acknowledged (0 = none pending).
  uint32_t lost_to_failure_end = 0;
  uint32_t unacked_lost_end = 0;
  bool hit_by_failure = false;   // lost any packet, of any kind, to a failed link
  bool read_reissued = false;
  // mode: hybrid (transport/rc_hybrid.cpp): `skip_count` PSNs from `skip_psn` were carried
  // analytically while the QP's group stood still in steady state; neither end sends or expects
  // them (0 = none pending).
  uint32_t skip_psn = 0;
  uint32_t skip_count = 0;
};

// One implementation of transport::Transport (transport.h) on the shared NIC core
// (transport/nic_core.h). `final`: calls through a RoceTransport& (its own tests, rc*.cpp) bind
// directly, never through the vtable.
class RoceTransport final : public NicCore<RoceTransport> {
 public:
  // `dcqcn` is used when cfg.cc is kDcqcn (the resolved profile with its overrides), `ib_cc`
  // when it is kIbCc, `hpcc` when it is kHpcc (T resolved; the NICs' INT is enabled); kScheme makes each QP's scheme with the factory registered under
  // cfg.cc_scheme (throws std::invalid_argument if there is none).
  RoceTransport(const RoceConfig& cfg, net::Network& net, uint64_t seed,
                const DcqcnParams& dcqcn = DcqcnParams{}, const IbCcParams& ib_cc = IbCcParams{},
                const HpccParams& hpcc = HpccParams{});

  // Posts a message of `size_bytes` from src to dst now (cfg.operation: WRITE, SEND), on the QP
  // of that pair and service level (-1 = cfg.sl); returns the message id.
  uint32_t post(uint32_t src_nic, uint32_t dst_nic, int64_t size_bytes, uint64_t tag,
                int sl = -1) override;
  // The same on the QPs of NCCL channel `channel` (cfg.sl): each channel its own qps_per_pair
  // QPs per NIC pair (Transport::post_channel).
  uint32_t post_channel(uint32_t src_nic, uint32_t dst_nic, int64_t size_bytes, uint64_t tag,
                        uint32_t channel) override;
  // InfiniBand: the LIDs the Subnet Managers assigned and the SL -> VL map; packets then carry
  // DLIDs and their SL's VL. nic_lid[p * NICs + nic]: the LID of NIC nic's port on plane p, one
  // subnet per plane (routing/plane_subnets.h). With `planes` > 1 every QP is bound at its
  // creation to one plane, its source HCA's working plane ports taken round-robin (a QP lives on
  // one port; net/plane_choice.h), and addresses the peer by its LID on that plane.
  void set_infiniband(std::vector<uint16_t> nic_lid, const uint8_t (&sl_to_vl)[16],
                      uint32_t planes = 1);
  // The NICs' connection-context caches (net/nic_context_cache.h; transport/rc_ctxcache.cpp):
  // every QP's packets then look up its context at the NIC that sends or receives them.
  // REQUIRES: called before the first post(); miss_latency_ps resolved (the knob, else dma_read).
  void set_context_cache(const net::ContextCacheConfig& cfg, int64_t miss_latency_ps);
  // Swift (transport/rc_swift.cpp): the switch hops on the path from one NIC to another, which
  // its target delay scales with. REQUIRES: set before the first post() when cfg.cc is kSwift.
  void set_path_hops(std::function<int(uint32_t src_nic, uint32_t dst_nic)> hops) {
    path_hops_ = std::move(hops);
  }
  // Telemetry: one sample per connection (transport/qp_samples.cpp).
  void sample_qps(std::vector<QpSample>& out, bool with_bytes) const override;
  // Transport: on_delivered is called once per message when its last byte is delivered in
  // order at the responder (plus the NIC's completion delay), always from a kMsgComplete event.
  int64_t ideal_fct_ps(int64_t size_bytes, int switch_hops, const net::LinkConfig& link,
                       const net::SwitchConfig& sw, const net::NicConfig& nic) const override;
  double payload_rate_bps(int64_t link_rate_bps) const override;
  int64_t failure_unrecovered_connections() const override { return failure_unrecovered_qps(); }

  const Message& message(uint32_t id) const override { return msgs_[id]; }
  uint32_t num_messages() const override { return msgs_.end_id(); }
  uint32_t first_live_message() const override { return msgs_.front_id(); }
  uint32_t peak_live_messages() const override { return msgs_.max_live(); }
  bool retire_messages(RetireFn retire) override;
  // NicCore's kMsgComplete, after on_delivered: the message may now be retired.
  void on_completed(uint32_t msg) {
    msgs_[msg].app_done = true;
    retire_front();
  }
  const Qp& qp(uint32_t id) const { return qps_[id]; }
  // The QP a message from src to dst on service level `sl` (-1 = the configured one) takes,
  // made and rotated exactly as post() does: the flow engine (engine/flow) reads its header
  // fields to walk the path packet mode would give the message.
  uint32_t open_qp(uint32_t src_nic, uint32_t dst_nic, int sl, uint32_t channel = 0) {
    return qp_for(src_nic, dst_nic, sl < 0 ? cfg_.sl : sl, channel);
  }
  // The UDP source port (RoCE) the first QP of NCCL channel `channel` between the two NICs has
  // or would have, without making it: the flow engine walks each folded channel's path
  // (engine/flow/flow_transport.h post_folded). -1 where every channel takes the pair's path
  // (InfiniBand forwards by DLID; a multi-plane HCA binds planes per QP as QPs are made).
  int32_t channel_entropy(uint32_t src_nic, uint32_t dst_nic, int sl, uint32_t channel) const;
  uint32_t num_qps() const { return static_cast<uint32_t>(qps_.size()); }
  const TransportCounters& counters() const override { return counters_; }
  // Partitioned runs (transport.h): RC keeps its state per QP end and per NIC.
  bool partitionable() const override { return true; }

  // ---- mode: hybrid (transport/rc_hybrid.cpp; engine/hybrid/steady_skip.h) ----
  // Called with the QP of every message posted (the controller's list of busy QPs).
  void set_post_hook(void (*fn)(void* ctx, uint32_t qp), void* ctx) {
    post_hook_ = fn;
    post_hook_ctx_ = ctx;
  }
  // Full packets of the QP's current message that may be carried analytically: those after
  // snd_nxt and before the message's last packet, less `margin`; 0 unless the message has
  // started, no earlier skip is pending and the QP is a healthy reliable WRITE/SEND requester.
  uint32_t skippable_packets(uint32_t qp_id, uint32_t margin) const;
  // Carries `packets` (<= skippable_packets) from snd_nxt: the sender moves past them, counted
  // as sent; the responder counts them received when its expected PSN reaches them.
  void skip_packets(uint32_t qp_id, uint32_t packets);
  // Takes back the last `packets` of the pending skip (REQUIRES: neither end moved since).
  void unskip_packets(uint32_t qp_id, uint32_t packets);
  // Moves the times of the QP's own progress (pacing, its retransmission clock, RTT stamps) by
  // delta_ps; message post and ready times stay (the app's), and so does congestion control,
  // which keeps real time.
  void shift_qp_time(uint32_t qp_id, int64_t delta_ps);
  // Feeds congestion control the bytes of `packets` skipped packets (DCQCN's byte counter).
  void count_skipped_for_cc(uint32_t qp_id, uint32_t packets);
  // The headers of the QP's data packets and of its ACKs and CNPs as they leave (the fields
  // forwarding reads), for walking their paths.
  net::Packet data_header(uint32_t qp_id) const;
  net::Packet ack_header(uint32_t qp_id) const;
  // Wire bytes (frame, preamble and gap) of a full-MTU data packet inside a message and of an
  // ACK: what a skipped packet and its acknowledgement would have put on each port.
  int64_t data_wire_bytes() const;
  int64_t ack_wire_bytes() const;
  // A requester with nothing to send or acknowledge and no pending skip.
  bool qp_idle(uint32_t qp_id) const {
    const Qp& q = qps_[qp_id];
    return q.failed || (q.snd_una >= q.psn_end && q.skip_count == 0);
  }
  void shift_nic_time(uint32_t nic, int64_t delta_ps) {
    if (nics_[nic].wake_ps != kNoTimer) nics_[nic].wake_ps += delta_ps;
    ring_changed(nic);  // its quiet record's time did not move
  }
  // The DCQCN reaction point of a QP (REQUIRES: cc is dcqcn).
  const DcqcnRp& rp(uint32_t qp) const { return *rps_[qp].dcqcn(); }
  // A QP's congestion-control scheme (REQUIRES: cc_enabled()).
  const RateCc& cc(uint32_t qp) const { return rps_[qp]; }
  bool cc_enabled() const { return cfg_.cc != CongestionControl::kNone; }
  const RoceConfig& config() const { return cfg_; }
  // The resolved DCQCN parameters (profile and overrides; meaningful when cc is dcqcn).
  const DcqcnParams& dcqcn_params() const { return dcqcn_; }
  // unacked_messages() (Transport): messages posted whose last packet the requester has not
  // yet seen acknowledged (a failed QP's no longer count: they will never be), plus completions
  // still on their way to the application.
  // QPs that lost any packet to a failed link (data, READ request or response, ACK, NAK or
  // CNP, in either direction), and when the last reliable one had recovered every such loss:
  // lost data delivered in order again, a lost acknowledgement superseded by the requester
  // seeing that PSN acknowledged (-1 while some loss is unrecovered, or when no loss needed
  // recovering: nothing lost, or only CNPs and packets already acknowledged).
  int64_t failure_affected_qps() const { return failure_.affected(); }
  // Affected QPs with a loss still unrecovered (e.g. their QP failed, or the run stopped).
  int64_t failure_unrecovered_qps() const {
    int64_t n = 0;
    for (const Qp& q : qps_) n += q.lost_to_failure_end != 0 || q.unacked_lost_end != 0;
    return n;
  }

 private:
  friend class NicCore<RoceTransport>;
  // ---- NicCore hooks (transport/nic_core.h); entries are QPs or kResponderEntry | QP ----
  static constexpr bool kContextCache = true;
  // The NIC's quiet record (nic_core.h pull): send_state reads a QP's pacing time (repace, the
  // hybrid shift), its send point (rewind, the hybrid skip), its failure, its posted end and a
  // READ responder's range; each place that moves one calls ring_changed. Its window is read
  // only once the pacing time has passed, which ends the record anyway.
  static constexpr bool kQuietRing = true;
  // RoCE sends all data in one class: nothing to do while PFC pauses it. IB: remembers the VLs
  // whose head packet waits for credits (send_state skips their QPs).
  bool admit(uint8_t paused_classes) {
    if (!ib() && (paused_classes & (1u << cfg_.data_priority))) return false;
    paused_classes_ = paused_classes;
    return true;
  }
  SendState send_state(uint32_t entry, int64_t& at_ps);
  bool send(uint32_t entry, net::Packet& out);
  void deactivate(uint32_t entry);
  uint32_t context_of(uint32_t entry) const { return entry & ~kResponderEntry; }
  // Every packet of a QP looks its context up (rc_ctxcache.cpp).
  static bool has_context(const net::Packet& p);
  // What the NIC does with a received packet (at arrival, or once its context arrived).
  void receive(uint32_t nic, const net::Packet& pkt);
  void on_dropped(const net::Packet& pkt, net::DropReason reason);
  void on_timer(uint32_t qp);
  void on_cc_timer(uint32_t qp);

  // A packet of a QP was lost to a failed link: the QP is affected; note what must happen for
  // it to have recovered.
  void on_failure_loss(const net::Packet& pkt);
  // The in-order point of `q` reached `psn_end`: what a link failure destroyed is delivered.
  void check_recovered(Qp& q, uint32_t in_order_end);
  // snd_una advanced: lost acknowledgements and READ packets below it are recovered.
  void check_acked_recovered(Qp& q);

  uint32_t qp_for(uint32_t src_nic, uint32_t dst_nic, int sl, uint32_t channel = 0);
  uint32_t post_on(uint32_t qp_id, uint32_t src_nic, uint32_t dst_nic, int64_t size_bytes,
                   uint64_t tag);
  bool ib() const { return cfg_.link_layer == LinkLayer::kInfiniband; }
  // Who the k-th QP of (pair key, channel) is, and the RoCE UDP source port that follows.
  static uint64_t qp_identity(uint64_t pair_key, uint32_t k, uint32_t channel);
  uint16_t rxe_sport(uint64_t path_key) const;
  bool reliable() const { return cfg_.service == Service::kRc; }
  void accept_in_order(Qp& q, uint32_t qp_id, bool last, bool ce);
  // Spraying and the reorder buffer (transport/rc_spray.cpp).
  // The UDP source port of the QP's next data packet (cfg.spray), advancing its spray state.
  uint16_t spray_entropy(Qp& q);
  // Out-of-order responder, psn > epsn: place it in the reorder buffer, or beyond the buffer
  // fall back to go-back-N.
  void place_out_of_order(Qp& q, uint32_t qp_id, uint32_t psn);
  // After epsn advanced: move it past the placed packets now in order; returns how many.
  uint32_t drain_placed(Qp& q);
  // The responder starts a go-back-N recovery: it NAKs epsn (once, until epsn arrives).
  void start_go_back_n(Qp& q, uint32_t qp_id);
  void complete_received(Qp& q);
  void credit_placed(Qp& q, uint32_t psn, int sign);  // +1 placed, -1 discarded
  // The last byte of `msg` reached `nic` in order: the application sees it completion_ps later.
  void deliver(uint32_t msg, uint32_t nic);
  void activate(uint32_t qp);
  void make_data_packet(uint32_t qp, net::Packet& out);
  // RDMA READ (transport/rc_read.cpp).
  void make_read_request(uint32_t qp, net::Packet& out);
  void make_read_response(uint32_t qp, net::Packet& out);
  void on_read_request(const net::Packet& pkt);
  void on_read_response(const net::Packet& pkt);
  void activate_responder(uint32_t qp);
  void on_data(const net::Packet& pkt);
  void on_ack(uint32_t qp, uint32_t psn, bool ece);
  // HPCC (transport/rc_hpcc.cpp): INT on, the slots sized from the largest window.
  void enable_hpcc();
  // An ACK of `psn` reached the requester: its INT records update the QP's rate and window,
  // and a QP its window held may send again.
  void on_hpcc_ack(uint32_t qp, uint32_t psn);
  // Whether the QP's bytes in flight fill its window (HPCC, Swift, DCTCP; never for rate-only
  // schemes).
  bool window_full(uint32_t qp) const;
  bool windowed() const {
    return cfg_.cc == CongestionControl::kHpcc || cfg_.cc == CongestionControl::kSwift ||
           cfg_.cc == CongestionControl::kDctcp;
  }
  // DCTCP (transport/rc_dctcp.cpp): an ACK with its ECN echo moves the rate and the window.
  void on_dctcp_ack(uint32_t qp, bool ece);
  // Swift (transport/rc_swift.cpp): its QP's scheme, and an ACK of `psn` that advanced snd_una
  // by `acked_pkts` (the delay sample, the window, and a QP the window held may send again).
  void enable_swift();
  RateCc make_swift(uint32_t src_nic, uint32_t dst_nic, int64_t line_rate_bps) const;
  void on_swift_ack(uint32_t qp, uint32_t psn, uint32_t acked_pkts);
  // A sequence NAK rewound the QP (Swift's fast recovery) or its retransmission timer expired.
  void on_swift_loss(uint32_t qp, bool timeout);
  void plb_round(uint32_t qp, uint32_t newly_acked, bool ece);
  void on_nak(uint32_t qp, uint32_t psn);
  void acknowledge(Qp& q, uint32_t ack_upto);
  void rewind(Qp& q, uint32_t psn);
  void send_control(const Qp& q, net::PacketType type, uint32_t qp_id, uint32_t psn,
                    bool ece = false);
  void arm_timer(uint32_t qp, int64_t at_ps);
  void on_cnp(uint32_t qp);
  void arm_cc_timer(uint32_t qp);
  // After the QP's rate changed: re-space its next packet at the new rate.
  void repace(uint32_t qp);

  RoceConfig cfg_;
  uint64_t seed_;
  int64_t rto_ps_;
  std::vector<Qp> qps_;
  DcqcnParams dcqcn_;
  IbCcParams ib_cc_;  // the IB CC RPs point at it
  HpccParams hpcc_;   // cc kHpcc
  // Bytes of HPCC's INT header on every data frame and ACK (0 unless cc kHpcc).
  uint16_t int_header_bytes_ = 0;
  const RateCcFactory* scheme_ = nullptr;  // cc kScheme
  std::function<int(uint32_t, uint32_t)> path_hops_;  // cc kSwift
  std::vector<RateCc> rps_;  // per QP when cc_enabled()
  RateCc make_cc(uint32_t qp_id, uint32_t src_nic, uint32_t dst_nic);
  // ECN-capable data: RoCEv2 always; InfiniBand only with IB CC (FECN marking).
  // HPCC reads telemetry, not marks: its data is not ECN-capable, so no CNP is ever sent.
  uint8_t data_ecn() const { return data_ecn_; }
  uint8_t data_ecn_ = 2;
  // Every message not yet retired (all of them unless retire_messages() was called), by id.
  IdWindow<Message> msgs_;
  void (*post_hook_)(void* ctx, uint32_t qp) = nullptr;
  void* post_hook_ctx_ = nullptr;
  void receive_skipped(Qp& q);  // the responder's expected PSN reached a pending skip
  RetireFn retire_;
  // Hands the oldest messages that nothing can change any more to retire_ and frees them.
  void retire_front();
  std::vector<uint16_t> nic_lid_;  // InfiniBand: [plane x NICs + NIC]
  uint32_t planes_ = 1;
  std::vector<uint32_t> plane_next_;  // per NIC: the next plane a new QP is bound to
  // The LID of `nic`'s port on the plane of QP `q`.
  uint16_t lid_of(const Qp& q, uint32_t nic) const {
    return nic_lid_[q.plane * net_.num_nics() + nic];
  }
  uint8_t bind_plane(uint32_t qp_id, uint32_t src_nic);
  uint8_t sl_to_vl_[16] = {};
  // (src << 34 | dst << 4 | sl, channel) -> the first of its QPs.
  ConnectionIndex qp_index_;
  // qps_per_pair > 1: per pair (its first QP / qps_per_pair), the pair's QP the next message
  // takes.
  std::vector<uint32_t> pair_next_;
  TransportCounters counters_;
  TransportCounters& own_counters() override { return counters_; }
  // Of the NIC port being served (admit() to send_state(), one pull): per thread, since NICs of
  // different partitions are served at once in a partitioned run.
  static inline thread_local uint8_t paused_classes_ = 0;
};

// Completion time of a message alone on an idle path of `switch_hops` switches, all links at
// `link.rate_bps`: the sender's per-message overhead (post, doorbell, DMA read unless inline),
// every packet serialized back to back at the NIC, then the last packet's propagation and
// per-switch latency (plus, at each store-and-forward switch, the largest frame's
// serialization), the NIC pipelines at both ends and the receiver's completion.
int64_t ideal_fct_ps(int64_t size_bytes, int switch_hops, const RoceConfig& roce,
                     const net::LinkConfig& link, const net::SwitchConfig& sw,
                     const net::NicConfig& nic);

// Frame bytes of a data packet (the L2 frame with FCS on Ethernet; LRH..VCRC on InfiniBand) for
// the configured link layer, service and operation; `first`/`last`: the message's first/last
// packet (WRITE FIRST/ONLY carry a RETH, READ RESPONSE FIRST/LAST/ONLY an AETH).
uint32_t data_frame_bytes(const RoceConfig& cfg, uint32_t payload_bytes, bool first, bool last);
// Frame bytes of an RDMA READ request (BTH + RETH, no payload).
uint32_t read_request_frame_bytes(const RoceConfig& cfg);
// Per-frame bytes on the wire beyond the frame (Ethernet preamble + IFG; none on InfiniBand).
uint32_t wire_only_bytes(const RoceConfig& cfg);

// Bytes a post hands the NIC to read from host memory: the message, except for a READ (its
// request carries no payload, so the WQE always fits the doorbell).
int64_t posted_bytes(const RoceConfig& cfg, int64_t size_bytes);

// Payload of the last packet of a message and the packet count (a 0-byte message is one packet).
uint32_t packets_for(int64_t size_bytes, int mtu_bytes);

}  // namespace fabricsim::transport
