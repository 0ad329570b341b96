// Importer of ASTRA-sim 1.0 / SimAI text workloads (docs/reference/gpu-node.md §6,
// ../shared/workloads/README.md) into a workload::Dag. Kept apart from the training engine so
// that other formats (Chakra execution traces) can follow as further importers.
#pragma once

#include <cstdint>
#include <string>

#include "workload/dag.h"

namespace fabricsim::workload {

struct AstraOptions {
  uint32_t gpus = 0;          // the scenario's GPU count (all_gpus must match when given)
  uint32_t gpus_per_node = 1;
  int64_t clock_hz = 0;       // converts the file's compute cycles to time; 0 = not given (error)
  CollAlgorithm algorithm = CollAlgorithm::kAuto;
  Protocol protocol = Protocol::kAuto;
};

// Reads the file and builds one training step. Throws ImportError(path, line, "training.file",
// message) (core/error.h) for anything it cannot represent, naming the file's line.
Dag import_astra(const std::string& path, const AstraOptions& opt);

// An upper bound on the ops import_astra would build on opt.gpus GPUs, from the parsed records
// alone (nothing expanded), for the memory pre-flight (preflight/resources_gpu.cpp): per layer
// forward (each recomputation again) a compute op per GPU, at most one collective per GPU and an
// update delay per GPU; per layer backward twice that (input and weight gradients). Throws
// ImportError for a file that cannot be parsed.
int64_t astra_ops_bound(const std::string& path, const AstraOptions& opt);

}  // namespace fabricsim::workload
