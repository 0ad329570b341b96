// The blocks of report.html (output/report/report_page.h), one function per chart or table, each
// reading its own input file from a result directory and returning a note instead of a chart
// when the file is absent or holds nothing to draw. docs/report.md lists them with their files.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "output/report/report_page.h"
#include "output/report/report_specs.h"

namespace fabricsim::output::report {

// The flows.csv columns the report reads.
inline const std::vector<std::string> kFlowColumns = {"fct_ps", "size_bytes", "slowdown", "class"};

// Finished flows' FCT in microseconds from flows.csv (empty when absent or none finished).
std::vector<double> finished_fcts_us(const Table& flows);

// An FCT CDF over several series (one per run of a compare): {name, fct_us}.
Block fct_cdf_block(const std::vector<std::pair<std::string, std::vector<double>>>& series,
                    const std::string& source);

// A run directory (report_run.cpp): FCT CDF, slowdown by size and by class, per-tier
// utilization and imbalance, the link heatmap and the hottest links.
std::vector<Block> flow_blocks(const std::filesystem::path& dir, const Json& result);
std::vector<Block> link_blocks(const std::filesystem::path& dir, const Json& result);

// A run directory's time series and timeline (report_telemetry.cpp): queue depth, pause and
// utilization of the top ports, per-QP rates or windows, the collective/training timeline.
std::vector<Block> telemetry_blocks(const std::filesystem::path& dir);
std::vector<Block> timeline_blocks(const std::filesystem::path& dir);
// The Gantt chart of trace.json (report_trace.cpp); nullopt when the file is absent.
std::optional<Block> trace_timeline_block(const std::filesystem::path& file);

// The step section of a training run or compare, first on the page (report_step.cpp,
// report_step_detail.cpp): `runs` = (name, run directory); each run's first training job.
// jobs[].training of `result` (the first job that has one), or nullptr.
const Json* step_training(const Json& result);
// One stacked bar of "Where the step goes": a run's critical-rank breakdown, or the ideal
// network's. parts: compute, pipeline bubble, skew, exposed <parallelism>..., in ps; they sum to
// step_ps exactly (result.json's breakdown does).
struct StepBar {
  std::string name;
  int64_t step_ps = 0;
  std::vector<std::pair<std::string, int64_t>> parts;
};
// The bars of (name, result.json) pairs: one per run with a breakdown, then the ideal network
// (one bar when every run's ideal step is the same, else one after each run).
// The colour of a step part or timeline kind ("compute", "pipeline bubble", "exposed TP",
// "tensor_parallel", ...), the same in every step chart; and a palette of `names`.
std::string step_colour(const std::string& name);
Palette step_palette(const std::vector<std::string>& names);
std::vector<StepBar> step_bars(const std::vector<std::pair<std::string, Json>>& results);
std::vector<Block> step_blocks(const std::vector<std::pair<std::string, std::filesystem::path>>& runs);
// Collectives against NCCL's model, one rank per stage over time, utilization per tier and rail.
std::vector<Block> step_detail_blocks(
    const std::vector<std::pair<std::string, std::filesystem::path>>& runs);

// A compare directory (report_multi.cpp): the compare table, the variants' FCT CDFs overlaid,
// key metrics side by side, per-tier utilization by variant. `runs` = (name, run directory).
// `training`: a training compare, whose step section (step_blocks) has the per-tier utilization.
std::vector<Block> compare_blocks(
    const Table& compare, const std::vector<std::pair<std::string, std::filesystem::path>>& runs,
    bool training = false);

// A sweep directory (report_multi.cpp): each metric of sweep_aggregate.csv against each
// parameter, mean with 95% CI error bars; failed runs from sweep.csv.
std::vector<Block> sweep_blocks(const std::filesystem::path& dir);

}  // namespace fabricsim::output::report
