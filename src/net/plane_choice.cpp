// Plane choice at a multi-plane NIC's selector (net/plane_choice.h).
#include "net/plane_choice.h"

#include <vector>

namespace fabricsim::net {
namespace {

// The next working member in round-robin order, advancing the selector's counter past dead
// ports so that the surviving planes share evenly. members[0] if every port is down (the packet
// is then dropped as kLinkDown, as on any failed link).
uint32_t next_round_robin(const Switch& sw, const uint32_t* members, uint32_t n,
                          const Port* ports) {
  for (uint32_t tries = 0; tries < n; ++tries) {
    const uint32_t m = members[sw.plane_next++ % n];
    if (ports[m].up) return m;
  }
  return members[0];
}

// The fixed plane of a key without a table entry: the first working member from key mod n.
uint32_t fixed_member(uint32_t key, const uint32_t* members, uint32_t n, const Port* ports) {
  for (uint32_t i = 0; i < n; ++i) {
    const uint32_t m = members[(key + i) % n];
    if (ports[m].up) return m;
  }
  return members[0];
}

constexpr uint32_t kSlotBits = 11;
static_assert(kPlaneSlots == 1u << kSlotBits, "slot_of takes the top kSlotBits bits");

uint32_t slot_of(uint32_t key) {
  // Fibonacci hashing: consecutive ids (QPs, messages) land in different slots.
  return (key * 2654435769u) >> (32 - kSlotBits);
}

}  // namespace

void make_plane_selector(Switch& sw, PlaneSplit split) {
  sw.lb = kLbPlane;
  sw.plane_split = static_cast<uint8_t>(split);
  sw.plane_next = 0;
  sw.flowlets.assign(kPlaneSlots, FlowletSlot{});
}

void make_hca_ports(Switch& sw) {
  sw.lb = kLbHcaPorts;
  std::vector<FlowletSlot>().swap(sw.flowlets);  // no per-connection table: the QP says
}

void Network::bind_qp_plane(uint32_t qp, uint8_t plane) {
  if (qp >= qp_plane_.size()) qp_plane_.resize(qp + 1, 0);  // at QP creation, never per packet
  qp_plane_[qp] = plane;
}

uint32_t choose_plane(const Switch& sw, const Packet& pkt, const uint32_t* members, uint32_t n,
                      const Port* ports) {
  const auto split = static_cast<PlaneSplit>(sw.plane_split);
  const bool data = pkt.type == PacketType::kData;
  if (split == PlaneSplit::kPacket && data) return next_round_robin(sw, members, n, ports);
  const bool per_message = split == PlaneSplit::kMessage;
  const uint32_t key = per_message ? pkt.msg : pkt.qp;
  const uint32_t tag = key + 1;  // 0 marks a free slot
  // A key of ~0 (control packets carry no message: msg = 0xFFFFFFFF) has no entry.
  if (tag == 0) return fixed_member(key, members, n, ports);
  const uint32_t home = slot_of(key);
  FlowletSlot* free_slot = nullptr;
  for (uint32_t i = 0; i < kPlaneProbe; ++i) {
    FlowletSlot& slot = sw.flowlets[(home + i) & (kPlaneSlots - 1)];
    if (slot.tag == tag) {
      if (!ports[slot.port].up) slot.port = next_round_robin(sw, members, n, ports);
      const uint32_t port = slot.port;
      // A message's entry is released with its last packet (retransmissions take a new turn).
      if (per_message && data && (pkt.flags & kFlagLast)) slot.tag = 0;
      return port;
    }
    if (slot.tag == 0 && free_slot == nullptr) free_slot = &slot;
  }
  // Not placed: a control packet, or data whose window is full, takes its fixed plane.
  if (!data || free_slot == nullptr) return fixed_member(key, members, n, ports);
  const uint32_t port = next_round_robin(sw, members, n, ports);
  if (!(per_message && (pkt.flags & kFlagLast))) {  // a one-packet message needs no entry
    free_slot->tag = tag;
    free_slot->port = port;
  }
  return port;
}

}  // namespace fabricsim::net
