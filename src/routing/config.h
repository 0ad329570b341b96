// Load-balancing configuration.
#pragma once

#include <cstdint>

#include "net/hash.h"

namespace fabricsim::routing {

using EcmpHash = net::EcmpHash;  // kCrc32 | kXorFold (net/hash.h)
enum class EcmpSeedMode : uint8_t { kPerSwitch, kSame };

struct EcmpConfig {
  EcmpHash hash = EcmpHash::kCrc32;
  // Per-switch seeds avoid hash polarization (Cisco CEF tech note 116376; mlxsw commit 60bcfed
  // seeds each switch from its base MAC). `kSame` reproduces polarization.
  EcmpSeedMode seed_mode = EcmpSeedMode::kPerSwitch;
  uint32_t seed = 0;  // the shared seed in kSame mode, mixed into every switch's seed otherwise
};

}  // namespace fabricsim::routing
