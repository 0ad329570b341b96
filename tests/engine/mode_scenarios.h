// The small fabric the engine-mode tests (flow_mode_test.cpp, hybrid_mode_test.cpp) compare the
// modes on, and the rates their expected figures are derived from.
#pragma once

#include <cstdint>

#include "spec/scenario.h"

namespace fabricsim::scenario::mode_scenarios {

constexpr int64_t kRateBps = 100'000'000'000;
// RoCEv2 WRITE at a 4096-byte MTU: 82 bytes of headers, FCS, preamble and gap per packet
// (SPEC §8): the payload rate is the line rate x 4096 / 4178.
constexpr double kPayloadBps = 100e9 * 4096.0 / 4178.0;

// A 3-tier k=4 fat-tree of 16 hosts at 100 Gb/s, RoCE defaults, in the given mode.
inline Scenario fat_tree_k4(EngineMode mode) {
  Scenario sc;
  sc.topology.tiers = 3;
  sc.topology.radix = 4;
  sc.topology.hosts = 16;
  sc.link.rate_bps = kRateBps;
  sc.mode = mode;
  return sc;
}

}  // namespace fabricsim::scenario::mode_scenarios
