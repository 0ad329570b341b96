// UET sender: connections, the send gate, retransmission and the handling of ACKs and NACKs.
// The receiver is in uet_pds.cpp, RCCC's pacer in uet_rccc.cpp, wire sizes in uet_frames.cpp.
#include "transport/uet.h"

#include <algorithm>
#include <bit>

#include "core/error.h"
#include "core/time.h"
#include "net/wire.h"

namespace fabricsim::transport {

using net::Packet;
using net::PacketType;

UetDerived uet_derive(const UetConfig& cfg, const UetNetwork& n) {
  UetDerived d;
  const int64_t L = n.diameter_links;
  const int64_t data_wire = uet_data_frame_bytes(cfg, static_cast<uint32_t>(cfg.mtu_bytes)) +
                            net::kWireOnlyBytes;
  const int64_t ack_wire = uet_ack_frame_bytes(cfg) + net::kWireOnlyBytes;
  // htsim main_uec.cpp calculate_rtt (§0): 2 x diameter x hop latency + diameter x (MTU + ACK)
  // serialization. fabricsim's hop latency is the cable's propagation plus the switch's
  // port-to-port latency, and the NIC pipelines count once per direction.
  d.network_rtt_ps = 2 * (L * n.link_propagation_ps + (L - 1) * n.switch_latency_ps +
                          n.nic_latency_ps) +
                     L * serialization_ps(data_wire, n.link_rate_bps) +
                     L * serialization_ps(ack_wire, n.link_rate_bps);
  // BDP = network_rtt x line rate (htsim uec.cpp initNsccParams _network_bdp).
  d.bdp_bytes = static_cast<int64_t>(static_cast<__int128>(d.network_rtt_ps) * n.link_rate_bps /
                                     (8 * kPsPerSecond));
  // The RTO when fabric.uet.rto is 0: htsim's fixed 15 us + diameter x the time to drain one
  // switch queue (main_uec.cpp _min_rto; §5: 100.66 us at its defaults); the queue is the
  // per-port limit, or htsim's 1 x BDP with trimming and 5 x BDP without (§0).
  const int64_t queue = n.port_queue_bytes > 0 ? n.port_queue_bytes
                                               : (cfg.trimming ? 1 : 5) * d.bdp_bytes;
  d.rto_ps = cfg.rto_ps > 0 ? cfg.rto_ps
                            : 15 * kPsPerUs + L * serialization_ps(queue, n.link_rate_bps);
  return d;
}

namespace {

// The reorder allowance of SACK-inferred loss, in network RTTs. Spraying reorders by the
// queueing-delay spread between paths; NSCC holds queues near its target (0.75 RTT) but a path
// may sit well above it. Measured on a k=8 fat-tree permutation of 8 MB flows (128 NICs,
// 100 Gb/s, trimming on; /tmp scenario as docs/calibration.md): 1 RTT resent 6 331
// (oblivious) / 3 185 (REPS) packets that were only late, 2 RTT 42 / 2, 3 RTT 0 / 0; at 1% loss
// per cable one flow's goodput is 90.5, 84.6 and 83.9 Gb/s. 2 keeps spurious resends negligible
// and most of the loss recovery (htsim has no such rule: trims and the RTO only).
constexpr int64_t kSackReorderRtts = 2;

}  // namespace

UetTransport::UetTransport(const UetConfig& cfg, net::Network& net, uint64_t seed,
                           const UetNetwork& n)
    : NicCore(net), cfg_(cfg), seed_(seed), n_(n), pacers_(net.num_nics()) {
  if (cfg_.paths < 1 || cfg_.paths > 65536 || !std::has_single_bit(static_cast<unsigned>(cfg_.paths))) {
    throw InputError("fabric.uet.paths", "must be a power of two from 1 to 65536");
  }
  d_ = uet_derive(cfg_, n_);
  if (!cfg_.cc_scheme.empty()) {
    scheme_ = find_uet_cc(cfg_.cc_scheme);
    if (scheme_ == nullptr) {
      throw std::invalid_argument("no UET congestion-control rule '" + cfg_.cc_scheme +
                                  "' is registered");
    }
  }
  const int mtu_frame = static_cast<int>(uet_data_frame_bytes(cfg_, static_cast<uint32_t>(cfg_.mtu_bytes)));
  nscc_params_ = nscc_params(d_.network_rtt_ps, n_.link_rate_bps, mtu_frame, cfg_.trimming,
                             static_cast<int>(uet_data_overhead_bytes(cfg_)));
  nscc_params_.receiver_cc = cfg_.rccc;
  nscc_params_.rescale_max_cwnd = cfg_.nscc_rescale_max_window;
  if (cfg_.nscc_overrides.target_delay_ps) {
    nscc_params_.target_delay_ps = *cfg_.nscc_overrides.target_delay_ps;
  }
  if (cfg_.nscc_overrides.max_cwnd_bytes) {
    nscc_params_.max_cwnd_bytes = *cfg_.nscc_overrides.max_cwnd_bytes;
  }
  // maxwnd = 1.5 x BDP (htsim _configured_maxwnd, §1a): the window with NSCC off, NSCC's
  // ceiling and RCCC's initial speculative credit.
  d_.max_wnd_bytes = nscc_params_.max_cwnd_bytes;
  // PSN window: room for 4 windows of packets (holes left by losses while later packets keep
  // flowing), at least 64 (one SACK bitmap), at most htsim's 2^14 (uecMaxInFlightPkts).
  const int64_t wnd_pkts = (d_.max_wnd_bytes + mtu_frame - 1) / mtu_frame;
  d_.window_pkts = std::clamp<uint32_t>(std::bit_ceil(static_cast<uint32_t>(4 * wnd_pkts)), 64,
                                        16384);
  register_endpoint();
}

UetTransport::~UetTransport() = default;

void UetTransport::receive(uint32_t /*nic*/, const Packet& p) {
  switch (p.type) {
    case PacketType::kData:
      on_data(p);
      break;
    case PacketType::kAck:
      on_ack(p);
      break;
    case PacketType::kNak:
      on_nack(p);
      break;
    case PacketType::kUetControl:
      on_credit(p);
      break;
    case PacketType::kCnp:
    case PacketType::kPause:
    case PacketType::kCredit:
    case PacketType::kReadRequest:
    case PacketType::kSharp:
      break;  // not UET's (link-layer frames are consumed in net/; SHARP is InfiniBand's)
  }
}

void UetTransport::on_dropped(const Packet& p, net::DropReason reason) {
  if (p.type == PacketType::kData) msgs_[p.msg].dropped_bytes += p.payload_bytes;
  if (p.type == PacketType::kAck) acks_.release(p.msg);  // its table entry is free
  if (reason != net::DropReason::kLinkDown) return;
  if (p.type != PacketType::kData && p.type != PacketType::kAck && p.type != PacketType::kNak &&
      p.type != PacketType::kUetControl) {
    return;
  }
  UetPdc& q = pdcs_[p.qp];
  failure_.hit(q.hit_by_failure);
  // Recovered once the sender sees everything up to the lost PSN acknowledged.
  if (p.type == PacketType::kData && p.psn >= q.snd_una) failure_.lost(q.lost_end, p.psn);
}

uint32_t UetTransport::pdc_for(uint32_t src, uint32_t dst) {
  const uint64_t key = (static_cast<uint64_t>(src) << 32) | dst;
  auto [it, inserted] = pdc_index_.try_emplace(key, static_cast<uint32_t>(pdcs_.size()));
  if (inserted) {
    UetPdc q;
    q.src_nic = src;
    q.dst_nic = dst;
    q.credit.credit_bytes = d_.max_wnd_bytes;  // speculative credit (htsim startConnection)
    pdcs_.push_back(std::move(q));
    // The PDC's random stream is named by its (source, destination) pair, not by its creation
    // order, which follows global post order (core/event_queue.h).
    lb_.emplace_back(cfg_.load_balancing, cfg_.paths, seed_, (0x7E7ull << 52) ^ key);
    const auto id = static_cast<uint32_t>(pdcs_.size() - 1);
    if (scheme_ != nullptr) {
      std::unique_ptr<UetCcScheme> s = (*scheme_)(UetCcContext{
          id, src, dst, n_.link_rate_bps, d_.network_rtt_ps, d_.max_wnd_bytes,
          static_cast<int>(uet_data_frame_bytes(cfg_, static_cast<uint32_t>(cfg_.mtu_bytes)))});
      if (!s) throw std::invalid_argument("UET rule '" + cfg_.cc_scheme + "' made no controller");
      cc_.emplace_back(std::move(s));
    } else if (cfg_.nscc) {
      cc_.emplace_back(std::make_unique<Nscc>(nscc_params_));
    } else {
      cc_.emplace_back(UetFixedWindow{d_.max_wnd_bytes});
    }
  }
  return it->second;
}

uint32_t UetTransport::post(uint32_t src_nic, uint32_t dst_nic, int64_t size_bytes, uint64_t tag,
                            int /*sl: UET data uses one traffic class*/) {
  const uint32_t id_pdc = pdc_for(src_nic, dst_nic);
  UetPdc& q = pdcs_[id_pdc];
  UetMessage m;
  m.pdc = id_pdc;
  m.connection = id_pdc;
  m.traffic_class = cfg_.data_priority;
  m.first_psn = q.psn_end;
  m.npkts = size_bytes <= 0 ? 1
                            : static_cast<uint32_t>((size_bytes + cfg_.mtu_bytes - 1) / cfg_.mtu_bytes);
  m.size_bytes = size_bytes;
  m.post_ps = sched_.now();
  m.ready_ps = std::max(sched_.now() + net_.nic_config(src_nic).send_overhead_ps(size_bytes),
                        q.last_ready_ps);
  q.last_ready_ps = m.ready_ps;
  m.tag = tag;
  m.src_nic = src_nic;
  m.dst_nic = dst_nic;
  q.psn_end += m.npkts;
  q.backlog_bytes += static_cast<int64_t>(m.npkts - 1) * uet_data_frame_bytes(cfg_, cfg_.mtu_bytes) +
                     uet_data_frame_bytes(cfg_, static_cast<uint32_t>(
                         size_bytes - static_cast<int64_t>(m.npkts - 1) * cfg_.mtu_bytes));
  const uint32_t id = msgs_.push_back(m);
  q.msgs.push_back(id);
  ++owed_of_nic(src_nic).unacked;
  activate(id_pdc);
  return id;
}

void UetTransport::activate(uint32_t id) {
  UetPdc& q = pdcs_[id];
  if (q.active) return;
  if (q.rtx_pending() == 0 && q.snd_nxt >= q.psn_end) return;
  q.active = true;
  enqueue(q.src_nic, id);
}

int64_t UetTransport::cwnd_bytes(uint32_t id) const {
  return cc_[id].cwnd_bytes();
}

SendState UetTransport::send_state(uint32_t id, int64_t& at_ps) const {
  const UetPdc& q = pdcs_[id];
  // The packet that would go: the oldest queued retransmission, else the next new PSN.
  uint32_t frame = 0;
  for (uint32_t i = q.rtx_head; i < q.rtx.size(); ++i) {
    const uint32_t psn = q.rtx[i];
    const UetTxSlot& s = q.tx[psn & (static_cast<uint32_t>(q.tx.size()) - 1)];
    if (s.state == kSlotQueued && s.psn == psn) {
      frame = s.frame;
      break;
    }
  }
  if (frame == 0) {
    if (q.snd_nxt >= q.psn_end) return SendState::kBlocked;
    // PSN window full: wait for ACKs.
    if (q.snd_nxt - q.snd_una >= d_.window_pkts) return SendState::kBlocked;
    const UetMessage& m = msgs_[q.msgs[q.nxt_msg]];
    if (q.snd_nxt == m.first_psn && m.ready_ps > sched_.now()) {
      at_ps = m.ready_ps;
      return SendState::kLater;
    }
    frame = uet_data_frame_bytes(cfg_, cfg_.mtu_bytes);  // at most a full frame
  }
  // htsim isSendPermitted (§2): the window must hold the packet (NSCC, or the fixed maxwnd),
  // and with RCCC the credit must be positive; with both, both.
  if (q.in_flight_bytes > 0 && q.in_flight_bytes + frame > cwnd_bytes(id)) {
    return SendState::kBlocked;
  }
  if (cfg_.rccc && q.credit.credit_bytes <= 0) return SendState::kBlocked;
  return SendState::kReady;
}

int64_t UetTransport::pull_target(const UetPdc& q, uint32_t id) const {
  // htsim computePullTarget (§2): min(backlog + retransmissions, cwnd + MTU with NSCC, maxwnd)
  // - credit, added to what was granted so far (the target is cumulative).
  int64_t want = q.backlog_bytes +
                 static_cast<int64_t>(q.rtx_pending()) * uet_data_frame_bytes(cfg_, cfg_.mtu_bytes);
  if (moving_window()) {
    want = std::min(want, cwnd_bytes(id) + uet_data_frame_bytes(cfg_, cfg_.mtu_bytes));
  }
  want = std::min(want, d_.max_wnd_bytes);
  return q.credit.granted_seen + std::max<int64_t>(0, want - q.credit.credit_bytes);
}

void UetTransport::grow_tx(UetPdc& q) {
  // Slots live at psn % size: re-place the ones in use [snd_una, snd_nxt) in a ring twice as
  // large. Rare: each PDC doubles at most log2(window / 16) times, when its span first grows.
  std::vector<UetTxSlot> bigger(q.tx.empty() ? 16 : 2 * q.tx.size());
  const uint32_t big_mask = static_cast<uint32_t>(bigger.size()) - 1;
  if (!q.tx.empty()) {
    const uint32_t mask = static_cast<uint32_t>(q.tx.size()) - 1;
    for (uint32_t psn = q.snd_una; psn != q.snd_nxt; ++psn) bigger[psn & big_mask] = q.tx[psn & mask];
  }
  q.tx.swap(bigger);
}

void UetTransport::send_packet(uint32_t id, Packet& p) {
  UetPdc& q = pdcs_[id];
  uint32_t mask = static_cast<uint32_t>(q.tx.size()) - 1;
  const int64_t now = sched_.now();
  UetTxSlot* s = nullptr;
  while (q.rtx_pending() > 0) {
    const uint32_t psn = q.rtx[q.rtx_head++];
    if (q.rtx_head == q.rtx.size()) {
      q.rtx.clear();
      q.rtx_head = 0;
    } else if (q.rtx_head >= 1024 && 2 * q.rtx_head >= q.rtx.size()) {  // never drains: compact
      q.rtx.erase(q.rtx.begin(), q.rtx.begin() + q.rtx_head);
      q.rtx_head = 0;
    }
    UetTxSlot& c = q.tx[psn & mask];
    if (c.state == kSlotQueued && c.psn == psn) {
      s = &c;
      break;
    }
  }
  UetMessage* m;
  if (s != nullptr) {
    m = &msgs_[s->msg];
    ++m->retransmitted_packets;
    ++ctr(counters_).retransmitted_packets;
  } else {
    if (q.snd_nxt - q.snd_una >= q.tx.size()) {  // the span outgrew the ring (send_state
      grow_tx(q);                                  // caps it at the PSN window)
      mask = static_cast<uint32_t>(q.tx.size()) - 1;
    }
    const uint32_t psn = q.snd_nxt++;
    s = &q.tx[psn & mask];
    const uint32_t msg_id = q.msgs[q.nxt_msg];
    m = &msgs_[msg_id];
    const uint32_t index = psn - m->first_psn;
    const bool last = index + 1 == m->npkts;
    s->psn = psn;
    s->msg = msg_id;
    s->payload = static_cast<uint16_t>(
        last ? m->size_bytes - static_cast<int64_t>(index) * cfg_.mtu_bytes : cfg_.mtu_bytes);
    s->frame = static_cast<uint16_t>(uet_data_frame_bytes(cfg_, s->payload));
    s->sends = 0;
    q.backlog_bytes -= s->frame;
    if (last) ++q.nxt_msg;
  }
  s->state = kSlotInFlight;
  s->sent_ps = now;
  if (s->sends < 255) ++s->sends;
  s->ev = lb_[id].next(now);
  q.in_flight_bytes += s->frame;
  if (cfg_.rccc) {
    q.credit.credit_bytes -= s->frame;
    s->pull_target = pull_target(q, id);
  }
  const uint32_t index = s->psn - m->first_psn;
  p.src_nic = q.src_nic;
  p.dst_nic = q.dst_nic;
  p.qp = id;
  p.psn = s->psn;
  p.msg = s->msg;
  p.payload_bytes = s->payload;
  p.frame_bytes = s->frame;
  p.entropy = s->ev;
  p.type = PacketType::kData;
  p.priority = static_cast<uint8_t>(cfg_.data_priority);
  p.ecn = 2;  // ECT(0): NSCC reacts to CE (§1)
  const bool ack_req = s->sends > 1 ||
                       q.in_flight_bytes + s->frame > cwnd_bytes(id) ||
                       (cfg_.rccc && q.credit.credit_bytes <= 0);
  p.flags = static_cast<uint8_t>((index == 0 ? net::kFlagFirst : 0) |
                                 (index + 1 == m->npkts ? net::kFlagLast : 0) |
                                 (ack_req ? kFlagAckReq : 0));
  m->sent_bytes += s->payload;
  ++ctr(counters_).data_packets_sent;
  ctr(counters_).data_bytes_sent += s->payload;
  if (q.timer_ps < 0) arm_timer(id, now + d_.rto_ps);
}

void UetTransport::arm_timer(uint32_t id, int64_t at_ps) {
  pdcs_[id].timer_ps = at_ps;
  sched_.at(at_ps, kQpTimer, id, pdcs_[id].src_nic);  // the event order's owner: the PDC's NIC
}

void UetTransport::queue_rtx(UetPdc& q, UetTxSlot& s) {
  q.in_flight_bytes -= s.frame;
  s.state = kSlotQueued;
  q.rtx.push_back(s.psn);
}

void UetTransport::on_timer(uint32_t id) {
  UetPdc& q = pdcs_[id];
  if (q.timer_ps != sched_.now()) return;  // superseded
  q.timer_ps = -1;
  const uint32_t mask = static_cast<uint32_t>(q.tx.size()) - 1;
  const int64_t now = sched_.now();
  // The RTO runs from the oldest packet in flight (htsim startRTO: fixed, no backoff).
  int64_t oldest = -1;
  for (uint32_t psn = q.snd_una; psn != q.snd_nxt; ++psn) {
    const UetTxSlot& s = q.tx[psn & mask];
    if (s.state == kSlotInFlight && (oldest < 0 || s.sent_ps < oldest)) oldest = s.sent_ps;
  }
  if (oldest < 0) {
    // Nothing in flight. With RCCC a sender with work but no credit may be waiting for a grant
    // that was lost (a failed link): ask again (htsim's RTS), at most once per RTO.
    if (cfg_.rccc && q.credit.credit_bytes <= 0 &&
        (q.rtx_pending() > 0 || q.snd_nxt < q.psn_end)) {
      send_control(q.src_nic, q.dst_nic, id, kCtlCreditReq, 0);
      arm_timer(id, now + d_.rto_ps);
    }
    return;  // otherwise the next send re-arms
  }
  if (oldest + d_.rto_ps > now) {
    arm_timer(id, oldest + d_.rto_ps);
    return;
  }
  ++ctr(counters_).timeouts;
  uint32_t first_frame = 0;
  for (uint32_t psn = q.snd_una; psn != q.snd_nxt; ++psn) {
    UetTxSlot& s = q.tx[psn & mask];
    if (s.state == kSlotInFlight && s.sent_ps + d_.rto_ps <= now) {
      if (first_frame == 0) first_frame = s.frame;
      queue_rtx(q, s);
    }
  }
  cc_[id].on_timeout(first_frame);
  lb_[id].on_timeout(now);
  if (cfg_.rccc && q.credit.credit_bytes <= 0) {
    // htsim sendRTS: ask the receiver for credit for what must be resent.
    q.credit.speculating = false;
    send_control(q.src_nic, q.dst_nic, id, kCtlCreditReq, 0);
  }
  arm_timer(id, now + d_.rto_ps);  // until the retransmissions' own sends re-arm it
  activate(id);
}

void UetTransport::stop_speculating(UetPdc& q) {
  // htsim stopSpeculating: the first feedback ends speculative sending.
  if (!q.credit.speculating) return;
  q.credit.speculating = false;
  if (q.credit.credit_bytes > 0) q.credit.credit_bytes = 0;
}

void UetTransport::ack_slot(UetPdc& q, uint32_t psn, int64_t& newly_bytes) {
  UetTxSlot& s = q.tx[psn & (static_cast<uint32_t>(q.tx.size()) - 1)];
  if (s.psn != psn || s.state == kSlotAcked || s.state == kSlotFree) return;
  if (s.state == kSlotInFlight) q.in_flight_bytes -= s.frame;
  newly_bytes += s.frame;
  s.state = kSlotAcked;
  if (s.sent_ps > q.rack_sent_ps && s.sends == 1) {
    q.rack_sent_ps = s.sent_ps;
    q.rack_rtt_ps = sched_.now() - s.sent_ps;
  }
}

void UetTransport::advance_una(uint32_t id) {
  UetPdc& q = pdcs_[id];
  const uint32_t mask = static_cast<uint32_t>(q.tx.size()) - 1;
  while (q.snd_una != q.snd_nxt && q.tx[q.snd_una & mask].state == kSlotAcked) {
    q.tx[q.snd_una & mask].state = kSlotFree;
    ++q.snd_una;
  }
  while (q.una_msg < q.msgs.size()) {
    UetMessage& m = msgs_[q.msgs[q.una_msg]];
    if (m.first_psn + m.npkts > q.snd_una) break;
    m.tx_done_ps = sched_.now();
    --owed().unacked;
    ++q.una_msg;
  }
  failure_.reached(q.lost_end, q.snd_una, sched_.now());
  retire_front();
}

bool UetTransport::retire_messages(RetireFn retire) {
  retire_ = std::move(retire);
  retire_front();
  return true;
}

// A message is final when the application has seen it, every PSN of it is acknowledged and
// every payload byte it sent has arrived, been reported dropped or arrived trimmed (no copy is
// on its way, and no retransmission can be queued: its slots are acknowledged). It is then the
// oldest message of its PDC, whose nxt_msg and una_msg are past it; no packet names it again.
void UetTransport::retire_front() {
  if (!retire_) return;
  while (!msgs_.empty()) {
    const uint32_t id = msgs_.front_id();
    const UetMessage& m = msgs_[id];
    if (!m.app_done || m.tx_done_ps < 0 ||
        m.sent_bytes != m.delivered_bytes + m.dropped_bytes + m.trimmed_bytes) {
      return;
    }
    UetPdc& q = pdcs_[m.pdc];
    q.retired_sent_bytes += m.sent_bytes;
    q.msgs.pop_front();
    retire_(id, m);
    msgs_.pop_front();
  }
}

void UetTransport::on_ack(const Packet& p) {
  const AckInfo a = acks_.take(p.msg);
  ++ctr(counters_).ack_packets;
  const uint32_t id = p.qp;
  UetPdc& q = pdcs_[id];
  const int64_t now = sched_.now();
  const uint32_t mask = static_cast<uint32_t>(q.tx.size()) - 1;
  stop_speculating(q);
  const bool ecn = p.flags & net::kFlagEce;
  // The RTT sample: the packet that triggered the ACK, if it was sent once (Karn).
  int64_t rtt = -1;
  if (const UetTxSlot& t = q.tx[a.trigger_psn & mask]; a.trigger_psn != kNoTrigger &&
      t.psn == a.trigger_psn && t.sends == 1 && t.state == kSlotInFlight) {
    rtt = now - t.sent_ps;
  }
  int64_t newly = 0;
  const uint32_t cack = std::min(p.psn, q.snd_nxt);
  for (uint32_t psn = q.snd_una; psn < cack; ++psn) ack_slot(q, psn, newly);
  for (uint32_t i = 0; i < 64; ++i) {
    const uint32_t psn = a.sack_base + i;
    if (psn >= q.snd_nxt) break;
    if (((a.sack_bits >> i) & 1) && psn >= q.snd_una) ack_slot(q, psn, newly);
  }
  // SACK-inferred loss (RACK-like, RFC 8985): a packet sent before one now acknowledged and out
  // for that one's RTT plus a reorder allowance of kSackReorderRtts network RTTs is presumed
  // lost. Only an ACK reporting a hole (a SACKed PSN above the cumulative point) can reveal one.
  const bool hole = a.sack_bits != 0 &&
                    p.psn < a.sack_base + 64 - static_cast<uint32_t>(__builtin_clzll(a.sack_bits));
  if (cfg_.sack_loss && hole && q.rack_sent_ps >= 0) {
    const uint32_t end = std::min(q.snd_nxt, a.sack_base + 64);
    for (uint32_t psn = q.snd_una; psn < end; ++psn) {
      UetTxSlot& s = q.tx[psn & mask];
      if (s.psn == psn && s.state == kSlotInFlight && s.sent_ps < q.rack_sent_ps &&
          now - s.sent_ps >= q.rack_rtt_ps + kSackReorderRtts * d_.network_rtt_ps) {
        queue_rtx(q, s);
        ++ctr(counters_).sack_retransmits;
      }
    }
  }
  cc_[id].on_ack(now, newly, rtt, ecn, q.in_flight_bytes);
  if (a.trigger_psn != kNoTrigger) lb_[id].on_feedback(p.entropy, ecn);
  advance_una(id);
  activate(id);
}

void UetTransport::rod_go_back(UetPdc& q, uint32_t from) {
  // The ROD receiver drops every PSN after a missing one: resend all in flight from `from`, and
  // keep the resend queue in PSN order (a ROD receiver would drop an early out-of-order resend).
  const uint32_t mask = static_cast<uint32_t>(q.tx.size()) - 1;
  q.rtx.clear();
  q.rtx_head = 0;
  for (uint32_t psn = q.snd_una; psn != q.snd_nxt; ++psn) {
    UetTxSlot& s = q.tx[psn & mask];
    if (s.psn != psn) continue;
    if (s.state == kSlotInFlight && psn >= from) {
      queue_rtx(q, s);
    } else if (s.state == kSlotQueued) {
      q.rtx.push_back(psn);
    }
  }
}

void UetTransport::on_nack(const Packet& p) {
  ++ctr(counters_).naks;
  const uint32_t id = p.qp;
  UetPdc& q = pdcs_[id];
  stop_speculating(q);
  const uint32_t mask = static_cast<uint32_t>(q.tx.size()) - 1;
  if (p.msg == kNackRodOoo) {
    // ROD: everything below the NACKed PSN arrived; go back to it and resend all after it.
    int64_t newly = 0;
    for (uint32_t psn = q.snd_una; psn < p.psn && psn != q.snd_nxt; ++psn) ack_slot(q, psn, newly);
    rod_go_back(q, p.psn);
    if (newly > 0) cc_[id].on_ack(sched_.now(), newly, -1, false, q.in_flight_bytes);
    advance_una(id);
  } else {
    // A trimmed packet: resend it at once (htsim processNack, §4); under ROD everything sent
    // after it too, since the receiver drops those until it has the trimmed one. A last-hop trim
    // says the receiver's downlink, not the path, was full: NSCC with RCCC leaves the window to
    // the credit, and the path is reported good (or marked) rather than penalised.
    const bool last_hop = p.msg == kNackTrimmedLastHop;
    UetTxSlot& s = q.tx[p.psn & mask];
    if (s.psn == p.psn && s.state == kSlotInFlight) {
      const int64_t rtt = s.sends == 1 ? sched_.now() - s.sent_ps : -1;
      cc_[id].on_nack(sched_.now(), s.frame, last_hop, q.in_flight_bytes, rtt);
      if (cfg_.delivery == UetDelivery::kRod) {
        rod_go_back(q, p.psn);
      } else {
        queue_rtx(q, s);
      }
    }
    lb_[id].on_feedback(p.entropy, last_hop ? (p.flags & net::kFlagEce) != 0 : true);
  }
  activate(id);
}

int64_t UetTransport::ideal_fct_ps(int64_t size_bytes, int switch_hops,
                                   const net::LinkConfig& link, const net::SwitchConfig& sw,
                                   const net::NicConfig& nic) const {
  return uet_ideal_fct_ps(cfg_, size_bytes, switch_hops, link, sw, nic);
}

double UetTransport::payload_rate_bps(int64_t link_rate_bps) const {
  const double frame = uet_data_frame_bytes(cfg_, static_cast<uint32_t>(cfg_.mtu_bytes)) +
                       net::kWireOnlyBytes;
  return static_cast<double>(link_rate_bps) * cfg_.mtu_bytes / frame;
}

}  // namespace fabricsim::transport
