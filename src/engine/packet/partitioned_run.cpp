// A packet-mode run split into partitions (issue 26 item 1; core/partitions.h has the method,
// docs/parallel.md the user's view). `threads: N` (run --threads N) splits the fabric into N
// partitions run side by side on N threads, with result.json, flows.csv and links.csv
// byte-identical to the sequential run's (tests/engine/partitioned_run_test.cpp).
//
// The split. Every NIC goes with its leaf switch; the leaves are dealt to the partitions in
// switch order (a fat-tree's pods, a rail group's leaves) in contiguous runs of about equal
// port count; every other switch, tier by tier upwards, joins the partition it has most cables
// to (a fat-tree's aggregation switches their pod's), ties to the partition with the fewest
// ports so far (the cores, which reach every pod alike, alternate). The lookahead is the
// least time in which a frame sent on a cut cable can reach the far end: the cable's
// propagation plus the far switch's forwarding latency for data (Port::delay_ps), the
// propagation alone for PFC and IB flow-control frames, which the far MAC consumes.
//
// What runs partitioned: packet mode with a pattern workload (every message's start known
// before the run) on the RoCE / InfiniBand RC transport, UET, or TCP / iWARP. Anything else runs
// sequentially, and run.json's "partition_note" says why (partition_refusal below; the GPU
// node layer, collectives and the training engine react to completions from every partition
// at once; hybrid, TE, the steady window, telemetry, capture, path recording, INT, SHARP, the
// context cache and faults read or write state across the fabric during the run).
//
// Across MPI ranks (issue 26 item 2: mpirun -np R ... --threads T): R x T partitions, rank r
// running [r x T, (r + 1) x T) with core/rank_run.h's window loop; merge_ranks (end of this
// file) gives rank 0, which writes the results, what the other ranks' partitions own.
#include <algorithm>
#include <cstring>
#include <limits>
#include <stdexcept>

#include "core/partition_run.h"
#include "core/partitions.h"
#include "core/rank_run.h"
#include "core/error.h"
#include "engine/packet/partition_state.h"
#include "engine/packet/simulation.h"
#include "engine/packet/simulation_dispatch.h"

namespace fabricsim::scenario {

Simulation::~Simulation() = default;

uint32_t Simulation::partitions() const { return part_ ? part_->count : 1; }
int64_t Simulation::lookahead_ps() const { return part_ ? part_->lookahead_ps : 0; }
const std::vector<uint16_t>& Simulation::port_partitions() const {
  static const std::vector<uint16_t> kNone;
  return part_ ? part_->tables.port : kNone;
}

std::string Simulation::partition_refusal() const {
  if (sc_.mode != EngineMode::kPacket) return "mode is not packet";
  if (gpu_net_) return "the GPU node layer (node.gpus_per_node) is not partitioned yet";
  if (sc_.workload.kind != workload::WorkloadKind::kPattern) {
    return "only pattern workloads are partitioned yet";
  }
  if (workload_->ping_pong() != nullptr) return "ping-pong reacts to completions";
  if (!transport_->partitionable()) {
    return "only the RoCE / InfiniBand RC, UET and TCP / iWARP transports are partitioned yet";
  }
  if (roce_ != nullptr) {
    if (roce_->config().service != transport::Service::kRc) {
      return "only RC (not UC/UD) is partitioned yet";
    }
    // RDMA READ: both ends count a message's retransmissions; PLB: the requester moves the
    // QP's entropy, which the responder's ACKs read.
    if (roce_->config().operation == transport::Operation::kRead) {
      return "RDMA READ is not partitioned yet";
    }
    if (roce_->config().plb.enabled) return "PLB is not partitioned yet";
  }
  if (sc_.technology == Technology::kUet && sc_.uet.rccc) {
    return "UET's RCCC is not partitioned yet";  // the receiver reads the sender's credit target
  }
  if (sc_.technology == Technology::kUet || sc_.technology == Technology::kTcp ||
      sc_.technology == Technology::kIwarp) {
    // Dragonfly's Valiant/UGAL and a multi-plane NIC's per-message split hash a packet's msg,
    // which for a UET or TCP ACK is a slot number that differs when partitioned (the acks_
    // tables of transport/uet.h and transport/tcp.h).
    if (sc_.topology.kind == topo::TopologyKind::kDragonfly || sc_.topology.planes > 1) {
      return "UET and TCP on Dragonfly or multi-plane fabrics are not partitioned yet";
    }
  }
  if (transport_->context_cache() != nullptr) return "the NIC context cache is not partitioned";
  if (te_ || steady_ || telemetry_ || hybrid_) {
    return "TE, the steady window, telemetry and hybrid read the whole fabric during the run";
  }
  if (capturing_ || flow_paths_ || sc_.capture.max_frames > 0) return "capture and flow paths";
  if (net_.int_table() != nullptr || net_.sharp_enabled()) return "INT and SHARP";
  if (sc_.nic_stall.nic >= 0 || sc_.link_fail.switch_index >= 0 ||
      sc_.credit_loss.switch_index >= 0 || sc_.plane_fail.plane >= 0) {
    return "faults are not partitioned yet";
  }
  return "";
}

void Simulation::plan_partitions() {
  partition_note_ = partition_refusal();
  const uint32_t ranks = ranks_ != nullptr ? ranks_->size() : 1;
  // Spread over MPI ranks, a run that cannot be split is refused (one line, exit 2) rather than
  // run on one rank while the others wait: the user asked for machines it cannot use. All that
  // threads split crosses ranks too (UET's and TCP's ACK details and TCP's segment anchors
  // travel with their packets: transport/ack_annex.h).
  auto refuse = [&](const std::string& why) {
    throw InputError("threads", "this run cannot be spread over " + std::to_string(ranks) +
                                    " MPI ranks: " + why + " (docs/parallel.md); run it without "
                                    "mpirun");
  };
  if (!partition_note_.empty()) {
    if (ranks_ != nullptr) refuse(partition_note_);
    return;
  }
  const auto n = static_cast<uint32_t>(sc_.threads) * ranks;
  // Each rank's partitions need leaves of their own: a rank with none would only wait.
  if (ranks_ != nullptr && ranks > net_.num_leaf_slots()) {
    refuse("the fabric has " + std::to_string(net_.num_leaf_slots()) + " leaf switches, fewer "
           "than the ranks");
  }
  if (n > 0xFFFF) refuse(std::to_string(n) + " partitions (threads x ranks) is over 65,535");
  const uint32_t ports = net_.num_ports();
  std::vector<int32_t> of_switch(net_.num_switches(), -1);
  std::vector<int64_t> load(n, 0);  // ports per partition so far
  auto node_ports = [&](uint32_t sw) { return net_.node_port_count(net_.switch_node(sw)); };
  // Leaves, with their NICs, in contiguous runs of about equal port count.
  int64_t total = 0;
  for (uint32_t slot = 0; slot < net_.num_leaf_slots(); ++slot) {
    total += node_ports(net_.leaf_switch(slot));
  }
  int64_t done = 0;
  for (uint32_t slot = 0; slot < net_.num_leaf_slots(); ++slot) {
    const uint32_t sw = net_.leaf_switch(slot);
    const auto p = static_cast<uint32_t>(std::min<int64_t>(n - 1, done * n / std::max<int64_t>(total, 1)));
    of_switch[sw] = static_cast<int32_t>(p);
    load[p] += node_ports(sw);
    done += node_ports(sw);
  }
  // The other switches, bottom tier up: where most of their cables go.
  std::vector<uint32_t> order;
  for (uint32_t sw = 0; sw < net_.num_switches(); ++sw) {
    if (of_switch[sw] < 0) order.push_back(sw);
  }
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    return net_.switch_at(a).tier < net_.switch_at(b).tier;
  });
  std::vector<int64_t> links(n);
  for (uint32_t sw : order) {
    std::fill(links.begin(), links.end(), 0);
    const uint32_t node = net_.switch_node(sw);
    for (uint32_t k = 0; k < net_.node_port_count(node); ++k) {
      const uint32_t far = net_.port_node(net_.port(net_.node_first_port(node) + k).peer);
      const net::Node& f = net_.node(far);
      if (f.kind == net::NodeKind::kSwitch && of_switch[f.index] >= 0) ++links[of_switch[f.index]];
    }
    uint32_t best = 0;
    for (uint32_t p = 1; p < n; ++p) {
      if (links[p] > links[best] || (links[p] == links[best] && load[p] < load[best])) best = p;
    }
    of_switch[sw] = static_cast<int32_t>(best);
    load[best] += node_ports(sw);
  }
  auto part_of_node = [&](uint32_t node) -> uint16_t {
    const net::Node& nd = net_.node(node);
    if (nd.kind == net::NodeKind::kSwitch) return static_cast<uint16_t>(of_switch[nd.index]);
    // A NIC: its switch's (its one cable's far end).
    const uint32_t far = net_.port_node(net_.port(net_.nic_port(nd.index)).peer);
    return static_cast<uint16_t>(of_switch[net_.node(far).index]);
  };
  auto st = std::make_unique<PartitionState>();
  st->count = n;
  st->tables.port.resize(ports);
  st->tables.far_port.resize(ports);
  st->cut.assign(ports, 0);
  for (uint32_t port = 0; port < ports; ++port) {
    st->tables.port[port] = part_of_node(net_.port_node(port));
  }
  const bool control_frames = net_.infiniband() || sc_.switch_config.pfc.enabled;
  for (uint32_t port = 0; port < ports; ++port) {
    const uint16_t far = st->tables.port[net_.port(port).peer];
    st->tables.far_port[port] = far;
    if (far == st->tables.port[port]) continue;
    st->cut[port] = 1;
    int64_t l = net_.port(port).delay_ps;
    if (control_frames) l = std::min(l, net_.queues(port).prop_ps);
    st->lookahead_ps = std::min(st->lookahead_ps, l);
  }
  if (st->lookahead_ps <= 0) {
    partition_note_ = "a cut cable has no delay (no lookahead)";
    if (ranks_ != nullptr) refuse(partition_note_);
    return;
  }
  st->tables.nic.resize(net_.num_nics());
  for (uint32_t nic = 0; nic < net_.num_nics(); ++nic) {
    st->tables.nic[nic] = st->tables.port[net_.nic_port(nic)];
  }
  part_ = std::move(st);
  // Across ranks, every rank gives back what its partitions never touch (net/rank_release.cpp).
  // Rank 0 gets the other ranks' ports' counters at the end (merge_ranks), which is all that
  // links.csv and result.json read of them.
  if (ranks_ != nullptr) {
    const uint32_t per_rank = n / ranks;
    released_ = net_.release_unowned(part_->tables.port, ranks_->rank() * per_rank,
                                     (ranks_->rank() + 1) * per_rank);
  }
}

// run_windows' view of the simulation (core/partition_run.h). A member of Simulation so that a
// partition's events go to dispatch() directly (inlined), as the sequential loop's do.
struct Simulation::WindowModel {
  Simulation& sim;
  net::Network& net;
  transport::Transport& transport;
  workload::Workload& workload;
  const std::vector<uint16_t>& far_partition;
  // The serial events' handling, as the sequential loop's (simulation.cpp): the stop markers
  // and the rest.
  std::function<bool(const Event&)> on_serial;
  std::function<bool()> on_check_in;

  void handle(const Event& ev) { sim.dispatch(ev); }
  bool serial(const Event& ev) { return on_serial(ev); }
  size_t join() { return net.join_cut_frames(far_partition); }
  // Across ranks (core/rank_run.h): the owned partitions [first, end)'s cut-cable frames and
  // drop reports to the ranks they concern; what arrives is held until the join.
  uint32_t first = 0, end = 0, self = 0;
  const std::vector<uint32_t>* rank_of = nullptr;
  static void annex(void* t, uint32_t rank, const net::Packet& p) {
    static_cast<transport::Transport*>(t)->annex(rank, p);
  }
  int64_t pack_crossing(std::vector<std::vector<char>>& out) {
    const int64_t earliest =
        net.pack_cut_frames(out, first, end, *rank_of, far_partition, self, &annex, &transport);
    transport.pack_deferred_drops(out, first, end, *rank_of);  // accounting: no event
    return earliest;
  }
  void unpack_crossing(ByteReader& in) {
    net.unpack_cut_frames(in);
    transport.unpack_deferred_drops(in);
  }
  bool crossing_pending() const { return net.cut_frames_pending(first, end); }
  void join_crossing() { net.join_held_cut_frames(far_partition); }
  bool* interrupted = nullptr;
  void stopped_elsewhere() { *interrupted = true; }
  // Drop reports deferred to the barrier: what their kDropNotice events did, counted as they.
  void settle() {
    transport.on_barrier();
    *notice_events += static_cast<int64_t>(transport.apply_deferred_drops());
  }
  int64_t* notice_events = nullptr;  // across ranks: this rank's (its NICs' reports)
  size_t crossing() const { return net.cut_frames_waiting(); }
  bool quiet(uint32_t p) const {
    return net.partition_in_flight(p) == 0 && transport.partition_quiet(p);
  }
  bool serial_quiet() const { return workload.all_posted(); }
  bool check_in() { return on_check_in(); }
};

bool Simulation::run_partitioned(int64_t stop_time_ps, const ProgressFn& progress,
                                 const StopFlag* stop) {
  PartitionState& st = *part_;
  // What is owed so far goes to the senders' partitions; pending completions or drop reports
  // (a run resumed mid-way) cannot be placed: that run() goes sequentially.
  if (!transport_->begin_partitioned(st.count, st.tables.nic)) {
    // Across ranks, each rank gave back what its partitions do not touch: a sequential run
    // on any of them would read it (not possible from the CLI: a resumed run).
    if (ranks_ != nullptr) {
      throw std::logic_error("a run spread over MPI ranks cannot go on sequentially");
    }
    std::unique_ptr<PartitionState> keep = std::move(part_);
    const bool r = run(stop_time_ps, progress, stop);
    part_ = std::move(keep);
    return r;
  }
  if (stop_time_ps > 0 && stop_time_ps >= sched_.now_ps) {
    sched_.at(stop_time_ps, kStopMarker, 0);
    ++stop_markers_pending_;
    stop_marker_ps_ = stop_time_ps;
  }
  Partitions parts(sched_, st.count, st.tables, st.lookahead_ps);
  net_.begin_partitioned(st.count, st.cut, st.tables.port, st.tables.far_port);
  sched_.parts = &parts;
  parts.scatter([this](uint32_t kind, uint32_t target) {
    return net_.partitioned_target(kind, target);
  });
  if (ranks_ != nullptr) parts.set_owned(ranks_->rank() * (st.count / ranks_->size()),
                                         st.count / ranks_->size());
  int64_t serial_events = 0;  // the serial list's (every rank runs them all)
  int64_t notice_events = 0;  // drop reports accounted at barriers
  int64_t next_check = events_ + kCheckEveryEvents;
  WindowModel m{*this, net_, *transport_, *workload_, st.tables.far_port, {}, {}, {}};
  m.notice_events = &notice_events;
  std::vector<uint32_t> rank_of(st.count, 0);
  if (ranks_ != nullptr) {
    for (uint32_t p = 0; p < st.count; ++p) {
      rank_of[p] = rank_of_partition(p, st.count, ranks_->size());
    }
  }
  m.first = parts.owned_first();
  m.end = parts.owned_end();
  m.rank_of = &rank_of;
  if (ranks_ != nullptr) {
    m.self = ranks_->rank();
    transport_->on_ranked(ranks_->size(), m.first, m.end);
  }
  m.on_serial = [&](const Event& ev) {
    if (ev.kind() == kStopMarker) {
      --stop_markers_pending_;
      if (ev.time_ps != stop_marker_ps_ || stop_time_ps <= 0) return true;  // an earlier call's
      return false;
    }
    ++serial_events;
    dispatch(ev);
    return true;
  };
  const int64_t events_before = events_;
  bool interrupted = false;
  m.interrupted = &interrupted;
  m.on_check_in = [&] {
    // Across ranks, this rank's partitions only: the progress line's count, not the result's.
    events_ = events_before + serial_events + notice_events + parts.events();
    if (events_ < next_check && !(stop && *stop)) return true;
    next_check = events_ + kCheckEveryEvents;
    // Where the run stands for the progress line: every partition has run up to the bound of
    // the window just ended (the serial clock is only the last serial event's time), shown
    // for the check and put back after it.
    const int64_t serial_clock = sched_.now_ps;
    if (parts.bound().time_ps != kNoEventKey.time_ps) {
      sched_.now_ps = std::max(sched_.now_ps, parts.bound().time_ps);
    }
    const bool go_on = check_in(stop_time_ps, progress, stop);
    sched_.now_ps = serial_clock;
    if (!go_on) interrupted = true;
    return go_on;
  };
  WindowsResult r;
  try {
    if (ranks_ != nullptr) {
      r = run_windows_ranks(parts, sched_, m, static_cast<uint32_t>(sc_.threads), *ranks_);
    } else {
      r = run_windows(parts, sched_, m, st.count);
    }
  } catch (...) {
    sched_.parts = nullptr;
    throw;
  }
  int64_t partition_events = notice_events + parts.events();
  if (ranks_ != nullptr) {
    // The merge packs (other ranks) or takes in (rank 0, which then builds the results) every
    // rank's owned state: the packets' buffers, empty once the run has finished, go first, so
    // that a rank's peak is its partitions' run, not the run plus the merge's copies.
    net_.release_empty_rings();
    partition_events = merge_ranks(parts, r.busy_seconds, partition_events);
    parts.drop_unowned();
  }
  events_ = events_before + serial_events + partition_events;
  PartitionProfile& prof = partition_profile_;
  prof.windows += r.windows;
  prof.events.resize(st.count, 0);
  prof.busy_seconds.resize(st.count, 0.0);
  for (uint32_t p = 0; p < st.count; ++p) {
    prof.events[p] += parts.part(p).events;
    prof.busy_seconds[p] += r.busy_seconds[p];
  }
  prof.serial_seconds += r.serial_seconds;
  parts.gather(r.end_ps, [](uint32_t kind, uint32_t target) {
    return net::Network::sequential_target(kind, target);
  });
  sched_.parts = nullptr;
  net_.end_partitioned();
  transport_->end_partitioned();
  interrupted_ = interrupted;
  return r.end == WindowsEnd::kDone || r.end == WindowsEnd::kDrained;
}

}  // namespace fabricsim::scenario

namespace fabricsim::scenario {

int64_t Simulation::merge_ranks(Partitions& parts, std::vector<double>& busy_seconds,
                                int64_t local_events) {
  // Every rank's events (all ranks learn the total: one all_gather).
  std::vector<char> all;
  ranks_->all_gather(&local_events, sizeof(local_events), all);
  int64_t total = 0;
  for (uint32_t r = 0; r < ranks_->size(); ++r) {
    int64_t e = 0;
    std::memcpy(&e, all.data() + r * sizeof(e), sizeof(e));
    total += e;
  }
  // What the owned partitions wrote, to rank 0, which copies it over its stale copy: the
  // ports', switches' and messages' fields the results read, the counter slots, and the
  // partitions' profile (events, busy seconds).
  const uint32_t first = parts.owned_first(), end = parts.owned_end();
  std::vector<std::vector<char>> out(ranks_->size()), in;
  if (ranks_->rank() != 0) {
    ByteWriter w(out[0]);
    net_.pack_owned_state(w, first, end, part_->tables.port);
    transport_->pack_owned_state(w, first, end);
    std::vector<int64_t> events;
    std::vector<double> busy;
    for (uint32_t p = first; p < end; ++p) {
      events.push_back(parts.part(p).events);
      busy.push_back(busy_seconds[p]);
    }
    w.put<uint32_t>(first);
    w.put_all(events);
    w.put_all(busy);
  }
  ranks_->exchange(out, in);
  if (ranks_->rank() == 0) {
    for (uint32_t r = 1; r < ranks_->size(); ++r) {
      ByteReader rd(in[r]);
      net_.unpack_owned_state(rd);
      transport_->unpack_owned_state(rd);
      const auto from = rd.get<uint32_t>();
      std::vector<int64_t> events;
      std::vector<double> busy;
      rd.get_all(events);
      rd.get_all(busy);
      for (size_t k = 0; k < events.size(); ++k) {
        parts.part(from + static_cast<uint32_t>(k)).events = events[k];
        busy_seconds[from + k] = busy[k];
      }
    }
  }
  return total;
}

}  // namespace fabricsim::scenario
