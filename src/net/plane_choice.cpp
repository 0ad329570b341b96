// Plane choice at a multi-plane NIC's selector (net/plane_choice.h).
#include "net/plane_choice.h"

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

uint32_t slot_of(uint32_t key) {
  // Fibonacci hashing: consecutive ids (QPs, messages) land in different slots.
  return (key * 2654435769u) >> (32 - 12) & (kPlaneSlots - 1);
}
static_assert(kPlaneSlots == 1u << 12, "slot_of takes the top 12 bits");

}  // namespace

void make_plane_selector(Switch& sw, PlaneSplit split) {
  sw.lb = kLbPlane;
  sw.plane_split = static_cast<uint8_t>(split);
  sw.plane_next = 0;
  sw.flowlets.assign(kPlaneSlots, FlowletSlot{});
}

uint32_t choose_plane(const Switch& sw, const Packet& pkt, const uint32_t* members, uint32_t n,
                      const Port* ports) {
  const auto split = static_cast<PlaneSplit>(sw.plane_split);
  const bool data = pkt.type == PacketType::kData;
  if (split == PlaneSplit::kPacket && data) return next_round_robin(sw, members, n, ports);
  const uint32_t key = split == PlaneSplit::kMessage ? pkt.msg : pkt.qp;
  FlowletSlot& slot = sw.flowlets[slot_of(key)];
  const uint32_t tag = key + 1;  // 0 marks a free slot
  if (slot.tag == tag && ports[slot.port].up) return slot.port;
  if (!data) {
    // A control packet of a connection this NIC has not sent data on: a fixed plane.
    for (uint32_t i = 0; i < n; ++i) {
      const uint32_t m = members[(key + i) % n];
      if (ports[m].up) return m;
    }
    return members[0];
  }
  slot.tag = tag;
  slot.port = next_round_robin(sw, members, n, ports);
  return slot.port;
}

}  // namespace fabricsim::net
