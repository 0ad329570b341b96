// The fabric's elements, as the packet engine holds them: a port (one direction of a cable,
// with its transmit queues and the delay line of the link it drives), its class queues, a
// switch (its shared buffer, forwarding table and load-balancing state) and what a node is.
// net/network.h's Network owns them and moves packets between them; the layout of each is
// chosen for the hop's cache lines (comments on each).
#pragma once

#include <cstdint>
#include <vector>

#include "core/ring.h"
#include "net/config.h"
#include "net/hash.h"
#include "net/packet.h"

namespace fabricsim::net {

inline constexpr uint16_t kNoRoute = 0xFFFF;
inline constexpr uint32_t kNoPort = 0xFFFFFFFFu;

struct InFlight {
  int64_t arrive_ps;
  Packet pkt;
};

// Hot per-port state, touched on every hop: one cache line. Packets travel by value through
// the delay line and the queues, so a hop reads contiguous ring slots instead of chasing a
// pointer into a pool of packets that have gone cold while queued.
struct alignas(64) Port {
  int64_t busy_until_ps = 0;     // end of the current serialization
  int64_t rate_bps = 0;
  int64_t delay_ps = 0;          // propagation + far-end processing before it can forward
  Ring<InFlight> line;           // packets on the cable, in arrival order
  uint32_t peer = 0;             // the port at the far end of the cable
  int32_t switch_index = -1;     // owning switch, or -1 for a NIC port
  uint32_t nic = 0;              // owning NIC (NIC ports only)
  // The far end, so that an arrival need not read the far port's line: its NIC index when
  // far_is_nic, else its switch index.
  uint32_t far_index = 0;
  uint8_t backlog_mask = 0;      // bit p set: priority queue p is non-empty
  uint8_t paused_mask = 0;       // priorities stopped by PFC from the far end
  // Classes the PFC watchdog declared stormed (ignore PAUSE, drop), or IB VLs stalled past the
  // head-of-queue lifetime. Here and not in PortQueues: every enqueue of a PFC or IB fabric
  // tests it, and on a cold PortQueues line it cost a miss per hop.
  uint8_t storm_mask = 0;
  bool far_cut_through : 1 = false;  // far end forwards from the header (arrival = head time)
  bool tx_event_pending : 1 = false;
  bool arrive_event_pending : 1 = false;
  bool is_nic : 1 = false;
  bool far_is_nic : 1 = false;
  bool up : 1 = true;
  bool mac_ctrl_pending : 1 = false;  // a PFC frame waits to go out (ahead of every class)
  bool frozen : 1 = false;  // mode: hybrid: its group's steady state is being skipped (hooks.h)
};
static_assert(sizeof(Port) == 64, "Port is one cache line");

// One traffic class's queue at a port, with its byte count beside it so that admission and
// dequeue touch one cache line.
struct alignas(32) ClassQueue {
  Ring<Packet> ring;
  uint32_t bytes = 0;  // frame bytes queued
  // The most frame bytes this class queue held (links.csv peak_queue_bytes is the max over a
  // port's classes). It fills the padding beside `bytes`, so the enqueue that updates `bytes`
  // updates it in the same cache line with one compare-and-store.
  uint32_t peak_bytes = 0;
};
static_assert(sizeof(ClassQueue) == 32, "ClassQueue: two per cache line");

// Colder per-port state: the priority queues and counters. Link utilization will come from
// fixed-interval samplers, not per-packet counters (STYLE §12).
// 64-byte aligned so that its lines are the same in every port (at 32-byte alignment every
// other PortQueues started mid-line and each group below straddled two lines).
struct alignas(64) PortQueues {
  ClassQueue cls[kPriorities];
  // PFC where this port receives (a switch ingress port, or a stalled NIC's buffer): what a
  // lossless hop's admission and release read and write, together in one cache line (they were
  // on two; cachegrind at k=32 put ~5 % of the run's LL misses in each of pfc_admit_switch and
  // pfc_release_switch). headroom_used_bytes: in the dynamic mode, how much of ingress_bytes
  // sits in the PG's headroom (the rest is in the switch's shared pool).
  uint32_t ingress_bytes[kPriorities] = {};
  uint32_t headroom_used_bytes[kPriorities] = {};
  uint8_t xoff_mask = 0;     // lossless classes for which PAUSE is in force upstream
  bool refresh_pending = false;
  int64_t prop_ps = 0;
  int64_t drops = 0;
  int64_t trims = 0;  // data packets this port's queues trimmed to their header (net/trim.cpp)
  Ring<Packet> mac_ctrl;  // PFC frames to send, served before every class and never paused
  // MAC control frames and IB flow-control packets on the cable, in arrival order: they are
  // consumed by the far end's MAC / link layer after serialization + propagation, without the
  // far switch's forwarding latency, so they cannot share Port::line (FIFO, one head event)
  // with data that a later control frame may overtake. Rare, hence here and not in Port.
  Ring<InFlight> ctrl_line;
  bool ctrl_arrive_pending = false;
  // Static mode (and NIC ports): per class, XOFF threshold + headroom; drop beyond.
  int64_t pfc_limit_bytes = 0;
  int64_t pfc_xoff_bytes = 0;
  int64_t pfc_xon_bytes = 0;  // static: XON threshold; dynamic: XON_TH (SAI)
  int64_t pfc_headroom_bytes = 0;  // per class: PFC headroom (both modes)
  int64_t pfc_xon_offset_bytes = 0;  // dynamic mode: XON once bytes <= limit - this
  int64_t peak_headroom_bytes = 0;  // most headroom any class of this port held
  // PFC where this port sends and is paused by its peer.
  int64_t pause_until_ps[kPriorities] = {};
  int64_t paused_since_ps[kPriorities] = {};
  int64_t pause_timer_ps = -1;  // when the pending kPauseExpire fires (-1 = none)
  bool watchdog_pending = false;
  int64_t last_pause_rx_ps = 0;
  // counters
  int64_t pause_frames_sent = 0;
  int64_t pause_frames_received = 0;
  int64_t paused_ps = 0;  // total time any class of this port was paused (IB: waited for credits)
  int64_t ecn_marks = 0;     // CE marks this (switch egress) port set (ecn_mark)
  int64_t credit_waits = 0;  // IB: times a VL's head packet here had to wait for credits
  Ring<Packet> rx_hold;   // a stalled NIC's undelivered packets
  // InfiniBand credits (net/credits.cpp), in 64-byte blocks and as absolute counts since link
  // initialization (the wire's 12-bit FCTBS/FCCL are these modulo 4096).
  // Where this port sends: blocks sent per VL (FCTBS) and the far receiver's limit (FCCL).
  uint32_t fc_sent_blocks[kPriorities] = {};
  uint32_t fc_limit_blocks[kPriorities] = {};
  // Where this port receives: blocks held per VL, blocks freed since link init, the buffer.
  uint32_t rx_blocks[kPriorities] = {};
  uint32_t rx_freed_blocks[kPriorities] = {};
  uint32_t rx_buffer_blocks = 0;
  uint32_t peak_rx_blocks = 0;   // most blocks any one VL held (<= rx_buffer_blocks)
  uint8_t fc_pending_mask = 0;   // VLs with a flow-control packet queued in mac_ctrl
  uint16_t ecn_skipped = 0;      // IB CC Marking_Rate: eligible packets left unmarked since the last
  // VL arbitration state (IBA 7.6.9): the current entry of each table, the weight it has left,
  // and the high-priority blocks sent since a low-priority packet last went.
  uint8_t arb_high_entry = 0;
  uint8_t arb_low_entry = 0;
  int32_t arb_high_left = -1;  // -1: load the entry's weight on first use
  int32_t arb_low_left = -1;
  int64_t arb_high_sent_blocks = 0;
  int64_t credit_stalled_until_ps = 0;  // HOQ stall: arrivals for stormed VLs dropped until then
  // Link failures (net/link_state.cpp): times this port's cable went down, and when the last
  // arrival scheduled before the latest failure is due (the cable may not come back up
  // before then, or a stale arrival event would deliver a new frame early).
  int32_t down_count = 0;
  int64_t quiet_ps = 0;
};

// How a switch resolves a multi-port group (Switch::lb).
enum SwitchLb : uint8_t {
  kLbHash = 0,        // ECMP: 5-tuple hash
  kLbIbAdaptive = 1,  // InfiniBand AR: least queued bytes of the VL, ties to the LFT port
  kLbAdaptive = 2,    // Ethernet AR: least queued bytes of the class, ties to the hashed member
  kLbFlowlet = 3,     // flowlets: a new flowlet takes the least-occupied member
  kLbTeRules = 4,     // a TE controller's exact-match rules, else the hash
  kLbPlane = 5,       // a multi-plane NIC's plane selector (net/plane_choice.h)
  kLbDragonfly = 6,   // Dragonfly: minimal / Valiant / UGAL and class-per-phase (dragonfly.cpp)
  kLbHcaPorts = 7,    // a multi-plane IB HCA's selector: the QP's bound port (plane_choice.h)
};

// Dragonfly routing state of a switch (routing/dragonfly.h fills it; net/dragonfly_route.cpp
// reads it). Cold: reached only when Switch::lb is kLbDragonfly.
struct DragonflySwitch {
  uint16_t group = 0;
  uint16_t first_global = 0;   // local index of the first global port (locals come before)
  uint8_t mode = 0;            // 0 minimal, 1 Valiant, 2 UGAL-L
  uint8_t remark_mask = 0;     // classes that move up one class on arrival over a global link
  bool ib_adaptive = false;    // InfiniBand: AR among the LFT group's (minimal) ports
  std::vector<uint32_t> port_to_group;  // per group: this switch's port towards it (kNoPort: own)
};

// One flowlet-table entry: the flow hash that owns it (0 = free), its chosen port and the time
// its last packet passed.
struct FlowletSlot {
  int64_t last_ps = 0;
  uint32_t tag = 0;
  uint32_t port = 0;
};

// One TE rule: (source NIC, destination NIC) -> egress port. key 0 = empty slot.
struct TeRule {
  uint64_t key = 0;
  uint32_t port = 0;
};

// 64-byte aligned, its first line holding everything a hop through the switch reads besides the
// forwarding table (whose vectors start the second line): first_port and peak_buffer_bytes
// used to sit on a fourth line, read on every enqueue and dequeue.
struct alignas(64) Switch {
  // Hot: read for every packet the switch forwards (first cache line).
  // The shared pool: the switch buffer less the PFC headroom reserved for every lossless
  // (port, priority) in the dynamic mode. Headroom bytes are never counted in buffer_used_bytes.
  int64_t buffer_bytes = 0;
  int64_t buffer_used_bytes = 0;
  int64_t peak_buffer_bytes = 0;
  double dt_alpha = 1.0;
  uint32_t hash_seed = 0;
  int32_t leaf_slot = -1;  // this switch's leaf slot if NICs are cabled to it, else -1
  uint32_t first_port = 0;
  float pfc_alpha = 1.0f;     // PfcConfig::alpha, for the dynamic threshold
  EcmpHash hash = EcmpHash::kCrc32;
  bool pfc_on = false;        // copies of the config, kept in the hot line
  bool ecn_on = false;
  uint8_t lossless_mask = 0;  // PFC classes (0 when PFC is off)
  bool pfc_dynamic = false;   // lossless PGs: dynamic threshold on the shared pool (net/pfc.cpp)
  // Lossy admission extras (issue 11): a per-port, per-class cap (0 = none) and packet
  // trimming (net/trim.cpp). trim_mask is 0 when trimming is off, so the drop path pays one
  // test for it; the other trimming fields are cold (below).
  uint8_t trim_mask = 0;
  bool route_by_lid = false;  // forwarding (below): the key is the DLID, not the leaf slot
  uint8_t lb = 0;             // SwitchLb: how a multi-port group is resolved
  int64_t port_queue_bytes = 0;
  // Forwarding (filled by routing/). Ethernet: routes depend only on the switch the destination
  // NIC is cabled to (its leaf slot), so the table has one entry per leaf, not per NIC: it stays
  // small enough to live in cache. InfiniBand (route_by_lid): one entry per DLID, the linear
  // forwarding table the Subnet Manager programs. group_of_key[key] indexes group_offsets; a
  // group's member ports are group_ports[group_offsets[g] .. group_offsets[g+1]) (global port
  // ids). A multi-port group is an ECMP group (hashed) unless `lb` says otherwise: IB adaptive
  // routing (the group's first port is the static LFT port), Ethernet adaptive routing, flowlets
  // or a TE controller's per-flow rules (net/load_balance.h). kLbHash keeps forwarding to one
  // predictable branch.
  std::vector<uint16_t> group_of_key;
  std::vector<uint32_t> group_offsets;
  std::vector<uint32_t> group_ports;
  // Cold.
  uint8_t trim_priority = 7;
  uint16_t trim_header_bytes = 64;
  bool trim_newest = false;  // TrimVictim::kArrivalOrNewest
  // Load balancing state (net/load_balance.h), allocated when the mode is set, never per packet.
  // The flowlet table is written while forwarding, by the const select path: mutable.
  int64_t flowlet_gap_ps = 0;
  mutable std::vector<FlowletSlot> flowlets;  // kLbFlowlet: fixed size, indexed by flow hash
  std::vector<TeRule> te_rules;               // kLbTeRules: open addressing, power-of-two size
  uint32_t te_rule_count = 0;
  // kLbPlane (net/plane_choice.h): the split (PlaneSplit) and the round-robin position; the
  // assignments use `flowlets` as their table.
  uint8_t plane_split = 0;
  mutable uint32_t plane_next = 0;
  DragonflySwitch dfly;  // kLbDragonfly only
  uint32_t node = 0;
  uint32_t num_ports = 0;
  int tier = 0;
};

enum class NodeKind : uint8_t { kNic, kSwitch };

struct Node {
  NodeKind kind;
  uint32_t index;  // into nics_ or switches_
};

}  // namespace fabricsim::net
