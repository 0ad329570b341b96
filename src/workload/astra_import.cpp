// ASTRA-sim 1.0 / SimAI text workload -> one training step as a workload::Dag.
//
// The parser (workload/astra_format.h) gives per-layer records; this file gives them meaning on
// the scenario's GPUs, following the simulators' own code (docs/workloads.md has the full table):
//   groups     astra-sim @86fec9b astra-sim/workload/Workload.cc, decode_involved_dimensions;
//              SimAI (MockNcclGroup::MockNcclGroup, astra-sim-alibabacloud/astra-sim/system/
//              MockNcclGroup.cc @1854d89) for TP / DP / EP / DP_EP rank sets;
//   step order Workload.cc iterate_data_parallel, iterate_model_parallel,
//              iterate_hybrid_parallel_{data_model,model_data,Transformer,
//              Transformer_fwd_in_bckwd,DLRM}, iterate_micro_benchmark (one pass each);
//   update     Layer.cc Layer::call: the layer's update delay follows each of its collectives
//              (fwd, input-grad and weight-grad alike: fwd_update_time = input_grad_update_time =
//              weight_grad_update_time);
//   sizes      astra-sim system/collective/Ring.cc: all-gather size is the per-NPU input
//              (final_data_size = data_size * nodes); SimAI's MockNcclGroup::genAllGatherFlowModels
//              divides the size by nranks, i.e. the gathered total (nccl-tests' "size").
#include "workload/astra_import.h"

#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include "core/error.h"
#include "workload/astra_format.h"

namespace fabricsim::workload {
namespace {

using astra::Comm;
using astra::CommScope;
using astra::CommType;
using astra::Policy;

constexpr const char* kKey = "training.file";
constexpr int64_t kPsPerSecond = 1'000'000'000'000;

// Who takes part in a collective. kMp / kDp are the policy's two dimensions; kAll is every GPU.
enum class Scope : uint8_t { kAll, kMp, kDp, kEp, kDpEp };

struct Layout {
  uint32_t gpus = 0;
  uint32_t inner = 1;       // size of the consecutive-rank dimension
  bool inner_is_mp = true;  // which of MP / DP is the consecutive one
  uint32_t tp = 1, ep = 0;  // SimAI: tp = model_parallel_NPU_group, ep = `ep:` (0 = not given)
};

// Rank sets, in communicator rank order.
std::vector<std::vector<uint32_t>> partition(const Layout& l, Scope s) {
  std::vector<std::vector<uint32_t>> out;
  const uint32_t g = l.gpus;
  auto blocks = [&](uint32_t size) {  // consecutive ranks
    for (uint32_t b = 0; b < g / size; ++b) {
      out.emplace_back();
      for (uint32_t k = 0; k < size; ++k) out.back().push_back(b * size + k);
    }
  };
  auto strided = [&](uint32_t stride) {  // one rank from each consecutive block
    for (uint32_t k = 0; k < stride; ++k) {
      out.emplace_back();
      for (uint32_t b = 0; b < g / stride; ++b) out.back().push_back(b * stride + k);
    }
  };
  switch (s) {
    case Scope::kAll:
      blocks(g);
      break;
    case Scope::kMp:
      l.inner_is_mp ? blocks(l.inner) : strided(l.inner);
      break;
    case Scope::kDp:
      l.inner_is_mp ? strided(l.inner) : blocks(l.inner);
      break;
    case Scope::kEp:
    case Scope::kDpEp: {
      // SimAI: DP groups take one rank per TP group (stride tp). EP groups are ep consecutive TP
      // groups at the same TP position; DP_EP groups the TP groups ep apart (the rest of DP).
      const uint32_t dp = g / l.tp;
      for (uint32_t k = 0; k < l.tp; ++k) {
        if (s == Scope::kEp) {
          for (uint32_t b = 0; b < dp / l.ep; ++b) {
            out.emplace_back();
            for (uint32_t m = 0; m < l.ep; ++m) out.back().push_back((b * l.ep + m) * l.tp + k);
          }
        } else {
          for (uint32_t i = 0; i < l.ep; ++i) {
            out.emplace_back();
            for (uint32_t m = 0; m < dp / l.ep; ++m)
              out.back().push_back((i + m * l.ep) * l.tp + k);
          }
        }
      }
      break;
    }
  }
  return out;
}

// Builds the DAG rank by rank: each rank runs its ops in program order (tail_), and an op may
// also have to wait for a non-blocking collective issued earlier (pending_).
class Builder {
 public:
  using Handles = std::vector<int64_t>;  // per rank: the op that ends a collective, -1 = none

  Builder(Dag* dag, const Layout& layout, const AstraOptions& opt)
      : dag_(dag), layout_(layout), opt_(opt), tail_(layout.gpus, -1), pending_(layout.gpus) {}

  void compute(Phase phase, uint32_t layer, int64_t duration_ps) {
    if (duration_ps == 0) return;  // ASTRA-sim waits 0 cycles: nothing to run
    for (uint32_t r = 0; r < layout_.gpus; ++r) {
      tail_[r] = dag_->add_compute(r, duration_ps, phase, layer, take_deps(r));
    }
  }

  // One collective per group of `scope`, then each member's update delay. Blocking: the
  // member's next op follows the delay. Non-blocking: returns the delay (or collective) per
  // rank, for a later wait(); the step ends only when every op has, so nothing is lost.
  Handles collective(Scope scope, CollOp op, int64_t size_bytes, Phase phase, uint32_t layer,
                     int64_t delay_ps, bool blocking) {
    Handles done(layout_.gpus, -1);
    const std::vector<uint32_t>& groups = groups_of(scope);
    const uint32_t members = static_cast<uint32_t>(dag_->groups[groups[0]].size());
    if (members < 2) return done;  // a group of one moves no data (ASTRA-sim: inactive dataset)
    for (uint32_t gi : groups) {
      std::vector<uint32_t> deps;
      for (uint32_t r : dag_->groups[gi]) {
        if (tail_[r] >= 0) deps.push_back(static_cast<uint32_t>(tail_[r]));
        deps.insert(deps.end(), pending_[r].begin(), pending_[r].end());
        if (blocking) pending_[r].clear();
      }
      std::sort(deps.begin(), deps.end());
      deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
      DagCollective c;
      c.op = op;
      c.algorithm = opt_.algorithm;
      c.protocol = opt_.protocol;
      c.size_bytes = size_bytes;
      c.group = gi;
      const uint32_t coll = dag_->add_collective(c, phase, layer, deps);
      for (uint32_t r : dag_->groups[gi]) {
        int64_t end = coll;
        if (delay_ps > 0) end = dag_->add_compute(r, delay_ps, Phase::kUpdate, layer, {coll});
        if (blocking) {
          tail_[r] = end;
        } else {
          done[r] = end;
        }
      }
    }
    return done;
  }

  void wait(const Handles& h) {
    for (uint32_t r = 0; r < layout_.gpus; ++r) {
      if (h[r] >= 0) pending_[r].push_back(static_cast<uint32_t>(h[r]));
    }
  }

  uint32_t group_size(Scope scope) {
    return static_cast<uint32_t>(dag_->groups[groups_of(scope)[0]].size());
  }

 private:
  std::vector<uint32_t> take_deps(uint32_t r) {
    std::vector<uint32_t> deps = std::move(pending_[r]);
    pending_[r].clear();
    if (tail_[r] >= 0) deps.push_back(static_cast<uint32_t>(tail_[r]));
    std::sort(deps.begin(), deps.end());
    deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
    return deps;
  }
  const std::vector<uint32_t>& groups_of(Scope s) {
    std::vector<uint32_t>& ids = group_ids_[static_cast<int>(s)];
    if (ids.empty()) {
      for (auto& ranks : partition(layout_, s)) ids.push_back(dag_->add_group(std::move(ranks)));
    }
    return ids;
  }

  Dag* dag_;
  Layout layout_;
  const AstraOptions& opt_;
  std::vector<int64_t> tail_;
  std::vector<std::vector<uint32_t>> pending_;
  std::vector<uint32_t> group_ids_[5];
};

class Converter {
 public:
  Converter(const astra::File& f, const AstraOptions& opt) : f_(f), h_(f.header), opt_(opt) {}

  Dag run() {
    check_options();
    layout_ = make_layout();
    simai_ = h_.simai_keys;
    for (const astra::Layer& l : f_.layers) {
      for (const Comm* c : {&l.fwd, &l.ig, &l.wg})
        simai_ = simai_ || c->scope != CommScope::kPolicy;
    }
    check_layers();
    dag_.ranks = opt_.gpus;
    const size_t slash = f_.path.find_last_of('/');
    dag_.name = slash == std::string::npos ? f_.path : f_.path.substr(slash + 1);
    Builder b(&dag_, layout_, opt_);
    build(b);
    return std::move(dag_);
  }

 private:
  [[noreturn]] void fail(int line, const std::string& message) const {
    throw ImportError(f_.path, line, kKey, message);
  }

  void check_options() const {
    if (opt_.clock_hz <= 0) {
      fail(h_.line,
           "compute times are in cycles: a clock is required to convert them "
           "(ASTRA-sim and SimAI count 1 ns cycles, i.e. 1 GHz)");
    }
    if (opt_.gpus == 0) fail(h_.line, "the scenario has no GPUs to run the workload on");
    if (h_.all_gpus != 0 && h_.all_gpus != opt_.gpus) {
      fail(h_.line, "all_gpus: " + std::to_string(h_.all_gpus) + " but the scenario has " +
                        std::to_string(opt_.gpus) + " GPUs");
    }
    if (h_.pp > 1) {
      fail(h_.line, "pp: " + std::to_string(h_.pp) +
                        ": SimAI accounts pipeline stages analytically (bubble and pp_comm "
                        "formulas), not as traffic between GPUs; only pp: 1 can be imported");
    }
    // vpp and ga enter SimAI only through its pipeline formulas (Layer.cc: bubble
    // (pp - 1) / (ga * vpp), exposed 2 * vpp * ga * pp_comm), which vanish at pp: 1: accepted,
    // without effect, as in SimAI.
    if (h_.pp_comm_bytes > 0) {
      fail(h_.line, "pp_comm " + std::to_string(h_.pp_comm_bytes) +
                        " bytes describes pipeline traffic, which cannot be imported (pp: 1)");
    }
  }

  Layout make_layout() const {
    Layout l;
    l.gpus = opt_.gpus;
    const uint32_t per_node = std::max<uint32_t>(opt_.gpus_per_node, 1);
    const int64_t m = h_.model_parallel_npu_group;
    auto divides = [&](int64_t size, const std::string& what) {
      if (size > l.gpus || l.gpus % size != 0) {
        fail(h_.line, what + " " + std::to_string(size) + " does not divide the scenario's " +
                          std::to_string(l.gpus) + " GPUs");
      }
    };
    switch (h_.policy) {
      case Policy::kData:
      case Policy::kMicro:
      case Policy::kDlrm:
        l.inner = l.gpus;  // every collective over all GPUs
        l.inner_is_mp = false;
        break;
      case Policy::kModel:
        l.inner = l.gpus;
        l.inner_is_mp = true;
        break;
      case Policy::kTransformer:
      case Policy::kTransformerFwdInBckwd:
      case Policy::kHybridDataModel:
        // Model parallelism on the innermost dimension(s): ASTRA-sim's break_dimension(M) for
        // the transformer policies, dimension 0 for HYBRID_DATA_MODEL, whose size here is the
        // node unless model_parallel_NPU_group says otherwise.
        if (m != 0) divides(m, "model_parallel_NPU_group");
        if (m == 0 && l.gpus % per_node != 0) divides(per_node, "gpus_per_node");
        l.inner = static_cast<uint32_t>(m != 0 ? m : per_node);
        l.inner_is_mp = true;
        break;
      case Policy::kHybridModelData:
        // Data parallelism on dimension 0 (the node), model parallelism across: with
        // model_parallel_NPU_group M the data dimension is the inner gpus / M ranks.
        if (m != 0) divides(m, "model_parallel_NPU_group");
        if (m == 0 && l.gpus % per_node != 0) divides(per_node, "gpus_per_node");
        l.inner = static_cast<uint32_t>(m != 0 ? l.gpus / m : per_node);
        l.inner_is_mp = false;
        break;
    }
    l.tp = l.inner_is_mp ? l.inner : l.gpus / l.inner;
    if (h_.ep != 0) {
      const uint32_t dp = l.gpus / l.tp;
      if (h_.ep > dp || dp % h_.ep != 0) {
        fail(h_.line, "ep: " + std::to_string(h_.ep) +
                          " does not divide the data-parallel degree " + std::to_string(dp) +
                          " (= " + std::to_string(l.gpus) + " GPUs / " + std::to_string(l.tp) +
                          " model-parallel); SimAI carves EP out of DP");
      }
      l.ep = static_cast<uint32_t>(h_.ep);
    }
    return l;
  }

  static bool none(const Comm& c) { return c.type == CommType::kNone || c.size_bytes == 0; }

  void check_layers() const {
    const Policy p = h_.policy;
    const bool transformer = p == Policy::kTransformer || p == Policy::kTransformerFwdInBckwd;
    if (p == Policy::kMicro && f_.layers.size() != 1) {
      fail(f_.count_line,
           "MICRO runs only the first layer's weight-gradient collective "
           "(Workload.cc iterate_micro_benchmark); give exactly 1 layer");
    }
    for (size_t i = 0; i < f_.layers.size(); ++i) {
      const astra::Layer& l = f_.layers[i];
      const char* names[3] = {"forward", "input-gradient", "weight-gradient"};
      const Comm* comms[3] = {&l.fwd, &l.ig, &l.wg};
      for (int k = 0; k < 3; ++k) {
        if (comms[k]->scope == CommScope::kPolicy) continue;
        if (!transformer) {
          fail(l.line, std::string(names[k]) +
                           " comm: SimAI's _EP / _DP_EP types exist only for "
                           "the HYBRID_TRANSFORMER policies");
        }
        if (h_.ep == 0) {
          fail(l.line, std::string(names[k]) +
                           " comm: an _EP / _DP_EP type needs `ep: N` on line " +
                           std::to_string(h_.line));
        }
      }
      const std::string pname = astra::policy_name(p);
      auto never_issued = [&](const Comm& c, const char* pass, const char* where) {
        if (!none(c)) {
          fail(l.line, std::string(pass) + " comm: " + pname + " never runs it (Workload.cc " +
                           where + "); write NONE 0");
        }
      };
      if (p == Policy::kData) {
        never_issued(l.fwd, "forward", "iterate_data_parallel");
        never_issued(l.ig, "input-gradient", "iterate_data_parallel");
      } else if (p == Policy::kMicro) {
        never_issued(l.fwd, "forward", "iterate_micro_benchmark");
        never_issued(l.ig, "input-gradient", "iterate_micro_benchmark");
      } else if (p == Policy::kModel) {
        never_issued(l.wg, "weight-gradient", "iterate_model_parallel");
      } else if (p == Policy::kDlrm) {
        if (i == 0) {
          if (!none(l.fwd) && l.fwd.type != CommType::kAllToAll) {
            fail(l.line,
                 "forward comm: HYBRID_DLRM issues a forward collective only for "
                 "ALLTOALL (Workload.cc iterate_hybrid_parallel_DLRM)");
          }
        } else {
          never_issued(l.fwd, "forward", "iterate_hybrid_parallel_DLRM, layers after the first");
          never_issued(l.ig, "input-gradient",
                       "iterate_hybrid_parallel_DLRM, layers after the first");
        }
      }
    }
    if (p == Policy::kDlrm) {
      const int64_t lb = h_.dlrm_last_bottom_layer;
      if (lb < 1 || lb + 1 >= static_cast<int64_t>(f_.layers.size())) {
        fail(h_.line, "DLRM last bottom layer " + std::to_string(lb) +
                          " must lie between the embedding layer 0 and the last layer");
      }
    }
    if (p == Policy::kTransformerFwdInBckwd) check_checkpoints();
  }

  // ASTRA-sim recomputes layers [c, i-1] when the backward pass reaches an initiating layer i,
  // c being the nearest checkpoint below i; it walks down without a bound check and stops the
  // recomputation at the next initiator, so anything else is refused here.
  void check_checkpoints() const {
    const auto& cps = h_.checkpoints;
    const auto& inits = h_.checkpoint_initiates;
    auto is_cp = [&](int64_t i) { return std::find(cps.begin(), cps.end(), i) != cps.end(); };
    auto is_init = [&](int64_t i) {
      return std::find(inits.begin(), inits.end(), i) != inits.end();
    };
    for (int64_t i : inits) {
      if (is_cp(i))
        fail(h_.line, "layer " + std::to_string(i) + " is both a checkpoint and an initiator");
      int64_t c = i - 1;
      while (c >= 0 && !is_cp(c)) --c;
      if (c < 0)
        fail(h_.line, "initiating layer " + std::to_string(i) + " has no checkpoint below it");
      for (int64_t j = c + 1; j < i; ++j) {
        if (is_init(j)) {
          fail(h_.line, "initiating layer " + std::to_string(j) +
                            " lies inside the recomputed "
                            "segment [" +
                            std::to_string(c) + ", " + std::to_string(i - 1) + "]");
        }
      }
    }
  }

  int64_t ps(int64_t cycles, int line) const {
    const __int128 v =
        (static_cast<__int128>(cycles) * kPsPerSecond + opt_.clock_hz / 2) / opt_.clock_hz;
    if (v > std::numeric_limits<int64_t>::max()) {
      fail(line,
           std::to_string(cycles) + " cycles overflow the picosecond clock at this clock rate");
    }
    return static_cast<int64_t>(v);
  }

  Scope scope_of(const Comm& c, bool weight_grad, bool all) const {
    if (c.scope == CommScope::kEp) return Scope::kEp;
    if (c.scope == CommScope::kDpEp) return Scope::kDpEp;
    if (all) return Scope::kAll;
    return weight_grad ? Scope::kDp : Scope::kMp;
  }

  static Phase phase_of(Scope s) {
    switch (s) {
      case Scope::kMp:
        return Phase::kTensorParallel;
      case Scope::kEp:
        return Phase::kExpertParallel;
      case Scope::kAll:
      case Scope::kDp:
      case Scope::kDpEp:
        return Phase::kDataParallel;
    }
    return Phase::kOther;
  }

  Builder::Handles comm(Builder& b, const Comm& c, uint32_t layer, bool weight_grad, bool blocking,
                        bool all = false, Phase phase_override = Phase::kOther) {
    if (none(c)) return Builder::Handles(opt_.gpus, -1);  // size 0: no traffic, no delay
    const astra::Layer& l = f_.layers[layer];
    const Scope s = scope_of(c, weight_grad, all);
    CollOp op = CollOp::kAllReduce;
    int64_t size = c.size_bytes;
    switch (c.type) {
      case CommType::kAllReduce:
        op = CollOp::kAllReduce;
        break;
      case CommType::kReduceScatter:
        op = CollOp::kReduceScatter;
        break;
      case CommType::kAllToAll:
        op = CollOp::kAllToAll;
        break;
      case CommType::kAllGather: {
        op = CollOp::kAllGather;
        if (!simai_) {  // ASTRA-sim: per-NPU input; the DAG takes the gathered total
          const int64_t n = b.group_size(s);
          if (size > std::numeric_limits<int64_t>::max() / n)
            fail(l.line, "all-gather size overflows");
          size *= n;
        }
        break;
      }
      case CommType::kNone:
        break;
    }
    const Phase phase = phase_override != Phase::kOther ? phase_override : phase_of(s);
    return b.collective(s, op, size, phase, layer, ps(l.update_cycles, l.line), blocking);
  }

  void forward(Builder& b, uint32_t i) {
    const astra::Layer& l = f_.layers[i];
    b.compute(Phase::kForward, i, ps(l.fwd_cycles, l.line));
    comm(b, l.fwd, i, false, true);  // issue_forward_pass_comm(..., Blocking)
  }

  void build(Builder& b) {
    const uint32_t n = static_cast<uint32_t>(f_.layers.size());
    const Policy p = h_.policy;
    auto cycles = [&](uint32_t i, int64_t astra::Layer::*field) {
      return ps(f_.layers[i].*field, f_.layers[i].line);
    };
    switch (p) {
      case Policy::kMicro:
        comm(b, f_.layers[0].wg, 0, true, false);
        return;
      case Policy::kData:
        for (uint32_t i = 0; i < n; ++i)
          b.compute(Phase::kForward, i, cycles(i, &astra::Layer::fwd_cycles));
        for (uint32_t i = n; i-- > 0;) {
          b.compute(Phase::kWeightGrad, i, cycles(i, &astra::Layer::wg_cycles));
          comm(b, f_.layers[i].wg, i, true, false);
          // The loop ends after layer 0's weight gradient: layer 0 has no input gradient.
          if (i > 0) b.compute(Phase::kInputGrad, i, cycles(i, &astra::Layer::ig_cycles));
        }
        return;
      case Policy::kDlrm: {
        const uint32_t lb = static_cast<uint32_t>(h_.dlrm_last_bottom_layer);
        Builder::Handles fwd0(opt_.gpus, -1), ig0(opt_.gpus, -1);
        for (uint32_t i = 0; i < n; ++i) {
          b.compute(Phase::kForward, i, cycles(i, &astra::Layer::fwd_cycles));
          // Layer 0's all-to-all (embedding exchange, model-parallel) overlaps the bottom MLP;
          // the last bottom layer waits for it.
          if (i == 0)
            fwd0 = comm(b, f_.layers[0].fwd, 0, false, false, true, Phase::kTensorParallel);
          if (i == lb) b.wait(fwd0);
        }
        for (uint32_t i = n; i-- > 0;) {
          b.compute(Phase::kWeightGrad, i, cycles(i, &astra::Layer::wg_cycles));
          comm(b, f_.layers[i].wg, i, true, false, true);
          if (i == 0) break;  // then waits for layer 0's input-gradient collective: the step end
          b.compute(Phase::kInputGrad, i, cycles(i, &astra::Layer::ig_cycles));
          if (i == lb + 1)
            ig0 = comm(b, f_.layers[0].ig, 0, false, false, true, Phase::kTensorParallel);
        }
        b.wait(ig0);
        return;
      }
      case Policy::kModel:
      case Policy::kHybridDataModel:
      case Policy::kHybridModelData:
      case Policy::kTransformer:
      case Policy::kTransformerFwdInBckwd: {
        const bool transformer = p == Policy::kTransformer || p == Policy::kTransformerFwdInBckwd;
        for (uint32_t i = 0; i < n; ++i) forward(b, i);
        for (uint32_t i = n; i-- > 0;) {
          if (p == Policy::kTransformerFwdInBckwd) recompute(b, i);
          b.compute(Phase::kInputGrad, i, cycles(i, &astra::Layer::ig_cycles));
          Builder::Handles ig(opt_.gpus, -1);
          // Non-transformer loops skip layer 0's input-gradient collective (`index > 0`);
          // SimAI made the transformer one blocking.
          if (transformer || i > 0) ig = comm(b, f_.layers[i].ig, i, false, transformer && simai_);
          b.compute(Phase::kWeightGrad, i, cycles(i, &astra::Layer::wg_cycles));
          comm(b, f_.layers[i].wg, i, true, false);
          b.wait(ig);  // is_input_grad_comm_finished_blocking() before the next layer
        }
        return;
      }
    }
  }

  void recompute(Builder& b, uint32_t i) {
    const auto& inits = h_.checkpoint_initiates;
    if (std::find(inits.begin(), inits.end(), static_cast<int64_t>(i)) == inits.end()) return;
    int64_t c = static_cast<int64_t>(i) - 1;
    const auto& cps = h_.checkpoints;
    while (std::find(cps.begin(), cps.end(), c) == cps.end()) --c;  // checked: exists
    for (uint32_t j = static_cast<uint32_t>(c); j < i; ++j) forward(b, j);
  }

  const astra::File& f_;
  const astra::Header& h_;
  const AstraOptions& opt_;
  Layout layout_;
  bool simai_ = false;
  Dag dag_;
};

}  // namespace

Dag import_astra(const std::string& path, const AstraOptions& opt) {
  const astra::File file = astra::parse_file(path, kKey);
  return Converter(file, opt).run();
}

int64_t astra_ops_bound(const std::string& path, const AstraOptions& opt) {
  const astra::File file = astra::parse_file(path, kKey);
  const int64_t layers = static_cast<int64_t>(file.layers.size());
  // Forward passes: every layer once, plus FWD_IN_BCKWD's recomputation from the checkpoint
  // below each initiating layer (at most the layers below it).
  int64_t forwards = layers;
  for (int64_t i : file.header.checkpoint_initiates) {
    int64_t below = 0;
    for (int64_t c : file.header.checkpoints) {
      if (c < i) below = std::max(below, c);
    }
    forwards += std::clamp<int64_t>(i - below, 0, layers);
  }
  const int64_t g = std::max<uint32_t>(opt.gpus, 1);
  return 3 * g * forwards + 6 * g * layers;
}

}  // namespace fabricsim::workload
