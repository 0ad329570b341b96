// The ASTRA-sim / SimAI importer's DAG builder (internal to workload/astra_import.cpp): who takes
// part in a collective (Scope, Layout, partition) and the rank-by-rank program builder. One
// Builder per pipeline stage when the file has pp > 1 (its ranks offset by the stage's base).
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "workload/astra_import.h"
#include "workload/dag.h"

namespace fabricsim::workload::astra_detail {

// Who takes part in a collective. kMp / kDp are the policy's two dimensions; kAll is every GPU.
enum class Scope : uint8_t { kAll, kMp, kDp, kEp, kDpEp };

struct Layout {
  uint32_t gpus = 0;
  uint32_t inner = 1;       // size of the consecutive-rank dimension
  bool inner_is_mp = true;  // which of MP / DP is the consecutive one
  uint32_t tp = 1, ep = 0;  // SimAI: tp = model_parallel_NPU_group, ep = `ep:` (0 = not given)
};

// Rank sets, in communicator rank order.
inline std::vector<std::vector<uint32_t>> partition(const Layout& l, Scope s) {
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

  // `base`: the job rank of this builder's rank 0 (a pipeline stage's first rank; 0 without
  // pipeline parallelism). Ranks below are the stage's, 0 .. layout.gpus - 1.
  Builder(Dag* dag, const Layout& layout, const AstraOptions& opt, uint32_t base = 0)
      : dag_(dag),
        layout_(layout),
        opt_(opt),
        base_(base),
        tail_(layout.gpus, -1),
        pending_(layout.gpus) {}

  void compute(Phase phase, uint32_t layer, int64_t duration_ps) {
    if (duration_ps == 0) return;  // ASTRA-sim waits 0 cycles: nothing to run
    for (uint32_t r = 0; r < layout_.gpus; ++r) {
      tail_[r] = dag_->add_compute(base_ + r, duration_ps, phase, layer, take_deps(r));
    }
  }

  // Pipeline links: the op that ends rank r's program so far (-1 = none), and an op (another
  // stage's send) its next op must also wait for.
  int64_t tail(uint32_t r) const { return tail_[r]; }
  void also_wait(uint32_t r, uint32_t op) { pending_[r].push_back(op); }
  uint32_t base() const { return base_; }

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
      for (uint32_t job_rank : dag_->groups[gi]) {
        const uint32_t r = job_rank - base_;
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
      for (uint32_t job_rank : dag_->groups[gi]) {
        const uint32_t r = job_rank - base_;
        int64_t end = coll;
        if (delay_ps > 0)
          end = dag_->add_compute(job_rank, delay_ps, Phase::kUpdate, layer, {coll});
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
      for (auto& ranks : partition(layout_, s)) {
        for (uint32_t& r : ranks) r += base_;
        ids.push_back(dag_->add_group(std::move(ranks)));
      }
    }
    return ids;
  }

  Dag* dag_;
  Layout layout_;
  const AstraOptions& opt_;
  uint32_t base_ = 0;
  std::vector<int64_t> tail_;
  std::vector<std::vector<uint32_t>> pending_;
  std::vector<uint32_t> group_ids_[5];
};

}  // namespace fabricsim::workload::astra_detail
