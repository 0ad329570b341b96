// SimAI workloads with pipeline parallelism (pp > 1, vpp): SimAI reads the file as one stage's
// step of ga micro-batches on all_gpus / pp GPUs and adds the pipeline analytically
// (astra-sim-alibabacloud/astra-sim/workload/Layer.cc: bubble = the stage's time x
// (pp - 1) / (ga x vpp); exposed PP = 2 x vpp x ga transfers of pp_comm bytes). The importer
// simulates it instead: pp copies of the stage, 1F1B (interleaved with vpp > 1), pp_comm-byte
// sends between consecutive virtual stages. Expectations derived here from those formulas.
//
//   GPUs 0-7 stage 0 | 8-15 stage 1 | 16-23 stage 2 | 24-31 stage 3   (tp 2 x dp 4 each)
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>

#include "astra_dag.h"
#include "core/error.h"

namespace fabricsim::workload::astra_test {
namespace astra_pipeline_test {

// AICB's layout of a SimAI file: the step's gradient records, ga runs of one micro-batch's
// layers (4 records of 100 cycles forward, input- and weight-gradient each; no update delay),
// then the loss and optimizer records.
std::string simai_text(int pp, int vpp, int ga, int64_t pp_comm) {
  std::string t = "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 2 ep: 1 pp: " +
                  std::to_string(pp) + " vpp: " + std::to_string(vpp) +
                  " ga: " + std::to_string(ga) + " all_gpus: " + std::to_string(8 * pp) +
                  " checkpoints: 0 checkpoint_initiates: 0 pp_comm " + std::to_string(pp_comm) +
                  "\n" + std::to_string(1 + 4 * ga + 1) + "\n";
  t += "grad_param_comm -1 0 NONE 0 0 NONE 0 0 ALLREDUCE 4096 0\n";
  for (int j = 0; j < ga; ++j) {
    t += "embedding_layer -1 100 NONE 0 100 NONE 0 100 NONE 0 0\n";
    t += "attention -1 100 ALLREDUCE 1024 100 ALLREDUCE 1024 100 NONE 0 0\n";
    t += "mlp -1 100 ALLREDUCE 1024 100 ALLREDUCE 1024 100 NONE 0 0\n";
    t += "final_column -1 100 NONE 0 100 NONE 0 100 NONE 0 0\n";
  }
  t += "optimizer -1 0 ALLREDUCE 4 0 NONE 0 0 NONE 0 0\n";
  return t;
}

TEST(AstraPipeline, PointToPointMessagesAreTwoPerMicroBatchAndVirtualStageBoundary) {
  for (int vpp : {1, 2}) {
    const int pp = 4, ga = 8;
    const Dag d =
        import_astra(write_temp("simai_pp", simai_text(pp, vpp, ga, 65536)), options(8 * pp));
    expect_well_formed(d);
    int64_t sends = 0;
    std::set<int> offsets;
    for (const Coll& c : collectives(d)) {
      if (c.op != CollOp::kSend) continue;
      ++sends;
      EXPECT_EQ(c.phase, Phase::kPipelineParallel);
      EXPECT_EQ(c.size, 65536) << "pp_comm bytes per message";
      ASSERT_EQ(c.ranks.size(), 2u);
      EXPECT_EQ(c.ranks[0] % 8, c.ranks[1] % 8) << "the same rank of the next stage";
      offsets.insert(static_cast<int>(c.ranks[1] / 8) - static_cast<int>(c.ranks[0] / 8));
    }
    // pp x vpp - 1 virtual-stage boundaries, each crossed by ga activations and ga gradients,
    // per rank of a stage (8): SimAI's 2 x vpp x ga transfers per GPU, less the ends.
    EXPECT_EQ(sends, 2 * ga * (pp * vpp - 1) * 8) << "vpp " << vpp;
    // Interleaving adds the wrap-around links between the last and the first stage.
    EXPECT_EQ(offsets.count(pp - 1) + offsets.count(-(pp - 1)), vpp > 1 ? 2u : 0u);
  }
}

TEST(AstraPipeline, EveryStageRunsTheFileOnItsOwnGpus) {
  const Dag d = import_astra(write_temp("simai_pp", simai_text(4, 2, 8, 4096)), options(32));
  // Every stage's rank computes the whole file: 8 micro-batches x 4 records x 100 cycles of
  // forward, input and weight gradient, at 1 ns per cycle.
  for (uint32_t r : {0u, 9u, 18u, 31u}) {
    EXPECT_EQ(compute_ps(d, r, Phase::kForward), 8 * 4 * 100'000) << "rank " << r;
    EXPECT_EQ(compute_ps(d, r, Phase::kInputGrad), 8 * 4 * 100'000) << "rank " << r;
  }
  // TP all-reduces stay within a stage's TP pairs; the DP reduction within its 4-rank groups.
  for (const Coll& c : collectives(d)) {
    if (c.op == CollOp::kSend) continue;
    for (uint32_t r : c.ranks) EXPECT_EQ(r / 8, c.ranks[0] / 8) << "inside one stage";
    if (c.phase == Phase::kTensorParallel) {
      EXPECT_EQ(c.ranks.size(), 2u);
    }
    if (c.size == 4096) {
      EXPECT_EQ(c.ranks.size(), 4u);
    }
  }
}

TEST(AstraPipeline, BubbleIsSimaisPMinusOneOverGaTimesVpp) {
  // Free communication: the step is ga micro-batches of the stage's compute plus the bubble
  // (pp - 1) / (ga x vpp) of it (Layer.cc; Narayanan et al. SC'21 §2.2.2).
  const int pp = 4, ga = 8;
  const int64_t per_mb = 4 * (100 + 100 + 100) * int64_t{1000};  // ps, forward + backward
  for (int vpp : {1, 2}) {
    const Dag d =
        import_astra(write_temp("simai_pp", simai_text(pp, vpp, ga, 4096)), options(8 * pp));
    const int64_t ideal = ga * per_mb;
    EXPECT_EQ(makespan(d, 0), ideal + (pp - 1) * per_mb / vpp) << "vpp " << vpp;
  }
}

TEST(AstraPipeline, OpsBoundCoversTheSends) {
  const std::string path = write_temp("simai_pp", simai_text(4, 2, 8, 4096));
  const Dag d = import_astra(path, options(32));
  EXPECT_GE(astra_ops_bound(path, options(32)), static_cast<int64_t>(d.ops.size()));
}

}  // namespace astra_pipeline_test
}  // namespace fabricsim::workload::astra_test
