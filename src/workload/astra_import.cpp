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
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/error.h"
#include "workload/astra_builder.h"
#include "workload/astra_format.h"
#include "workload/transformer.h"

namespace fabricsim::workload {
namespace {

using astra::Comm;
using astra::CommScope;
using astra::CommType;
using astra::Policy;
using astra_detail::Builder;
using astra_detail::Layout;
using astra_detail::Scope;

constexpr const char* kKey = "training.file";
constexpr int64_t kPsPerSecond = 1'000'000'000'000;

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
    if (stages() > 1) {
      build_pipeline();
    } else {
      Builder b(&dag_, layout_, opt_);
      build(b);
    }
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
    // SimAI (Workload.cc initialize_workload, Layer.cc report) reads the file as one pipeline
    // stage's step on all_gpus / pp GPUs: ga micro-batches, each stage alike, the pipeline
    // accounted analytically (bubble (pp - 1) / (ga x vpp) of the stage's time, 2 x vpp x ga
    // transfers of pp_comm bytes). Here every stage runs the file on its own GPUs and the
    // pipeline is simulated: build_pipeline().
    if (h_.pp > 1) {
      const std::string pp = "pp: " + std::to_string(h_.pp);
      if (opt_.gpus % h_.pp != 0) {
        fail(h_.line, pp + " does not divide the scenario's " + std::to_string(opt_.gpus) +
                          " GPUs into pipeline stages");
      }
      if (h_.pp_comm_bytes <= 0) {
        fail(h_.line, pp + " needs pp_comm BYTES, the activation a stage sends per micro-batch "
                           "(SimAI warns 'Input workload format mismatch' without it)");
      }
      if (h_.vpp > 1 && std::max<int64_t>(h_.ga, 1) % h_.pp != 0) {
        fail(h_.line, "ga: " + std::to_string(h_.ga) + " micro-batches are not a multiple of " +
                          pp + ", which the interleaved schedule (vpp: " + std::to_string(h_.vpp) +
                          ") needs (Megatron-core schedules.py)");
      }
    }
    // With pp: 1, vpp and ga enter SimAI only through its pipeline formulas, which vanish:
    // accepted, without effect, as in SimAI.
    if (h_.pp <= 1 && h_.pp_comm_bytes > 0) {
      fail(h_.line, "pp_comm " + std::to_string(h_.pp_comm_bytes) +
                        " bytes describes pipeline traffic, which cannot be imported (pp: 1)");
    }
  }

  Layout make_layout() const {
    Layout l;
    l.gpus = opt_.gpus / static_cast<uint32_t>(stages());  // one pipeline stage's GPUs
    const uint32_t per_node = std::max<uint32_t>(opt_.gpus_per_node, 1);
    const int64_t m = h_.model_parallel_npu_group;
    auto divides = [&](int64_t size, const std::string& what) {
      if (size > l.gpus || l.gpus % size != 0) {
        fail(h_.line, what + " " + std::to_string(size) + " does not divide the " +
                          (stages() > 1 ? "pipeline stage's " : "scenario's ") +
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
        for (uint32_t i = 0; i < n; ++i) forward(b, i);
        for (uint32_t i = n; i-- > 0;) backward(b, i);
        return;
      }
    }
  }

  // One layer's backward in the model-parallel loops (Workload.cc iterate_hybrid_parallel_*):
  // input gradient and its collective, weight gradient and its (non-blocking) collective.
  void backward(Builder& b, uint32_t i) {
    const Policy p = h_.policy;
    const bool transformer = p == Policy::kTransformer || p == Policy::kTransformerFwdInBckwd;
    const astra::Layer& l = f_.layers[i];
    if (p == Policy::kTransformerFwdInBckwd) recompute(b, i);
    b.compute(Phase::kInputGrad, i, ps(l.ig_cycles, l.line));
    Builder::Handles ig(opt_.gpus, -1);
    // Non-transformer loops skip layer 0's input-gradient collective (`index > 0`);
    // SimAI made the transformer one blocking.
    if (transformer || i > 0) ig = comm(b, l.ig, i, false, transformer && simai_);
    b.compute(Phase::kWeightGrad, i, ps(l.wg_cycles, l.line));
    comm(b, l.wg, i, true, false);
    b.wait(ig);  // is_input_grad_comm_finished_blocking() before the next layer
  }

  int stages() const { return static_cast<int>(std::max<int64_t>(h_.pp, 1)); }

  // The ga micro-batches in the file: ga consecutive runs of L records with the same names,
  // starting at the first record whose name occurs exactly ga times (AICB's SimAI files: per
  // micro-batch embedding_layer ... final_column, after the step's gradient records and before
  // its loss and optimizer records). Returns {first record, L}.
  std::pair<size_t, size_t> micro_batch_runs(int64_t ga) const {
    const size_t n = f_.layers.size();
    if (ga <= 1) return {0, n};
    std::map<std::string, int64_t> count;
    for (const astra::Layer& l : f_.layers) ++count[l.name];
    size_t a = 0;
    while (a < n && count[f_.layers[a].name] != ga) ++a;
    size_t len = 0;
    for (size_t i = a + 1; i < n && len == 0; ++i) {
      if (f_.layers[i].name == f_.layers[a].name) len = i - a;
    }
    bool ok = a < n && len > 0 && a + static_cast<size_t>(ga) * len <= n;
    for (size_t k = 1; ok && k < static_cast<size_t>(ga); ++k) {
      for (size_t i = 0; ok && i < len; ++i)
        ok = f_.layers[a + k * len + i].name == f_.layers[a + i].name;
    }
    if (!ok) {
      fail(f_.count_line, "pp: " + std::to_string(h_.pp) + " with ga: " + std::to_string(ga) +
                              ": the records are not ga repeated runs of one micro-batch's "
                              "layers, so the pipeline cannot be laid out");
    }
    return {a, len};
  }

  // pp > 1: stage s runs the file on GPUs [s G/pp, (s+1) G/pp) (Megatron's order, pipeline
  // outermost), micro-batch by micro-batch in the 1F1B schedule, interleaved with vpp > 1
  // (workload::pipeline_schedule, as the generator): each micro-batch's records split into vpp
  // model chunks of equal record counts, chunk c of stage s being virtual stage c x pp + s.
  // Between consecutive virtual stages each rank sends pp_comm bytes per micro-batch forward
  // (activations) and backward (gradients), to the same rank of the next stage: the
  // 2 x vpp x ga transfers of SimAI's exposed PP time (Layer.cc). The step's records before the
  // micro-batches run forward first and backward last (their weight-gradient collectives are
  // the step's DP reduction); those after, after the stage's last forward.
  void build_pipeline() {
    const int pp = stages();
    const int v = static_cast<int>(std::max<int64_t>(h_.vpp, 1));
    const int ga = static_cast<int>(std::max<int64_t>(h_.ga, 1));
    const auto [first, len] = micro_batch_runs(ga);
    if (len < static_cast<size_t>(v)) {
      fail(h_.line, "vpp: " + std::to_string(v) + " model chunks but a micro-batch has only " +
                        std::to_string(len) + " records");
    }
    const size_t n = f_.layers.size(), post = first + static_cast<size_t>(ga) * len;
    const uint32_t sg = layout_.gpus;
    std::vector<Builder> b;
    b.reserve(pp);
    for (int s = 0; s < pp; ++s)
      b.emplace_back(&dag_, layout_, opt_, static_cast<uint32_t>(s) * sg);
    auto link = [&](int from, int to, uint32_t r) {
      return dag_.add_group(
          {static_cast<uint32_t>(from) * sg + r, static_cast<uint32_t>(to) * sg + r});
    };
    std::vector<std::vector<uint32_t>> down(pp), up(pp);  // [stage][rank]
    for (int s = 0; s < pp; ++s) {
      for (uint32_t r = 0; r < sg; ++r) {
        if (s + 1 < pp || v > 1) down[s].push_back(link(s, (s + 1) % pp, r));
        if (s > 0 || v > 1) up[s].push_back(link(s, (s + pp - 1) % pp, r));
      }
    }
    const int vstages = pp * v;
    std::vector<std::vector<uint32_t>> act(vstages * ga), grad(vstages * ga);  // [vs ga + j][r]
    auto records = [&](int chunk, int j) {
      const size_t lo = first + j * len + chunk * len / v;
      return std::make_pair(lo, first + j * len + (chunk + 1) * len / v);
    };
    auto send = [&](Builder& stage, const std::vector<uint32_t>& groups, size_t layer) {
      std::vector<uint32_t> ids;
      for (uint32_t r = 0; r < sg; ++r) {
        std::vector<uint32_t> after;
        if (stage.tail(r) >= 0) after.push_back(static_cast<uint32_t>(stage.tail(r)));
        DagCollective c;
        c.op = CollOp::kSend;
        c.size_bytes = h_.pp_comm_bytes;
        c.group = groups[r];
        ids.push_back(
            dag_.add_collective(c, Phase::kPipelineParallel, static_cast<uint32_t>(layer), after));
      }
      return ids;
    };
    std::vector<std::vector<PipelineBlock>> order(pp);
    std::vector<size_t> last_forward(pp, 0), next(pp, 0);
    for (int s = 0; s < pp; ++s) {
      order[s] = pipeline_schedule(pp, v, ga, s);
      for (size_t k = 0; k < order[s].size(); ++k)
        if (!order[s][k].backward) last_forward[s] = k;
      for (size_t i = 0; i < first; ++i) forward(b[s], static_cast<uint32_t>(i));
    }
    std::vector<std::vector<bool>> fwd_done(vstages, std::vector<bool>(ga, false));
    std::vector<std::vector<bool>> bwd_done(vstages, std::vector<bool>(ga, false));
    for (bool progress = true; progress;) {
      progress = false;
      for (int s = 0; s < pp; ++s) {
        while (next[s] < order[s].size()) {
          const PipelineBlock blk = order[s][next[s]];
          const int vs = blk.chunk * pp + s, j = blk.micro_batch;
          const bool ready = blk.backward ? (vs == vstages - 1 || bwd_done[vs + 1][j])
                                          : (vs == 0 || fwd_done[vs - 1][j]);
          if (!ready) break;
          const auto [lo, hi] = records(blk.chunk, j);
          if (!blk.backward) {
            if (vs > 0)
              for (uint32_t r = 0; r < sg; ++r) b[s].also_wait(r, act[(vs - 1) * ga + j][r]);
            for (size_t i = lo; i < hi; ++i) forward(b[s], static_cast<uint32_t>(i));
            if (vs < vstages - 1) act[vs * ga + j] = send(b[s], down[s], hi - 1);
            fwd_done[vs][j] = true;
            if (next[s] == last_forward[s]) {
              for (size_t i = post; i < n; ++i) forward(b[s], static_cast<uint32_t>(i));
              for (size_t i = n; i-- > post;) backward(b[s], static_cast<uint32_t>(i));
            }
          } else {
            if (vs < vstages - 1)
              for (uint32_t r = 0; r < sg; ++r) b[s].also_wait(r, grad[(vs + 1) * ga + j][r]);
            for (size_t i = hi; i-- > lo;) backward(b[s], static_cast<uint32_t>(i));
            if (vs > 0) grad[vs * ga + j] = send(b[s], up[s], lo);
            bwd_done[vs][j] = true;
          }
          ++next[s];
          progress = true;
        }
      }
    }
    for (int s = 0; s < pp; ++s) {
      if (next[s] != order[s].size()) fail(h_.line, "the pipeline schedule cannot proceed");
      for (size_t i = first; i-- > 0;) backward(b[s], static_cast<uint32_t>(i));
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
  // With pp > 1 every stage runs the file on its own G/pp GPUs (the same total), and each GPU
  // sends at most 2 x vpp x ga pipeline messages.
  const astra::Header& h = file.header;
  const int64_t sends =
      h.pp > 1 ? 2 * g * std::max<int64_t>(h.vpp, 1) * std::max<int64_t>(h.ga, 1) : 0;
  return 3 * g * forwards + 6 * g * layers + sends;
}

}  // namespace fabricsim::workload
