// Per-packet Dragonfly forwarding (routing/dragonfly.h sets the tables): minimal, Valiant and
// UGAL-L, and the class-per-phase rule that keeps non-minimal routing deadlock-free under PFC
// or InfiniBand credits. Reached only from switch_receive when Switch::lb is kLbDragonfly: no
// allocation, no virtual call, a few table reads per hop.
#include <utility>

#include "core/rng.h"
#include "net/network.h"

namespace fabricsim::net {

void Network::set_dragonfly(std::vector<uint16_t> nic_group, uint32_t groups, uint64_t seed) {
  dfly_nic_group_ = std::move(nic_group);
  dfly_groups_ = groups;
  dfly_seed_ = seed;
}

uint32_t Network::dragonfly_intermediate(const Packet& pkt) const {
  // Per packet (Kim et al. ISCA 2008 §4 route every packet independently): the header fields
  // that differ between a flow's packets (psn, type) are mixed in, so a flow's packets spread
  // over every intermediate group and the receiver must reorder.
  uint64_t state = dfly_seed_ ^ (static_cast<uint64_t>(pkt.src_nic) << 32 | pkt.dst_nic);
  state ^= splitmix64(state) + (static_cast<uint64_t>(pkt.psn) << 16) +
           (static_cast<uint64_t>(pkt.msg) << 40) + (static_cast<uint64_t>(pkt.type) << 8) +
           pkt.entropy;
  const uint32_t src_group = dfly_nic_group_[pkt.src_nic];
  const uint32_t x = static_cast<uint32_t>(splitmix64(state) % (dfly_groups_ - 1));
  return x >= src_group ? x + 1 : x;  // uniform over the other groups
}

// Switch-to-switch links from switch `from` to switch `to` on the minimal route: 0 (same),
// 1 (same group, or `from` holds the global link and it lands on `to`), at most 3.
uint32_t Network::dragonfly_hops_to(uint32_t from, uint32_t to) const {
  if (from == to) return 0;
  const DragonflySwitch& d = switches_[from].dfly;
  const uint32_t target = switches_[to].dfly.group;
  if (d.group == target) return 1;
  uint32_t hops = 1;
  uint32_t at = ports_[d.port_to_group[target]].far_index;  // a switch (never a NIC)
  if (switches_[at].dfly.group != target) {  // a local hop first, to the global link's owner
    at = ports_[switches_[at].dfly.port_to_group[target]].far_index;
    ++hops;
  }
  return at == to ? hops : hops + 1;
}

uint32_t Network::dragonfly_egress(uint32_t sw_index, uint32_t in_local, Packet& pkt) const {
  const Switch& sw = switches_[sw_index];
  const DragonflySwitch& d = sw.dfly;
  // Class per phase: a packet arriving over a global link moves up one class (PFC priority or
  // IB VL), so each class's channel dependencies run local -> global only and the classes are
  // used in increasing order: the channel dependency graph is acyclic (routing/dragonfly.h).
  if (in_local >= d.first_global && ((d.remark_mask >> pkt.priority) & 1u)) ++pkt.priority;
  if (sw.route_by_lid) {
    // InfiniBand: the SM's LFT (minimal routes); AR picks among the group's minimal ports, the
    // least queued in the packet's VL, ties to the LFT port (listed first).
    const uint32_t key = pkt.entropy;
    if (key >= sw.group_of_key.size()) return kNoPort;
    const uint16_t g = sw.group_of_key[key];
    if (g == kNoRoute) return kNoPort;
    const uint32_t begin = sw.group_offsets[g];
    const uint32_t n = sw.group_offsets[g + 1] - begin;
    const uint32_t* members = sw.group_ports.data() + begin;
    if (n == 1 || !d.ib_adaptive) return members[0];
    uint32_t best = members[0];
    uint32_t best_bytes = queues_[best].cls[pkt.priority].bytes;
    for (uint32_t i = 1; i < n && best_bytes != 0; ++i) {
      const uint32_t bytes = queues_[members[i]].cls[pkt.priority].bytes;
      if (ports_[members[i]].up && (bytes < best_bytes || !ports_[best].up)) {
        best = members[i];
        best_bytes = bytes;
      }
    }
    return best;
  }
  const uint32_t dst_group = dfly_nic_group_[pkt.dst_nic];
  if (d.mode == 0 || dst_group == d.group) return select_egress(sw, pkt);  // minimal
  const uint32_t src_group = dfly_nic_group_[pkt.src_nic];
  if (static_cast<int32_t>(nic_leaf_slot_[pkt.src_nic]) != sw.leaf_slot) {
    // Past the source switch: a Valiant packet still in its source group heads for the
    // intermediate group; from there (and in the destination group) it routes minimally.
    if (pkt.valiant && d.group == src_group) {
      return d.port_to_group[dragonfly_intermediate(pkt)];
    }
    return select_egress(sw, pkt);
  }
  // The source switch decides.
  const uint32_t mid = dragonfly_intermediate(pkt);
  const uint32_t minimal = select_egress(sw, pkt);
  if (mid == dst_group) return minimal;  // the Valiant path would be the minimal one
  const uint32_t detour = d.port_to_group[mid];
  if (d.mode == 2) {
    // UGAL-L (Kim et al. §4.2; Singh, PhD thesis, Stanford 2005): minimal unless its queue
    // times its hop count exceeds the Valiant candidate's, both queues local to this switch.
    const uint32_t dst_switch = leaf_switches_[nic_leaf_slot_[pkt.dst_nic]];
    const uint64_t hops_min = dragonfly_hops_to(sw_index, dst_switch);
    uint32_t entry = ports_[detour].far_index;
    uint64_t hops_val = 1;
    if (switches_[entry].dfly.group != mid) {
      entry = ports_[switches_[entry].dfly.port_to_group[mid]].far_index;
      ++hops_val;
    }
    hops_val += dragonfly_hops_to(entry, dst_switch);
    const uint64_t q_min = queues_[minimal].cls[pkt.priority].bytes;
    const uint64_t q_val = queues_[detour].cls[pkt.priority].bytes;
    if (q_min * hops_min <= q_val * hops_val || !ports_[detour].up) return minimal;
  }
  pkt.valiant = 1;
  return detour;
}

}  // namespace fabricsim::net
