#include "output/write.h"

#include <fstream>
#include <stdexcept>

#include "output/chrome_trace.h"
#include "output/csv.h"
#include "output/json.h"
#include "output/links_csv.h"
#include "output/marker.h"
#include "output/nccl_table.h"
#include "output/pcap/pcap_trace.h"
#include "output/ping_pong_table.h"
#include "output/step_timeline.h"
#include "output/timeseries.h"

namespace fabricsim::output {
namespace {

void write_file(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

}  // namespace

void write_run_files(const std::filesystem::path& root, const scenario::RunResult& result) {
  // A capture that cannot be written exactly fails the run before any file exists.
  if (!result.captured.empty()) check_trace(result);
  std::error_code ec;
  std::filesystem::create_directory(root, ec);
  if (ec) throw std::runtime_error("cannot create " + root.string() + ": " + ec.message());
  write_marker(root);
  write_file(root / "result.json", result_json_text(result));
  // flows.csv: the file the harvest wrote (the CLI's runs), else the records the caller kept.
  if (result.flows_csv) {
    result.flows_csv->place(root / "flows.csv");
  } else {
    if (static_cast<int64_t>(result.flows.size()) < result.flow_summary.stats.total) {
      throw std::logic_error("write_run_files: the run kept neither its flow records nor flows.csv");
    }
    write_file(root / "flows.csv", flows_csv_text(result.flows, result.flow_paths));
  }
  write_file(root / "links.csv", links_csv_text(result.link_rows));
  write_file(root / "run.json", run_json_text(result.run));
  if (!result.sm_routes.empty()) write_file(root / "routes.csv", routes_csv_text(result.sm_routes));
  // GPU collectives: every job's rows, the nccl-tests table as CSV.
  std::vector<scenario::CollectiveRow> rows;
  for (const scenario::JobResult& job : result.jobs) {
    rows.insert(rows.end(), job.collectives.begin(), job.collectives.end());
  }
  if (!rows.empty()) write_file(root / "nccl-tests.csv", nccl_tests_csv_text(rows));
  // Training: one rank per pipeline stage, bounded (output/step_timeline.h).
  if (has_step_timeline(result.jobs)) {
    write_file(root / "step_timeline.csv", step_timeline_csv_text(result.jobs));
  }
  if (!result.scaling.empty()) write_file(root / "scaling.csv", scaling_csv_text(result.scaling));
  if (!result.ping_pong.empty()) {
    write_file(root / "ping_pong.csv", ping_pong_csv_text(result.ping_pong));
  }
  // outputs.trace.enabled: the Chrome trace-event file (docs/trace.md).
  if (result.trace.enabled) write_file(root / "trace.json", chrome_trace_json_text(result));
  if (result.telemetry.present) {  // outputs.timeseries (output/timeseries.h)
    write_file(root / "timeseries_ports.csv", timeseries_ports_csv_text(result.telemetry));
    write_file(root / "timeseries_qps.csv", timeseries_qps_csv_text(result.telemetry));
  }
  if (!result.captured.empty()) {
    write_trace_pcap((root / "trace.pcap").string(), result);
    if (has_credit_packets(result.captured)) {
      write_file(root / "credits.csv", credits_csv_text(result.captured));
    }
  }
}

}  // namespace fabricsim::output
