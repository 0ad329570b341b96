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

struct TeConfig {
  // Control-loop delay between the controller's decision and the rules taking effect in the
  // switches. UNVERIFIED default, set by the helper that builds the controller.
  int64_t install_delay_ps = 0;
  int64_t reoptimize_interval_ps = 0;  // 0 = place once (known flows); else re-place from
                                       // measured link loads every interval
};

struct EcmpConfig {
  EcmpHash hash = EcmpHash::kCrc32;
  // Per-switch seeds avoid hash polarization (Cisco CEF tech note 116376; mlxsw commit 60bcfed
  // seeds each switch from its base MAC). `kSame` reproduces polarization.
  EcmpSeedMode seed_mode = EcmpSeedMode::kPerSwitch;
  uint32_t seed = 0;  // the shared seed in kSame mode, mixed into every switch's seed otherwise
  LoadBalancing load_balancing = LoadBalancing::kEcmp;
  // Flowlet gap: larger than the path-delay spread so a new flowlet cannot overtake the last.
  // UNVERIFIED default, set by the helper that builds flowlets (LetFlow, NSDI 2017, uses 50 us
  // at 10G; scale with the fabric's RTT).
  int64_t flowlet_gap_ps = 0;
  TeConfig te;
};

}  // namespace fabricsim::routing
