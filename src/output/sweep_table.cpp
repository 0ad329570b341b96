#include "output/sweep_table.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <stdexcept>

#include "output/sig_digits.h"
#include "output/sweep_stats.h"

namespace fabricsim::output {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;

constexpr double kPsPerUs = 1e6;

std::string status(const SweepRun& r) { return r.ok ? "ok" : r.not_run ? "not_run" : "failed"; }

// A number at `pointer` in `j`, or nothing when absent, null or not a number.
std::optional<double> number_at(const json& j, const char* pointer) {
  const json::json_pointer p(pointer);
  if (!j.contains(p)) return std::nullopt;
  const json& v = j.at(p);
  if (!v.is_number()) return std::nullopt;
  return v.get<double>();
}

// Shortest round-trip text of a double ("" when absent), as nlohmann::json prints numbers.
std::string number_text(std::optional<double> v) {
  if (!v) return "";
  // Counters are integers: printed as such ("1468", not "1468.0").
  if (std::abs(*v) < 9.0e15 && *v == std::floor(*v))
    return std::to_string(static_cast<int64_t>(*v));
  return json(*v).dump();
}

// Metric values with commas would split a row: the values come from --param lists, which are
// split at commas, so none has one; an error message may, so it is flattened.
std::string csv_text(std::string text) {
  for (char& c : text) {
    if (c == ',') c = ';';
    if (c == '\n' || c == '\r' || c == '"') c = ' ';
  }
  return text;
}


// The metrics some ok run has, in sweep_metrics() order.
std::vector<const SweepMetric*> present_metrics(const SweepTable& t) {
  std::vector<const SweepMetric*> present;
  for (const SweepMetric& m : sweep_metrics()) {
    for (const SweepRun& r : t.runs) {
      if (r.ok && r.metrics.count(m.column)) {
        present.push_back(&m);
        break;
      }
    }
  }
  return present;
}

// The values of `metric` over the ok runs of `point` that have it, in seed order.
std::vector<double> samples(const SweepTable& t, size_t point, const std::string& metric) {
  std::vector<double> v;
  for (const SweepRun& r : t.runs) {
    if (r.point != point || !r.ok) continue;
    if (auto it = r.metrics.find(metric); it != r.metrics.end()) v.push_back(it->second);
  }
  return v;
}

std::string sweep_csv(const SweepTable& t, const std::vector<const SweepMetric*>& metrics) {
  std::string out = "point,seed";
  for (const std::string& k : t.keys) out += "," + k;
  out += ",status,dir";
  for (const SweepMetric* m : metrics) out += std::string(",") + m->column;
  out += ",error\n";
  for (const SweepRun& r : t.runs) {
    out += std::to_string(r.point) + "," + std::to_string(r.seed);
    for (const std::string& v : t.points[r.point]) out += "," + v;
    out += std::string(",") + status(r) + ",points/" + r.id;
    for (const SweepMetric* m : metrics) {
      auto it = r.metrics.find(m->column);
      out += "," + (r.ok && it != r.metrics.end() ? number_text(it->second) : "");
    }
    out += "," + csv_text(r.error) + "\n";
  }
  return out;
}

std::string aggregate_csv(const SweepTable& t, const std::vector<const SweepMetric*>& metrics) {
  std::string out = "point";
  for (const std::string& k : t.keys) out += "," + k;
  out += ",runs_ok,runs_failed";
  for (const SweepMetric* m : metrics) {
    const std::string c = m->column;
    out += "," + c + "_mean," + c + "_sd," + c + "_ci95";
  }
  out += "\n";
  for (size_t p = 0; p < t.points.size(); ++p) {
    int ok = 0, failed = 0;
    for (const SweepRun& r : t.runs) {
      if (r.point == p) (r.ok ? ok : failed) += 1;
    }
    out += std::to_string(p);
    for (const std::string& v : t.points[p]) out += "," + v;
    out += "," + std::to_string(ok) + "," + std::to_string(failed);
    for (const SweepMetric* m : metrics) {
      const SampleStats s = summarize(samples(t, p, m->column));
      out += "," + (s.n > 0 ? number_text(s.mean) : "") + "," + number_text(s.stddev) + "," +
             number_text(s.ci95_half_width);
    }
    out += "\n";
  }
  return out;
}

ordered_json sweep_json(const SweepTable& t, const std::vector<const SweepMetric*>& metrics) {
  ordered_json j;
  j["file"] = t.file;
  j["parameters"] = t.keys;
  j["seeds"] = t.seeds;
  ordered_json ms = ordered_json::array();
  for (const SweepMetric* m : metrics) {
    ms.push_back({{"name", m->column}, {"description", m->description}});
  }
  j["metrics"] = std::move(ms);
  j["confidence_interval"] = {
      {"level", 0.95},
      {"half_width", "t_{0.975, n-1} * s / sqrt(n), n = ok runs of the point with the metric"},
      {"t_source",
       "NIST/SEMATECH e-Handbook of Statistical Methods 1.3.6.7.2 (df 1..30); Abramowitz & "
       "Stegun 26.7.5 beyond"},
      {"single_seed", "no standard deviation or interval (null)"}};
  ordered_json points = ordered_json::array();
  for (size_t p = 0; p < t.points.size(); ++p) {
    ordered_json values = ordered_json::object();
    for (size_t k = 0; k < t.keys.size(); ++k) values[t.keys[k]] = t.points[p][k];
    ordered_json runs = ordered_json::array();
    for (const SweepRun& r : t.runs) {
      if (r.point != p) continue;
      ordered_json rm = ordered_json::object();
      for (const SweepMetric* m : metrics) {
        auto it = r.metrics.find(m->column);
        rm[m->column] = r.ok && it != r.metrics.end() ? ordered_json(it->second) : nullptr;
      }
      runs.push_back({{"seed", r.seed},
                      {"dir", "points/" + r.id},
                      {"status", status(r)},
                      {"resumed", r.reused},
                      {"error", r.error.empty() ? ordered_json(nullptr) : ordered_json(r.error)},
                      {"metrics", std::move(rm)}});
    }
    ordered_json agg = ordered_json::object();
    for (const SweepMetric* m : metrics) {
      const SampleStats s = summarize(samples(t, p, m->column));
      const auto opt = [](std::optional<double> v) {
        return v ? ordered_json(*v) : ordered_json(nullptr);
      };
      agg[m->column] = {{"n", s.n},
                        {"mean", s.n > 0 ? ordered_json(s.mean) : ordered_json(nullptr)},
                        {"sd", opt(s.stddev)},
                        {"ci95_half_width", opt(s.ci95_half_width)}};
    }
    points.push_back({{"index", p},
                      {"values", std::move(values)},
                      {"runs", std::move(runs)},
                      {"aggregate", std::move(agg)}});
  }
  j["points"] = std::move(points);
  return j;
}

std::string point_label(const SweepTable& t, size_t p) {
  std::string label;
  for (size_t k = 0; k < t.keys.size(); ++k) {
    label += (label.empty() ? "" : " ") + t.keys[k] + "=" + t.points[p][k];
  }
  return label;
}

}  // namespace

void write_atomically(const std::filesystem::path& path, const std::string& text) {
  const std::filesystem::path tmp = path.string() + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << text;
    out.flush();
    if (!out) throw std::runtime_error("cannot write " + tmp.string());
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) throw std::runtime_error("cannot rename " + tmp.string() + ": " + ec.message());
}

const std::vector<SweepMetric>& sweep_metrics() {
  static const std::vector<SweepMetric> metrics = {
      {"completion_time_us",
       "simulated time at the end of a completed run (sim_time_ps: its last event, just after the "
       "last flow or collective finished), us"},
      {"fct_p50_us", "flow completion time, median (nearest rank), us"},
      {"fct_p99_us", "flow completion time, 99th percentile (nearest rank), us"},
      {"fct_max_us", "flow completion time, largest, us"},
      {"mean_slowdown", "mean of FCT / ideal FCT over completed flows"},
      {"throughput_gbps", "aggregate goodput delivered, Gb/s"},
      {"dropped_packets", "packets dropped anywhere in the fabric"},
      {"pause_frames", "PFC pause frames sent"},
      {"retransmitted_packets", "data packets sent again"},
      {"ecn_marks", "packets marked ECN CE by switches"},
      {"cnps", "congestion notification packets (RoCE DCQCN)"},
      {"collective_time_us", "collective completion time, us"},
      {"collective_busbw_gbytes_per_s", "collective bus bandwidth (nccl-tests definition), GB/s"},
      {"step_time_us", "training step time of the first job with a training step, us"},
      {"steady_goodput_gbps",
       "mean per-flow goodput in the steady window (outputs.steady_window), Gb/s"},
  };
  return metrics;
}

std::map<std::string, double> extract_sweep_metrics(const json& r) {
  std::map<std::string, double> m;
  const auto put = [&](const char* column, std::optional<double> v, double scale = 1.0) {
    if (v) m[column] = *v * scale;
  };
  if (r.value("completed", false))
    put("completion_time_us", number_at(r, "/sim_time_ps"), 1 / kPsPerUs);
  if (number_at(r, "/flows/completed").value_or(0) > 0) {
    put("fct_p50_us", number_at(r, "/flows/fct_p50_ps"), 1 / kPsPerUs);
    put("fct_p99_us", number_at(r, "/flows/fct_p99_ps"), 1 / kPsPerUs);
    put("fct_max_us", number_at(r, "/flows/fct_max_ps"), 1 / kPsPerUs);
    put("mean_slowdown", number_at(r, "/flows/mean_slowdown"));
  }
  put("throughput_gbps", number_at(r, "/aggregate_throughput_gbps"));
  put("dropped_packets", number_at(r, "/counters/dropped_packets"));
  put("pause_frames", number_at(r, "/counters/pause_frames"));
  put("retransmitted_packets", number_at(r, "/counters/retransmitted_packets"));
  put("ecn_marks", number_at(r, "/counters/ecn_marks"));
  put("cnps", number_at(r, "/counters/cnps"));
  // An unfinished collective has time -1 and null bandwidths (output/json.cpp): no value.
  if (number_at(r, "/collective/time_ps").value_or(-1) >= 0) {
    put("collective_time_us", number_at(r, "/collective/time_ps"), 1 / kPsPerUs);
    put("collective_busbw_gbytes_per_s", number_at(r, "/collective/busbw_gbytes_per_s"));
  }
  if (r.contains("jobs") && r["jobs"].is_array()) {
    for (const json& job : r["jobs"]) {
      if (auto t = number_at(job, "/training/step_time_ps"); t && *t > 0) {
        m["step_time_us"] = *t / kPsPerUs;
        break;
      }
    }
  }
  if (r.contains("steady_window") && r["steady_window"].value("measured", false)) {
    put("steady_goodput_gbps", number_at(r, "/steady_window/mean_goodput_gbps"));
  }
  return m;
}

void write_sweep_files(const std::filesystem::path& dir, const SweepTable& t) {
  const std::vector<const SweepMetric*> metrics = present_metrics(t);
  write_atomically(dir / "sweep.csv", sweep_csv(t, metrics));
  write_atomically(dir / "sweep_aggregate.csv", aggregate_csv(t, metrics));
  write_atomically(dir / "sweep.json", sweep_json(t, metrics).dump(2) + "\n");
}

void print_sweep_summary(std::ostream& out, const SweepTable& t) {
  const std::vector<const SweepMetric*> metrics = present_metrics(t);
  size_t width = 0;
  for (size_t p = 0; p < t.points.size(); ++p) width = std::max(width, point_label(t, p).size());
  out << "  mean ± 95% CI half-width across " << t.seeds.size() << " seed"
      << (t.seeds.size() == 1 ? " (one seed: no interval, shown as ± -)" : "s") << "\n";
  std::string all_zero;
  for (const SweepMetric* m : metrics) {
    bool nonzero = false;
    for (const SweepRun& r : t.runs) {
      auto it = r.metrics.find(m->column);
      if (r.ok && it != r.metrics.end() && it->second != 0) nonzero = true;
    }
    if (!nonzero) {
      all_zero += (all_zero.empty() ? "" : ", ") + std::string(m->column);
      continue;
    }
    out << "  " << m->column << "\n";
    for (size_t p = 0; p < t.points.size(); ++p) {
      const std::string label = point_label(t, p);
      const SampleStats s = summarize(samples(t, p, m->column));
      out << "    " << label << std::string(width - label.size() + 2, ' ');
      if (s.n == 0) {
        out << "-\n";
        continue;
      }
      // Four significant digits written out, the half-width to the mean's decimals: "10200 ±
      // 5050", never "1.02e+04 ± 5050" (issue 23).
      out << format_sig(s.mean) << " ± "
          << (s.ci95_half_width ? format_sig_like(*s.ci95_half_width, s.mean) : "-")
          << (s.n < static_cast<int>(t.seeds.size()) ? "  (" + std::to_string(s.n) + " runs)" : "")
          << "\n";
    }
  }
  if (!all_zero.empty()) out << "  zero in every run: " << all_zero << "\n";
  size_t not_run = 0;
  for (const SweepRun& r : t.runs) {
    if (r.ok) continue;
    if (r.not_run) {
      ++not_run;
      continue;
    }
    out << "  FAILED " << point_label(t, r.point) << " seed " << r.seed << " (points/" << r.id
        << "): " << r.error << "\n";
  }
  if (not_run > 0) {
    out << "  NOT RUN: " << not_run << " run" << (not_run == 1 ? "" : "s")
        << " (interrupted; the same command resumes)\n";
  }
}

}  // namespace fabricsim::output
