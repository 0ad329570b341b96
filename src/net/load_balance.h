// Ethernet load balancing inside a switch beyond the ECMP hash: adaptive routing, flowlets and a
// traffic-engineering controller's per-flow rules (routing.load_balancing; routing/config.h).
//
// The per-packet choice lives in Network::select_balanced (load_balance.cpp), reached only when
// Switch::lb is not kLbHash. The tables it reads are sized here, when a mode is configured or a
// controller installs rules: nothing is allocated per packet.
#pragma once

#include <cstdint>

#include "net/network.h"

namespace fabricsim::net {

// Flowlet-table entries per switch: a fixed power of two, indexed by the low bits of the flow
// hash. 8192 as the P4 flowlet-switching example's register arrays (13 hash bits, "8K entry in
// the flowlet_table"); CONGA's ASIC table is larger (64K, UNVERIFIED). Two flows that share a
// slot are told apart by the stored hash (a mismatch starts a new flowlet), so a collision costs
// at most an early path change, never a wrong port.
inline constexpr uint32_t kFlowletSlots = 8192;

// Switches `sw` to flowlet switching with gap `gap_ps` (allocates the table once).
void enable_flowlets(Switch& sw, int64_t gap_ps);

// The TE rules of a switch: exact match on (source NIC, destination NIC). Inserting the first
// rule turns the switch from kLbHash to kLbTeRules; a later insert for the same pair replaces
// the port. The table doubles (rehashes) when half full, at install time only.
void te_rule_insert(Switch& sw, uint32_t src_nic, uint32_t dst_nic, uint32_t port);
// The rule's port, or kNoPort when the pair has none.
uint32_t te_rule_lookup(const Switch& sw, uint32_t src_nic, uint32_t dst_nic);
// Removes every rule (the switch goes back to the hash).
void te_rules_clear(Switch& sw);

}  // namespace fabricsim::net
