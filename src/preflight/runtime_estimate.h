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

// Flow mode (docs/modes.md) on GPU runs: no packet, so per transport message, per transfer
// inside a node and per DAG op. Fitted (the largest error of the six, in log) on session 21's
// flow runs of gpt-step, bench/training-1024, llama-70b-1024 at its test size, moe-step,
// resnet50-dp and bench/training-70b-1024 (357.4 M events for 14.9 M messages, 73.4 M node
// transfers and 0.99 M ops): events = 9 x messages + 2.25 x node transfers + 2 x ops gives
// 0.84-1.18 of each run's events (a message: its PCIe stages at both ends, the post, the fluid
// flow's start and end, the delivery; a node transfer: its fluid start and end, shared; an op:
// timer and completion). The same runs did 1.09 (the 70B step, beside another run) to 2.95 M
// events/s (llama) on this 2-core VM. Session 30 (folded rings across nodes, fewer and cheaper
// events per message), idle VM, `run FILE --set mode=flow`: gpt-step 3.83, training-1024 2.54,
// llama-70b-1024 4.98, moe-step 3.81, resnet50-dp 5.87, the 70B step 5.45 M events/s; GPT-3
// 175B on 16,384 GPUs 1.40 M events per CPU second (906.7 M events, 647 user-s, beside other
// runs). The estimates still fit: 69.4 M events for the 70B step's 61.5 M, 3.0 M for
// training-1024's 2.92 M, 859 M for 175B's 907 M.
inline constexpr double kFlowEventsPerMessage = 9;
inline constexpr double kFlowEventsPerNodeTransfer = 2.25;
inline constexpr double kFlowEventsPerOp = 2;
inline constexpr double kFlowSlowestEventsPerSecond = 1.0e6;
inline constexpr double kFlowFastestEventsPerSecond = 6.0e6;

struct RuntimeEstimate {
  bool estimated = false;
  bool gpu = false;         // estimated in events (the GPU model above)
  bool flow = false;        // gpu, in flow mode (the kFlow* model above)
  double events = 0;        // GPU: packet-hops x kEventsPerPacketHop + ops and messages
                            // (flow mode: the kFlow* model above)
  std::string why_not;      // when not estimated
  double packet_hops = 0;   // data packet-hops
  double mean_links = 0;    // per packet, the assumption above
  double fastest_s = 0;     // packet_hops / kFastestHopsPerSecond
  double slowest_s = 0;     // packet_hops / kSlowestHopsPerSecond
};

// REQUIRES: resolve(sc) passed.
RuntimeEstimate estimate_runtime(const Scenario& sc);

}  // namespace fabricsim::scenario
