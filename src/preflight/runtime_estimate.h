// How long simulating a scenario should take, from the scenario alone (`fabricsim describe`):
// the data packet-hops the run will forward, divided by the rates docs/performance.md measured.
//
// Packet-hops = Σ over messages of ceil(size / MTU) packets x the links of the path. The path
// length assumes uniformly random destinations: on a fat-tree, 2 links to a NIC under the same
// leaf, 4 in the same pod (or any other leaf of a leaf-spine), 6 across pods; a ring collective,
// whose neighbours mostly share a leaf, is overestimated. Retransmissions, ACKs and control
// packets are not counted (they cost events, not data hops).
#pragma once

#include <cstdint>
#include <string>

#include "spec/scenario.h"

namespace fabricsim::scenario {

// docs/performance.md: on the project's first VM (AMD EPYC) the RoCE k=16 permutation ran 1.45-2.23 M
// data packet-hops/s (with and without a concurrent build), InfiniBand 1.32-1.47 M/s, UET
// 2.17-2.35 M/s; on its Intel Xeon VM (session 17) 0.78-1.20 M/s (load 2.6 to 1.9) and 0.84 M/s
// idle. The range the estimate divides by spans both machines.
inline constexpr double kSlowestHopsPerSecond = 0.75e6;
inline constexpr double kFastestHopsPerSecond = 2.4e6;

// GPU runs (collectives, training steps) are estimated in events instead: the node layer, the
// collective engine and the training engine add events per message and per op that a packet-hop
// rate does not see. docs/performance.md measured 6.0 M events/s (examples/gpt-step.yaml,
// session 13: 62.05 M events in 10.3 s, NVLink fair sharing on) to 13.8 M events/s
// (bench/training-1024.yaml, issue 10: 382.0 M in 27.6 s) on the first VM; on the Intel Xeon VM
// (session 17) training-1024 ran 4.39 M events/s idle and the 70B step 2.70 M events/s over its
// first 600 s beside a CI run, the slowest end here; 3.37 events per data packet-hop
// (training-1024: 382.0 M events for 113.3 M packet-hops, the node layer's and the ACKs' events
// included).
inline constexpr double kGpuSlowestEventsPerSecond = 2.7e6;
inline constexpr double kGpuFastestEventsPerSecond = 13.8e6;
inline constexpr double kEventsPerPacketHop = 3.37;
// A compute op: its timer and its completion; a transport message: the node layer's PCIe
// stages at either end (node/gpu_net.h) and its completion.
inline constexpr double kEventsPerOp = 2;
inline constexpr double kEventsPerMessage = 4;

struct RuntimeEstimate {
  bool estimated = false;
  bool gpu = false;         // estimated in events (the GPU model above)
  double events = 0;        // GPU: packet-hops x kEventsPerPacketHop + ops and messages
  std::string why_not;      // when not estimated
  double packet_hops = 0;   // data packet-hops
  double mean_links = 0;    // per packet, the assumption above
  double fastest_s = 0;     // packet_hops / kFastestHopsPerSecond
  double slowest_s = 0;     // packet_hops / kSlowestHopsPerSecond
};

// REQUIRES: resolve(sc) passed.
RuntimeEstimate estimate_runtime(const Scenario& sc);

}  // namespace fabricsim::scenario
