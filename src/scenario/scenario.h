// A validated scenario: plain structs, frozen before the run (STYLE §7).
#pragma once

#include <cstdint>
#include <string>

#include "net/config.h"
#include "routing/config.h"
#include "topo/spec.h"
#include "transport/config.h"
#include "workload/spec.h"

namespace fabricsim::scenario {

enum class Technology : uint8_t { kRoce };

struct Scenario {
  std::string name = "unnamed";
  uint64_t seed = 1;
  Technology technology = Technology::kRoce;
  net::LinkConfig link;
  net::SwitchConfig switch_config;
  net::NicConfig nic;
  transport::RoceConfig roce;
  topo::TopologySpec topology;
  routing::EcmpConfig ecmp;
  workload::WorkloadSpec workload;
  // Simulated-time limit; 0 = run until every message completes. A run that hits the limit
  // reports unfinished flows rather than pretending they completed.
  int64_t stop_time_ps = 0;
  std::string output_dir;  // where result files go ("" = none unless --out given)
};

}  // namespace fabricsim::scenario
