// Importer of Chakra execution traces (workload/chakra_format.h) into a workload::Dag, the third
// workload source beside the transformer generator and the ASTRA-sim/SimAI text importer
// (workload/astra_import.h). Each rank's trace is its own graph; this joins them: a collective
// node becomes one DAG collective once every member rank has issued its matching node, a
// send/receive pair one point-to-point message. The mapping and what is refused are tabled in
// docs/workloads.md "Chakra execution traces".
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "workload/chakra_format.h"
#include "workload/dag.h"

namespace fabricsim::workload {

struct ChakraOptions {
  uint32_t gpus = 0;  // the scenario's (job's) GPU count: exactly this many rank files
  CollAlgorithm algorithm = CollAlgorithm::kAuto;  // for the collectives (not the sends)
  Protocol protocol = Protocol::kAuto;
};

// The file of `rank` for a trace named by `prefix`: "<prefix>.<rank>.et", as ASTRA-sim's
// --workload-configuration names them.
std::string chakra_rank_file(const std::string& prefix, uint32_t rank);

// Reads <prefix>.0.et .. <prefix>.<gpus-1>.et and builds one training step. Throws
// ImportError(file, 0, "training.file", "node <id> (<name>): message") for whatever it cannot
// represent, and when a rank file is missing or <prefix>.<gpus>.et exists (more ranks than GPUs).
Dag import_chakra(const std::string& prefix, const ChakraOptions& opt);

// The same from traces already decoded, traces[r] being rank r's (tests). opt.gpus must equal
// traces.size().
Dag build_chakra_dag(const std::vector<chakra::Trace>& traces, const ChakraOptions& opt,
                     const std::string& name);

}  // namespace fabricsim::workload
