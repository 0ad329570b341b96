// Syntax of the ASTRA-sim 1.0 / SimAI text workload (see astra_format.h). Facts from
//   astra-sim/astra-sim @86fec9b (the last 1.0 tree), astra-sim/workload/Workload.cc,
//     Workload::initialize_workload / decode_parallelsim;
//   aliyun/SimAI @cef83f9, astra-sim-alibabacloud/astra-sim/workload/Workload.cc,
//     Workload::initialize_workload (header keys, `pp_comm` with or without the colon, _EP/_DP_EP).
// Both read the layers with operator>>, so any whitespace separates fields; this parser keeps
// that but works line by line so that each error can name its line.
#include "workload/astra_format.h"

#include <cctype>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "core/bounded_file.h"
#include "core/error.h"

namespace fabricsim::workload::astra {

const char* policy_name(Policy p) {
  switch (p) {
    case Policy::kData:
      return "DATA";
    case Policy::kModel:
      return "MODEL";
    case Policy::kHybridDataModel:
      return "HYBRID_DATA_MODEL";
    case Policy::kHybridModelData:
      return "HYBRID_MODEL_DATA";
    case Policy::kTransformer:
      return "HYBRID_TRANSFORMER";
    case Policy::kTransformerFwdInBckwd:
      return "HYBRID_TRANSFORMER_FWD_IN_BCKWD";
    case Policy::kDlrm:
      return "HYBRID_DLRM";
    case Policy::kMicro:
      return "MICRO";
  }
  return "?";
}

namespace {

struct Ctx {
  const std::string& path;
  const std::string& key_path;
  [[noreturn]] void fail(int line, const std::string& message) const {
    throw ImportError(path, line, key_path, message);
  }
};

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    size_t j = i;
    while (j < line.size() && !std::isspace(static_cast<unsigned char>(line[j]))) ++j;
    if (j > i) out.push_back(line.substr(i, j - i));
    i = j;
  }
  return out;
}

// Decimal integer, optional leading '-' only when allowed; nothing else (no '+', no exponent,
// no trailing characters): a field like "12k" or "3.5" is an error, not 12 or 3.
bool to_int(const std::string& s, bool allow_negative, int64_t* out) {
  size_t i = 0;
  bool negative = false;
  if (allow_negative && !s.empty() && s[0] == '-') {
    negative = true;
    i = 1;
  }
  if (i >= s.size()) return false;
  int64_t v = 0;
  for (; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    const int d = s[i] - '0';
    if (v > (std::numeric_limits<int64_t>::max() - d) / 10) return false;
    v = v * 10 + d;
  }
  *out = negative ? -v : v;
  return true;
}

bool parse_policy(const std::string& s, Policy* p) {
  static const std::pair<const char*, Policy> kPolicies[] = {
      {"DATA", Policy::kData},
      {"MODEL", Policy::kModel},
      {"HYBRID_DATA_MODEL", Policy::kHybridDataModel},
      {"HYBRID_MODEL_DATA", Policy::kHybridModelData},
      {"HYBRID_TRANSFORMER", Policy::kTransformer},
      {"HYBRID_TRANSFORMER_FWD_IN_BCKWD", Policy::kTransformerFwdInBckwd},
      {"HYBRID_DLRM", Policy::kDlrm},
      {"MICRO", Policy::kMicro},
  };
  for (const auto& [name, policy] : kPolicies) {
    if (s == name) {
      *p = policy;
      return true;
    }
  }
  return false;
}

bool is_transformer(Policy p) {
  return p == Policy::kTransformer || p == Policy::kTransformerFwdInBckwd;
}

// The header's first word: the parallelism policy, or a line naming why it is not accepted.
void parse_header_policy(const Ctx& ctx, const std::string& word, int line, Header* h) {
  if (!parse_policy(word, &h->policy)) {
    if (word == "HYBRID_CUSTOMIZED" || word == "HYBRID_DLRM_ENHANCED" ||
        word == "DISTRIBUTED_INFERENCE") {
      ctx.fail(line, "parallelism policy " + word +
                         " exists in ASTRA-sim but is not supported by this importer");
    }
    ctx.fail(line,
             "unknown parallelism policy '" + word +
                 "' (expected DATA, MODEL, HYBRID_DATA_MODEL, HYBRID_MODEL_DATA, "
                 "HYBRID_TRANSFORMER, HYBRID_TRANSFORMER_FWD_IN_BCKWD, HYBRID_DLRM or MICRO)");
  }
}

// What a policy requires of its header once every key is read.
void check_header(const Ctx& ctx, int line, const Header& h) {
  const Policy policy = h.policy;
  if (is_transformer(policy) && h.model_parallel_npu_group == 0) {
    // ASTRA-sim 1.0 reads the key unconditionally for these policies.
    ctx.fail(line, std::string(policy_name(policy)) +
                       " needs model_parallel_NPU_group: M (GPUs per model-parallel group)");
  }
  if (policy == Policy::kTransformer &&
      (!h.checkpoints.empty() || !h.checkpoint_initiates.empty())) {
    ctx.fail(line,
             "checkpoints and checkpoint_initiates take effect only with "
             "HYBRID_TRANSFORMER_FWD_IN_BCKWD (HYBRID_TRANSFORMER would ignore them)");
  }
  if (policy == Policy::kDlrm && h.dlrm_last_bottom_layer < 0) {
    ctx.fail(line,
             "HYBRID_DLRM needs the last bottom-MLP layer index (`HYBRID_DLRM N` or "
             "`DLRM_LAST_BOTTOM_LAYER: N`)");
  }
}

void parse_header(const Ctx& ctx, const std::vector<std::string>& tok, int line, Header* h) {
  h->line = line;
  parse_header_policy(ctx, tok[0], line, h);
  const Policy policy = h->policy;
  const std::string pname = policy_name(policy);
  std::vector<std::string> seen;
  size_t i = 1;
  auto value = [&](const std::string& key, bool allow_zero) -> int64_t {
    if (i >= tok.size()) ctx.fail(line, "header key " + key + " has no value");
    int64_t v = 0;
    if (!to_int(tok[i], false, &v)) {
      ctx.fail(line, "header key " + key + ": '" + tok[i] + "' is not a non-negative integer");
    }
    if (!allow_zero && v == 0) ctx.fail(line, "header key " + key + " must be >= 1, got 0");
    ++i;
    return v;
  };
  auto list = [&](const std::string& key, std::vector<int64_t>* out) {
    const int64_t n = value(key, true);
    for (int64_t k = 0; k < n; ++k) out->push_back(value(key + " (layer index)", true));
  };
  while (i < tok.size()) {
    std::string key = tok[i];
    // ASTRA-sim 1.0 writes HYBRID_DLRM's last bottom layer as a bare integer after the policy.
    int64_t bare = 0;
    if (policy == Policy::kDlrm && i == 1 && to_int(key, false, &bare)) {
      h->dlrm_last_bottom_layer = bare;
      seen.push_back("DLRM_LAST_BOTTOM_LAYER");
      ++i;
      continue;
    }
    if (key.size() > 1 && key.back() == ':') key.pop_back();  // `key: N` and `key N` alike
    ++i;
    for (const std::string& s : seen) {
      if (s == key) ctx.fail(line, "header key " + key + " given twice");
    }
    seen.push_back(key);
    auto only_for = [&](bool ok, const std::string& which) {
      if (!ok) ctx.fail(line, "header key " + key + " applies to " + which + ", not " + pname);
    };
    if (key == "model_parallel_NPU_group") {
      only_for(policy != Policy::kData && policy != Policy::kModel && policy != Policy::kDlrm &&
                   policy != Policy::kMicro,
               "the HYBRID_TRANSFORMER*, HYBRID_DATA_MODEL and HYBRID_MODEL_DATA policies");
      h->model_parallel_npu_group = value(key, false);
    } else if (key == "ep" || key == "pp" || key == "vpp" || key == "ga" || key == "pp_comm") {
      // SimAI reads these only for the transformer policies (Workload::initialize_workload).
      only_for(is_transformer(policy), "HYBRID_TRANSFORMER and HYBRID_TRANSFORMER_FWD_IN_BCKWD");
      h->simai_keys = true;
      if (key == "ep") h->ep = value(key, false);
      if (key == "pp") h->pp = value(key, false);
      if (key == "vpp") h->vpp = value(key, false);
      if (key == "ga") h->ga = value(key, false);
      if (key == "pp_comm") {
        h->has_pp_comm = true;
        h->pp_comm_bytes = value(key, true);
      }
    } else if (key == "all_gpus") {
      h->simai_keys = true;
      h->all_gpus = value(key, false);
    } else if (key == "checkpoints" || key == "checkpoint_initiates") {
      // SimAI's generators write `checkpoints: 0 checkpoint_initiates: 0` for both transformer
      // policies; only FWD_IN_BCKWD acts on a non-empty list (checked below).
      only_for(is_transformer(policy), "HYBRID_TRANSFORMER and HYBRID_TRANSFORMER_FWD_IN_BCKWD");
      list(key, key == "checkpoints" ? &h->checkpoints : &h->checkpoint_initiates);
    } else if (key == "DLRM_LAST_BOTTOM_LAYER") {
      only_for(policy == Policy::kDlrm, "HYBRID_DLRM");
      h->dlrm_last_bottom_layer = value(key, true);
    } else {
      ctx.fail(line, "unknown header key '" + tok[i - 1] +
                         "' (expected `key: value` with key one of model_parallel_NPU_group, ep, "
                         "pp, vpp, ga, all_gpus, pp_comm, checkpoints, checkpoint_initiates, "
                         "DLRM_LAST_BOTTOM_LAYER)");
    }
  }
  check_header(ctx, line, *h);
}

constexpr const char* kFieldNames[12] = {"layer name",
                                         "reserved",
                                         "forward compute cycles",
                                         "forward comm type",
                                         "forward comm size",
                                         "input-gradient compute cycles",
                                         "input-gradient comm type",
                                         "input-gradient comm size",
                                         "weight-gradient compute cycles",
                                         "weight-gradient comm type",
                                         "weight-gradient comm size",
                                         "weight-update delay cycles"};

int64_t field_uint(const Ctx& ctx, int line, const std::vector<std::string>& f, int k) {
  int64_t v = 0;
  if (!to_int(f[k], false, &v)) {
    ctx.fail(line, std::string("field ") + std::to_string(k + 1) + " (" + kFieldNames[k] + "): '" +
                       f[k] + "' is not a non-negative integer");
  }
  return v;
}

Comm field_comm(const Ctx& ctx, int line, const std::vector<std::string>& f, int k) {
  Comm c;
  std::string t = f[k];
  auto bad = [&](const std::string& why) {
    ctx.fail(line,
             std::string("field ") + std::to_string(k + 1) + " (" + kFieldNames[k] + "): " + why);
  };
  auto ends_with = [&](const std::string& suffix) {
    return t.size() > suffix.size() &&
           t.compare(t.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  if (ends_with("_DP_EP")) {
    c.scope = CommScope::kDpEp;
    t.resize(t.size() - 6);
  } else if (ends_with("_EP")) {
    c.scope = CommScope::kEp;
    t.resize(t.size() - 3);
  }
  if (t == "NONE" && c.scope == CommScope::kPolicy) {
    c.type = CommType::kNone;
  } else if (t == "ALLREDUCE") {
    c.type = CommType::kAllReduce;
  } else if (t == "ALLGATHER") {
    c.type = CommType::kAllGather;
  } else if (t == "REDUCESCATTER") {
    c.type = CommType::kReduceScatter;
  } else if (t == "ALLTOALL") {
    c.type = CommType::kAllToAll;
  } else if (t == "ALLREDUCEALLTOALL") {
    bad("ASTRA-sim's hierarchical ALLREDUCEALLTOALL is not supported");
  } else {
    bad("unknown comm type '" + f[k] +
        "' (expected NONE, ALLREDUCE, ALLGATHER, REDUCESCATTER or ALLTOALL, optionally with "
        "SimAI's _EP or _DP_EP suffix)");
  }
  c.size_bytes = field_uint(ctx, line, f, k + 1);
  if (c.type == CommType::kNone && c.size_bytes > 0) {
    ctx.fail(line, std::string("field ") + std::to_string(k + 2) + " (" + kFieldNames[k + 1] +
                       "): " + std::to_string(c.size_bytes) +
                       " bytes with comm type NONE (write a collective or size 0)");
  }
  return c;
}

Layer parse_layer(const Ctx& ctx, const std::vector<std::string>& f, int line) {
  if (f.size() != 12) {
    ctx.fail(line,
             "a layer line has 12 fields (name, reserved, then compute/comm type/size for "
             "forward, input gradient and weight gradient, then the update delay); this "
             "one has " +
                 std::to_string(f.size()));
  }
  Layer l;
  l.name = f[0];
  l.line = line;
  if (!to_int(f[1], true, &l.reserved)) {
    ctx.fail(line, "field 2 (reserved): '" + f[1] + "' is not an integer");
  }
  l.fwd_cycles = field_uint(ctx, line, f, 2);
  l.fwd = field_comm(ctx, line, f, 3);
  l.ig_cycles = field_uint(ctx, line, f, 5);
  l.ig = field_comm(ctx, line, f, 6);
  l.wg_cycles = field_uint(ctx, line, f, 8);
  l.wg = field_comm(ctx, line, f, 9);
  l.update_cycles = field_uint(ctx, line, f, 11);
  return l;
}

}  // namespace

File parse_text(const std::string& text, const std::string& path, const std::string& key_path) {
  const Ctx ctx{path, key_path};
  File file;
  file.path = path;
  std::istringstream in(text);
  std::string raw;
  int line = 0;
  int stage = 0;  // 0 = header, 1 = layer count, 2 = layers
  int64_t count = 0;
  while (std::getline(in, raw)) {
    ++line;
    const std::vector<std::string> tok = split(raw);  // '\r' is whitespace: CRLF files parse
    if (tok.empty()) continue;
    if (stage == 0) {
      parse_header(ctx, tok, line, &file.header);
      stage = 1;
    } else if (stage == 1) {
      file.count_line = line;
      if (tok.size() != 1 || !to_int(tok[0], false, &count)) {
        ctx.fail(line, "expected the number of layer lines (one non-negative integer), got '" +
                           raw.substr(0, 60) + "'");
      }
      if (count == 0) ctx.fail(line, "the workload has no layers (layer count 0)");
      stage = 2;
    } else {
      if (static_cast<int64_t>(file.layers.size()) == count) {
        ctx.fail(line, "more layer lines than the " + std::to_string(count) +
                           " announced on line " + std::to_string(file.count_line));
      }
      file.layers.push_back(parse_layer(ctx, tok, line));
    }
  }
  if (stage == 0) ctx.fail(1, "empty file: expected the parallelism policy on line 1");
  if (stage == 1) ctx.fail(line + 1, "the file ends before the layer count (line 2)");
  if (static_cast<int64_t>(file.layers.size()) < count) {
    ctx.fail(file.count_line, "announces " + std::to_string(count) + " layers but the file has " +
                                  std::to_string(file.layers.size()) + " layer lines");
  }
  const Header& h = file.header;
  for (const auto* indices : {&h.checkpoints, &h.checkpoint_initiates}) {
    for (int64_t idx : *indices) {
      if (idx >= count) {
        ctx.fail(h.line, (indices == &h.checkpoints ? "checkpoints" : "checkpoint_initiates") +
                             std::string(": layer index ") + std::to_string(idx) +
                             " is past the last layer (" + std::to_string(count - 1) + ")");
      }
    }
  }
  if (h.policy == Policy::kDlrm && h.dlrm_last_bottom_layer >= count) {
    ctx.fail(h.line, "DLRM last bottom layer " + std::to_string(h.dlrm_last_bottom_layer) +
                         " is past the last layer (" + std::to_string(count - 1) + ")");
  }
  return file;
}

File parse_file(const std::string& path, const std::string& key_path) {
  // ASTRA-sim text workloads hold a line per layer: 256 MiB is far beyond any; a larger or
  // non-regular file (/dev/zero, a FIFO) is refused rather than read forever.
  return parse_text(read_bounded_file(path, int64_t{256} << 20, key_path, "the workload file"),
                    path, key_path);
}

}  // namespace fabricsim::workload::astra
