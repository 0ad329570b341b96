#include "workload/transformer.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "core/error.h"
#include "workload/transformer_builder.h"

namespace fabricsim::workload {

namespace transformer_detail {

Builder::Builder(const TransformerSpec& spec, uint32_t gpus, TransformerStep& out)
    : s_(spec), out_(out), dag_(out.dag) {
  tp_ = spec.tp;
  pp_ = spec.pp;
  dp_ = derived_dp(spec, gpus);
  ep_ = spec.ep;
  v_ = spec.virtual_stages;
  sp_ = spec.sequence_parallel && tp_ > 1;  // Megatron turns it off at tp 1 (nothing to split)
  m_ = spec.global_batch > 0 ? spec.global_batch / (spec.micro_batch * dp_) : spec.micro_batches;
  lpv_ = spec.layers / (pp_ * v_);
  const int64_t mult = int64_t{spec.vocab_divisible_by} * tp_;
  vocab_ = (spec.vocab + mult - 1) / mult * mult;
  ps_per_flop_ = 1.0 / (peak_tflops(spec) * spec.efficiency);  // 1e12 ps/s / 1e12 FLOP/TFLOP
  const int64_t bsh = int64_t{spec.micro_batch} * spec.seq_length * spec.hidden;
  tp_bytes_ = bsh * spec.bytes_per_element;
  pp_bytes_ = bsh * spec.bytes_per_element / tp_;
  ep_bytes_ = bsh * spec.moe_top_k * spec.bytes_per_element / tp_;
  moe_ = moe_rank_shares(spec);
  out.dp = dp_;
  out.micro_batches = m_;
  out.vocab_padded = vocab_;
  out.virtual_stages = v_;
  dag_.ranks = static_cast<uint32_t>(tp_ * pp_ * dp_);
  dag_.name = "transformer";
}

uint32_t Builder::compute(int stage, int d, int t, double flops, Phase phase, uint32_t layer,
                          const std::vector<uint32_t>& after) {
  const auto ps = static_cast<int64_t>(std::llround(flops * ps_per_flop_));
  const uint32_t id = dag_.add_compute(rank(t, d, stage), ps, phase, layer, after);
  out_.op_flops.resize(dag_.ops.size(), 0.0);
  out_.op_flops[id] = flops;
  return id;
}

uint32_t Builder::collective(CollOp op, int64_t bytes, uint32_t group, Phase phase, uint32_t layer,
                             const std::vector<uint32_t>& after) {
  DagCollective c;
  c.op = op;
  c.size_bytes = bytes;
  c.group = group;
  return dag_.add_collective(c, phase, layer, after);
}

void Builder::compute_all(Front& front, int stage, double flops, Phase phase, uint32_t layer,
                          bool moe) {
  const bool skewed = moe && ep_ > 1 && moe_.hot != moe_.other;
  for (int d = 0; d < dp_; ++d) {
    // An EP rank's expert compute scales with the tokens routed to it: share x ep of the mean.
    const double scale = !skewed ? 1.0 : (d % ep_ == 0 ? moe_.hot : moe_.other) * ep_;
    for (int t = 0; t < tp_; ++t) {
      auto& f = front[slot(d, t)];
      f = {compute(stage, d, t, flops * scale / tp_, phase, layer, f)};
    }
  }
}

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
  // Interleaving: the last stage's chunk c feeds the first stage's chunk c + 1, and back.
  if (v_ > 1) {
    for (int d = 0; d < dp_; ++d) {
      for (int t = 0; t < tp_; ++t) {
        send_down_[pp_ - 1][slot(d, t)] = dag_.add_group({rank(t, d, pp_ - 1), rank(t, d, 0)});
        send_up_[0][slot(d, t)] = dag_.add_group({rank(t, d, 0), rank(t, d, pp_ - 1)});
      }
    }
  }
  if (ep_ > 1 && moe_.hot != moe_.other) {
    to_hot_.assign(pp_, {});
    from_hot_.assign(pp_, {});
    for (int st = 0; st < pp_; ++st) {
      for (int t = 0; t < tp_; ++t) {
        for (int k = 0; k < edp; ++k) {
          for (int i = 0; i < ep_; ++i) {
            const uint32_t hot = rank(t, ep_ * k, st), r = rank(t, i + ep_ * k, st);
            to_hot_[st].push_back(i == 0 ? kNone : dag_.add_group({r, hot}));
            from_hot_[st].push_back(i == 0 ? kNone : dag_.add_group({hot, r}));
          }
        }
      }
    }
  }
}

// Without sequence parallelism the TP all-reduces of Shoeybi et al. 2019 §3 (f/g operators);
// with it, Korthikanti et al. 2022 §4.2.2: each becomes an all-gather (g) before the
// column-parallel GEMM and a reduce-scatter (g-bar) after the row-parallel one, each of the
// whole b.s.h tensor (nccl-tests size): "four all-gathers and four reduce-scatters" per layer
// instead of four all-reduces, the same bytes on the wire (a ring all-reduce is a
// reduce-scatter followed by an all-gather).
void Builder::tp_collective(Front& front, int stage, uint32_t layer, CollOp op) {
  if (tp_ == 1) return;
  for (int d = 0; d < dp_; ++d) {
    std::vector<uint32_t> after;
    for (int t = 0; t < tp_; ++t) {
      for (uint32_t op_id : front[slot(d, t)]) after.push_back(op_id);
    }
    const uint32_t c =
        collective(op, tp_bytes_, tp_group_[stage][d], Phase::kTensorParallel, layer, after);
    for (int t = 0; t < tp_; ++t) front[slot(d, t)] = {c};
  }
}

// The EP group's all-to-all: each rank sends its b.s.top_k.h/tp routed token copies, (ep-1)/ep
// of them to other ranks under balanced routing (Megatron-core MoEAlltoAllTokenDispatcher:
// the tokens after permutation, split by destination rank; gpu-node.md §5). Imbalanced: every
// rank sends each peer its `other` share in the all-to-all, and the hot rank's excess
// (hot - other) of the routed bytes as a send of its own (the all-to-allv NCCL runs as one
// group of sends and receives; here the even part and the excess).
void Builder::ep_alltoall(Front& front, int stage, uint32_t layer, bool to_hot) {
  if (ep_ == 1) return;
  const int edp = dp_ / ep_;
  const bool skewed = moe_.hot != moe_.other;
  const int64_t even_bytes = skewed ? std::llround(moe_.other * ep_ * ep_bytes_) : ep_bytes_;
  const int64_t excess_bytes = skewed ? std::llround((moe_.hot - moe_.other) * ep_bytes_) : 0;
  for (int t = 0; t < tp_; ++t) {
    for (int k = 0; k < edp; ++k) {
      std::vector<uint32_t> after;
      for (int i = 0; i < ep_; ++i) {
        for (uint32_t op : front[slot(i + ep_ * k, t)]) after.push_back(op);
      }
      std::vector<uint32_t> done{collective(CollOp::kAllToAll, even_bytes,
                                            ep_group_[stage][t * edp + k], Phase::kExpertParallel,
                                            layer, after)};
      if (skewed) {
        const auto& groups = to_hot ? to_hot_[stage] : from_hot_[stage];
        for (int i = 1; i < ep_; ++i) {
          done.push_back(collective(CollOp::kSend, excess_bytes, groups[(t * edp + k) * ep_ + i],
                                    Phase::kExpertParallel, layer, after));
        }
      }
      for (int i = 0; i < ep_; ++i) front[slot(i + ep_ * k, t)] = done;
    }
  }
}

void Builder::forward_layer(Front& front, int stage, int layer) {
  const auto l = static_cast<uint32_t>(layer);
  if (sp_) tp_collective(front, stage, l, CollOp::kAllGather);
  compute_all(front, stage, attention_forward_flops(s_), Phase::kForward, l);
  tp_collective(front, stage, l, sp_ ? CollOp::kReduceScatter : CollOp::kAllReduce);
  const bool moe = is_moe(layer);
  if (sp_) tp_collective(front, stage, l, CollOp::kAllGather);
  if (moe) ep_alltoall(front, stage, l, true);  // dispatch
  compute_all(front, stage, mlp_forward_flops(s_, moe), Phase::kForward, l, moe);
  if (moe) ep_alltoall(front, stage, l, false);  // combine
  tp_collective(front, stage, l, sp_ ? CollOp::kReduceScatter : CollOp::kAllReduce);
}

// Backward of one layer, per half (MLP, then attention), each pass taking the forward's FLOPs
// (backward = 2 x forward, Narayanan et al. §5.1): the input and weight gradients of everything
// after the half's column-parallel GEMM (QKV, FC1), then that GEMM's input gradient, whose TP
// all-reduce (reduce-scatter with sequence parallelism) runs while the compute stream does its
// weight gradient: Megatron-core LinearWithGradAccumulationAndAsyncCommunication.backward
// launches it with async_op=True before the weight-gradient GEMM (tensor_parallel/layers.py,
// read through a code-search copy). With sequence parallelism the half starts with the
// all-gather of the output gradient (the backward of the forward's reduce-scatter).
void Builder::backward_layer(Front& front, int stage, int layer, bool last) {
  const auto l = static_cast<uint32_t>(layer);
  const bool moe = is_moe(layer);
  for (int half = 0; half < 2; ++half) {
    const bool mlp = half == 0;
    const double flops = mlp ? mlp_forward_flops(s_, moe) : attention_forward_flops(s_);
    const double column = mlp ? mlp_column_flops(s_, moe) : attention_column_flops(s_);
    const bool experts = mlp && moe;
    if (sp_) tp_collective(front, stage, l, CollOp::kAllGather);
    if (experts) ep_alltoall(front, stage, l, true);  // combine's backward
    compute_all(front, stage, flops - column, Phase::kInputGrad, l, experts);
    compute_all(front, stage, flops - column, Phase::kWeightGrad, l, experts);
    compute_all(front, stage, column, Phase::kInputGrad, l, experts);
    Front comm = front;  // the input gradient's chain
    const Front before_wgrad = front;
    std::vector<uint32_t> wgrad(front.size());
    {
      Front w = front;
      compute_all(w, stage, column, Phase::kWeightGrad, l, experts);
      for (size_t i = 0; i < w.size(); ++i) wgrad[i] = w[i].front();
    }
    if (experts) ep_alltoall(comm, stage, l, false);  // dispatch's backward
    tp_collective(comm, stage, l, sp_ ? CollOp::kReduceScatter : CollOp::kAllReduce);
    for (size_t i = 0; i < front.size(); ++i) {
      // Without communication the chain is the input-gradient op, which wgrad already follows.
      std::vector<uint32_t> next{wgrad[i]};
      if (comm[i] != before_wgrad[i]) next.insert(next.end(), comm[i].begin(), comm[i].end());
      front[i] = std::move(next);
    }
    if (last) {
      Unit u;
      const int64_t hd = s_.hidden;
      if (experts) {
        // Experts of this rank: experts/ep FFNs; layer norm 2h and router h.E stay dense. All
        // divided by tp (simplification: norms are replicated in Megatron).
        u.expert_params = int64_t{s_.moe_experts / ep_} * expert_params(s_) / tp_;
        u.dense_params = (2 * hd + hd * s_.moe_experts) / tp_;
      } else {
        u.dense_params = (mlp ? mlp_params(s_) : attention_params(s_)) / tp_;
      }
      u.ready = wgrad;
      units_[stage].push_back(std::move(u));
    }
  }
}

// Model chunk `chunk` of `stage` is virtual stage chunk x pp + stage, holding layers
// [vstage x lpv, (vstage + 1) x lpv) (Megatron-core: chunk c of pipeline rank s has layer offset
// c x l/v + s x l/(p v)).
void Builder::forward_block(int stage, int chunk, int j) {
  auto& front = front_[stage];
  const int vs = chunk * pp_ + stage;
  if (vs > 0) {
    for (size_t i = 0; i < front.size(); ++i) front[i].push_back(act_sent_[(vs - 1) * m_ + j][i]);
  }
  for (int i = 0; i < lpv_; ++i) forward_layer(front, stage, vs * lpv_ + i);
  if (vs == pp_ * v_ - 1) {
    // Output layer (logits): 2bshV (Narayanan §5.1), vocabulary split over tp.
    const double flops =
        2.0 * s_.micro_batch * s_.seq_length * s_.hidden * static_cast<double>(vocab_);
    compute_all(front, stage, flops, Phase::kForward, static_cast<uint32_t>(s_.layers));
  } else {
    auto& sent = act_sent_[vs * m_ + j];
    for (int d = 0; d < dp_; ++d) {
      for (int t = 0; t < tp_; ++t) {
        sent[slot(d, t)] = collective(
            CollOp::kSend, pp_bytes_, send_down_[stage][slot(d, t)], Phase::kPipelineParallel,
            static_cast<uint32_t>(vs * lpv_ + lpv_ - 1), front[slot(d, t)]);
      }
    }
  }
}

void Builder::backward_block(int stage, int chunk, int j) {
  auto& front = front_[stage];
  const bool last = j == m_ - 1;
  const int vs = chunk * pp_ + stage;
  if (vs < pp_ * v_ - 1) {
    for (size_t i = 0; i < front.size(); ++i) front[i].push_back(grad_sent_[(vs + 1) * m_ + j][i]);
  } else {
    const double flops =
        2.0 * s_.micro_batch * s_.seq_length * s_.hidden * static_cast<double>(vocab_);
    compute_all(front, stage, flops, Phase::kInputGrad, static_cast<uint32_t>(s_.layers));
    compute_all(front, stage, flops, Phase::kWeightGrad, static_cast<uint32_t>(s_.layers));
  }
  for (int i = lpv_ - 1; i >= 0; --i) {
    const int layer = vs * lpv_ + i;
    if (s_.recompute) forward_layer(front, stage, layer);
    backward_layer(front, stage, layer, last);
  }
  if (vs > 0) {
    auto& sent = grad_sent_[vs * m_ + j];
    for (int d = 0; d < dp_; ++d) {
      for (int t = 0; t < tp_; ++t) {
        sent[slot(d, t)] = collective(CollOp::kSend, pp_bytes_, send_up_[stage][slot(d, t)],
                                      Phase::kPipelineParallel, static_cast<uint32_t>(vs * lpv_),
                                      front[slot(d, t)]);
      }
    }
  }
  if (last && (vs == 0 || vs == pp_ * v_ - 1)) {
    // Word embeddings V.h/tp (tied with the output layer: a copy on the first and last stage;
    // untied, the input table on the first and the output layer's own on the last) and, on the
    // first stage, position embeddings s.h: registered first in the model, so Megatron's reversed
    // bucket order makes them the last unit; ready at the end of backward.
    Unit u;
    u.dense_params = vocab_ * s_.hidden / tp_;
    if (vs == 0) u.dense_params += int64_t{s_.seq_length} * s_.hidden / tp_;
    for (const auto& f : front) u.ready.push_back(f.front());
    units_[stage].push_back(std::move(u));
  }
  // Each model chunk has its own DDP grad buffer (Megatron-core wraps every chunk in a
  // DistributedDataParallel): its buckets end with its last unit.
  if (last && !units_[stage].empty()) units_[stage].back().chunk_end = true;
}

// Per stage, the blocks of pipeline_schedule() (1F1B, or interleaved with virtual_stages > 1),
// emitted in an order where each one's cross-stage input already exists.
void Builder::build() {
  make_groups();
  front_.assign(pp_, Front(dp_ * tp_));
  act_sent_.assign(pp_ * v_ * m_, std::vector<uint32_t>(dp_ * tp_, kNone));
  grad_sent_.assign(pp_ * v_ * m_, std::vector<uint32_t>(dp_ * tp_, kNone));
  units_.assign(pp_, {});
  std::vector<std::vector<PipelineBlock>> order(pp_);
  for (int st = 0; st < pp_; ++st) order[st] = pipeline_schedule(pp_, v_, m_, st);
  const int vstages = pp_ * v_;
  std::vector<size_t> next(pp_, 0);
  std::vector<std::vector<bool>> fwd_done(vstages, std::vector<bool>(m_, false));
  std::vector<std::vector<bool>> bwd_done(vstages, std::vector<bool>(m_, false));
  for (bool progress = true; progress;) {
    progress = false;
    for (int st = 0; st < pp_; ++st) {
      while (next[st] < order[st].size()) {
        const PipelineBlock blk = order[st][next[st]];
        const int vs = blk.chunk * pp_ + st, j = blk.micro_batch;
        const bool ready = blk.backward ? (vs == vstages - 1 || bwd_done[vs + 1][j])
                                        : (vs == 0 || fwd_done[vs - 1][j]);
        if (!ready) break;
        if (blk.backward) {
          backward_block(st, blk.chunk, j);
          bwd_done[vs][j] = true;
        } else {
          forward_block(st, blk.chunk, j);
          fwd_done[vs][j] = true;
        }
        ++next[st];
        progress = true;
      }
    }
  }
  for (int st = 0; st < pp_; ++st) {
    if (next[st] != order[st].size()) {
      throw std::logic_error("transformer: pipeline schedule of stage " + std::to_string(st) +
                             " cannot proceed");
    }
  }
  gradients_and_update();
  out_.op_flops.resize(dag_.ops.size(), 0.0);
}

}  // namespace transformer_detail

TransformerStep make_transformer_step(const TransformerSpec& spec, uint32_t gpus) {
  check_transformer(spec, gpus);
  TransformerStep out;
  transformer_detail::Builder(spec, gpus, out).build();
  return out;
}

}  // namespace fabricsim::workload
