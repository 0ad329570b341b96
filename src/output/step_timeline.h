// step_timeline.csv (training runs): the ops of one rank per pipeline stage, the rank the step
// breakdown names for that stage, bounded at TrainingResult::kStageTimelineSpans spans per rank
// (results/result.h). Written by default for every finished training step, unlike trace.json
// (outputs.trace), whose spans grow with every rank and message; the report draws it as the
// step's timeline.
#pragma once

#include <string>
#include <vector>

#include "results/result.h"

namespace fabricsim::output {

inline constexpr const char* kStepTimelineCsvHeader = "job,stage,rank,start_ps,end_ps,kind,label";

// Header, then every job's spans in order (job index, then stage, then start). Integers exact.
std::string step_timeline_csv_text(const std::vector<scenario::JobResult>& jobs);

// True when some job has spans (the file is written only then).
bool has_step_timeline(const std::vector<scenario::JobResult>& jobs);

}  // namespace fabricsim::output
