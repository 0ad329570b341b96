#include "workload/transformer.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/error.h"

namespace fabricsim::workload {

namespace {

constexpr uint32_t kNone = UINT32_MAX;

// Builds the DAG stage by stage; `front[stage][d * tp + t]` holds the ops the rank's next op in
// its schedule depends on.
class Builder {
 public:
  Builder(const TransformerSpec& spec, uint32_t gpus, TransformerStep& out)
      : s_(spec), out_(out), dag_(out.dag) {
    tp_ = spec.tp;
    pp_ = spec.pp;
    dp_ = derived_dp(spec, gpus);
    ep_ = spec.ep;
    m_ = spec.global_batch > 0 ? spec.global_batch / (spec.micro_batch * dp_) : spec.micro_batches;
    lps_ = spec.layers / pp_;
    const int64_t mult = int64_t{spec.vocab_divisible_by} * tp_;
    vocab_ = (spec.vocab + mult - 1) / mult * mult;
    ps_per_flop_ = 1.0 / (peak_tflops(spec) * spec.efficiency);  // 1e12 ps/s / 1e12 FLOP/TFLOP
    const int64_t bsh = int64_t{spec.micro_batch} * spec.seq_length * spec.hidden;
    tp_bytes_ = bsh * spec.bytes_per_element;
    pp_bytes_ = bsh * spec.bytes_per_element / tp_;
    ep_bytes_ = bsh * spec.moe_top_k * spec.bytes_per_element / tp_;
    out.dp = dp_;
    out.micro_batches = m_;
    out.vocab_padded = vocab_;
    dag_.ranks = static_cast<uint32_t>(tp_ * pp_ * dp_);
    dag_.name = "transformer";
  }

  void build();

 private:
  uint32_t rank(int t, int d, int stage) const {
    return static_cast<uint32_t>(t + tp_ * (d + dp_ * stage));
  }
  // Megatron-core's --moe-layer-freq k: layers 0, k, 2k, ... (0-based) are MoE (UNVERIFIED:
  // from memory of its layer-pattern list).
  bool is_moe(int layer) const { return s_.moe_experts > 0 && layer % s_.moe_every == 0; }
  uint32_t slot(int d, int t) const { return static_cast<uint32_t>(d * tp_ + t); }

  void make_groups();
  uint32_t compute(int stage, int d, int t, double flops, Phase phase, uint32_t layer,
                   const std::vector<uint32_t>& after) {
    const auto ps = static_cast<int64_t>(std::llround(flops * ps_per_flop_));
    const uint32_t id = dag_.add_compute(rank(t, d, stage), ps, phase, layer, after);
    out_.op_flops.resize(dag_.ops.size(), 0.0);
    out_.op_flops[id] = flops;
    return id;
  }
  uint32_t collective(CollOp op, int64_t bytes, uint32_t group, Phase phase, uint32_t layer,
                      const std::vector<uint32_t>& after) {
    DagCollective c;
    c.op = op;
    c.size_bytes = bytes;
    c.group = group;
    return dag_.add_collective(c, phase, layer, after);
  }
  // All ranks of the stage run `flops / tp` after their front.
  void compute_all(std::vector<std::vector<uint32_t>>& front, int stage, double flops, Phase phase,
                   uint32_t layer) {
    for (int d = 0; d < dp_; ++d) {
      for (int t = 0; t < tp_; ++t) {
        auto& f = front[slot(d, t)];
        f = {compute(stage, d, t, flops / tp_, phase, layer, f)};
      }
    }
  }
  void tp_allreduce(std::vector<std::vector<uint32_t>>& front, int stage, uint32_t layer);
  void ep_alltoall(std::vector<std::vector<uint32_t>>& front, int stage, uint32_t layer);
  void forward_layer(std::vector<std::vector<uint32_t>>& front, int stage, int layer);
  void backward_layer(std::vector<std::vector<uint32_t>>& front, int stage, int layer, bool last);
  void forward_block(int stage, int j);
  void backward_block(int stage, int j);
  void gradients_and_update();

  const TransformerSpec& s_;
  TransformerStep& out_;
  Dag& dag_;
  int tp_ = 1, pp_ = 1, dp_ = 1, ep_ = 1, m_ = 1, lps_ = 1;
  int64_t vocab_ = 0;
  double ps_per_flop_ = 0;
  int64_t tp_bytes_ = 0, pp_bytes_ = 0, ep_bytes_ = 0;

  std::vector<std::vector<uint32_t>> tp_group_;   // [stage][d]
  std::vector<std::vector<uint32_t>> ep_group_;   // [stage][t * (dp/ep) + k]
  std::vector<std::vector<uint32_t>> dp_group_;   // [stage][t]
  std::vector<std::vector<uint32_t>> edp_group_;  // [stage][t * ep + e]
  std::vector<std::vector<uint32_t>> send_down_;  // [stage][slot]: stage -> stage + 1
  std::vector<std::vector<uint32_t>> send_up_;    // [stage][slot]: stage -> stage - 1
  std::vector<uint32_t> embedding_group_;         // [slot]: first and last stage (pp > 1)

  std::vector<std::vector<std::vector<uint32_t>>> front_;  // [stage][slot]
  std::vector<std::vector<uint32_t>> act_sent_;   // [stage * m + j][slot]: activation sends
  std::vector<std::vector<uint32_t>> grad_sent_;  // [stage * m + j][slot]: gradient sends
  // Last micro-batch: per stage, per slot, the op after which each gradient unit is ready, in
  // backward order (the order Megatron's DDP fills buckets), with its parameter counts.
  struct Unit {
    int64_t dense_params = 0;
    int64_t expert_params = 0;
    std::vector<uint32_t> ready;  // [slot]
  };
  std::vector<std::vector<Unit>> units_;  // [stage]
};

void Builder::make_groups() {
  const int edp = dp_ / ep_;
  tp_group_.assign(pp_, {});
  ep_group_.assign(pp_, {});
  dp_group_.assign(pp_, {});
  edp_group_.assign(pp_, {});
  send_down_.assign(pp_, std::vector<uint32_t>(dp_ * tp_, kNone));
  send_up_.assign(pp_, std::vector<uint32_t>(dp_ * tp_, kNone));
  for (int st = 0; st < pp_; ++st) {
    for (int d = 0; d < dp_; ++d) {
      std::vector<uint32_t> g;
      for (int t = 0; t < tp_; ++t) g.push_back(rank(t, d, st));
      tp_group_[st].push_back(dag_.add_group(g));
    }
    for (int t = 0; t < tp_; ++t) {
      std::vector<uint32_t> g;
      for (int d = 0; d < dp_; ++d) g.push_back(rank(t, d, st));
      dp_group_[st].push_back(dag_.add_group(g));
      for (int k = 0; k < edp; ++k) {
        std::vector<uint32_t> e;
        for (int i = 0; i < ep_; ++i) e.push_back(rank(t, i + ep_ * k, st));
        ep_group_[st].push_back(dag_.add_group(e));
      }
      for (int i = 0; i < ep_; ++i) {
        std::vector<uint32_t> e;
        for (int k = 0; k < edp; ++k) e.push_back(rank(t, i + ep_ * k, st));
        edp_group_[st].push_back(dag_.add_group(e));
      }
    }
    for (int d = 0; d < dp_; ++d) {
      for (int t = 0; t < tp_; ++t) {
        if (st == 0 && pp_ > 1) {
          embedding_group_.push_back(dag_.add_group({rank(t, d, 0), rank(t, d, pp_ - 1)}));
        }
        if (st + 1 < pp_)
          send_down_[st][slot(d, t)] = dag_.add_group({rank(t, d, st), rank(t, d, st + 1)});
        if (st > 0) send_up_[st][slot(d, t)] = dag_.add_group({rank(t, d, st), rank(t, d, st - 1)});
      }
    }
  }
}

// The TP group's all-reduce of b.s.h elements (Shoeybi et al. 2019 §3: f/g operators) after
// every rank of it reached it.
void Builder::tp_allreduce(std::vector<std::vector<uint32_t>>& front, int stage, uint32_t layer) {
  if (tp_ == 1) return;
  for (int d = 0; d < dp_; ++d) {
    std::vector<uint32_t> after;
    for (int t = 0; t < tp_; ++t) {
      for (uint32_t op : front[slot(d, t)]) after.push_back(op);
    }
    const uint32_t c = collective(CollOp::kAllReduce, tp_bytes_, tp_group_[stage][d],
                                  Phase::kTensorParallel, layer, after);
    for (int t = 0; t < tp_; ++t) front[slot(d, t)] = {c};
  }
}

// The EP group's all-to-all: each rank sends its b.s.top_k.h/tp routed token copies, (ep-1)/ep of
// them to other ranks (derived from Megatron-core's MoEAlltoAllTokenDispatcher, gpu-node.md §5).
void Builder::ep_alltoall(std::vector<std::vector<uint32_t>>& front, int stage, uint32_t layer) {
  if (ep_ == 1) return;
  const int edp = dp_ / ep_;
  for (int t = 0; t < tp_; ++t) {
    for (int k = 0; k < edp; ++k) {
      std::vector<uint32_t> after;
      for (int i = 0; i < ep_; ++i) {
        for (uint32_t op : front[slot(i + ep_ * k, t)]) after.push_back(op);
      }
      const uint32_t c = collective(CollOp::kAllToAll, ep_bytes_, ep_group_[stage][t * edp + k],
                                    Phase::kExpertParallel, layer, after);
      for (int i = 0; i < ep_; ++i) front[slot(i + ep_ * k, t)] = {c};
    }
  }
}

void Builder::forward_layer(std::vector<std::vector<uint32_t>>& front, int stage, int layer) {
  const auto l = static_cast<uint32_t>(layer);
  compute_all(front, stage, attention_forward_flops(s_), Phase::kForward, l);
  tp_allreduce(front, stage, l);
  const bool moe = is_moe(layer);
  if (moe) ep_alltoall(front, stage, l);  // dispatch
  compute_all(front, stage, mlp_forward_flops(s_, moe), Phase::kForward, l);
  if (moe) ep_alltoall(front, stage, l);  // combine
  tp_allreduce(front, stage, l);
}

// Backward of one layer, per half (MLP, then attention), each pass taking the forward's FLOPs
// (backward = 2 x forward, Narayanan et al. §5.1): the input and weight gradients of everything
// after the half's column-parallel GEMM (QKV: 6bsh^2 of attention's forward; FC1: 8bsh^2 of the
// MLP's), then that GEMM's input gradient, whose TP all-reduce runs while the compute stream does
// its weight gradient: Megatron-core LinearWithGradAccumulationAndAsyncCommunication.backward
// launches the all-reduce with async_op=True before the weight-gradient GEMM
// (tensor_parallel/layers.py, read through a code-search copy).
void Builder::backward_layer(std::vector<std::vector<uint32_t>>& front, int stage, int layer,
                             bool last) {
  const auto l = static_cast<uint32_t>(layer);
  const bool moe = is_moe(layer);
  const double b = s_.micro_batch, s = s_.seq_length, h = s_.hidden;
  for (int half = 0; half < 2; ++half) {
    const bool mlp = half == 0;
    const double flops = mlp ? mlp_forward_flops(s_, moe) : attention_forward_flops(s_);
    const double column =
        mlp ? 8.0 * b * s * h * h * (moe ? s_.moe_top_k : 1) : 6.0 * b * s * h * h;
    if (mlp && moe) ep_alltoall(front, stage, l);  // combine's backward
    compute_all(front, stage, flops - column, Phase::kInputGrad, l);
    compute_all(front, stage, flops - column, Phase::kWeightGrad, l);
    compute_all(front, stage, column, Phase::kInputGrad, l);
    std::vector<std::vector<uint32_t>> comm = front;  // the input gradient's chain
    std::vector<uint32_t> wgrad(front.size());
    for (int d = 0; d < dp_; ++d) {
      for (int t = 0; t < tp_; ++t) {
        wgrad[slot(d, t)] =
            compute(stage, d, t, column / tp_, Phase::kWeightGrad, l, front[slot(d, t)]);
      }
    }
    if (mlp && moe) ep_alltoall(comm, stage, l);  // dispatch's backward
    tp_allreduce(comm, stage, l);
    for (size_t i = 0; i < front.size(); ++i) {
      // Without communication the chain is the input-gradient op, which wgrad already follows.
      std::vector<uint32_t> next{wgrad[i]};
      if (comm[i] != front[i]) next.insert(next.end(), comm[i].begin(), comm[i].end());
      front[i] = std::move(next);
    }
    if (last) {
      Unit u;
      const int64_t hd = s_.hidden;
      if (mlp && moe) {
        // Experts of this rank: experts/ep FFNs of 8h^2 + 5h; layer norm 2h and router h.E stay
        // dense. All divided by tp (simplification: norms are replicated in Megatron).
        u.expert_params = int64_t{s_.moe_experts / ep_} * (8 * hd * hd + 5 * hd) / tp_;
        u.dense_params = (2 * hd + hd * s_.moe_experts) / tp_;
      } else if (mlp) {
        u.dense_params = (8 * hd * hd + 7 * hd) / tp_;  // h->4h->h weights and biases, layer norm
      } else {
        u.dense_params = (4 * hd * hd + 6 * hd) / tp_;  // QKV + projection with biases, layer norm
      }
      u.ready = wgrad;
      units_[stage].push_back(std::move(u));
    }
  }
}

void Builder::forward_block(int stage, int j) {
  auto& front = front_[stage];
  if (stage > 0) {
    for (size_t i = 0; i < front.size(); ++i)
      front[i].push_back(act_sent_[(stage - 1) * m_ + j][i]);
  }
  for (int i = 0; i < lps_; ++i) forward_layer(front, stage, stage * lps_ + i);
  if (stage == pp_ - 1) {
    // Output layer (logits): 2bshV (Narayanan §5.1), vocabulary split over tp.
    const double flops =
        2.0 * s_.micro_batch * s_.seq_length * s_.hidden * static_cast<double>(vocab_);
    compute_all(front, stage, flops, Phase::kForward, static_cast<uint32_t>(s_.layers));
  } else {
    auto& sent = act_sent_[stage * m_ + j];
    for (int d = 0; d < dp_; ++d) {
      for (int t = 0; t < tp_; ++t) {
        sent[slot(d, t)] = collective(
            CollOp::kSend, pp_bytes_, send_down_[stage][slot(d, t)], Phase::kPipelineParallel,
            static_cast<uint32_t>(stage * lps_ + lps_ - 1), front[slot(d, t)]);
      }
    }
  }
}

void Builder::backward_block(int stage, int j) {
  auto& front = front_[stage];
  const bool last = j == m_ - 1;
  if (stage < pp_ - 1) {
    for (size_t i = 0; i < front.size(); ++i)
      front[i].push_back(grad_sent_[(stage + 1) * m_ + j][i]);
  } else {
    const double flops =
        2.0 * s_.micro_batch * s_.seq_length * s_.hidden * static_cast<double>(vocab_);
    compute_all(front, stage, flops, Phase::kInputGrad, static_cast<uint32_t>(s_.layers));
    compute_all(front, stage, flops, Phase::kWeightGrad, static_cast<uint32_t>(s_.layers));
  }
  for (int i = lps_ - 1; i >= 0; --i) {
    const int layer = stage * lps_ + i;
    if (s_.recompute) forward_layer(front, stage, layer);
    backward_layer(front, stage, layer, last);
  }
  if (stage > 0) {
    auto& sent = grad_sent_[stage * m_ + j];
    for (int d = 0; d < dp_; ++d) {
      for (int t = 0; t < tp_; ++t) {
        sent[slot(d, t)] = collective(CollOp::kSend, pp_bytes_, send_up_[stage][slot(d, t)],
                                      Phase::kPipelineParallel, static_cast<uint32_t>(stage * lps_),
                                      front[slot(d, t)]);
      }
    }
  }
  if (last && (stage == 0 || stage == pp_ - 1)) {
    // Word embeddings V.h/tp (tied with the output layer: a copy on the first and last stage)
    // and, on the first stage, position embeddings s.h: registered first in the model, so
    // Megatron's reversed bucket order makes them the last unit; ready at the end of backward.
    Unit u;
    u.dense_params = vocab_ * s_.hidden / tp_;
    if (stage == 0) u.dense_params += int64_t{s_.seq_length} * s_.hidden / tp_;
    for (const auto& f : front) u.ready.push_back(f.front());
    units_[stage].push_back(std::move(u));
  }
}

// DP gradient reduction: buckets of >= bucket_params parameters filled in backward order and
// all-reduced as soon as their last unit's gradient exists on every rank of the group (Megatron-
// core DistributedDataParallel, overlap_grad_reduce); the optimizer waits for all of them.
void Builder::gradients_and_update() {
  int64_t bucket = s_.bucket_params > 0 ? s_.bucket_params
                                        : std::max<int64_t>(40'000'000, int64_t{1'000'000} * dp_);
  if (!s_.overlap_grad_reduce) bucket = INT64_MAX;  // Megatron: bucket_size None = one bucket
  out_.bucket_params = s_.overlap_grad_reduce ? bucket : 0;
  const int edp = dp_ / ep_;
  out_.stage_dense_params.assign(pp_, 0);
  out_.stage_expert_params.assign(pp_, 0);
  // [stage][slot]: the gradient collectives the rank's optimizer waits for.
  std::vector<std::vector<std::vector<uint32_t>>> reduce_of(
      pp_, std::vector<std::vector<uint32_t>>(dp_ * tp_));
  for (int st = 0; st < pp_; ++st) {
    auto& reduce = reduce_of[st];
    const auto& units = units_[st];
    const auto& end = front_[st];
    // Dense buckets over the DP group (per t), expert buckets over expert-DP (per t, e).
    for (int expert = 0; expert < 2; ++expert) {
      const int reducers = expert ? edp : dp_;
      int64_t filled = 0;
      for (size_t u = 0; u < units.size(); ++u) {
        const int64_t params = expert ? units[u].expert_params : units[u].dense_params;
        filled += params;
        (expert ? out_.stage_expert_params : out_.stage_dense_params)[st] += params;
        const bool close = filled > 0 && (filled >= bucket || u + 1 == units.size());
        if (!close) continue;
        if (reducers > 1) {
          const int groups = expert ? ep_ : 1;
          for (int t = 0; t < tp_; ++t) {
            for (int e = 0; e < groups; ++e) {
              std::vector<uint32_t> after;
              std::vector<uint32_t> slots;
              for (int k = 0; k < reducers; ++k) {
                const int d = expert ? e + ep_ * k : k;
                const uint32_t sl = slot(d, t);
                slots.push_back(sl);
                // Without overlap the single bucket waits for the whole backward.
                if (s_.overlap_grad_reduce) {
                  after.push_back(units[u].ready[sl]);
                } else {
                  for (uint32_t op : end[sl]) after.push_back(op);
                }
              }
              const uint32_t g = expert ? edp_group_[st][t * ep_ + e] : dp_group_[st][t];
              const uint32_t c = collective(CollOp::kAllReduce, filled * s_.grad_bytes, g,
                                            Phase::kDataParallel, 0, after);
              for (uint32_t sl : slots) reduce[sl].push_back(c);
            }
          }
        }
        filled = 0;
      }
    }
  }
  // Tied word embeddings with pp > 1: after the DP reduction (finish_grad_sync) the first and
  // last stage all-reduce the embedding's gradient, V.h/tp elements of grad_bytes (Megatron-core
  // finalize_model_grads.py _allreduce_word_embedding_grads over the embedding group). Counted
  // as pipeline-parallel communication.
  if (pp_ > 1) {
    for (int d = 0; d < dp_; ++d) {
      for (int t = 0; t < tp_; ++t) {
        const uint32_t sl = slot(d, t);
        std::vector<uint32_t> after;
        for (int st : {0, pp_ - 1}) {
          for (uint32_t op : front_[st][sl]) after.push_back(op);
          for (uint32_t op : reduce_of[st][sl]) after.push_back(op);
        }
        const uint32_t c = collective(CollOp::kAllReduce, vocab_ * s_.hidden / tp_ * s_.grad_bytes,
                                      embedding_group_[sl], Phase::kPipelineParallel,
                                      static_cast<uint32_t>(s_.layers), after);
        reduce_of[0][sl].push_back(c);
        reduce_of[pp_ - 1][sl].push_back(c);
      }
    }
  }
  for (int st = 0; st < pp_; ++st) {
    for (int d = 0; d < dp_; ++d) {
      for (int t = 0; t < tp_; ++t) {
        std::vector<uint32_t> after = front_[st][slot(d, t)];
        for (uint32_t c : reduce_of[st][slot(d, t)]) after.push_back(c);
        dag_.add_compute(rank(t, d, st), s_.optimizer_ps, Phase::kUpdate,
                         static_cast<uint32_t>(s_.layers + 1), after);
      }
    }
  }
}

// 1F1B per stage (Narayanan et al. 2021 §2.2; Megatron-core schedules.py
// forward_backward_pipelining_without_interleaving): min(pp - 1 - stage, m) warm-up forwards,
// then alternate one forward and one backward, then the remaining backwards. Blocks are emitted
// in an order where each one's cross-stage input already exists.
void Builder::build() {
  make_groups();
  front_.assign(pp_, std::vector<std::vector<uint32_t>>(dp_ * tp_));
  act_sent_.assign(pp_ * m_, std::vector<uint32_t>(dp_ * tp_, kNone));
  grad_sent_.assign(pp_ * m_, std::vector<uint32_t>(dp_ * tp_, kNone));
  units_.assign(pp_, {});
  std::vector<std::vector<std::pair<bool, int>>> order(pp_);  // (backward?, micro-batch)
  for (int st = 0; st < pp_; ++st) {
    const int warm = std::min(pp_ - 1 - st, m_);
    for (int j = 0; j < warm; ++j) order[st].push_back({false, j});
    for (int i = 0; i < m_ - warm; ++i) {
      order[st].push_back({false, warm + i});
      order[st].push_back({true, i});
    }
    for (int j = m_ - warm; j < m_; ++j) order[st].push_back({true, j});
  }
  std::vector<size_t> next(pp_, 0);
  std::vector<std::vector<bool>> fwd_done(pp_, std::vector<bool>(m_, false));
  std::vector<std::vector<bool>> bwd_done(pp_, std::vector<bool>(m_, false));
  for (bool progress = true; progress;) {
    progress = false;
    for (int st = 0; st < pp_; ++st) {
      while (next[st] < order[st].size()) {
        const auto [backward, j] = order[st][next[st]];
        const bool ready =
            backward ? (st == pp_ - 1 || bwd_done[st + 1][j]) : (st == 0 || fwd_done[st - 1][j]);
        if (!ready) break;
        if (backward) {
          backward_block(st, j);
          bwd_done[st][j] = true;
        } else {
          forward_block(st, j);
          fwd_done[st][j] = true;
        }
        ++next[st];
        progress = true;
      }
    }
  }
  gradients_and_update();
  out_.op_flops.resize(dag_.ops.size(), 0.0);
}

}  // namespace

TransformerStep make_transformer_step(const TransformerSpec& spec, uint32_t gpus) {
  check_transformer(spec, gpus);
  TransformerStep out;
  Builder(spec, gpus, out).build();
  return out;
}

}  // namespace fabricsim::workload
