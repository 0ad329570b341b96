// Named NIC/host latency profiles (fabric.nic.profile): one per NIC class, each value with its
// source. A profile fills a NicConfig; the scenario's per-parameter overrides then replace single
// fields (resolve/infiniband.cpp resolve_nic).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "net/config.h"

namespace fabricsim::net {

struct NicProfile {
  const char* name;
  const char* description;
  NicConfig config;  // rx_buffer_bytes is left at NicConfig's default
};

// Every profile, in the order the docs list them; the first is the default.
const std::vector<NicProfile>& nic_profiles();
// nullptr when no profile has this name.
const NicProfile* find_nic_profile(std::string_view name);
// "connectx-7 | connectx-6 | connectx-3 | zero", for error messages and the key reference.
std::string nic_profile_names();

}  // namespace fabricsim::net
