#include "output/step_timeline.h"

namespace fabricsim::output {

std::string step_timeline_csv_text(const std::vector<scenario::JobResult>& jobs) {
  std::string out = std::string(kStepTimelineCsvHeader) + "\n";
  for (size_t j = 0; j < jobs.size(); ++j) {
    for (const scenario::StageSpan& s : jobs[j].training.stage_timeline) {
      out += std::to_string(j) + "," + std::to_string(s.stage) + "," + std::to_string(s.rank) +
             "," + std::to_string(s.start_ps) + "," + std::to_string(s.end_ps) + "," + s.kind +
             "," + s.label + "\n";
    }
  }
  return out;
}

bool has_step_timeline(const std::vector<scenario::JobResult>& jobs) {
  for (const scenario::JobResult& job : jobs) {
    if (!job.training.stage_timeline.empty()) return true;
  }
  return false;
}

}  // namespace fabricsim::output
