// The small fabric the engine-mode tests (flow_mode_test.cpp, hybrid_mode_test.cpp) compare the
// modes on, and the rates their expected figures are derived from.
#pragma once

#include <cstdint>
#include <string>

#include "net/network.h"
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

// The scenario line `faults: {link_down: ...}` that fails switch port `port` (a global port id;
// REQUIRES: a switch's) at `at` (e.g. "1ms").
inline std::string link_down_line(const net::Network& net, uint32_t port, const std::string& at) {
  const auto sw = static_cast<uint32_t>(net.port(port).switch_index);
  const uint32_t local = port - net.switch_at(sw).first_port;
  return "faults: {link_down: {switch: " + std::to_string(sw) + ", port: " +
         std::to_string(local) + ", at: " + at + "}}\n";
}

}  // namespace fabricsim::scenario::mode_scenarios
