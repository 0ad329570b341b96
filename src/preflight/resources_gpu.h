// The memory pre-flight's view of a GPU scenario (node.gpus_per_node > 0): how many transport
// messages its collectives and training steps post, how many can be live at once, and how large
// its DAGs are. Each distinct collective's plan is built as the engine builds it (not run),
// summed over the collectives of every job; a training job's DAG is built to count them (it is
// what the run builds first anyway). See preflight/resources.h.
#pragma once

#include <cstdint>

#include "spec/scenario.h"

namespace fabricsim::scenario {

struct GpuTraffic {
  // Transport messages (cross-node transfers) over the whole run: every collective's plan is
  // built as the engine builds it (CollectiveEngine::cross_node_traffic) and its connections
  // between nodes counted, one plan per distinct collective of a DAG.
  int64_t messages = 0;
  // Transfers inside a node (NVLink, NVLS), from the same plans: the node layer's events.
  int64_t node_messages = 0;
  int64_t total_bytes = 0;   // the collectives' sizes summed (bounds what is in flight)
  int64_t max_message_bytes = 0;
  int64_t collectives = 0;
  // The heap of the collective plans alive at once (workload/collective_plan.h held_bytes, each
  // plan built as the engine builds it): sweeps run one size at a time; in a DAG a communicator
  // runs one collective at a time (workload/training.h), so its largest, summed over
  // communicators.
  int64_t plan_bytes = 0;
  // Bytes the transport messages carry across the fabric (each message once; closed form per
  // algorithm, resources_gpu.cpp collective_net_bytes): what the run's packet events scale with.
  int64_t net_bytes = 0;
  // (source, destination) GPU pairs whose transfers cross the fabric: an upper bound on the
  // transport connections; -1 = not counted (a DAG too large to build).
  int64_t pairs = 0;
  // Transport messages not yet credited back at once, at most: per collective the credit
  // windows of its connections between nodes (CollectiveEngine::cross_node_traffic), summed
  // over the collectives that may run at once as plan_bytes counts them (a sweep's largest
  // size; in a DAG each communicator's largest, in any step). A record stays a little longer (until
  // its acknowledgement and every older id retired: core/id_window.h); the transport part adds
  // whole pages for that (resources.cpp message_memory). -1 = not counted (a DAG too large to
  // build).
  int64_t live_messages = 0;
  int64_t dag_ops = 0;       // training DAG ops over every job (x steps)
  bool bounded = false;      // a DAG too large to build (and not from two smaller steps): ops
                             // and messages are upper bounds and net_bytes is not counted
  int64_t dag_deps = 0;
};

// REQUIRES: sc.node.gpus_per_node > 0 and resolve(sc) passed. Throws InputError like
// the run would for a training step that cannot be built.
GpuTraffic gpu_traffic(const Scenario& sc);
// The same with a generated step built to be counted only up to `build_limit` ops (its bound):
// above it, from two steps of fewer micro-batches (tests compare the two ways).
GpuTraffic gpu_traffic(const Scenario& sc, int64_t build_limit);

}  // namespace fabricsim::scenario
