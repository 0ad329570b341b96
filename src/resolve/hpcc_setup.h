// HPCC's parameters for a scenario (transport/hpcc.h; docs/cc.md "HPCC").
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "spec/scenario.h"
#include "transport/hpcc.h"

namespace fabricsim::scenario {

// The fabric's largest base RTT between hosts, HPCC's T (GLOBAL_T 1): as the authors'
// third.cc computes a pair's, 2 x the one-way delay (propagation and switch latency per hop, and
// here the NICs' tx and rx pipelines) plus one data frame's serialization per link; the longest path of a fat-tree or leaf-spine
// crosses 2 x tiers links.
int64_t hpcc_base_rtt_ps(const Scenario& sc);
// The same for data frames carrying `extra_header_bytes` beyond RoCEv2's own (HPCC: its INT
// header; Swift: none).
int64_t longest_base_rtt_ps(const Scenario& sc, uint32_t extra_header_bytes);
// `set_ps` when set; else longest_base_rtt_ps, which a topology file or a Dragonfly does not
// derive: there it throws InputError(key, "<what> is derived only for ...").
int64_t base_rtt_or_derived_ps(const Scenario& sc, const std::optional<int64_t>& set_ps,
                               const std::string& key, const std::string& what,
                               uint32_t extra_header_bytes);

// The defaults for the line rate and T, with fabric.roce.hpcc.* applied; throws InputError
// naming the key at fault.
transport::HpccParams resolve_hpcc(const Scenario& sc);

}  // namespace fabricsim::scenario
