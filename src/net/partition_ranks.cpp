// The network's side of a partitioned run spread over ranks (core/rank_run.h): frames on cut
// cables whose far end another rank runs, and, after the run, the owned ports' and switches'
// state for the rank that writes the results.
//
// A frame on a cut cable waits in its partition's outbox until the barrier (partition_io.cpp);
// across ranks the barrier's exchange carries it, as bytes, to the rank of the cable's far end,
// which holds it with the others of the same sending partition and joins them in sending-
// partition order, as join_cut_frames() does on one process: the far end's line and arrival
// events come out the same.
#include <algorithm>
#include <cstdint>
#include <stdexcept>

#include "net/network.h"

namespace fabricsim::net {

int64_t Network::pack_cut_frames(std::vector<std::vector<char>>& out, uint32_t first, uint32_t end,
                              const std::vector<uint32_t>& rank_of,
                              const std::vector<uint16_t>& far_partition, uint32_t self,
                              void (*crossing)(void* ctx, uint32_t rank, const Packet& p),
                              void* ctx) {
  const auto ranks = static_cast<uint32_t>(out.size());
  std::vector<std::vector<CutFrame>> to_rank(ranks);
  int64_t earliest = INT64_MAX;
  for (uint32_t r = 0; r < ranks; ++r) ByteWriter(out[r]).put<uint32_t>(end - first);
  for (uint32_t from = first; from < end; ++from) {
    for (auto& v : to_rank) v.clear();
    for (const CutFrame& c : part_slots_[from].out) {
      const uint32_t r = rank_of[far_partition[c.port]];
      to_rank[r].push_back(c);
      earliest = std::min(earliest, c.frame.arrive_ps);
      if (r != self) crossing(ctx, r, c.frame.pkt);
    }
    part_slots_[from].out.clear();
    for (uint32_t r = 0; r < ranks; ++r) {
      ByteWriter w(out[r]);
      w.put<uint32_t>(from);
      w.put_all(to_rank[r]);
    }
  }
  return earliest;
}

void Network::unpack_cut_frames(ByteReader& in) {
  if (cut_held_.size() + 1 != part_slots_.size()) cut_held_.resize(part_slots_.size() - 1);
  const auto senders = in.get<uint32_t>();
  for (uint32_t k = 0; k < senders; ++k) {
    const auto from = in.get<uint32_t>();
    if (from >= cut_held_.size()) throw std::logic_error("Network: cut frames from no partition");
    in.get_all(cut_held_[from]);
  }
}

bool Network::cut_frames_pending(uint32_t first, uint32_t end) const {
  for (uint32_t p = first; p < end; ++p) {
    if (!part_slots_[p].out.empty()) return true;
  }
  for (const auto& held : cut_held_) {
    if (!held.empty()) return true;
  }
  return false;
}

void Network::join_held_cut_frames(const std::vector<uint16_t>& far_partition) {
  const auto serial = static_cast<uint32_t>(part_slots_.size() - 1);
  const uint32_t saved = current_partition();
  set_current_partition(serial);
  for (std::vector<CutFrame>& held : cut_held_) {
    for (const CutFrame& c : held) {
      if (!c.control) ++part_slots_[far_partition[c.port]].in_flight;
      send_across(c.port, c.control, c.frame);  // the serial phase: onto the cable
    }
    held.clear();
  }
  set_current_partition(saved);
}

namespace {

// What the results read of a port (engine/packet/link_table.cpp, link_load.cpp, harvest.cpp),
// written only by the partition of the port's node.
struct PortState {
  uint32_t port;
  uint8_t paused_mask;
  int32_t down_count;
  uint32_t peak_rx_blocks;
  uint32_t rx_buffer_blocks;  // configuration, but the writing rank may have given it back
  int64_t tx_bytes;
  int64_t busy_until_ps;
  int64_t drops;
  int64_t trims;
  int64_t pause_frames_sent;
  int64_t pause_frames_received;
  int64_t paused_ps;
  int64_t ecn_marks;
  int64_t credit_waits;
  int64_t peak_headroom_bytes;
  uint32_t peak_bytes[kPriorities];
  int64_t paused_since_ps[kPriorities];
};
struct SwitchState {
  uint32_t sw;
  int64_t peak_buffer_bytes;
};
struct SlotState {
  uint32_t partition;
  NetCounters counters;
  int64_t in_flight;
};

}  // namespace

void Network::pack_owned_state(ByteWriter& out, uint32_t first, uint32_t end,
                               const std::vector<uint16_t>& port_partition) const {
  std::vector<PortState> ports;
  std::vector<SwitchState> switches;
  for (uint32_t id = 0; id < ports_.size(); ++id) {
    if (port_partition[id] < first || port_partition[id] >= end) continue;
    const Port& p = ports_[id];
    const PortQueues& q = queues_[id];
    PortState s{};
    s.port = id;
    s.paused_mask = p.paused_mask;
    s.down_count = q.down_count;
    s.peak_rx_blocks = q.peak_rx_blocks;
    s.rx_buffer_blocks = q.rx_buffer_blocks;
    s.tx_bytes = port_tx_bytes_[id];
    s.busy_until_ps = p.busy_until_ps;
    s.drops = q.drops;
    s.trims = q.trims;
    s.pause_frames_sent = q.pause_frames_sent;
    s.pause_frames_received = q.pause_frames_received;
    s.paused_ps = q.paused_ps;
    s.ecn_marks = q.ecn_marks;
    s.credit_waits = q.credit_waits;
    s.peak_headroom_bytes = q.peak_headroom_bytes;
    for (int c = 0; c < kPriorities; ++c) {
      s.peak_bytes[c] = q.cls[c].peak_bytes;
      s.paused_since_ps[c] = q.paused_since_ps[c];
    }
    ports.push_back(s);
    // A switch is its ports' partition's (every port of a node is in the node's partition).
    if (p.switch_index >= 0 && id == switches_[static_cast<uint32_t>(p.switch_index)].first_port) {
      switches.push_back({static_cast<uint32_t>(p.switch_index),
                          switches_[static_cast<uint32_t>(p.switch_index)].peak_buffer_bytes});
    }
  }
  std::vector<SlotState> slots;
  for (uint32_t p = first; p < end; ++p) {
    slots.push_back({p, part_slots_[p].counters, part_slots_[p].in_flight});
  }
  out.put_all(ports);
  out.put_all(switches);
  out.put_all(slots);
}

void Network::unpack_owned_state(ByteReader& in) {
  std::vector<PortState> ports;
  std::vector<SwitchState> switches;
  std::vector<SlotState> slots;
  in.get_all(ports);
  in.get_all(switches);
  in.get_all(slots);
  for (const PortState& s : ports) {
    Port& p = ports_[s.port];
    PortQueues& q = queues_[s.port];
    p.paused_mask = s.paused_mask;
    q.down_count = s.down_count;
    q.peak_rx_blocks = s.peak_rx_blocks;
    q.rx_buffer_blocks = s.rx_buffer_blocks;
    port_tx_bytes_[s.port] = s.tx_bytes;
    p.busy_until_ps = s.busy_until_ps;
    q.drops = s.drops;
    q.trims = s.trims;
    q.pause_frames_sent = s.pause_frames_sent;
    q.pause_frames_received = s.pause_frames_received;
    q.paused_ps = s.paused_ps;
    q.ecn_marks = s.ecn_marks;
    q.credit_waits = s.credit_waits;
    q.peak_headroom_bytes = s.peak_headroom_bytes;
    for (int c = 0; c < kPriorities; ++c) {
      q.cls[c].peak_bytes = s.peak_bytes[c];
      q.paused_since_ps[c] = s.paused_since_ps[c];
    }
  }
  for (const SwitchState& s : switches) switches_[s.sw].peak_buffer_bytes = s.peak_buffer_bytes;
  for (const SlotState& s : slots) {
    if (s.partition >= part_slots_.size()) throw std::logic_error("Network: no such partition");
    part_slots_[s.partition].counters = s.counters;
    part_slots_[s.partition].in_flight = s.in_flight;
  }
}

}  // namespace fabricsim::net
