#include "net/load_balance.h"
#include "net/plane_choice.h"

#include "net/hash.h"

namespace fabricsim::net {

namespace {

uint64_t te_key(uint32_t src_nic, uint32_t dst_nic) {
  return ((static_cast<uint64_t>(src_nic) << 32) | dst_nic) + 1;  // never 0 (= empty)
}

uint32_t te_slot(uint64_t key, size_t size) {
  uint64_t h = key * 0x9E3779B97F4A7C15ull;  // Fibonacci hashing: the high bits are mixed
  return static_cast<uint32_t>((h ^ (h >> 29)) & (size - 1));
}

void te_place(std::vector<TeRule>& table, uint64_t key, uint32_t port) {
  uint32_t i = te_slot(key, table.size());
  while (table[i].key != 0 && table[i].key != key) i = (i + 1) & (table.size() - 1);
  table[i].key = key;
  table[i].port = port;
}

}  // namespace

void enable_flowlets(Switch& sw, int64_t gap_ps) {
  if (is_plane_selector(sw)) return;  // a NIC's plane selector keeps its own choice
  sw.lb = kLbFlowlet;
  sw.flowlet_gap_ps = gap_ps;
  // Emptied on every (re)install: after a route recomputation a remembered port may no longer
  // be a shortest-path member, so every flow starts a new flowlet on the new groups.
  sw.flowlets.assign(kFlowletSlots, FlowletSlot{});
}

void te_rule_insert(Switch& sw, uint32_t src_nic, uint32_t dst_nic, uint32_t port) {
  if (sw.te_rules.empty()) sw.te_rules.assign(64, TeRule{});
  const uint64_t key = te_key(src_nic, dst_nic);
  if (te_rule_lookup(sw, src_nic, dst_nic) == kNoPort) {
    if (2 * (sw.te_rule_count + 1) > sw.te_rules.size()) {
      std::vector<TeRule> bigger(2 * sw.te_rules.size());
      for (const TeRule& r : sw.te_rules) {
        if (r.key != 0) te_place(bigger, r.key, r.port);
      }
      sw.te_rules.swap(bigger);
    }
    ++sw.te_rule_count;
  }
  te_place(sw.te_rules, key, port);
  if (sw.lb == kLbHash) sw.lb = kLbTeRules;
}

uint32_t te_rule_lookup(const Switch& sw, uint32_t src_nic, uint32_t dst_nic) {
  if (sw.te_rules.empty()) return kNoPort;
  const uint64_t key = te_key(src_nic, dst_nic);
  const size_t mask = sw.te_rules.size() - 1;
  for (uint32_t i = te_slot(key, sw.te_rules.size());; i = (i + 1) & mask) {
    if (sw.te_rules[i].key == key) return sw.te_rules[i].port;
    if (sw.te_rules[i].key == 0) return kNoPort;
  }
}

void te_rules_clear(Switch& sw) {
  sw.te_rules.clear();
  sw.te_rule_count = 0;
  if (sw.lb == kLbTeRules) sw.lb = kLbHash;
}

uint32_t Network::hashed_member(const Switch& sw, const Packet& k, uint32_t n) const {
  const FiveTuple t{nic_ip(k.src_nic), nic_ip(k.dst_nic), k.entropy,
                    static_cast<uint16_t>(kRoceUdpPort), 17};
  return ecmp_hash(sw.hash, t, sw.hash_seed) % n;
}

uint32_t Network::select_balanced(const Switch& sw, const Packet& k, uint32_t begin,
                                  uint32_t n) const {
  const uint32_t* members = sw.group_ports.data() + begin;
  // The working member with the fewest bytes queued in the packet's class, scanning from
  // `first`: ties keep the earliest scanned. A port that is down is never chosen while another
  // works (switch hardware sees link state).
  auto least_queued = [&](uint32_t first) {
    uint32_t best = kNoPort;
    uint32_t best_bytes = 0;
    for (uint32_t i = 0; i < n; ++i) {
      uint32_t idx = first + i;
      if (idx >= n) idx -= n;
      const uint32_t cand = members[idx];
      if (!ports_[cand].up) continue;
      const uint32_t bytes = queues_[cand].cls[k.priority].bytes;
      if (best == kNoPort || bytes < best_bytes) {
        best = cand;
        best_bytes = bytes;
        if (bytes == 0) break;
      }
    }
    return best == kNoPort ? members[first] : best;
  };
  switch (sw.lb) {
    case kLbIbAdaptive:
      // InfiniBand AR: ties keep the static LFT port, listed first, so an idle fabric follows
      // the LFT.
      return least_queued(0);
    case kLbAdaptive:
      // Ethernet AR: ties start from the hashed member, so an idle fabric spreads flows exactly
      // as ECMP does (and keeps each flow on one path while its queues are empty) instead of
      // sending every flow's first packets to the group's first port.
      return least_queued(hashed_member(sw, k, n));
    case kLbFlowlet: {
      const FiveTuple t{nic_ip(k.src_nic), nic_ip(k.dst_nic), k.entropy,
                        static_cast<uint16_t>(kRoceUdpPort), 17};
      const uint32_t h = ecmp_hash(sw.hash, t, sw.hash_seed);
      const uint32_t tag = h | 1u;  // 0 marks a free slot
      FlowletSlot& slot = sw.flowlets[(h >> 7) & (kFlowletSlots - 1)];
      const int64_t now = sched_.now();
      if (slot.tag != tag || now - slot.last_ps > sw.flowlet_gap_ps || !ports_[slot.port].up) {
        // A new flowlet: the gap exceeds the path-delay spread, so it cannot overtake the last.
        slot.tag = tag;
        slot.port = least_queued(h % n);
      }
      slot.last_ps = now;
      return slot.port;
    }
    case kLbPlane:
      return choose_plane(sw, k, members, n, ports_.data());
    case kLbTeRules: {
      const uint32_t port = te_rule_lookup(sw, k.src_nic, k.dst_nic);
      // A rule is followed only while its port works and is still a member of the group: after
      // a failure and route recomputation the hash applies until the controller replaces it.
      if (port != kNoPort && ports_[port].up) {
        for (uint32_t i = 0; i < n; ++i) {
          if (members[i] == port) return port;
        }
      }
      return members[hashed_member(sw, k, n)];
    }
    default:
      return members[hashed_member(sw, k, n)];
  }
}

}  // namespace fabricsim::net
