// Registry entry of outputs.report (issue 13): report.html beside the other result files.
#include <string>
#include <utility>
#include <vector>

#include "spec/knob_bind.h"
#include "spec/knob_tables.h"
#include "spec/knobs.h"

namespace fabricsim::scenario {

using knob_bind::bind_enum;

namespace {

const std::vector<Knob> kReportKnobs = {
    bind_enum(
        {.path = "outputs.report",
         .description = "html = `run` and `compare` also write report.html into the output "
                        "directory: one self-contained file (Vega inlined, opens offline) with "
                        "the FCT CDF, slowdown by size, per-tier utilization, the link heatmap, "
                        "time series and timeline the run's files allow (docs/report.md); "
                        "`fabricsim report DIR` writes it for an existing directory",
         .source = "none: the report adds ~0.5 MB of inlined Vega per directory, so it is asked "
                   "for (issue 13)"},
        std::vector<std::pair<std::string, ReportFormat>>{{"none", ReportFormat::kNone},
                                                          {"html", ReportFormat::kHtml}},
        [](auto& s) -> auto& { return s.report; }),
};

}  // namespace

const std::vector<Knob>& report_knobs() { return kReportKnobs; }

}  // namespace fabricsim::scenario
