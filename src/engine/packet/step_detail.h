// The parts of a finished training step the report draws beyond the breakdown: its collectives
// against NCCL's model, and the ops of one rank per pipeline stage (results/result.h
// StepCollective, StageSpan). Per op of the DAG, after the run: nothing here runs per message.
#pragma once

#include "results/result.h"
#include "workload/collective.h"
#include "workload/training.h"

namespace fabricsim::scenario {

// Fills t.collectives and t.stage_timeline (t.stages must be filled: their ranks are the ranks
// drawn). `job_start_ps`: span times are given from the job's start.
// REQUIRES: engine.done().
void add_step_detail(const workload::TrainingEngine& engine,
                     const workload::CollectiveRunner& runner, int64_t job_start_ps,
                     TrainingResult& t);

}  // namespace fabricsim::scenario
