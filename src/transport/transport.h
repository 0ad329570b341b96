// The one interface between workloads (and the node layer) and a transport: post a message,
// learn that it was delivered, read per-message records and counters for the results.
//
// It is per message, not per packet (STYLE §6): post(), message() and the completion callback
// are called once per message, so they may be virtual. Everything per packet stays inside the
// implementation: the network calls it through net::Endpoint function pointers it registered,
// exactly as before. The run loop's per-event "is anything outstanding" check reads a counter
// kept here (non-virtual, inline). docs/transports.md lists what a new transport implements.
//
// Implementations: RoceTransport (transport/rc.h: RoCEv2 and InfiniBand RC/UC/UD) and
// UetTransport (transport/uet.h: Ultra Ethernet PDS with NSCC/RCCC) and TcpTransport
// (transport/tcp.h: kernel TCP and iWARP with NewReno/DCTCP). No
// implementation knows another, and the network layer (src/net) knows none of them.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <stdexcept>
#include <vector>

#include "core/partitions.h"
#include "core/rank_exchange.h"
#include "core/scheduler.h"
#include "net/config.h"
#include "net/hooks.h"
#include "net/packet.h"
#include "net/nic_context_cache.h"

namespace fabricsim::transport {

// A time no timer or wake-up is pending at (the transports' "none" for a scheduled time).
inline constexpr int64_t kNoTimer = std::numeric_limits<int64_t>::max();

// What every transport records of a message: enough for the flow table, the completion time and
// the workloads' own labels. A transport's own record type derives from it (RoCE adds the QP and
// PSNs) and message() may return that derived type (covariant return).
struct MessageRecord {
  int64_t size_bytes = 0;
  int64_t post_ps = 0;
  int64_t ready_ps = 0;     // post + the NIC's send overhead: its first packet may start then
  int64_t rx_done_ps = -1;  // the receiving application sees the last byte (-1: not yet)
  int64_t tx_done_ps = -1;  // the sender learns the message was delivered (last ACK)
  int64_t sent_bytes = 0;       // payload put on the wire, retransmissions included
  int64_t delivered_bytes = 0;  // payload that reached the receiver's NIC
  // Payload the receiver kept, each byte once: duplicates and packets it discarded (go-back-N,
  // beyond a reorder window, trimmed) are not counted. A flow's goodput is its rate of change.
  int64_t placed_bytes = 0;
  int64_t dropped_bytes = 0;    // payload dropped in the fabric
  int64_t retransmitted_packets = 0;
  uint64_t tag = 0;  // the workload's own label
  uint32_t src_nic = 0;
  uint32_t dst_nic = 0;
  // For the flow table (flows.csv class, qp): the connection the message went on (RoCE/IB
  // QP, UET PDC, TCP connection) and its class (IB: the SL; Ethernet: the 802.1p priority).
  uint32_t connection = 0;
  int traffic_class = 0;
};

// Counters the result layer reads. A transport fills the ones that mean something for it and
// leaves the others at 0 (a transport without CNPs reports no CNPs).
struct TransportCounters {
  int64_t data_packets_sent = 0;
  int64_t data_bytes_sent = 0;
  int64_t data_bytes_delivered = 0;
  int64_t retransmitted_packets = 0;
  int64_t timeouts = 0;
  int64_t naks = 0;
  int64_t ack_packets = 0;
  int64_t qp_errors = 0;  // connections (RoCE: QPs) that exhausted their retries
  int64_t cnps_sent = 0;
  int64_t ecn_marked_packets = 0;  // CE-marked data packets that reached a receiver
  int64_t plb_repaths = 0;
  int64_t out_of_order_packets = 0;  // placed out of sequence order
  int64_t read_requests = 0;         // RDMA READ requests sent, re-issues included
  int64_t ooo_window_drops = 0;      // too far ahead of the expected sequence number to place
  // Go-back-N recoveries a responder started (RoCE: a sequence NAK), on a PSN gap without a
  // reorder buffer (reordering or loss: it cannot tell) or on an arrival beyond the buffer, and
  // the packets the requester resent because of them.
  int64_t go_back_n_fallbacks = 0;
  int64_t go_back_n_retransmits = 0;
  // UET (transport/uet.h)
  int64_t trims_seen = 0;     // trimmed data headers that reached a receiver (each NACKed)
  int64_t credits_sent = 0;   // RCCC credit grants sent by receivers
  int64_t sack_retransmits = 0;  // packets resent because later ones were acknowledged (SACK)
  // TCP / iWARP (transport/tcp.h): host CPU time the kernel stack spent (syscalls, per-segment
  // protocol work, user<->kernel copies; 0 for iWARP, whose NIC does it), and fast recoveries.
  int64_t host_cpu_ps = 0;
  int64_t fast_recoveries = 0;
};

// Adds one partition's counters into the run's (a partitioned run keeps them per partition:
// core/partitions.h).
inline void add_counters(TransportCounters& to, const TransportCounters& c) {
  to.data_packets_sent += c.data_packets_sent;
  to.data_bytes_sent += c.data_bytes_sent;
  to.data_bytes_delivered += c.data_bytes_delivered;
  to.retransmitted_packets += c.retransmitted_packets;
  to.timeouts += c.timeouts;
  to.naks += c.naks;
  to.ack_packets += c.ack_packets;
  to.qp_errors += c.qp_errors;
  to.cnps_sent += c.cnps_sent;
  to.ecn_marked_packets += c.ecn_marked_packets;
  to.plb_repaths += c.plb_repaths;
  to.out_of_order_packets += c.out_of_order_packets;
  to.read_requests += c.read_requests;
  to.ooo_window_drops += c.ooo_window_drops;
  to.go_back_n_fallbacks += c.go_back_n_fallbacks;
  to.go_back_n_retransmits += c.go_back_n_retransmits;
  to.trims_seen += c.trims_seen;
  to.credits_sent += c.credits_sent;
  to.sack_retransmits += c.sack_retransmits;
  to.host_cpu_ps += c.host_cpu_ps;
  to.fast_recoveries += c.fast_recoveries;
}


// One connection's congestion-control state at a telemetry sample (engine/packet/telemetry.h):
// the RoCE/IB QP, UET PDC or TCP connection `qp` (the transport's own dense id). A quantity the
// scheme does not have is -1: DCQCN has a rate (its current rate Rc), NSCC and TCP a window.
struct QpSample {
  uint32_t qp = 0;
  uint32_t src_nic = 0;
  uint32_t dst_nic = 0;
  // "dcqcn", "ib", a registered scheme's name, "nscc", "newreno", "cubic", "dctcp", "fixed",
  // "none"
  const char* cc = "none";
  int64_t rate_bps = -1;
  int64_t window_bytes = -1;
  int64_t sent_bytes = 0;     // payload sent so far, retransmissions included (with_bytes only)
};

class Transport {
 public:
  virtual ~Transport() = default;
  Transport() = default;
  Transport(const Transport&) = delete;
  Transport& operator=(const Transport&) = delete;

  // Posts a message of `size_bytes` from src to dst now; `sl` selects the service level or
  // traffic class (-1 = the transport's default). Returns the message id (dense, from 0).
  virtual uint32_t post(uint32_t src_nic, uint32_t dst_nic, int64_t size_bytes, uint64_t tag,
                        int sl = -1) = 0;
  // Posts a message of NCCL channel `channel`'s connection between the two NICs. NCCL gives
  // every channel its own network connection to a peer (src/transport/net.cc sendProxyConnect:
  // one ncclNet connect per channelId, each with NCCL_IB_QPS_PER_CONNECTION queue pairs), so
  // channels do not queue behind each other and take their own ECMP paths. Channel 0 is the
  // connection post() uses. RC and TCP/iWARP open connections per channel; UET keeps one PDC
  // per NIC pair (posts as post() does).
  virtual uint32_t post_channel(uint32_t src_nic, uint32_t dst_nic, int64_t size_bytes,
                                uint64_t tag, uint32_t channel) {
    (void)channel;
    return post(src_nic, dst_nic, size_bytes, tag);
  }
  // A message standing for `weight` channels' messages of the same size share, moving together
  // (a ring's channels folded into one, workload/collective_plan.h): on the fabric it gets the
  // share `weight` connections would. Only the flow engine's transport is handed weight > 1
  // (node::GpuNet folds across nodes only there); the others post it as post_channel.
  virtual uint32_t post_folded(uint32_t src_nic, uint32_t dst_nic, int64_t size_bytes,
                               uint64_t tag, uint32_t channel, int32_t weight) {
    (void)weight;
    return post_channel(src_nic, dst_nic, size_bytes, tag, channel);
  }
  // Called once per message when the receiving application sees its last byte.
  std::function<void(uint32_t msg)> on_delivered;

  // The record of message `id`; REQUIRES first_live_message() <= id < num_messages().
  virtual const MessageRecord& message(uint32_t id) const = 0;
  virtual uint32_t num_messages() const = 0;  // ids given so far (the next post's id)

  // Retirement (issue 24 item 1): a transport that supports it hands each message's final
  // record to the function given here once nothing can change it again (the application has
  // seen it, the sender has seen it acknowledged, every byte it put on the wire has arrived or
  // been reported dropped), oldest id first with no id skipped, and then frees it, so that the
  // records held follow the messages in flight. message(id) is then valid only from
  // first_live_message() on. Returns false (and keeps every record) when it does not support it.
  using RetireFn = std::function<void(uint32_t id, const MessageRecord& m)>;
  virtual bool retire_messages(RetireFn retire) {
    (void)retire;
    return false;
  }
  virtual uint32_t first_live_message() const { return 0; }
  // The most message records held at once (every message when nothing was retired): run.json's
  // peak_live_messages, what the pre-flight's transport part would need to model retirement.
  virtual uint32_t peak_live_messages() const { return num_messages(); }
  virtual const TransportCounters& counters() const = 0;

  // The transport's own scheduled events (core/scheduler.h kinds it schedules: timers, NIC
  // wake-ups, completions). The run loop hands it every event of a kind in is_event().
  virtual void on_event(uint32_t kind, uint32_t target) = 0;
  // Is `kind` one of the transport event kinds (core/scheduler.h "transport:" range)?
  static constexpr bool is_event(uint32_t kind) {
    return kind == kQpTimer || kind == kCcTimer || kind == kNicWake || kind == kMsgComplete ||
           kind == kCtxRx || kind == kDropNotice || kind == kFluidCc;
  }

  // Completion time of a message alone on an idle path of `switch_hops` switches (the flow
  // table's ideal FCT and the node layer's idle-machine estimates).
  virtual int64_t ideal_fct_ps(int64_t size_bytes, int switch_hops, const net::LinkConfig& link,
                               const net::SwitchConfig& sw, const net::NicConfig& nic) const = 0;
  // Payload bytes per second a single message can reach on an idle link of `link_rate_bps`
  // (the line rate less per-packet headers, preamble and gaps).
  virtual double payload_rate_bps(int64_t link_rate_bps) const = 0;

  // Link failures: connections that lost any packet to a failed link, when the last one had
  // recovered (-1 while some loss is unrecovered or nothing needed recovering), and how many
  // still have an unrecovered loss.
  virtual int64_t failure_affected_connections() const = 0;
  virtual int64_t failure_recovered_ps() const = 0;
  virtual int64_t failure_unrecovered_connections() const = 0;

  // The NICs' connection-context caches (net/nic_context_cache.h) when the transport models
  // them and they are enabled, else nullptr; the results report their hits, misses and the NIC
  // memory the connections need.
  virtual const net::NicContextCache* context_cache() const { return nullptr; }

  // Telemetry (engine/packet/telemetry.h), once per sample, never per packet: appends one QpSample
  // per connection opened so far, in id order. `with_bytes` also sums each connection's
  // messages' sent_bytes (a pass over every message: the sampler asks once, at the end, to
  // pick the busiest). A transport without connections adds nothing.
  virtual void sample_qps(std::vector<QpSample>& out, bool with_bytes) const {
    (void)out;
    (void)with_bytes;
  }

  // Messages posted that the sender has not yet seen delivered, plus completions still on their
  // way to the application (messages of a failed connection no longer count), plus drop
  // reports not yet accounted for (so per-flow dropped bytes are complete when a run ends).
  // The run is over only when this is 0. Non-virtual: the run loop reads it after every event.
  uint64_t unacked_messages() const {
    if (part_ == nullptr) [[likely]] {
      return static_cast<uint64_t>(owed_.unacked + owed_.completions + owed_.notices);
    }
    int64_t n = 0;
    for (const PartSlot& s : part_slots_) n += s.owed.unacked + s.owed.completions + s.owed.notices;
    return static_cast<uint64_t>(n);
  }

  // ---- partitioned runs (core/partitions.h) ----
  // Whether this transport keeps its state per NIC and its counters per partition, so that
  // NICs in different partitions may run on different threads.
  virtual bool partitionable() const { return false; }
  // From begin_partitioned(n) to end_partitioned() the counters and what is owed are kept per
  // partition (slot n: the serial phase, where messages are posted); end_partitioned() adds
  // them up. REQUIRES partitionable().
  // The messages already posted and not acknowledged are owed by their senders' partitions.
  // False (nothing changed) if completions or drop reports are pending: then the run cannot
  // start partitioned.
  bool begin_partitioned(uint32_t partitions, const std::vector<uint16_t>& nic_partition);
  void end_partitioned();
  // The serial phase between windows: what the transport defers to it (UET: freed ACK slots).
  virtual void on_barrier() {}
  // Drops reported across partitions wait for the barrier (dropped_hook): the serial phase
  // accounts for them (pure accounting: a message's dropped bytes). Returns how many
  // kDropNotice events the sequential run had for them: one per NIC and drop instant.
  size_t apply_deferred_drops();
  // The payload delivered so far, the partitions' included (progress, mid-run).
  int64_t delivered_bytes_so_far() const;
  // Partition p owes nothing: no message of its NICs unacknowledged, no completion or drop
  // report pending at them.
  bool partition_quiet(uint32_t p) const {
    const Owed& o = part_slots_[p].owed;
    return o.unacked == 0 && o.completions == 0 && o.notices == 0;
  }
  // Partitions spread over ranks (core/rank_run.h; transport_partitions.cpp). Drop reports
  // found by partitions [first, end), to the ranks of the senders' NICs (`rank_of[partition]`),
  // appended to out[rank] and taken out of their slots; unpack puts one rank's in the slots of
  // the partitions that found them, for the serial phase to account (apply_deferred_drops).
  void pack_deferred_drops(std::vector<std::vector<char>>& out, uint32_t first, uint32_t end,
                           const std::vector<uint32_t>& rank_of);
  void unpack_deferred_drops(ByteReader& in);
  // After the run: what partitions [first, end) own (their counter and owed slots; each
  // message's sender fields when its source NIC is theirs, its receiver fields when its
  // destination NIC is), for the rank that writes the results to copy over its own copy.
  void pack_owned_state(ByteWriter& out, uint32_t first, uint32_t end) const;
  void unpack_owned_state(ByteReader& in);
  // Across ranks, what an implementation's partitions share besides packets (UET's and TCP's
  // ACK details, TCP's segment anchors: transport/ack_annex.h). annex(): packet `p` is going
  // to rank `rank` over a cut cable, where its reader will want what it refers to;
  // pack_shared() appends those records (and anything else the implementation sends) to
  // out[rank], sent with the drop reports; unpack_shared() reads one rank's. on_ranked(): this
  // rank owns partitions [first, end) (after on_partitioned).
  virtual void annex(uint32_t rank, const net::Packet& p) {
    (void)rank;
    (void)p;
  }
  virtual void on_ranked(uint32_t ranks, uint32_t first, uint32_t end) {
    (void)ranks;
    (void)first;
    (void)end;
  }

 protected:
  // What the run loop's end test waits for. Implementations keep it up to date through
  // owed(), whose slot is the executing partition's in a partitioned run.
  struct Owed {
    int64_t unacked = 0;      // messages posted that the sender has not seen delivered
    int64_t completions = 0;  // completions on their way to the application
    int64_t notices = 0;      // drop reports not yet accounted for
  };
  Owed& owed() {
    if (part_ == nullptr) [[likely]] return owed_;
    return part_[current_partition()].owed;
  }
  bool partitioned() const { return part_ != nullptr; }
  // begin_partitioned() / end_partitioned() tell the implementation (UET: its ACK table).
  virtual void on_partitioned(uint32_t partitions) { (void)partitions; }
  virtual void on_sequential() {}
  virtual void pack_shared(std::vector<std::vector<char>>& out,
                           const std::vector<uint32_t>& rank_of) {
    (void)out;
    (void)rank_of;
  }
  virtual void unpack_shared(ByteReader& in) { (void)in; }
  // What a message posted from `src_nic` owes goes to that NIC's partition (posts run in the
  // serial phase).
  Owed& owed_of_nic(uint32_t src_nic) {
    if (part_ == nullptr) [[likely]] return owed_;
    return part_[(*nic_partition_)[src_nic]].owed;
  }
  // A drop of `src_nic`'s packet found in another partition than the NIC's.
  bool drop_crosses(uint32_t src_nic) const {
    return part_ != nullptr && (*nic_partition_)[src_nic] != current_partition();
  }
  void defer_drop(const net::Packet& p, net::DropReason reason, int64_t now_ps) {
    part_[current_partition()].drops.push_back(DeferredDrop{p, reason, now_ps});
  }
  // What a kDropNotice does for one packet (NicCore: T::on_dropped).
  virtual void account_drop(const net::Packet& p, net::DropReason reason) {
    (void)p;
    (void)reason;
  }
  // The counters to update: `own` (the transport's) or the executing partition's copy.
  TransportCounters& ctr(TransportCounters& own) {
    if (part_ == nullptr) [[likely]] return own;
    const uint32_t p = current_partition();
    return part_[p == serial_index_ ? serial_slot_ : p].counters;
  }
  // While a NIC kicked in the serial phase (a message posted there, which an idle NIC sends at
  // once) works, its counters go to its partition's slot, as Network::flight_at does for its
  // packets: across ranks (core/rank_run.h) every rank runs the serial phase, but only the
  // NIC's rank has the NIC's real state, and only its partition's slot is taken from it.
  struct SerialNic {
    Transport& t;
    uint32_t saved;
    SerialNic(Transport& tr, uint32_t nic) : t(tr), saved(tr.serial_slot_) {
      if (t.part_ != nullptr && current_partition() == t.serial_index_) {
        t.serial_slot_ = (*t.nic_partition_)[nic];
      }
    }
    ~SerialNic() { t.serial_slot_ = saved; }
    SerialNic(const SerialNic&) = delete;
    SerialNic& operator=(const SerialNic&) = delete;
  };
  // The transport's own counters, for end_partitioned() to add the partitions' into.
  virtual TransportCounters& own_counters() {
    throw std::logic_error("Transport: not partitionable");
  }

 private:
  struct DeferredDrop {
    net::Packet packet;
    net::DropReason reason;
    int64_t time_ps;
  };
  struct alignas(64) PartSlot {
    Owed owed;
    TransportCounters counters;
    std::vector<DeferredDrop> drops;
  };
  const std::vector<uint16_t>* nic_partition_ = nullptr;
  uint32_t serial_index_ = 0;  // the serial phase's partition index (the partition count)
  uint32_t serial_slot_ = 0;   // where its counters go: its own slot, or a kicked NIC's
  Owed owed_;
  std::vector<PartSlot> part_slots_;
  PartSlot* part_ = nullptr;
};

}  // namespace fabricsim::transport
