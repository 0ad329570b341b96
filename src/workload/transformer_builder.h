// The transformer generator's DAG builder (internal to workload/transformer*.cpp): one object
// per make_transformer_step call. transformer.cpp builds the layers, pipeline blocks and
// schedule; transformer_grads.cpp the data-parallel gradient reduction and the optimizer.
#pragma once

#include <cstdint>
#include <vector>

#include "workload/dag.h"
#include "workload/transformer.h"

namespace fabricsim::workload::transformer_detail {

inline constexpr uint32_t kNone = UINT32_MAX;

// `front[stage][d * tp + t]` holds the ops the rank's next op in its schedule depends on.
using Front = std::vector<std::vector<uint32_t>>;

class Builder {
 public:
  Builder(const TransformerSpec& spec, uint32_t gpus, TransformerStep& out);
  void build();

 private:
  uint32_t rank(int t, int d, int stage) const {
    return static_cast<uint32_t>(t + tp_ * (d + dp_ * stage));
  }
  // Megatron-core's --moe-layer-freq k: layers 0, k, 2k, ... (0-based) are MoE (UNVERIFIED:
  // from memory of its layer-pattern list).
  bool is_moe(int layer) const { return s_.moe_experts > 0 && layer % s_.moe_every == 0; }
  uint32_t slot(int d, int t) const { return static_cast<uint32_t>(d * tp_ + t); }
  int virtual_stages() const { return v_; }

  void make_groups();
  uint32_t compute(int stage, int d, int t, double flops, Phase phase, uint32_t layer,
                   const std::vector<uint32_t>& after);
  uint32_t collective(CollOp op, int64_t bytes, uint32_t group, Phase phase, uint32_t layer,
                      const std::vector<uint32_t>& after);
  // All ranks of the stage run `flops / tp` after their front; `moe` scales it per EP rank by
  // its routed load (training.moe.imbalance).
  void compute_all(Front& front, int stage, double flops, Phase phase, uint32_t layer,
                   bool moe = false);
  // The TP group's collective of b.s.h elements after every rank of it reached it.
  void tp_collective(Front& front, int stage, uint32_t layer, CollOp op);
  // to_hot: tokens travel towards the experts (forward dispatch, combine's backward).
  void ep_alltoall(Front& front, int stage, uint32_t layer, bool to_hot);
  void forward_layer(Front& front, int stage, int layer);
  void backward_layer(Front& front, int stage, int layer, bool last);
  void forward_block(int stage, int chunk, int j);
  void backward_block(int stage, int chunk, int j);
  void gradients_and_update();

  const TransformerSpec& s_;
  TransformerStep& out_;
  Dag& dag_;
  int tp_ = 1, pp_ = 1, dp_ = 1, ep_ = 1, m_ = 1, v_ = 1;
  int lpv_ = 1;  // layers per virtual stage (model chunk)
  bool sp_ = false;
  int64_t vocab_ = 0;
  double ps_per_flop_ = 0;
  int64_t tp_bytes_ = 0, pp_bytes_ = 0, ep_bytes_ = 0;
  MoeShares moe_{};

  std::vector<std::vector<uint32_t>> tp_group_;   // [stage][d]
  std::vector<std::vector<uint32_t>> ep_group_;   // [stage][t * (dp/ep) + k]
  std::vector<std::vector<uint32_t>> dp_group_;   // [stage][t]
  std::vector<std::vector<uint32_t>> edp_group_;  // [stage][t * ep + e]
  std::vector<std::vector<uint32_t>> send_down_;  // [stage][slot]: stage -> stage + 1 (mod pp)
  std::vector<std::vector<uint32_t>> send_up_;    // [stage][slot]: stage -> stage - 1 (mod pp)
  std::vector<uint32_t> embedding_group_;         // [slot]: first and last stage (pp > 1)
  // Imbalanced MoE: [stage][(t * (dp/ep) + k) * ep + i]: EP rank i -> the hot rank 0, and back.
  std::vector<std::vector<uint32_t>> to_hot_, from_hot_;

  std::vector<Front> front_;                      // [stage][slot]
  std::vector<std::vector<uint32_t>> act_sent_;   // [vstage * m + j][slot]: activation sends
  std::vector<std::vector<uint32_t>> grad_sent_;  // [vstage * m + j][slot]: gradient sends
  // Last micro-batch: per stage, per slot, the op after which each gradient unit is ready, in
  // backward order (the order Megatron's DDP fills buckets), with its parameter counts.
  struct Unit {
    int64_t dense_params = 0;
    int64_t expert_params = 0;
    std::vector<uint32_t> ready;  // [slot]
    bool chunk_end = false;       // the model chunk's last unit: its own DDP buffer ends here
  };
  std::vector<std::vector<Unit>> units_;  // [stage]
};

}  // namespace fabricsim::workload::transformer_detail
