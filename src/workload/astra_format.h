// The ASTRA-sim 1.0 / SimAI text workload format, parsed into plain per-layer records with no
// meaning attached yet (docs/workloads.md, docs/reference/gpu-node.md §6). The parser checks only
// what the text says — tokens, counts, integers, known names — and remembers the line of every
// record so that the converter (workload/astra_import.cpp), which decides what the records mean on
// the scenario's GPUs, can name the line it refuses. Another trace format (Chakra) can fill the
// same records or reuse the converter's DAG building.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace fabricsim::workload::astra {

// Line 1, first token: the training loop ASTRA-sim runs (astra-sim 1.0
// astra-sim/workload/Workload.cc, Workload::decode_parallelsim). HYBRID_CUSTOMIZED,
// HYBRID_DLRM_ENHANCED and DISTRIBUTED_INFERENCE exist there too; the parser refuses them by name.
enum class Policy : uint8_t {
  kData,                   // DATA
  kModel,                  // MODEL
  kHybridDataModel,        // HYBRID_DATA_MODEL
  kHybridModelData,        // HYBRID_MODEL_DATA
  kTransformer,            // HYBRID_TRANSFORMER
  kTransformerFwdInBckwd,  // HYBRID_TRANSFORMER_FWD_IN_BCKWD (activation recomputation)
  kDlrm,                   // HYBRID_DLRM
  kMicro,                  // MICRO
};
const char* policy_name(Policy p);

enum class CommType : uint8_t { kNone, kAllReduce, kAllGather, kReduceScatter, kAllToAll };
// SimAI's suffix on a comm type (SimAI astra-sim-alibabacloud/astra-sim/workload/Workload.cc,
// Workload::initialize_workload): no suffix = the policy's group, _EP = the expert-parallel
// group, _DP_EP = the expert-data-parallel group.
enum class CommScope : uint8_t { kPolicy, kEp, kDpEp };

struct Comm {
  CommType type = CommType::kNone;
  CommScope scope = CommScope::kPolicy;
  int64_t size_bytes = 0;  // as written; the converter applies the dialect's size semantics
};

// One layer line: 12 fields. Times are in the file's cycles (converted with the clock later).
struct Layer {
  std::string name;
  int line = 0;           // 1-based line of the file
  int64_t reserved = -1;  // field 2, read and ignored by ASTRA-sim (`depen`)
  int64_t fwd_cycles = 0;
  Comm fwd;
  int64_t ig_cycles = 0;  // input-gradient compute
  Comm ig;
  int64_t wg_cycles = 0;  // weight-gradient compute
  Comm wg;
  int64_t update_cycles = 0;  // field 12: delay after each of the layer's collectives
};

// Line 1 after the policy. 0 / empty = not given. Line numbers are those of the file.
struct Header {
  Policy policy = Policy::kData;
  int line = 1;
  int64_t model_parallel_npu_group = 0;                   // model_parallel_NPU_group
  int64_t ep = 0, pp = 0, vpp = 0, ga = 0, all_gpus = 0;  // SimAI
  bool has_pp_comm = false;
  int64_t pp_comm_bytes = 0;                  // SimAI `pp_comm N` / `pp_comm: N`
  std::vector<int64_t> checkpoints;           // layer indices (FWD_IN_BCKWD)
  std::vector<int64_t> checkpoint_initiates;  // layer indices (FWD_IN_BCKWD)
  int64_t dlrm_last_bottom_layer = -1;  // HYBRID_DLRM: bare integer or DLRM_LAST_BOTTOM_LAYER:
  bool simai_keys = false;              // any of ep, pp, vpp, ga, all_gpus, pp_comm was written
};

struct File {
  std::string path;
  Header header;
  int count_line = 2;  // the line holding the layer count
  std::vector<Layer> layers;
};

// Reads and checks the syntax of `path`. Throws ImportError(path, line, key_path, message):
// line 0 when the file cannot be opened. Accepts any mix of tabs and spaces, trailing
// whitespace, CRLF line ends and blank lines (ASTRA-sim reads the file with operator>>, which
// skips all whitespace).
File parse_file(const std::string& path, const std::string& key_path);
// The same from text already in memory (tests, other front ends).
File parse_text(const std::string& text, const std::string& path, const std::string& key_path);

}  // namespace fabricsim::workload::astra
