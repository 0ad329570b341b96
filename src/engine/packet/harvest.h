// What the packet engine hands the layers above it: its components (network, transport, routes,
// workloads, probes) read once after the run into results/result.h's RunResult, the vocabulary
// every engine reports in. Only this file and the engine itself read net::PortQueues, LFTs or
// transport tables; output/ and cli/ see the RunResult.
#pragma once

#include "engine/packet/simulation.h"
#include "results/result.h"

namespace fabricsim::scenario {

// Everything but the host's own statistics (RunResult::run's wall time and peak RSS, which the
// caller measures). `finished`: run() ended by itself, not at its time limit or stop flag.
// Call once, after run() and finish_telemetry(): it closes the network's pause accounting and
// moves the captured frames out. `flows` has the records the transport retired during the run;
// the rest are read into it here.
RunResult harvest(Simulation& sim, bool finished, FlowRecorder& flows);

}  // namespace fabricsim::scenario
