// The transformer generator's data-parallel gradient reduction and optimizer step
// (workload/transformer_builder.h): Megatron-core DistributedDataParallel's buckets, all-reduced,
// or with the distributed optimizer reduce-scattered before and all-gathered after the step.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "workload/transformer_builder.h"

namespace fabricsim::workload::transformer_detail {

// DP gradient reduction: buckets of >= bucket_params parameters filled in backward order and
// reduced as soon as their last unit's gradient exists on every rank of the group (Megatron-
// core DistributedDataParallel, overlap_grad_reduce); the optimizer waits for all of them.
//
// Distributed optimizer (Megatron --use-distributed-optimizer; Megatron Core User Guide,
// "Distributed Optimizer", docs.nvidia.com/megatron-core/developer-guide/latest/
// distrib_optimizer.html: the contiguous grad buffer carries the reduce-scatter of the grads
// and the all-gather of the params; bf16 params with fp32 grads: 6 + 12/d bytes per parameter;
// ZeRO stage 1/2 of Rajbhandari et al. 2020, §7.2.1: reduce-scatter + all-gather moves what one
// all-reduce moves): each bucket is reduce-scattered in the gradient type (grad_bytes, fp32),
// each rank updates its 1/dp shard, then the bucket's parameters are all-gathered in the
// parameter type (bytes_per_element, bf16). The all-gathers run after the optimizer
// (overlap_param_gather off) and the step ends when they have: a zero-time kUpdate op per rank
// waits for them, so a next step starts only then.
void Builder::gradients_and_update() {
  int64_t bucket = s_.bucket_params > 0 ? s_.bucket_params
                                        : std::max<int64_t>(40'000'000, int64_t{1'000'000} * dp_);
  if (!s_.overlap_grad_reduce) bucket = INT64_MAX;  // Megatron: bucket_size None = one bucket
  out_.bucket_params = s_.overlap_grad_reduce ? bucket : 0;
  const bool distributed = s_.distributed_optimizer;
  const int edp = dp_ / ep_;
  out_.stage_dense_params.assign(pp_, 0);
  out_.stage_expert_params.assign(pp_, 0);
  // [stage][slot]: the gradient collectives the rank's optimizer waits for.
  std::vector<Front> reduce_of(pp_, Front(dp_ * tp_));
  struct Bucket {
    int stage = 0;
    int64_t params = 0;
    uint32_t group = 0;
    std::vector<uint32_t> slots;
  };
  std::vector<Bucket> buckets;  // the distributed optimizer's, for the parameter all-gathers
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
        const bool close = filled > 0 && (filled >= bucket || u + 1 == units.size() ||
                                          (units[u].chunk_end && s_.overlap_grad_reduce));
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
              const uint32_t c =
                  collective(distributed ? CollOp::kReduceScatter : CollOp::kAllReduce,
                             filled * s_.grad_bytes, g, Phase::kDataParallel, 0, after);
              for (uint32_t sl : slots) reduce[sl].push_back(c);
              if (distributed) buckets.push_back({st, filled, g, slots});
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
  // as pipeline-parallel communication. Untied, each stage reduces its own table over DP only.
  if (pp_ > 1 && !s_.untie_embeddings) {
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
  std::vector<Front> update(pp_, Front(dp_ * tp_));  // [stage][slot]: the optimizer op
  for (int st = 0; st < pp_; ++st) {
    for (int d = 0; d < dp_; ++d) {
      for (int t = 0; t < tp_; ++t) {
        std::vector<uint32_t> after = front_[st][slot(d, t)];
        for (uint32_t c : reduce_of[st][slot(d, t)]) after.push_back(c);
        update[st][slot(d, t)] = {dag_.add_compute(rank(t, d, st), s_.optimizer_ps, Phase::kUpdate,
                                                   static_cast<uint32_t>(s_.layers + 1), after)};
      }
    }
  }
  if (!distributed) return;
  std::vector<Front> gathered(pp_, Front(dp_ * tp_));
  for (const Bucket& b : buckets) {
    std::vector<uint32_t> after;
    for (uint32_t sl : b.slots) after.push_back(update[b.stage][sl].front());
    const uint32_t c =
        collective(CollOp::kAllGather, b.params * s_.bytes_per_element, b.group,
                   Phase::kDataParallel, static_cast<uint32_t>(s_.layers + 1), after);
    for (uint32_t sl : b.slots) gathered[b.stage][sl].push_back(c);
  }
  for (int st = 0; st < pp_; ++st) {
    for (int d = 0; d < dp_; ++d) {
      for (int t = 0; t < tp_; ++t) {
        const uint32_t sl = slot(d, t);
        if (gathered[st][sl].empty()) continue;
        std::vector<uint32_t> after = update[st][sl];
        after.insert(after.end(), gathered[st][sl].begin(), gathered[st][sl].end());
        dag_.add_compute(rank(t, d, st), 0, Phase::kUpdate, static_cast<uint32_t>(s_.layers + 1),
                         after);
      }
    }
  }
}

}  // namespace fabricsim::workload::transformer_detail
