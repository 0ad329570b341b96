// The packet-moving core: ports, links, switches and NIC attachment points.
//
//   NIC port ──link──► switch port ... switch port ──link──► NIC port
//
// Every cable is two Ports, one per direction; a Port owns its transmit queues and the delay line
// of the link it drives (the in-flight packets in arrival order, of which only the head has an
// event scheduled: htsim's Pipe idea). A packet-hop therefore costs two events: the sending port's
// transmit-complete (only when another packet waits behind it) and the far end's arrival.
//
// Switches are output-queued with 8 strict-priority queues per port and one shared buffer per
// switch admitted by dynamic thresholds. Forwarding is an array lookup of the ECMP group towards
// the destination NIC's leaf switch, then a 5-tuple hash when the group has several ports.
//
// NICs are endpoints: the transport above installs Endpoint hooks, and a NIC port pulls its next
// data packet from the transport when its control queues are empty (so a NIC never holds a whole
// message as packets: memory stays as small as what is in flight).
#pragma once

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "core/partitions.h"
#include "core/rank_exchange.h"
#include "core/ring.h"
#include "core/rng.h"
#include "core/scheduler.h"
#include "net/config.h"
#include "net/elements.h"
#include "net/hash.h"
#include "net/hooks.h"
#include "net/int_telemetry.h"
#include "net/packet.h"
#include "net/sharp.h"
#include "net/wire.h"

namespace fabricsim::net {

// The elements (Port, PortQueues, Switch, Node) are in net/elements.h.

// PFC headroom per (port, lossless priority) by the Linux mlx5 driver's calculate_xoff()
// (drivers/net/ethernet/mellanox/mlx5/core/en/port_buffer.c), integer arithmetic as there:
// (301 + 216 x len_m / 100) x speed_Mbps / 1000 + 272 x mtu / 100, speed at least 40 Gb/s,
// cable length in whole metres (a fractional length rounds up). Defined in net/pfc.cpp.
int64_t mlx5_pfc_headroom_bytes(int64_t rate_bps, double cable_m, int mtu_bytes);

class Network {
 public:
  // `seed` derives the per-switch random streams (ECN marking).
  explicit Network(Scheduler& sched, uint64_t seed = 1) : sched_(sched), seed_(seed) {}
  Network(const Network&) = delete;
  Network& operator=(const Network&) = delete;

  // ---- construction (before the run) ----
  uint32_t add_nic(const NicConfig& cfg);                  // returns the NIC index
  uint32_t add_switch(const SwitchConfig& cfg, int tier);  // returns the switch index
  // Cables node a to node b (node ids from nic_node()/switch_node()). finalize() numbers each
  // node's ports contiguously, in connection order. Throws std::logic_error on a bad cable.
  void connect(uint32_t node_a, uint32_t node_b, const LinkConfig& link);
  // Lays out ports and fixes far-end timing (cut-through eligibility needs every port of a
  // switch known). Throws std::logic_error if a NIC does not have exactly one cable.
  void finalize();
  uint32_t num_cables() const { return static_cast<uint32_t>(cables_.size()); }
  // Cable i as connect() recorded it (topo::write_native exports a built network).
  uint32_t cable_node_a(uint32_t i) const { return cables_[i].a; }
  uint32_t cable_node_b(uint32_t i) const { return cables_[i].b; }
  const LinkConfig& cable_link(uint32_t i) const { return cables_[i].link; }
  void set_endpoint(const Endpoint& ep) { endpoint_ = ep; }
  void set_tap(const Tap& tap) { tap_ = tap; }
  // mode: hybrid (engine/hybrid/steady_skip.h), net/time_shift.cpp.
  void set_freeze_hook(const FreezeHook& h) { freeze_ = h; }
  void set_frozen(uint32_t port, bool frozen) { ports_[port].frozen = frozen; }
  // Moves every time in the port's state by delta_ps (either sign): the end of its current
  // serialization, the frames on its cable, its PFC pause, refresh and watchdog times, its
  // credit-stall and link-quiet times. With its pending events moved alike, the port goes on
  // as if all it did had happened delta_ps later (or earlier).
  void shift_port_time(uint32_t port, int64_t delta_ps);
  // Data packet-hops a skipped stretch carried (either sign, to take them back).
  void add_data_packet_hops(int64_t n) { ctr().data_packet_hops += n; }
  // A port's counters that hybrid extrapolates over a skipped stretch at the rates of the
  // windows before it (links.csv's bytes, marks, pauses and paused time; the fabric totals of
  // marks and pause frames move with them).
  struct PortTally {
    int64_t tx_bytes = 0;
    int64_t ecn_marks = 0;
    int64_t pause_frames_sent = 0;
    int64_t pause_frames_received = 0;
    int64_t paused_ps = 0;
  };
  PortTally port_tally(uint32_t port) const {
    const PortQueues& q = queues_[port];
    return {port_tx_bytes_[port], q.ecn_marks, q.pause_frames_sent, q.pause_frames_received,
            q.paused_ps};
  }
  void add_port_tally(uint32_t port, const PortTally& t);
  // The packets of a port's queues and cable, for hybrid's check that a group's ports carry
  // only the group's traffic: f(packet) for each.
  template <typename F>
  void for_each_packet(uint32_t port, F&& f) {
    PortQueues& q = queues_[port];
    for (ClassQueue& c : q.cls) {
      for (uint32_t i = 0; i < c.ring.size(); ++i) f(c.ring[i]);
    }
    Ring<InFlight>& line = ports_[port].line;
    for (uint32_t i = 0; i < line.size(); ++i) f(line[i].pkt);
  }

  uint32_t nic_node(uint32_t nic) const { return nic_nodes_[nic]; }
  uint32_t switch_node(uint32_t sw) const { return switches_[sw].node; }
  const Node& node(uint32_t id) const { return nodes_[id]; }
  uint32_t num_nodes() const { return static_cast<uint32_t>(nodes_.size()); }
  uint32_t num_nics() const { return static_cast<uint32_t>(nic_port_.size()); }
  uint32_t num_switches() const { return static_cast<uint32_t>(switches_.size()); }
  uint32_t num_ports() const { return static_cast<uint32_t>(ports_.size()); }
  uint32_t nic_port(uint32_t nic) const { return nic_port_[nic]; }
  // Ports of a node: [first, first + count).
  uint32_t node_first_port(uint32_t node) const { return node_ports_[node].first; }
  uint32_t node_port_count(uint32_t node) const { return node_ports_[node].count; }
  Port& port(uint32_t id) { return ports_[id]; }
  const Port& port(uint32_t id) const { return ports_[id]; }
  const PortQueues& queues(uint32_t id) const { return queues_[id]; }
  uint32_t port_node(uint32_t id) const { return port_node_[id]; }
  Switch& switch_at(uint32_t sw) { return switches_[sw]; }
  const Switch& switch_at(uint32_t sw) const { return switches_[sw]; }
  const NicConfig& nic_config(uint32_t nic) const { return nic_cfg_[nic]; }
  const SwitchConfig& switch_config(uint32_t sw) const { return switch_cfg_[sw]; }
  // Leaf slots number the switches that have NICs cabled to them, in switch order.
  uint32_t num_leaf_slots() const { return static_cast<uint32_t>(leaf_switches_.size()); }
  uint32_t leaf_slot_of_nic(uint32_t nic) const { return nic_leaf_slot_[nic]; }
  uint32_t leaf_switch(uint32_t slot) const { return leaf_switches_[slot]; }
  // The egress port switch `sw` forwards `pkt` to, or kNoPort if it has no route. Under
  // flowlet switching this is a forwarding decision: it records the packet in the switch's
  // flowlet table (net/load_balance.h), as forwarding it would. On a Dragonfly switch it is the
  // minimal route; dragonfly_egress() is the full per-packet decision (Valiant, UGAL, class).
  uint32_t egress_port(uint32_t sw, const Packet& pkt) const {
    return select_egress(switches_[sw], pkt);
  }
  // Switch `sw`'s whole forwarding decision for `pkt` arriving on local port `in_local`, as
  // switch_receive makes it; the flow engine walks paths with it (engine/flow/path_walk.h).
  uint32_t forward_port(uint32_t sw, uint32_t in_local, Packet& pkt) const;
  // The ports of the group `sw` chooses among for `pkt` (table modes; the destination's own
  // leaf port: a group of one), their count (0: no route). Flow engine spraying and AR.
  uint32_t egress_members(uint32_t sw, const Packet& pkt, const uint32_t** ports) const;
  // Dragonfly (net/dragonfly_route.cpp): the group of every NIC and the seed of the Valiant
  // choice, set by routing::install_dragonfly with the switches' DragonflySwitch state.
  void set_dragonfly(std::vector<uint16_t> nic_group, uint32_t groups, uint64_t seed);
  // Where switch `sw` sends `pkt`, which arrived on its local port `in_local`, under Dragonfly
  // routing: at the source switch it decides minimal or Valiant (sets pkt.valiant), at a global
  // arrival it moves a class in remark_mask up one (sets pkt.priority). kNoPort: no route.
  uint32_t dragonfly_egress(uint32_t sw, uint32_t in_local, Packet& pkt) const;
  // The intermediate group of a Valiant packet: uniform over the groups but the source's,
  // drawn per packet from a hash of its header (identical at every switch).
  uint32_t dragonfly_intermediate(const Packet& pkt) const;
  uint32_t dragonfly_group_of_nic(uint32_t nic) const { return dfly_nic_group_[nic]; }
  void bind_qp_plane(uint32_t qp, uint8_t plane);  // IB multi-plane QP's port (plane_choice.h)
  // The IPv4 address of a NIC (10.0.0.0/8, host part = NIC index + 1), used in the ECMP hash.
  static uint32_t nic_ip(uint32_t nic) { return 0x0A000000u + nic + 1; }

  // Packets handed to the fabric and not yet delivered or dropped.
  int64_t packets_in_flight() const {
    if (part_ == nullptr) [[likely]] return in_flight_;
    int64_t n = 0;
    for (const PartSlot& s : part_slots_) n += s.in_flight;
    for (const PartSlot& s : part_slots_) {
      for (const CutFrame& c : s.out) n += c.control ? 0 : 1;
    }
    return n;
  }

  // ---- partitioned runs (core/partitions.h; engine/packet/partitioned_run.cpp) ----
  // From begin_partitioned(n, cut) to end_partitioned(), counters and the packets in flight are
  // kept per partition (slot n: the serial phase), and a frame sent on a cut cable (cut[port]:
  // the far end is in another partition) waits in its partition's outbox until the barrier,
  // where join_cut_frames() puts it on the cable. A cut cable's frames then travel in a line
  // of the far end's (CutLine), and their arrivals carry kCutArrival in the target, so the far
  // end's thread reads nothing of the sending Port (whose bits the sender writes). Link
  // failures and hybrid are not run partitioned (engine/packet/partitioned_run.cpp refuses them).
  static constexpr uint32_t kCutArrival = 0x80000000u;
  // `port_partition` / `far_partition`: each port's and its cable's far end's partition; the
  // packets already queued or on cables are counted in flight where they are.
  void begin_partitioned(uint32_t partitions, std::vector<uint8_t> cut,
                         const std::vector<uint16_t>& port_partition,
                         const std::vector<uint16_t>& far_partition);
  void end_partitioned();
  // An event's target in the partitioned run (arrivals over cut cables marked), and back.
  uint32_t partitioned_target(uint32_t kind, uint32_t target) const {
    const bool arrival = kind == kLinkArrive || kind == kCtrlArrive;
    return arrival && cut_[target & ~kCutArrival] ? (target | kCutArrival) : target;
  }
  static uint32_t sequential_target(uint32_t kind, uint32_t target) {
    const bool arrival = kind == kLinkArrive || kind == kCtrlArrive;
    return arrival ? (target & ~kCutArrival) : target;
  }
  size_t join_cut_frames(const std::vector<uint16_t>& far_partition);  // serial phase only
  size_t cut_frames_waiting() const;
  // Packets in partition p's ports and cables (those crossing into it once joined).
  int64_t partition_in_flight(uint32_t p) const { return part_slots_[p].in_flight; }
  // Partitions spread over ranks (core/rank_run.h; net/partition_ranks.cpp). The frames the
  // partitions [first, end) sent on cut cables, to the ranks of the cables' far ends
  // (`rank_of[partition]`), appended to out[rank]; the outboxes are emptied.
  // `crossing(ctx, rank, packet)` is told of each frame going to another rank than `self`.
  // Returns the earliest arrival among them (INT64_MAX: none).
  int64_t pack_cut_frames(std::vector<std::vector<char>>& out, uint32_t first, uint32_t end,
                       const std::vector<uint32_t>& rank_of,
                       const std::vector<uint16_t>& far_partition, uint32_t self,
                       void (*crossing)(void* ctx, uint32_t rank, const Packet& p), void* ctx);
  void unpack_cut_frames(ByteReader& in);  // one rank's, held per sending partition
  bool cut_frames_pending(uint32_t first, uint32_t end) const;  // unsent or held
  void join_held_cut_frames(const std::vector<uint16_t>& far_partition);  // as join_cut_frames
  // After the run: the state of what partitions [first, end) own (their ports' and switches'
  // counters, their counter and in-flight slots), for the rank that writes the results, which
  // copies it over its own (stale) copy of those ports, switches and slots.
  void pack_owned_state(ByteWriter& out, uint32_t first, uint32_t end,
                        const std::vector<uint16_t>& port_partition) const;
  void unpack_owned_state(ByteReader& in);
  // A rank of an MPI run, once the fabric is split (net/rank_release.cpp): gives back the
  // memory of what neither its partitions [first, end) nor its serial phase will touch: the queue state (PortQueues) of every switch port with
  // neither end in [first, end), and the forwarding and load-balancing tables of every switch
  // outside them. Kept: every Port (the cables' metadata: peers, rates, delays), the NICs'
  // ports (the serial phase posts on every NIC), and the queue state of a cut cable's sending
  // port whose far end is owned (control frames crossing the cut wait in its ctrl_line).
  struct Released {
    size_t queue_bytes = 0;  // PortQueues pages given back
    uint32_t queue_ports = 0;  // ports whose PortQueues were eligible (some share kept pages)
    uint32_t switches = 0;  // switches whose tables were freed
    size_t table_bytes = 0;  // their tables' capacity
  };
  Released release_unowned(const std::vector<uint16_t>& port_partition, uint32_t first,
                           uint32_t end);
  // After a rank's run, before the other ranks' state is copied in: frees the buffers of
  // every empty ring (ports' lines and queues), which then read as they did before the run,
  // and gives the freed heap back, so that the rank that writes the results holds the whole
  // fabric's counters without its packets' peak. Returns the bytes freed.
  size_t release_empty_rings();

  // ---- run time ----
  // Queues a packet at a NIC's own port (ACKs, NAKs, CNPs); strict priority over pulled data. A
  // PAUSE frame goes to the MAC control queue, ahead of everything.
  void nic_send(uint32_t nic, const Packet& pkt);
  // Tells an idle NIC port that the transport has data: it pulls if it is free.
  void nic_kick(uint32_t nic);
  void on_tx_done(uint32_t port);
  void on_link_arrive(uint32_t port);
  // The head of the control-frame line of `port`'s cable reached the far end's MAC.
  void on_ctrl_arrive(uint32_t port);
  // PFC (net/pfc.cpp).
  void on_pause_expire(uint32_t port);
  void on_pfc_refresh(uint32_t port);
  void on_pfc_watchdog(uint32_t port);
  // InfiniBand credits (net/credits.cpp).
  // Call before finalize() (topology builders finalize).
  void set_ib(const IbLinkConfig& cfg);
  bool infiniband() const { return ib_on_; }
  const IbLinkConfig& ib_config() const { return ib_; }
  void on_credit_watchdog(uint32_t port);
  // A fault: the receiver at `port` stops returning credits (its flow-control packets are lost),
  // which stalls the far sender once the buffer's worth of credits is spent.
  void break_credit_return(uint32_t port) { credit_return_broken_.at(port) = 1; }
  // Link failure: both directions of the cable at `port` go down; what is on the cable or
  // queued for it is lost. Routing is not changed here (local repair, the SM or ECMP
  // reconvergence does it). net/link_state.cpp, as the three below.
  void fail_link(uint32_t port);
  // The earliest time the failed cable at `port` may come back up: when the arrivals that were
  // scheduled before it failed have fired (they find the cable empty).
  int64_t link_quiet_ps(uint32_t port) const;
  // The cable at `port` works again, with fresh link-level state: IB credits resynchronized to
  // what the receivers hold (as link initialization does), no PFC XOFF outstanding. Forwarding
  // groups are not changed (the routing's recomputation adds the port back).
  void restore_link(uint32_t port);
  // Local repair: switch `sw` takes `port` out of every forwarding group that has another
  // member (a group whose only member it is keeps it: there is no alternative to switch to).
  // Returns how many groups changed. Cold: rewrites the switch's group tables.
  int remove_from_groups(uint32_t sw, uint32_t port);
  // A NIC stops draining what it receives (a fault): packets wait in its receive buffer, PFC
  // pauses its switch when they pass XOFF, and they are dropped beyond the buffer.
  void on_nic_stall(uint32_t nic);
  void on_nic_resume(uint32_t nic);
  // Closes open paused intervals into the per-port totals (call once at the end of a run).
  void finish_pause_accounting();
  // Bytes a frame occupies on the wire: the frame plus preamble/SFD and inter-frame gap.
  uint32_t wire_bytes(const Packet& pkt) const { return pkt.frame_bytes + wire_extra_bytes_; }
  int64_t port_tx_bytes(uint32_t port) const { return port_tx_bytes_[port]; }
  // In-band telemetry (net/int_telemetry.h): from now on every data packet's switch egresses
  // are recorded beside it, `slots_per_qp` packets per sender QP. REQUIRES: a power of two.
  void enable_int(uint32_t slots_per_qp) { int_ = std::make_unique<IntTable>(slots_per_qp); }
  const IntTable* int_table() const { return int_.get(); }
  // The flow engine moves no frames: it credits a port the wire bytes of the messages that
  // crossed it (links.csv's bytes and utilization then mean the same).
  void add_fluid_tx_bytes(uint32_t port, int64_t wire_bytes) { port_tx_bytes_[port] += wire_bytes; }
  // Hint that a port's event is next: its state will be read soon.
  void prefetch_port(uint32_t port) const { __builtin_prefetch(&ports_[port]); }

  const NetCounters& counters() const { return counters_; }
  Scheduler& scheduler() { return sched_; }

  // ---- InfiniBand SHARP (net/sharp.h) ----
  void enable_sharp(const SharpConfig& cfg);  // after finalize(), InfiniBand only
  bool sharp_enabled() const { return sharp_ != nullptr; }
  void set_sharp_hook(const SharpHook& hook);
  // The Aggregation Manager: a tree over the switches joining `nics` (distinct NICs), or -1 when
  // SHARP is off, the topology has no up/down tree (Dragonfly), a port it needs already carries
  // max_trees_per_port trees or the subnet max_trees; every refusal is kept in sharp_failures().
  int sharp_build_tree(const uint32_t* nics, int n);
  void sharp_release_tree(int tree);  // frees its ports (REQUIRES: no operation in progress)
  // NIC `nic` of `tree` contributes `bytes` (every member posts the same sizes in the same
  // order); the hook's done(nic, tree, cookie) fires when the result is back. False: no member.
  bool sharp_post(int tree, uint32_t nic, int64_t bytes, uint64_t cookie);
  void sharp_record_failure(std::string reason);  // a refusal decided above the fabric
  const std::vector<SharpTreeInfo>& sharp_trees() const;
  const std::vector<SharpFailure>& sharp_failures() const;

 private:
  struct PortRange {
    uint32_t first = 0;
    uint32_t count = 0;
  };
  uint32_t new_node(NodeKind kind, uint32_t index);
  // A NIC's next data packet: the transport's, or with SHARP on, round-robin with its streams.
  bool pull_data(uint32_t nic, uint8_t paused, Packet& out) {
    if (sharp_ != nullptr) [[unlikely]] return sharp_pull(nic, paused, out);
    return endpoint_.pull(endpoint_.ctx, nic, paused, out);
  }
  bool sharp_pull(uint32_t nic, uint8_t paused, Packet& out);  // net/sharp.cpp, as below
  bool sharp_take(uint32_t nic, uint8_t paused, Packet& out);
  void sharp_switch_receive(uint32_t sw_index, uint32_t in_port, const Packet& pkt);
  void sharp_nic_receive(uint32_t nic, const Packet& pkt);
  void sharp_emit(uint32_t port, const Packet& pkt);
  void switch_receive(uint32_t sw_index, uint32_t in_port, const Packet& pkt);
  uint32_t select_egress(const Switch& sw, const Packet& p) const;
  // A multi-port group under any mode but the hash (net/load_balance.cpp): kept out of line so
  // the ECMP path stays one branch.
  uint32_t select_balanced(const Switch& sw, const Packet& p, uint32_t begin, uint32_t n) const;
  uint32_t hashed_member(const Switch& sw, const Packet& k, uint32_t n) const;
  void enqueue(uint32_t port, const Packet& pkt);
  void drop(uint32_t port, const Packet& pkt, DropReason reason);
  // The lossy class of `port` has no room for `pkt`, a trimmable data packet: trims it (or, in
  // htsim's mode, possibly the newest queued data packet) to a header in the trim class, which
  // is admitted like any packet (dropped if that fails too). net/trim.cpp.
  void trim(uint32_t port, const Packet& pkt);
  void trim_to_header(uint32_t port, const Packet& pkt);  // counts it, queues the header
  // Whether a lossy packet fits: the shared buffer, the dynamic threshold and the port cap.
  bool lossy_fits(const Switch& sw, uint32_t port, const Packet& pkt) const {
    const int64_t free_bytes = sw.buffer_bytes - sw.buffer_used_bytes;
    const uint32_t queued = queues_[port].cls[pkt.priority].bytes;
    if (pkt.frame_bytes > free_bytes ||
        static_cast<double>(queued) >= sw.dt_alpha * static_cast<double>(free_bytes)) {
      return false;
    }
    if (sw.port_queue_bytes == 0) return true;
    // The trim class (headers, with ACKs/NACKs) may hold twice the cap, as htsim's high queue.
    const int64_t cap = (sw.trim_mask != 0 && pkt.priority == sw.trim_priority)
                            ? 2 * sw.port_queue_bytes
                            : sw.port_queue_bytes;
    return queued + pkt.frame_bytes <= cap;
  }
  // Makes a port with something to send transmit now, or when its current frame is out.
  void wake(uint32_t port);
  // Starts the next transmission on an idle port, if it has anything to send.
  void try_transmit(uint32_t port);
  // Pops the next packet to send (strict priority, skipping paused classes) into `out`.
  bool next_queued(uint32_t port, Packet& out);
  void push_queue(uint32_t port, const Packet& pkt);
  void transmit(uint32_t port, const Packet& pkt);
  // Sends the head of the port's MAC control queue (PAUSE or IB flow control).
  void transmit_control(uint32_t port);
  // Both transmits: the port is busy for the frame's serialization (returned), counted, tapped.
  int64_t start_frame(uint32_t port, const Packet& pkt, int64_t now);
  // Both transmits: a port with more to send wakes when the frame is out.
  void arm_tx_done(uint32_t port);
  // Queues a PAUSE or IB flow-control packet ahead of every class (the caller wakes the port).
  void push_control(uint32_t port, const Packet& f);
  // PFC internals (net/pfc.cpp).
  void set_pfc_thresholds();
  // Per-port static accounting (static mode, and a stalled NIC's buffer).
  bool pfc_admit(uint32_t in_port, const Packet& pkt);  // false: headroom overflow, drop it
  void pfc_release(uint32_t in_port, const Packet& pkt);
  // A switch's lossless class in either mode: charges (returns) the shared pool and/or the PG's
  // headroom. False: no room, drop it.
  bool pfc_admit_switch(Switch& sw, uint32_t in_port, const Packet& pkt);
  void pfc_release_switch(Switch& sw, uint32_t in_port, const Packet& pkt);
  bool pfc_dynamic_xon_ready(uint32_t in_port, int cls) const;
  void set_xoff(uint32_t port, uint8_t mask);  // every xoff_mask change: keeps switch_xoff_pgs_
  void send_pause(uint32_t port, uint8_t classes, int quanta);
  void on_pause_frame(uint32_t port, const Packet& pkt);
  void arm_pause_timer(uint32_t port, int64_t at_ps);
  void unpause(uint32_t port, int cls);
  const PfcConfig& pfc_of(uint32_t port) const;  // the switch's, or for a NIC its switch's
  // Credits (net/credits.cpp).
  static uint32_t credit_blocks(const Packet& pkt) { return (pkt.frame_bytes + 63u) / 64u; }
  void set_credit_buffers();
  bool credits_fit(uint32_t port, const Packet& head) const {
    const PortQueues& q = queues_[port];
    return static_cast<int32_t>(q.fc_limit_blocks[head.priority] -
                                q.fc_sent_blocks[head.priority]) >=
           static_cast<int32_t>(credit_blocks(head));
  }
  void credit_block(uint32_t port, int vl);  // the VL's head waits for credits
  bool credit_receive(uint32_t in_port, const Packet& pkt);  // false: buffer overrun
  void fill_credit_packet(uint32_t port, Packet& f);  // as it leaves: the FCCL of now
  void send_credit_update(uint32_t in_port, int vl);  // queue one flow-control packet
  // FCCL of a receiving port's VL: ABR (blocks received) + min(free blocks, the 2048 window).
  static uint32_t credit_limit(const PortQueues& q, int vl);
  void credit_release(uint32_t in_port, const Packet& pkt);
  void on_credit_packet(uint32_t port, const Packet& pkt);
  int vl_arbitrate(uint32_t port, uint32_t ready);
  void stage_vl_heads(uint32_t port);  // a CA port with several VLs: one head per VL
  void flush_queues(uint32_t port);
  // Drops everything queued in class `cls` of `port`, returning the shared buffer and the
  // ingress accounting (PFC bytes, IB credits) the packets held.
  void discard_class(uint32_t port, int cls, DropReason reason);
  void hold_at_stalled_nic(uint32_t port, const Packet& pkt);
  bool ecn_mark(uint32_t port, Packet& pkt);  // RED on the class queue the packet leaves

  // A frame on its way over a cut cable, waiting for the barrier (a data frame for the port's
  // line, or a control frame for its ctrl_line).
  struct CutFrame {
    uint32_t port;
    bool control;
    InFlight frame;
  };
  struct alignas(64) PartSlot {
    NetCounters counters;
    int64_t in_flight = 0;
    std::vector<CutFrame> out;
  };
  NetCounters& ctr() {
    if (part_ == nullptr) [[likely]] return counters_;
    return part_[current_partition()].counters;
  }
  int64_t& flight() {
    if (part_ == nullptr) [[likely]] return in_flight_;
    return part_[current_partition()].in_flight;
  }
  // A packet entering the fabric at NIC port `port`. In the serial phase (a message posted
  // there whose NIC sends at once: an idle port pulls it in the same call) it counts for the
  // port's partition, where it is queued and where it will leave the count: counted in the
  // serial phase's slot it would keep the partitions from ever seeming quiet (the end test).
  int64_t& flight_at(uint32_t port) {
    if (part_ == nullptr) [[likely]] return in_flight_;
    const uint32_t p = current_partition();
    return part_[p + 1 == part_slots_.size() ? (*port_partition_)[port] : p].in_flight;
  }
  // transmit()/transmit_control() on a cut cable inside a window.
  void send_across(uint32_t port, bool control, const InFlight& frame);
  bool is_cut(uint32_t port) const { return part_ != nullptr && cut_[port] != 0; }
  // A cut cable's frames at the far end: what on_link_arrive reads of the sending Port, copied.
  struct CutLine {
    Ring<InFlight> line;
    uint32_t peer = 0;
    uint32_t far_index = 0;
    bool far_is_nic = false;
    bool arrive_pending = false;
  };
  void on_cut_arrive(uint32_t port);
  // What an arrival does at the far end (both paths).
  void arrive(uint32_t port, uint32_t peer, bool far_is_nic, uint32_t far_index,
              const Packet& pkt);
  std::vector<PartSlot> part_slots_;
  PartSlot* part_ = nullptr;  // part_slots_.data() during a partitioned run
  std::vector<uint8_t> cut_;  // per port, during a partitioned run
  const std::vector<uint16_t>* port_partition_ = nullptr;  // during a partitioned run
  std::vector<CutLine> cut_lines_;  // per port (used for cut ones), during a partitioned run
  std::vector<std::vector<CutFrame>> cut_held_;  // ranks: per sending partition, until joined

  Scheduler& sched_;
  uint64_t seed_;
  Endpoint endpoint_;
  Tap tap_;
  FreezeHook freeze_;
  int64_t in_flight_ = 0;
  uint32_t wire_extra_bytes_ = kWireOnlyBytes;  // Ethernet preamble/SFD + IFG
  std::vector<int64_t> port_tx_bytes_;      // wire bytes sent per port (dense: stays cached)
  std::vector<Rng> switch_rng_;             // per switch, for ECN marking
  // Per switch: its ports' XOFF bits (set_xoff), dense so a lossless dequeue tests it in cache.
  std::vector<uint32_t> switch_xoff_pgs_;
  std::vector<uint8_t> nic_stalled_;
  std::vector<uint8_t> qp_plane_;  // per QP: its plane (kLbHcaPorts selectors only)
  IbLinkConfig ib_;
  bool ib_on_ = false;
  uint8_t vlarb_high_mask_ = 0;  // VLs with weight in the high / low arbitration table
  uint8_t vlarb_low_mask_ = 0;
  int64_t high_limit_blocks_ = 0;
  std::vector<uint8_t> credit_return_broken_;  // per receiving port
  double loss_rate_ = 0;            // per data-frame link crossing (one rate for every link)
  // One stream per sending port ("LOSS" + port), so a link's losses depend only on its own
  // traffic (core/event_queue.h); empty unless loss_rate_ > 0.
  std::vector<Rng> loss_rng_;
  std::vector<Port> ports_;
  std::vector<PortQueues> queues_;  // parallel to ports_
  // Each port's node: cold, and apart from queues_ so that a rank that gave back a port's
  // queue state (net/rank_release.cpp) still names its cable in links.csv.
  std::vector<uint32_t> port_node_;
  std::vector<Node> nodes_;
  std::vector<PortRange> node_ports_;
  std::vector<Switch> switches_;
  std::vector<SwitchConfig> switch_cfg_;
  std::vector<uint32_t> nic_nodes_;
  std::vector<uint32_t> nic_port_;
  std::vector<uint32_t> nic_leaf_slot_;    // NIC -> leaf slot of its switch
  std::vector<uint32_t> nic_switch_port_;  // NIC -> the switch port cabled to it
  std::vector<uint32_t> leaf_switches_;    // leaf slot -> switch
  std::vector<NicConfig> nic_cfg_;
  struct Cable {
    uint32_t a, b;
    LinkConfig link;
  };
  std::vector<Cable> cables_;  // recorded by connect(), laid out into ports by finalize()
  NetCounters counters_;
  std::vector<uint16_t> dfly_nic_group_;  // Dragonfly: NIC -> group (empty otherwise)
  uint32_t dfly_groups_ = 0;
  uint64_t dfly_seed_ = 0;
  // Dragonfly internals (net/dragonfly_route.cpp).
  uint32_t dragonfly_minimal(const Switch& sw, const Packet& k) const;
  uint32_t dragonfly_hops_to(uint32_t sw_index, uint32_t dst_switch) const;
  std::unique_ptr<sharp_detail::State> sharp_;  // null unless fabric.sharp.enabled
  std::unique_ptr<IntTable> int_;  // null unless a transport asked for INT (enable_int)
  void int_hop(uint32_t port, const Packet& pkt);  // a data packet starts leaving `port`
};

}  // namespace fabricsim::net
