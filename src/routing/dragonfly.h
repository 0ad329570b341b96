// Dragonfly routing tables and deadlock freedom (routing.dragonfly; docs/load-balancing.md
// "Dragonfly").
//
// Routes: minimal = local -> global -> local, at most 3 switch-to-switch hops and one global
// link; install_dragonfly programs these tables itself (shortest-path ECMP would also take
// equally short two-global-hop paths, which the class scheme below does not cover). Valiant
// (Valiant, "A scheme for fast parallel communication", SIAM J. Comput. 1982; Kim et al. ISCA
// 2008 §4.1): minimal to a random intermediate group, then minimal to the destination, chosen
// per packet at the source switch. UGAL-L (Kim et al. §4.2): the source switch compares
// (queued bytes x hops) of the minimal port and of one random Valiant candidate's port, both
// local queues, ties to minimal. The packet carries the decision (Packet::valiant); its
// intermediate group is a hash of its header, recomputed where needed.
//
// Deadlock freedom (lossless classes only: PFC on Ethernet, credits on InfiniBand): a packet
// arriving over a global link moves up one class (Ethernet: PFC priority + 1; InfiniBand: VL + 1,
// an SL2VL rule keyed by the input port, as a dragonfly SL2VL map would be programmed). Kim et
// al. §4.3 use VC0/VC1/VC2 per phase in the same way. Class c then holds only channels of one
// phase: local hops (at most one per group per phase) followed by one global hop, so every
// dependency inside a class is local -> global and between classes goes c -> c+1: acyclic.
// Minimal routing uses 2 classes, Valiant and UGAL 3 (base, base+1, base+2), all lossless.
// Lossy Ethernet needs none: a drop breaks any cycle.
#pragma once

#include <cstdint>
#include <vector>

#include "net/network.h"
#include "routing/config.h"
#include "topo/topology.h"

namespace fabricsim::routing {

// How many classes a packet may occupy on its way (base .. base + n - 1).
inline int dragonfly_classes(DragonflyRouting r) { return r == DragonflyRouting::kMinimal ? 2 : 3; }

// The lossless classes the scheme needs beside `base` (as a mask including base).
inline uint8_t dragonfly_class_mask(DragonflyRouting r, int base) {
  uint8_t m = 0;
  for (int c = base; c < base + dragonfly_classes(r) && c < 8; ++c) m |= uint8_t(1u << c);
  return m;
}

struct DragonflyInstall {
  DragonflyRouting routing = DragonflyRouting::kMinimal;
  int base_class = 0;   // the data class (Ethernet priority / IB VL) packets enter with
  bool lossless = false;  // PFC on the base class, or InfiniBand: move up a class per phase
  uint64_t seed = 1;    // the Valiant draws
};

// Sets every switch to kLbDragonfly with its DragonflySwitch tables. Call after the ECMP tables
// (Ethernet) or the SM's LFTs (InfiniBand: keeps AR, which the SM restricted to minimal ports,
// as DragonflySwitch::ib_adaptive) are installed. Throws std::logic_error if `net` was not built
// by topo::build_dragonfly with `shape`.
// Also replaces the forwarding tables towards every NIC with Dragonfly-minimal ones (at most
// one global hop): Ethernet by destination switch, InfiniBand the LFT entries of the NIC LIDs
// `nic_lid` (the SM's dragonfly engine: OpenSM ships none, and minhop/updn shortest paths may
// cross two global links).
void install_dragonfly(net::Network& net, const topo::DragonflyShape& shape,
                       const DragonflyInstall& cfg, const std::vector<uint16_t>& nic_lid = {});

}  // namespace fabricsim::routing
