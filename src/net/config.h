// Configuration of links, switches and NICs, frozen before a run starts.
#pragma once

#include <cstdint>

#include "core/time.h"

namespace fabricsim::net {

// Propagation speed in copper/fibre: about 5 ns per metre (SPEC §8; light at ~0.68 c).
inline constexpr int64_t kPropagationPsPerMetre = 5000;

struct LinkConfig {
  int64_t rate_bps = 400'000'000'000;  // SPEC §5 example: 400 Gb/s (NDR-class Ethernet port)
  double cable_m = 3.0;                // SPEC §5 example: 3 m in-rack / adjacent-rack cable
  int64_t propagation_ps() const {
    return static_cast<int64_t>(cable_m * kPropagationPsPerMetre + 0.5);
  }
};

enum class Forwarding : uint8_t { kCutThrough, kStoreAndForward };

struct SwitchConfig {
  // Port-to-port latency. SPEC §8: Ethernet cut-through switches add roughly 400-600 ns;
  // 450 ns is the SPEC §5 example value.
  int64_t latency_ps = 450 * kPsPerNs;
  // Shared packet buffer per switch. 64 MiB: NVIDIA Spectrum-3/4 class (SPEC §5 example).
  int64_t buffer_bytes = 64ll << 20;
  // Dynamic-threshold alpha (Choudhury & Hahne, "Dynamic queue length thresholds for
  // shared-memory packet switches", IEEE/ACM ToN 1998): a queue may grow while its length is
  // below alpha x (free shared buffer). alpha = 1 is the common Broadcom default setting.
  double dt_alpha = 1.0;
  // Cut-through begins forwarding when the header arrives; it applies only when a switch's
  // ports all run at one rate (a real switch falls back to store-and-forward otherwise).
  Forwarding forwarding = Forwarding::kCutThrough;
};

struct NicConfig {
  // Delay from the wire to the transport engine on receive and from the transport engine to
  // the wire on send, per packet. Zero by default: the foundation issue validates against the
  // pure wire model; the latency example (SPEC §8) sets host/NIC profiles explicitly.
  int64_t latency_ps = 0;
};

}  // namespace fabricsim::net
