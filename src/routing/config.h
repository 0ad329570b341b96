// Load-balancing configuration.
#pragma once

#include <cstdint>

#include "net/hash.h"

namespace fabricsim::routing {

using EcmpHash = net::EcmpHash;  // kCrc32 | kXorFold (net/hash.h)
enum class EcmpSeedMode : uint8_t { kPerSwitch, kSame };

// How an Ethernet switch picks among equal-cost egress ports (routing.load_balancing).
//   kEcmp:     5-tuple hash (the entropy field is the UDP source port): one path per flow, or per
//              packet when the transport sprays (a new entropy per packet).
//   kAdaptive: per packet, the working port with the fewest bytes queued in the packet's class
//              (switch adaptive routing; receivers must reorder).
//   kFlowlet:  per flowlet: a flow keeps its port until it pauses longer than flowlet_gap_ps,
//              then takes the least-occupied port (CONGA/LetFlow-style flowlet switching).
//   kTe:       ECMP, except for flows a centralized traffic-engineering controller has placed
//              (routing/te_controller.h): those follow its per-flow rules.
enum class LoadBalancing : uint8_t { kEcmp, kAdaptive, kFlowlet, kTe };

// Routing on a Dragonfly (routing.dragonfly; routing/dragonfly.h): minimal, Valiant (a random
// intermediate group per packet) or UGAL-L (the source switch picks minimal or one Valiant
// candidate by queue x hops).
enum class DragonflyRouting : uint8_t { kMinimal, kValiant, kUgal };

struct TeConfig {
  // Control-loop delay between the controller learning of a flow and its rules taking effect in
  // the switches (routing.te.install_delay). 10 ms: OpenFlow-class rule installation on
  // hardware switches is milliseconds per flow-mod (OFLOPS, Rotsos et al., PAM 2012; figures
  // UNVERIFIED here) and the controller is told of flows when they are posted, so no detection
  // loop is added. Hedera (Al-Fares et al., NSDI 2010) runs its whole detect-place-install loop
  // every 5 s: reachable as install_delay 5 s / reoptimize_interval 5 s.
  int64_t install_delay_ps = 10'000'000'000;
  int64_t reoptimize_interval_ps = 0;  // 0 = place once (known flows); else re-place from
                                       // measured link loads every interval
  // Flows (messages) at least this large are placed; smaller ones stay on ECMP. 100 KB as
  // Mahout's elephant threshold (Curtis et al., INFOCOM 2011; UNVERIFIED).
  int64_t min_flow_size_bytes = 100'000;
};

struct EcmpConfig {
  EcmpHash hash = EcmpHash::kCrc32;
  // Per-switch seeds avoid hash polarization (Cisco CEF tech note 116376; mlxsw commit 60bcfed
  // seeds each switch from its base MAC). `kSame` reproduces polarization.
  EcmpSeedMode seed_mode = EcmpSeedMode::kPerSwitch;
  uint32_t seed = 0;  // the shared seed in kSame mode, mixed into every switch's seed otherwise
  LoadBalancing load_balancing = LoadBalancing::kEcmp;
  DragonflyRouting dragonfly = DragonflyRouting::kMinimal;  // topology.kind: dragonfly only
  // Flowlet gap (routing.flowlet_gap): larger than the path-delay spread so a new flowlet cannot
  // overtake the last (Flare, Kandula et al., CCR 2007). 0 = auto, resolved by the simulation
  // (auto_flowlet_gap_ps in routing/flowlet_gap.h): the fabric's idle base RTT plus the time its
  // links take to drain 62.5 KB, which is the LetFlow/CONGA reference simulator's 50 us timeout
  // at 10 Gb/s (snowzjx/ns3-load-balance Ipv4LetFlowRouting, Ipv4CongaRouting) expressed in
  // bytes. The LetFlow paper's own testbed value is UNVERIFIED here.
  int64_t flowlet_gap_ps = 0;
  TeConfig te;
};

}  // namespace fabricsim::routing
