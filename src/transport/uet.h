// Ultra Ethernet Transport (UEC 1.0 PDS with NSCC/RCCC congestion management): what UET NICs do
// with messages. Facts and defaults: docs/reference/uet-sim.md (cited as §n below); design
// notes and what differs from uet-htsim: docs/transports.md "Ultra Ethernet".
//
// PDS: one packet delivery context (PDC) per (source NIC, destination NIC) pair carries that
// pair's messages with 32-bit PSNs. RUD (default): the receiver places packets in any order,
// tracks arrived PSNs in a bitmap window and delivers a message once all its packets arrived;
// ROD: it accepts only the next PSN and NACKs (ROD_OOO) an out-of-order one, the sender goes
// back to it. The receiver acknowledges with a cumulative ACK + 64-bit SACK, coalesced every
// ack_every bytes and at once on CE, duplicates, the sender's AR flag, the connection's first
// packet, a message's last or completing packet and the packet that closes the last hole (§5). A trimmed packet (switch trimming, net::kFlagTrimmed) is NACKed at once and
// resent at once; a packet is inferred lost when packets sent after it have been acknowledged
// and it has been out for two network RTTs longer (SACK); anything else is resent by the fixed
// RTO (§5). Each packet carries an entropy value (transport/uet_lb.h) the switches hash.
// The sender may send while the window allows (NSCC's cwnd, or the fixed maxwnd when NSCC is
// off) and, with RCCC, while it holds receiver-granted credit (transport/uet_rccc.h).
#pragma once

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "core/ring.h"
#include "core/scheduler.h"
#include "core/id_list.h"
#include "core/id_window.h"
#include "core/slot_table.h"
#include "transport/ack_annex.h"
#include "net/network.h"
#include "transport/nic_core.h"
#include "transport/transport.h"
#include "transport/uet_config.h"
#include "transport/uet_lb.h"
#include "transport/uet_nscc.h"
#include "transport/uet_window_cc.h"
#include "transport/uet_pds.h"
#include "transport/uet_rccc.h"

namespace fabricsim::transport {

// ---- wire sizes (transport/uet_frames.cpp) ----
// Header bytes of a UET data frame around its payload: Ethernet 14 + IPv4 20 + UDP 8 (dst port
// 4793) + PDS RUD/ROD request 12 (RUD_CC_REQ 16 when it carries RCCC's credit target) + SES
// standard request 44 + FCS 4 (Wireshark packet-uet.c: UET_PDS_RUD_ROD_MIN_HDR_LEN 12,
// UET_PDS_RUD_ROD_CC_MIN_HDR_LEN 16, UET_SES_STD_MIN_HDR_LEN 44). header_bytes > 0 replaces
// all of it (htsim's 64 B).
uint32_t uet_data_overhead_bytes(const UetConfig& cfg);
uint32_t uet_data_frame_bytes(const UetConfig& cfg, uint32_t payload_bytes);
// ACK_CC: PDS ACK 12 + ACK_CC extension 20 (UET_PDS_ACK_EXT_HDR_SIZE: cc_type, MPR, SACK offset,
// 64-bit SACK bitmap, CC state) = 32 B after UDP; frame 78 B.
uint32_t uet_ack_frame_bytes(const UetConfig& cfg);
// NACK and CREDIT/RTS control packets: 16 B PDS headers, padded to the 64 B minimum frame.
uint32_t uet_control_frame_bytes(const UetConfig& cfg);

// Completion time of one message alone on an idle path (as transport::ideal_fct_ps for RoCE).
int64_t uet_ideal_fct_ps(const UetConfig& cfg, int64_t size_bytes, int switch_hops,
                         const net::LinkConfig& link, const net::SwitchConfig& sw,
                         const net::NicConfig& nic);

// The network the constants scale from (§0): the diameter path of the fabric.
struct UetNetwork {
  int diameter_links = 4;          // link crossings of the longest path (2 x tiers)
  int64_t link_rate_bps = 0;
  int64_t link_propagation_ps = 0;
  int64_t switch_latency_ps = 0;
  int64_t nic_latency_ps = 0;      // NIC tx + rx pipeline, one way
  int64_t port_queue_bytes = 0;    // switch per-port data queue (0: 1 x BDP with trimming,
                                   // 5 x BDP without, htsim's defaults, §0)
};

// The derived constants of a run: network RTT, BDP, maxwnd, RTO (see uet.cpp for sources).
struct UetDerived {
  int64_t network_rtt_ps = 0;
  int64_t bdp_bytes = 0;
  int64_t max_wnd_bytes = 0;
  int64_t rto_ps = 0;
  uint32_t window_pkts = 0;  // PSN window: sender span and receiver bitmap (power of two)
};
UetDerived uet_derive(const UetConfig& cfg, const UetNetwork& n);

// On UET data: the PDS AR (ACK request) flag: the receiver ACKs this packet at once. The sender
// sets it on retransmissions and when the packet exhausts its window or credit (htsim
// sendNewPacket/sendRtxPacket, §5), so coalescing never holds back the ACK a blocked sender
// waits for. (Bits 4-7 of Packet::flags carry the SL only on InfiniBand.)
inline constexpr uint8_t kFlagAckReq = 32;

// NACK codes (§4, Wireshark/uet-ref-prov): carried in the NACK packet's `msg` field.
inline constexpr uint32_t kNackTrimmed = 0x01;
inline constexpr uint32_t kNackTrimmedLastHop = 0x02;
inline constexpr uint32_t kNackRodOoo = 0x0D;
// kUetControl subtypes, in the packet's `msg` field.
inline constexpr uint32_t kCtlCredit = 7;      // PDS_CTL_TYPE_CREDIT: receiver grants credit
inline constexpr uint32_t kCtlCreditReq = 8;   // PDS_CTL_TYPE_CREDIT_REQ: sender's RTS

struct UetMessage : MessageRecord {
  uint32_t pdc = 0;
  uint32_t first_psn = 0;
  uint32_t npkts = 0;
  uint32_t rcvd_pkts = 0;   // distinct packets the receiver has placed
  bool delivered = false;   // the receiver delivered it (exactly once)
  bool app_done = false;    // its kMsgComplete has run: the application has seen it
  // Payload of its packets that reached the receiver trimmed to a header (each resent): with
  // delivered and dropped bytes it accounts for every byte sent (retirement's test).
  int64_t trimmed_bytes = 0;
};

// Sender state of one PSN in the window (slot psn % window).
struct UetTxSlot {
  int64_t sent_ps = 0;
  int64_t pull_target = 0;  // RCCC: the cumulative credit target the packet carried
  uint32_t psn = 0;
  uint32_t msg = 0;
  uint16_t payload = 0;
  uint16_t frame = 0;
  uint16_t ev = 0;
  uint8_t state = 0;        // kSlot* below
  uint8_t sends = 0;
};
static_assert(sizeof(UetTxSlot) == 32, "two sender slots per cache line");
inline constexpr uint8_t kSlotFree = 0, kSlotInFlight = 1, kSlotQueued = 2, kSlotAcked = 3;

struct UetPdc {
  uint32_t src_nic = 0;
  uint32_t dst_nic = 0;
  uint8_t ctl_ev = 0;  // EV counter of the PDC's control packets (credits, credit requests)
  IdList msgs;  // its messages in posting order, from the oldest not retired
  int64_t retired_sent_bytes = 0;  // sent_bytes of its retired messages (telemetry's total)
  // sender
  uint32_t psn_end = 0;   // next PSN to assign
  uint32_t snd_nxt = 0;   // next new PSN to send
  uint32_t snd_una = 0;   // every PSN below is acknowledged
  uint32_t nxt_msg = 0;   // msgs[] index holding snd_nxt
  uint32_t una_msg = 0;   // msgs[] index of the oldest message not yet acknowledged
  int64_t last_ready_ps = 0;
  int64_t backlog_bytes = 0;    // frame bytes posted and not yet sent once
  int64_t in_flight_bytes = 0;  // frame bytes sent and neither acknowledged nor presumed lost
  int64_t rack_sent_ps = -1;    // latest send time of an acknowledged packet (SACK loss rule)
  int64_t rack_rtt_ps = 0;      // its RTT
  int64_t timer_ps = -1;        // pending RTO check (-1: none)
  std::vector<UetTxSlot> tx;    // slot psn % tx.size(); grows by doubling up to the PSN window
  // PSNs to resend, in order: a FIFO of rtx[rtx_head..] (a vector rather than a Ring so that
  // UetPdc moves; it is cleared, keeping its capacity, whenever it drains).
  std::vector<uint32_t> rtx;
  uint32_t rtx_head = 0;
  uint32_t rtx_pending() const { return static_cast<uint32_t>(rtx.size()) - rtx_head; }
  UetCredit credit;             // RCCC sender side
  bool active = false;          // in its NIC's round-robin
  bool hit_by_failure = false;
  uint32_t lost_end = 0;        // failure recovery: one past the highest PSN lost to a link down
  UetRx rx;                     // receiver side of the same PDC
};

// On the shared NIC core (transport/nic_core.h).
class UetTransport final : public NicCore<UetTransport> {
 public:
  UetTransport(const UetConfig& cfg, net::Network& net, uint64_t seed, const UetNetwork& n);
  ~UetTransport() override;

  uint32_t post(uint32_t src_nic, uint32_t dst_nic, int64_t size_bytes, uint64_t tag,
                int sl = -1) override;
  const UetMessage& message(uint32_t id) const override { return msgs_[id]; }
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
  // Partitioned runs (transport.h): UET keeps its state per PDC end and per NIC; an ACK's
  // details travel in acks_, whose partitioned slots are freed at the barriers.
  bool partitionable() const override { return true; }
  void on_barrier() override { acks_.flush_frees(); }
  int64_t ideal_fct_ps(int64_t size_bytes, int switch_hops, const net::LinkConfig& link,
                       const net::SwitchConfig& sw, const net::NicConfig& nic) const override;
  double payload_rate_bps(int64_t link_rate_bps) const override;
  // One loss kind per PDC (data it must see acknowledged): the losses pending are the PDCs.
  int64_t failure_unrecovered_connections() const override { return failure_.pending(); }
  // Telemetry: one sample per connection (transport/qp_samples.cpp).
  void sample_qps(std::vector<QpSample>& out, bool with_bytes) const override;

  const UetConfig& config() const { return cfg_; }
  // The PDC of a message from src to dst, made as post() makes it, and the entropy value its
  // next packet would carry (single-path: the PDC's one EV). For the flow engine (engine/flow).
  uint32_t open_pdc(uint32_t src_nic, uint32_t dst_nic) { return pdc_for(src_nic, dst_nic); }
  uint16_t pdc_entropy(uint32_t pdc) { return lb_[pdc].next(0); }
  const UetDerived& derived() const { return d_; }
  uint32_t num_pdcs() const { return static_cast<uint32_t>(pdcs_.size()); }
  const UetPdc& pdc(uint32_t id) const { return pdcs_[id]; }
  // The NSCC window of a PDC (REQUIRES: nscc on).
  const Nscc& nscc(uint32_t pdc) const { return *cc_[pdc].nscc(); }
  const UetEntropy& entropy(uint32_t pdc) const { return lb_[pdc]; }
  // Messages delivered by each receiver, in delivery order (tests check ROD order).
  const std::vector<uint32_t>& delivery_order() const { return delivery_order_; }

 private:
  friend class NicCore<UetTransport>;
  // ---- NicCore hooks (transport/nic_core.h); entries are PDCs ----
  static constexpr bool kContextCache = false;
  static constexpr bool kQuietRing = false;  // not measured; send_state reads more state
  // All UET data is one class: nothing to send while PFC (optional) pauses it.
  bool admit(uint8_t paused_classes) const {
    return !(paused_classes & (1u << cfg_.data_priority));
  }
  // May the PDC send now? Blocked by its window or credit (or nothing to send): ACKs, NACKs and
  // grants activate it again; later while the next message is still being posted.
  SendState send_state(uint32_t pdc, int64_t& at_ps) const;
  // Sends its next packet; it keeps its turn (the next pull re-checks it).
  bool send(uint32_t pdc, net::Packet& out) {
    send_packet(pdc, out);
    return true;
  }
  void deactivate(uint32_t pdc) { pdcs_[pdc].active = false; }
  void receive(uint32_t nic, const net::Packet& pkt);
  void on_dropped(const net::Packet& pkt, net::DropReason reason);
  void on_cc_timer(uint32_t nic) { on_pacer(nic); }  // kCcTimer: a NIC's RCCC pacer
  // An ACK's content beyond the 32-byte packet: kept here while the ACK is in flight, indexed
  // by the ACK's `msg` field (the wire size stays the real ACK_CC size).
  static constexpr uint32_t kNoTrigger = 0xFFFFFFFFu;
  struct AckInfo {
    uint64_t sack_bits = 0;
    uint32_t sack_base = 0;
    uint32_t trigger_psn = 0;
  };

  uint32_t pdc_for(uint32_t src, uint32_t dst);
  void activate(uint32_t pdc);
  void send_packet(uint32_t pdc, net::Packet& out);
  void grow_tx(UetPdc& q);
  void arm_timer(uint32_t pdc, int64_t at_ps);
  void on_timer(uint32_t pdc);
  void queue_rtx(UetPdc& q, UetTxSlot& s);
  void rod_go_back(UetPdc& q, uint32_t from);
  // receiver
  void on_data(const net::Packet& pkt);
  // echo = false: an ACK that reports no packet's RTT or EV (flushed ahead of a trim NACK).
  void send_ack(uint32_t pdc, const net::Packet& trigger, bool ce, bool echo = true);
  void send_nack(uint32_t pdc, uint32_t psn, uint32_t code, uint16_t ev, bool ce);
  void send_control(uint32_t from_nic, uint32_t to_nic, uint32_t pdc, uint32_t subtype,
                    uint32_t value);
  void deliver(uint32_t msg, uint32_t nic);
  void note_target(uint32_t pdc, int64_t target);
  void on_pacer(uint32_t nic);
  // sender
  void on_ack(const net::Packet& pkt);
  void on_nack(const net::Packet& pkt);
  void on_credit(const net::Packet& pkt);
  void ack_slot(UetPdc& q, uint32_t psn, int64_t& newly_bytes);
  void advance_una(uint32_t pdc);
  void stop_speculating(UetPdc& q);
  int64_t cwnd_bytes(uint32_t pdc) const;
  int64_t pull_target(const UetPdc& q, uint32_t pdc) const;

  UetConfig cfg_;
  uint64_t seed_;
  UetNetwork n_;
  UetDerived d_;
  NsccParams nscc_params_;
  std::vector<UetPdc> pdcs_;
  std::vector<UetWindowCc> cc_;  // per PDC: NSCC, the fixed maxwnd, or a registered rule
  const UetCcFactory* scheme_ = nullptr;  // cfg.cc_scheme's
  // NSCC or a registered rule: a window that moves (RCCC's pull target is capped by it).
  bool moving_window() const { return cfg_.nscc || scheme_ != nullptr; }
  std::vector<UetEntropy> lb_;               // per PDC
  // Every message not yet retired (all of them unless retire_messages() was called), by id.
  IdWindow<UetMessage> msgs_;
  RetireFn retire_;
  // Hands the oldest messages that nothing can change any more to retire_ and frees them.
  void retire_front();
  std::vector<UetPacer> pacers_;  // per NIC: its RCCC receiver pacer
  // The receiver puts an ACK's details here, the sender takes them (Packet::msg is the slot).
  // In a partitioned run the slots carry the receiver's partition (core/slot_table.h), so the
  // numbers differ from a sequential run's: nothing may hash an ACK's msg (partitioned_run.cpp
  // keeps UET on Dragonfly and multi-plane fabrics, whose routing can, on one partition).
  SlotTable<AckInfo> acks_;
  TransportCounters& own_counters() override { return counters_; }
  void on_partitioned(uint32_t partitions) override {
    acks_.begin_partitioned(partitions, &current_partition);
  }
  void on_sequential() override { acks_.end_partitioned(); }
  // Across ranks, an ACK's details go with it (transport/ack_annex.h).
  AckAnnex<AckInfo> annex_;
  void annex(uint32_t rank, const net::Packet& p) override { annex_.note(rank, acks_, p); }
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
    if (!annex_.unpack(in, acks_, kind)) throw std::logic_error("UET: unknown rank record");
  }
  std::vector<uint32_t> delivery_order_;
  std::unordered_map<uint64_t, uint32_t> pdc_index_;  // post time only
  TransportCounters counters_;
};

}  // namespace fabricsim::transport
