// UEC packet trimming at a switch egress queue (net/config.h TrimConfig; docs/reference/
// uet-sim.md §4). A lossy data packet that would be dropped for buffer is cut to its header and
// queued in the trim class, which strict priority serves ahead of data, so the receiver learns
// of the loss one one-way delay later and NACKs it instead of the sender waiting for a timeout.
//
// Called only from Network::enqueue's drop branch, so a run without trimming never gets here.
#include "net/network.h"

namespace fabricsim::net {

void Network::trim(uint32_t port, const Packet& pkt) {
  Switch& sw = switches_[ports_[port].switch_index];
  Packet victim = pkt;
  bool admit_arrival = false;
  ClassQueue& data = queues_[port].cls[pkt.priority];
  // uet-htsim (CompositeQueue::receivePacket): with probability 1/2 the newest queued data
  // packet is trimmed and the arrival takes its place. The per-switch stream keeps the choice
  // deterministic for a seed.
  if (sw.trim_newest && !data.ring.empty() &&
      switch_rng_[ports_[port].switch_index].uniform() < 0.5) {
    const Packet& newest = data.ring.back();
    if (newest.type == PacketType::kData && !(newest.flags & kFlagTrimmed)) {
      victim = data.ring.pop_back();
      data.bytes -= victim.frame_bytes;
      sw.buffer_used_bytes -= victim.frame_bytes;
      if (data.ring.empty()) {
        ports_[port].backlog_mask &= static_cast<uint8_t>(~(1u << pkt.priority));
      }
      admit_arrival = true;
    }
  }
  if (admit_arrival) {
    if (lossy_fits(sw, port, pkt)) {
      sw.buffer_used_bytes += pkt.frame_bytes;
      if (sw.buffer_used_bytes > sw.peak_buffer_bytes) sw.peak_buffer_bytes = sw.buffer_used_bytes;
      push_queue(port, pkt);
      wake(port);
    } else {
      // A larger arrival than the packet it displaced: it is trimmed as well.
      trim_to_header(port, pkt);
    }
  }
  trim_to_header(port, victim);
}

void Network::trim_to_header(uint32_t port, const Packet& pkt) {
  Switch& sw = switches_[ports_[port].switch_index];
  Packet header = pkt;
  header.payload_bytes = 0;
  header.frame_bytes = sw.trim_header_bytes;
  header.flags = static_cast<uint8_t>(header.flags | kFlagTrimmed |
                                      (ports_[port].far_is_nic ? kFlagTrimmedLastHop : 0));
  header.priority = sw.trim_priority;
  ++ctr().trimmed_packets;
  ctr().trimmed_payload_bytes += pkt.payload_bytes;
  ++queues_[port].trims;
  // Admitted like any packet of the trim class: dropped if that class has no room either.
  enqueue(port, header);
}

}  // namespace fabricsim::net
