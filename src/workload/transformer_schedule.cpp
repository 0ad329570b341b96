// The pipeline schedules the transformer generator runs per stage (1F1B and interleaved 1F1B)
// and the MoE routing shares of an imbalanced router (workload/transformer.h). Pure functions of
// the spec: transformer.cpp turns them into DAG ops.
#include <algorithm>

#include "workload/transformer.h"

namespace fabricsim::workload {

// Non-interleaved (v = 1): min(p - 1 - s, m) warm-up forwards, then one forward and one backward
// alternately, then the remaining backwards (Narayanan et al. SC'21 §2.2.1; Megatron-core
// schedules.py forward_backward_pipelining_without_interleaving: num_warmup_microbatches =
// pipeline_parallel_size - pipeline_parallel_rank - 1).
//
// Interleaved (v > 1), Megatron-core forward_backward_pipelining_with_interleaving, read in a
// code-search copy of schedules.py: m x v virtual micro-batches; warm-up (p - s - 1) x 2 +
// (v - 1) x p of them (all of them when m = p), capped at m x v; virtual micro-batch k runs
// model chunk (k mod p v) / p (backward: v - 1 minus that) on micro-batch (k / p v) x p + k mod p.
std::vector<PipelineBlock> pipeline_schedule(int pp, int virtual_stages, int micro_batches,
                                             int stage) {
  std::vector<PipelineBlock> order;
  const int p = pp, v = virtual_stages, m = micro_batches;
  if (v <= 1) {
    const int warm = std::min(p - 1 - stage, m);
    for (int j = 0; j < warm; ++j) order.push_back({false, 0, j});
    for (int i = 0; i < m - warm; ++i) {
      order.push_back({false, 0, warm + i});
      order.push_back({true, 0, i});
    }
    for (int j = m - warm; j < m; ++j) order.push_back({true, 0, j});
    return order;
  }
  const int total = m * v;
  const int warm = m == p ? total : std::min((p - stage - 1) * 2 + (v - 1) * p, total);
  auto block = [&](int k, bool backward) {
    const int in_group = k % (p * v);
    int chunk = in_group / p;
    if (backward) chunk = v - 1 - chunk;
    return PipelineBlock{backward, chunk, (k / (p * v)) * p + k % p};
  };
  for (int k = 0; k < warm; ++k) order.push_back(block(k, false));
  for (int i = 0; i < total - warm; ++i) {
    order.push_back(block(warm + i, false));
    order.push_back(block(i, true));
  }
  for (int k = total - warm; k < total; ++k) order.push_back(block(k, true));
  return order;
}

// With E experts, top_k k and imbalance f: an expert's mean load is a fraction 1/E of the routed
// token copies; the hottest gets f/E, each other (1 - f/E)/(E - 1). The EP rank holding the
// hottest (expert 0: the first of rank 0's E/ep experts, Megatron-core's contiguous expert
// placement) receives f/E + (E/ep - 1)(1 - f/E)/(E - 1); every other rank E/ep of the others.
MoeShares moe_rank_shares(const TransformerSpec& spec) {
  const int ep = std::max(spec.ep, 1);
  if (spec.moe_experts <= 1 || spec.moe_imbalance <= 1 || ep == 1) {
    return {1.0 / ep, 1.0 / ep};
  }
  const double e = spec.moe_experts, f = spec.moe_imbalance, local = e / ep;
  const double other_expert = (1.0 - f / e) / (e - 1.0);
  return {f / e + (local - 1.0) * other_expert, local * other_expert};
}

}  // namespace fabricsim::workload
