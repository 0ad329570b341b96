// A validated scenario: plain structs, frozen before the run (STYLE §7).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "net/config.h"
#include "routing/config.h"
#include "topo/spec.h"
#include "transport/config.h"
#include "workload/spec.h"

namespace fabricsim::scenario {

enum class Technology : uint8_t { kRoce };

// ECN marking at switches. Kmin/Kmax/Pmax default to the DCQCN profile's when DCQCN is on,
// else to SPEC §5's example (net::EcnConfig).
enum class EcnMode : uint8_t { kAuto, kOn, kOff };  // auto = on exactly when cc is dcqcn
struct EcnSpec {
  EcnMode marking = EcnMode::kAuto;
  std::optional<int64_t> kmin_bytes;
  std::optional<int64_t> kmax_bytes;
  std::optional<double> pmax;
};

// A NIC that stops draining what it receives (a stuck receiver: SPEC §8 "PFC storm").
struct NicStallSpec {
  int nic = -1;               // -1 = no stall
  int64_t at_ps = 0;
  int64_t until_ps = 0;       // 0 = never resumes
};

// Which frames a run records for trace.pcap.
enum class CapturePoint : uint8_t {
  kNics,  // frames NICs send and frames sent to NICs (what tcpdump on every host would see)
  kAll,   // every frame on every link (a packet appears once per hop)
};

struct CaptureSpec {
  int64_t max_frames = 0;  // 0 = no capture; else the first N frames in time order
  CapturePoint point = CapturePoint::kNics;
};

struct Scenario {
  std::string name = "unnamed";
  uint64_t seed = 1;
  Technology technology = Technology::kRoce;
  net::LinkConfig link;
  net::SwitchConfig switch_config;  // switch_config.ecn is resolved from `ecn` at build time
  EcnSpec ecn;
  net::NicConfig nic;
  transport::RoceConfig roce;
  topo::TopologySpec topology;
  routing::EcmpConfig ecmp;
  workload::WorkloadSpec workload;
  // Simulated-time limit; 0 = run until every message completes. A run that hits the limit
  // reports unfinished flows rather than pretending they completed.
  int64_t stop_time_ps = 0;
  std::string output_dir;  // where result files go ("" = none unless --out given)
  CaptureSpec capture;
  NicStallSpec nic_stall;
};

}  // namespace fabricsim::scenario
