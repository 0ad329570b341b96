// report.html blocks of a compare directory and of a sweep directory (output/report/report_sections.h).
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>

#include "core/units.h"
#include "output/sig_digits.h"

#include "output/report/report_sections.h"
#include "output/report/report_specs.h"

namespace fabricsim::output::report {
namespace {

namespace fs = std::filesystem;

// compare.csv columns drawn side by side: (column, title with unit, scale to that unit).
// Sums over ports say so: a reader would otherwise take them for one port's time.
struct CompareMetric {
  const char* column;
  const char* title;
  double scale;
};
constexpr CompareMetric kCompareMetrics[] = {
    {"completion_time_ps", "completion time (us)", 1e-6},
    {"collective_time_ps", "collective time (us)", 1e-6},
    {"busbw_gbytes_per_s", "busbw (GB/s)", 1},
    {"step_time_ps", "step time (us)", 1e-6},
    {"network_ps", "network-attributable time (us)", 1e-6},
    {"steps_per_hour_per_musd", "steps/hour per network $M", 1},
    {"fct_p50_ps", "chunk FCT p50 (us)", 1e-6},
    {"fct_p99_ps", "chunk FCT p99 (us)", 1e-6},
    {"aggregate_throughput_gbps", "throughput (Gb/s)", 1},
    {"paused_ps", "paused / credit-wait time, summed over ports (us)", 1e-6},
    {"dropped_packets", "dropped packets", 1},
    {"retransmitted_packets", "retransmitted packets", 1},
    {"fabric_cost_per_gpu_usd", "network cost per GPU (USD)", 1},
    {"network_power_per_gpu_w", "network power per GPU (W)", 1},
};

// The table's row label of a compare.csv column: what it is, in words, and what it sums.
std::string row_label(const std::string& column, bool per_nic) {
  static const std::map<std::string, std::string> kLabels = {
      {"paused_ps", "paused / credit-wait time, summed over ports"},
      {"pause_frames", "PFC pause frames, summed over ports"},
      {"credit_waits", "IB credit waits, summed over ports"},
      {"dropped_packets", "dropped packets, summed over switches"},
      {"fabric_cost_per_gpu_usd", "network cost per GPU"},
      {"network_power_per_gpu_w", "network power per GPU"},
      {"network_ps", "network-attributable time (step - ideal)"},
      {"ideal_efficiency", "efficiency vs ideal network"},
      {"steps_per_hour_per_musd", "steps/hour per network $M"},
      {"fct_p50_ps", "FCT p50 (NCCL chunk messages for training)"},
      {"fct_p99_ps", "FCT p99 (NCCL chunk messages for training)"}};
  const auto it = kLabels.find(column);
  std::string label = it == kLabels.end() ? column : it->second;
  if (per_nic) {
    const size_t at = label.find("per GPU");
    if (at != std::string::npos) label.replace(at, 7, "per NIC");
  }
  return label;
}

// A compare.csv cell in its unit with at most four significant digits: "2.734 ms", "381.2 GB/s",
// "12.35 M" (counts from 10,000 on), never raw picoseconds or 17-digit doubles.
std::string unit_cell(const std::string& column, const std::string& text) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size()) return text.empty() ? "-" : text;
  auto ends_with = [&](const char* suffix) {
    const std::string s = suffix;
    return column.size() >= s.size() && column.compare(column.size() - s.size(), s.size(), s) == 0;
  };
  if (ends_with("_ps")) return format_time(static_cast<int64_t>(std::llround(v)));
  if (ends_with("_gbytes_per_s")) return format_sig(v) + " GB/s";
  if (ends_with("_gbps")) return format_rate(v * 1e9);
  if (ends_with("_usd")) return format_sig(v) + " USD";
  if (ends_with("_w")) return format_sig(v) + " W";
  if (v == std::floor(v) && std::fabs(v) >= 1e4) return format_count(v);
  return format_sig(v);
}

std::vector<std::string> strings_of(const std::vector<std::pair<std::string, fs::path>>& runs) {
  std::vector<std::string> names;
  for (const auto& run : runs) names.push_back(run.first);
  return names;
}

}  // namespace

std::vector<Block> compare_blocks(const Table& compare,
                                  const std::vector<std::pair<std::string, fs::path>>& runs,
                                  bool training) {
  std::vector<Block> blocks;
  const std::vector<std::string> names = strings_of(runs);
  // Priced per NIC (no GPUs) in every run that says: the cost rows say "per NIC".
  bool per_nic = !runs.empty();
  for (const auto& [name, dir] : runs) {
    const Json result = read_json(dir / "result.json").value_or(Json::object());
    const Json& cost = result.value("cost", Json::object());
    per_nic &= cost.is_object() && cost.value("per", std::string()) == "nic";
  }
  // The table, metrics as rows and runs as columns, as `fabricsim compare` prints it.
  {
    Block b;
    b.title = "Comparison table";
    b.caption =
        "compare.csv, one column per run, each figure in its unit to four significant digits "
        "(the file has them exactly: integer ps, full doubles); empty cells: not measured.";
    std::vector<std::string> header = {"metric"};
    for (size_t r = 0; r < compare.size(); ++r) header.push_back(compare.field(r, 0));
    std::vector<std::vector<std::string>> rows;
    for (size_t c = 1; c < compare.header.size(); ++c) {
      std::vector<std::string> row = {row_label(compare.header[c], per_nic)};
      bool any = false;
      for (size_t r = 0; r < compare.size(); ++r) {
        const std::string text = compare.field(r, static_cast<int>(c));
        any |= !text.empty();
        row.push_back(unit_cell(compare.header[c], text));
      }
      if (any) rows.push_back(std::move(row));
    }
    b.html = html_table(header, rows);
    blocks.push_back(std::move(b));
  }
  // Key metrics side by side.
  {
    Json rows = Json::array();
    std::vector<std::string> metrics;
    std::string zero;  // metrics 0 in every run: named in the caption, not drawn as empty cells
    for (const CompareMetric& m : kCompareMetrics) {
      const int col = compare.column(m.column);
      Json cell = Json::array();
      bool nonzero = false;
      for (size_t r = 0; r < compare.size(); ++r) {
        const auto v = compare.number(r, col);
        if (!v) continue;
        cell.push_back({{"metric", per_nic ? row_label(m.title, true) : m.title},
                        {"group", compare.field(r, 0)},
                        {"value", *v * m.scale}});
        nonzero |= *v != 0;
      }
      if (cell.empty()) continue;
      if (!nonzero) {
        zero += (zero.empty() ? "" : ", ") + std::string(m.title);
        continue;
      }
      // Times of 10 ms and more in ms: a 95 ms step reads "95.35", not "95,350" us.
      double largest = 0;
      for (const Json& row : cell) largest = std::max(largest, row["value"].get<double>());
      if (m.scale == 1e-6 && largest >= 1e4) {
        std::string title = cell.front()["metric"].get<std::string>();
        const size_t at = title.rfind("(us)");
        if (at != std::string::npos) title.replace(at, 4, "(ms)");
        for (Json& row : cell) {
          row["metric"] = title;
          row["value"] = row["value"].get<double>() * 1e-3;
        }
      }
      metrics.push_back(cell.front()["metric"].get<std::string>());
      for (Json& row : cell) rows.push_back(std::move(row));
    }
    if (metrics.empty()) {
      blocks.push_back(note_block("Key metrics",
                                  "compare.csv has none of the charted metrics, "
                                  "or they are 0 in every run"));
    } else {
      std::vector<std::string> groups;
      for (size_t r = 0; r < compare.size(); ++r) groups.push_back(compare.field(r, 0));
      Block b;
      b.title = "Key metrics";
      b.caption =
          "One bar per run for each metric compare.csv has a value of (lower is better "
          "except busbw and throughput)" +
          (zero.empty() ? std::string(".") : "; 0 in every run: " + zero + ".");
      b.spec = metric_bars_spec(std::move(rows), metrics, groups);
      blocks.push_back(std::move(b));
    }
  }
  // FCT CDFs overlaid.
  std::vector<std::pair<std::string, std::vector<double>>> series;
  for (const auto& [name, dir] : runs) {
    if (const std::optional<Table> flows = read_table(dir / "flows.csv", false, kFlowColumns)) {
      series.emplace_back(name, finished_fcts_us(*flows));
    }
  }
  if (series.empty()) {
    blocks.push_back(note_block("FCT CDF", "no run directory has flows.csv"));
  } else {
    blocks.push_back(fct_cdf_block(series, "each run's flows.csv"));
  }
  // Per-tier utilization by run (a training compare has it in its step section).
  if (training) return blocks;
  Json rows = Json::array();
  std::vector<std::string> labels;
  for (const auto& [name, dir] : runs) {
    const std::optional<Json> result = read_json(dir / "result.json");
    if (!result || !result->contains("links") || !(*result)["links"].contains("tiers")) continue;
    for (const Json& g : (*result)["links"]["tiers"]) {
      const std::string label = "tier " + std::to_string(g.value("tier", 0)) + " " +
                                g.value("direction", std::string("?"));
      if (std::find(labels.begin(), labels.end(), label) == labels.end()) labels.push_back(label);
      rows.push_back(
          {{"category", label}, {"group", name}, {"value", g.value("mean_utilization", 0.0)}});
    }
  }
  if (rows.empty()) {
    blocks.push_back(note_block("Utilization per tier", "no run's result.json has links.tiers"));
  } else {
    Block b;
    b.title = "Utilization per tier";
    b.caption =
        "Mean utilization per tier and direction, one bar per run, from each run's "
        "result.json links.tiers.";
    b.spec = grouped_bar_spec(std::move(rows), labels, names, {"tier", "mean utilization"});
    blocks.push_back(std::move(b));
  }
  return blocks;
}

std::vector<Block> sweep_blocks(const fs::path& dir) {
  std::vector<Block> blocks;
  const std::optional<Table> agg = read_table(dir / "sweep_aggregate.csv", true);
  if (!agg) {
    blocks.push_back(note_block("Metrics against parameters", "sweep_aggregate.csv is absent"));
  } else {
    // Parameters: the columns between "point" and "runs_ok"; metrics: "<m>_mean" columns.
    const int runs_ok = agg->column("runs_ok");
    std::vector<int> params;
    for (int c = 1; c < runs_ok; ++c) params.push_back(c);
    std::vector<std::string> metrics;
    for (const std::string& h : agg->header) {
      if (h.size() > 5 && h.compare(h.size() - 5, 5, "_mean") == 0)
        metrics.push_back(h.substr(0, h.size() - 5));
    }
    std::string zero;  // metrics 0 at every point (as `fabricsim sweep` lists them): not drawn
    for (const std::string& m : metrics) {
      const int mean = agg->column(m + "_mean"), ci = agg->column(m + "_ci95");
      bool nonzero = false;
      for (size_t r = 0; r < agg->size(); ++r) nonzero |= agg->number(r, mean).value_or(0) != 0;
      if (!nonzero) {
        zero += (zero.empty() ? "" : ", ") + m;
        continue;
      }
      for (int p : params) {
        Json rows = Json::array();
        std::vector<std::string> xs;
        for (size_t r = 0; r < agg->size(); ++r) {
          const auto mu = agg->number(r, mean);
          if (!mu) continue;
          const std::string x = agg->field(r, p);
          if (std::find(xs.begin(), xs.end(), x) == xs.end()) xs.push_back(x);
          // The series: the other parameters' values.
          std::string series;
          for (int q : params) {
            if (q == p) continue;
            series += (series.empty() ? "" : ", ") + agg->header[q] + "=" + agg->field(r, q);
          }
          Json row = {{"x", x}, {"mean", *mu}, {"series", series.empty() ? "mean" : series}};
          const auto h = agg->number(r, ci);
          row["lo"] = h ? Json(*mu - *h) : Json(nullptr);
          row["hi"] = h ? Json(*mu + *h) : Json(nullptr);
          rows.push_back(std::move(row));
        }
        if (rows.empty()) continue;  // a metric no ok run has: nothing to say per parameter
        Block b;
        b.title = m + " against " + agg->header[p];
        b.caption =
            "Mean over seeds with its 95% confidence interval (Student's t; docs/sweep.md), "
            "from sweep_aggregate.csv; no bar where a point has one ok run.";
        // A categorical parameter (some value not starting with a number: fabric names,
        // algorithms) is drawn as points only; quantities with a unit ("20KB") keep the line.
        bool numeric = true;
        for (const std::string& x : xs) {
          char* end = nullptr;
          std::strtod(x.c_str(), &end);
          numeric &= end != x.c_str();
        }
        Axes axes{agg->header[p], m};
        axes.x_categorical = !numeric;
        b.spec = errorbar_spec(std::move(rows), xs, axes);
        blocks.push_back(std::move(b));
      }
    }
    if (blocks.empty()) {
      blocks.push_back(note_block("Metrics against parameters",
                                  "sweep_aggregate.csv has no metric values other than 0"));
    }
    if (!zero.empty()) {
      Block b;
      b.title = "Metrics 0 at every point";
      b.caption = zero + " (sweep_aggregate.csv): not drawn.";
      blocks.push_back(std::move(b));
    }
  }
  // Failed runs from sweep.csv.
  if (const std::optional<Table> runs = read_table(dir / "sweep.csv", true)) {
    const int status = runs->column("status"), error = runs->column("error");
    std::vector<std::vector<std::string>> failed;
    for (size_t r = 0; r < runs->size(); ++r) {
      if (runs->field(r, status) == "ok") continue;
      failed.push_back({runs->field(r, runs->column("point")), runs->field(r, runs->column("seed")),
                        runs->field(r, status), runs->field(r, error)});
    }
    Block b;
    b.title = "Runs";
    b.caption = std::to_string(runs->size() - failed.size()) + " of " +
                std::to_string(runs->size()) + " runs ok (sweep.csv)" +
                (failed.empty() ? "." : "; the others:");
    if (!failed.empty()) b.html = html_table({"point", "seed", "status", "error"}, failed);
    blocks.push_back(std::move(b));
  } else {
    blocks.push_back(note_block("Runs", "sweep.csv is absent"));
  }
  return blocks;
}

}  // namespace fabricsim::output::report
