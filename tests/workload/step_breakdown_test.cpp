// The step breakdown (workload/step_breakdown.h): step = compute + pipeline bubble + skew +
// exposed communication. Checked against the 1F1B bubble of Narayanan et al. SC'21 §2.2,
// (p-1)/(m+p-1) of the step on a network that takes no time, against hand-built DAGs whose
// attribution is worked out here, and for exact conservation (integer ps) on a TP x PP x DP step
// with costly communication. The runner is closed-form (training_fakes.h).
#include <gtest/gtest.h>

#include <cstdint>

#include "training_fakes.h"
#include "workload/step_breakdown.h"
#include "workload/training.h"
#include "workload/transformer.h"

namespace fabricsim::workload {
namespace step_breakdown_test {

using fakes::run_dag;

int64_t parts(const StepBreakdown& b) {
  return b.compute_ps + b.bubble_ps + b.skew_ps + b.exposed_comm_ps();
}

int64_t comm(const StepBreakdown& b, Phase parallelism, StepPhase phase) {
  return b.comm_ps[static_cast<int>(parallelism)][static_cast<int>(phase)];
}

// p stages, m micro-batches, one GPU per stage, 1 TFLOPS at efficiency 1 (1 FLOP = 1 ps, so
// every op's time is its FLOP count exactly). Communication is free (latency 0, 0 ps/byte): the
// ideal network's limit, where 1F1B's step is (m + p - 1)(f + b) for uniform stages.
TEST(StepBreakdown, OneFOneBBubbleIsNarayananFormula) {
  for (int p : {2, 4, 8}) {
    for (int m : {1, 4, 8, 32}) {
      TransformerSpec spec;
      spec.layers = 2 * p;
      spec.hidden = 1024;
      spec.heads = 8;
      spec.seq_length = 128;
      spec.vocab = 128;  // padded to 128: the output layer is ~0.5 % of a stage
      spec.micro_batch = 1;
      spec.micro_batches = m;
      spec.pp = p;
      spec.peak_tflops = 1.0;
      spec.efficiency = 1.0;
      const TransformerStep step = make_transformer_step(spec, static_cast<uint32_t>(p));
      const TrainingResult r = run_dag(step.dag, 0, 0);
      // Per stage (2 layers), FLOPs of Narayanan §5.1: a layer's forward 24bsh^2 + 4bs^2h,
      // backward twice that; the last stage adds the logits 2bshV forward, 4bshV backward.
      const double bs = 128, h = 1024, V = 128;
      const double f = 2 * (24 * bs * h * h + 4 * bs * 128 * h), b = 2 * f;
      const double fl = f + 2 * bs * h * V, bl = b + 4 * bs * h * V;
      ASSERT_EQ(r.critical_rank, static_cast<uint32_t>(p - 1))
          << "the last stage has the most compute (the logits)";
      const StepBreakdown& c = r.critical;
      EXPECT_EQ(c.compute_ps, static_cast<int64_t>(m * (fl + bl))) << "p " << p << " m " << m;
      // The last stage waits (p-1) forwards before its first and (p-1) backwards after its last
      // micro-batch, all compute on other stages: the bubble, exactly.
      EXPECT_EQ(c.bubble_ps, static_cast<int64_t>((p - 1) * (f + b))) << "p " << p << " m " << m;
      EXPECT_EQ(c.exposed_comm_ps(), 0) << "communication takes no time here";
      EXPECT_EQ(c.skew_ps, 0) << "one rank per stage";
      EXPECT_EQ(parts(c), r.step_ps);
      // The fraction against (p-1)/(m+p-1): equal for uniform stages; here the last stage is
      // (1 + e) times the others (e from the logits), which moves the fraction by at most
      // formula x e (d/de of (p-1)/(p-1+m(1+e)) is bounded by that).
      const double formula = (p - 1.0) / (m + p - 1.0);
      const double e = (fl + bl) / (f + b) - 1;
      const double fraction = static_cast<double>(c.bubble_ps) / static_cast<double>(r.step_ps);
      EXPECT_NEAR(fraction, formula, formula * e + 1e-12) << "p " << p << " m " << m;
      // Every stage's breakdown adds up too; stage 0 (rank 0) also waits for the logits.
      ASSERT_EQ(r.stages.size(), static_cast<size_t>(p));
      for (const StepBreakdown& s : r.stages) {
        EXPECT_EQ(parts(s), r.step_ps) << "stage " << s.stage;
        EXPECT_EQ(s.rank, static_cast<uint32_t>(s.stage)) << "one rank per stage";
      }
      EXPECT_EQ(r.stages[0].bubble_ps, static_cast<int64_t>(r.step_ps - m * (f + b)));
    }
  }
}

// Two ranks, no collective joining them but a send: two stages.
//
//   rank 0: [A 100]--send S (30 ps)-->rank 1: [B 200]
//
// Rank 1 has the most compute: idle while A runs (bubble 100), then while S moves (exposed
// pipeline-parallel communication 30, delaying B, a forward op); step 330 = 200 + 100 + 30.
TEST(StepBreakdown, HandBuiltPipelineSend) {
  Dag dag;
  dag.ranks = 2;
  const uint32_t g = dag.add_group({0, 1});
  const uint32_t a = dag.add_compute(0, 100, Phase::kForward, 0, {});
  DagCollective send;
  send.op = CollOp::kSend;
  send.size_bytes = 30;
  send.group = g;
  const uint32_t s = dag.add_collective(send, Phase::kPipelineParallel, 0, {a});
  dag.add_compute(1, 200, Phase::kForward, 1, {s});
  const TrainingResult r = run_dag(dag, 0, 1);  // 1 ps per byte: S takes 30 ps
  ASSERT_EQ(r.step_ps, 330);
  const StepBreakdown& c = r.critical;
  EXPECT_EQ(c.rank, 1u);
  EXPECT_EQ(c.compute_ps, 200);
  EXPECT_EQ(c.bubble_ps, 100);
  EXPECT_EQ(comm(c, Phase::kPipelineParallel, StepPhase::kForward), 30);
  EXPECT_EQ(c.exposed_comm_ps(), 30);
  EXPECT_EQ(c.skew_ps, 0);
  ASSERT_EQ(r.stages.size(), 2u);
  // Rank 0 is done at 100 and then waits for the run's own path: S, then B on the other stage.
  EXPECT_EQ(r.stages[0].compute_ps, 100);
  EXPECT_EQ(comm(r.stages[0], Phase::kPipelineParallel, StepPhase::kForward), 30);
  EXPECT_EQ(r.stages[0].bubble_ps, 200);
}

// Two ranks of one stage (a TP all-reduce joins them):
//
//   rank 0: [100]--+                +--[10]
//                  |-- TP AR (20) --|
//   rank 1: [60]---+                +--[70]
//
// Rank 1 (130 of compute) idles 60..100 for rank 0's compute (skew 40), then 100..120 for the
// all-reduce (TP, delaying backward ops); step 190 = 130 + 40 + 20.
TEST(StepBreakdown, HandBuiltTensorParallelSkew) {
  Dag dag;
  dag.ranks = 2;
  const uint32_t g = dag.add_group({0, 1});
  const uint32_t a0 = dag.add_compute(0, 100, Phase::kForward, 0, {});
  const uint32_t a1 = dag.add_compute(1, 60, Phase::kForward, 0, {});
  DagCollective ar;
  ar.op = CollOp::kAllReduce;
  ar.size_bytes = 20;
  ar.group = g;
  const uint32_t c = dag.add_collective(ar, Phase::kTensorParallel, 0, {a0, a1});
  dag.add_compute(0, 10, Phase::kInputGrad, 0, {c});
  dag.add_compute(1, 70, Phase::kWeightGrad, 0, {c});
  const TrainingResult r = run_dag(dag, 0, 1);
  ASSERT_EQ(r.step_ps, 190);
  const StepBreakdown& b = r.critical;
  EXPECT_EQ(b.rank, 1u);
  EXPECT_EQ(b.compute_ps, 130);
  EXPECT_EQ(b.skew_ps, 40);
  EXPECT_EQ(b.bubble_ps, 0) << "one stage: no pipeline bubble";
  EXPECT_EQ(comm(b, Phase::kTensorParallel, StepPhase::kBackward), 20);
  EXPECT_EQ(parts(b), 190);
  ASSERT_EQ(r.stages.size(), 1u);
  EXPECT_EQ(r.stages[0].rank, 1u) << "the stage's rank of most compute";
}

// tp 2 x pp 2 x dp 2 with costly communication (5 ns + 400 ps per byte) and 3 steps: every
// breakdown adds up to the span exactly, compute is the rank's busy time, and every
// parallelism the step has shows up; per step, the parts add up to step_ps.
TEST(StepBreakdown, ConservationOnTensorPipelineDataParallelSteps) {
  TransformerSpec spec;
  spec.layers = 4;
  spec.hidden = 256;
  spec.heads = 4;
  spec.seq_length = 128;
  spec.vocab = 1000;
  spec.micro_batch = 1;
  spec.micro_batches = 4;
  spec.tp = 2;
  spec.pp = 2;
  spec.dp = 2;
  spec.optimizer_ps = 1000;
  const TransformerStep step = make_transformer_step(spec, 8);
  const TrainingResult r = run_dag(step.dag, 5000, 400, 3);
  ASSERT_EQ(r.stages.size(), 2u) << "TP and DP join each stage's 4 ranks; sends do not";
  for (const StepBreakdown* b : {&r.critical, &r.stages[0], &r.stages[1]}) {
    EXPECT_EQ(b->span_ps, r.total_ps);
    EXPECT_EQ(parts(*b), r.total_ps) << "stage " << b->stage;
    EXPECT_EQ(b->compute_ps, r.rank_compute_ps[b->rank]);
    const StepBreakdown one = b->per_step(3);
    EXPECT_EQ(parts(one), r.step_ps) << "per step, stage " << b->stage;
    EXPECT_EQ(one.span_ps, r.step_ps);
  }
  const StepBreakdown& c = r.critical;
  EXPECT_EQ(c.compute_ps, r.compute_ps);
  EXPECT_EQ(c.compute_ps + c.bubble_ps + c.skew_ps + c.exposed_comm_ps(),
            r.compute_ps + r.exposed_comm_ps)
      << "the breakdown splits the critical rank's idle time";
  int64_t tp = 0;
  for (int q = 0; q < kStepPhases; ++q) tp += c.comm_ps[static_cast<int>(Phase::kTensorParallel)][q];
  EXPECT_GT(tp, 0) << "TP all-reduces are on the critical path";
  EXPECT_GT(c.bubble_ps, 0) << "two stages: a bubble";
  EXPECT_EQ(pipeline_stages(step.dag), (std::vector<uint32_t>{0, 0, 0, 0, 1, 1, 1, 1}));
}

// Stages are the sets of ranks joined by non-pipeline collectives, numbered by lowest rank;
// communicators list ranks in any order, and a pipeline send joins nothing.
TEST(StepBreakdown, StagesAreRanksJoinedByNonPipelineCollectives) {
  Dag dag;
  dag.ranks = 6;
  DagCollective c;
  c.size_bytes = 1;
  c.group = dag.add_group({5, 2, 1});
  dag.add_collective(c, Phase::kTensorParallel, 0, {});
  c.group = dag.add_group({4, 3});
  dag.add_collective(c, Phase::kDataParallel, 0, {});
  c.op = CollOp::kSend;
  c.group = dag.add_group({0, 3});
  dag.add_collective(c, Phase::kPipelineParallel, 0, {});
  EXPECT_EQ(pipeline_stages(dag), (std::vector<uint32_t>{0, 1, 1, 2, 2, 1}));
}

}  // namespace step_breakdown_test
}  // namespace fabricsim::workload
