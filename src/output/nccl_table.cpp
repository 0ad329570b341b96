#include "output/nccl_table.h"

#include <algorithm>
#include <cstdio>

#include "core/units.h"

namespace fabricsim::output {
namespace {

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

std::string pad(const std::string& s, size_t width) {
  return s.size() >= width ? s : std::string(width - s.size(), ' ') + s;
}

}  // namespace

std::string nccl_table_text(const std::vector<scenario::CollectiveRow>& rows) {
  std::string out;
  out += "#" + pad("size", 12) + pad("count", 14) + pad("type", 10) + pad("redop", 8) +
         pad("root", 6) + pad("time", 11) + pad("algbw", 9) + pad("busbw", 9) + "  " +
         "algorithm/protocol/channels\n";
  out += "#" + pad("(B)", 12) + pad("(elements)", 14) + pad("", 10) + pad("", 8) + pad("", 6) +
         pad("(us)", 11) + pad("(GB/s)", 9) + pad("(GB/s)", 9) + "\n";
  for (const scenario::CollectiveRow& r : rows) {
    const bool done = r.time_ps >= 0;
    out += " " + pad(std::to_string(r.size_bytes), 12) + pad(std::to_string(r.count), 14) +
           pad(r.type, 10) + pad(r.redop, 8) + pad(std::to_string(r.root), 6);
    if (done) {
      out += pad(fmt("%.2f", static_cast<double>(r.time_ps) * 1e-6), 11) +
             pad(fmt("%.2f", r.algbw_gbytes_per_s), 9) + pad(fmt("%.2f", r.busbw_gbytes_per_s), 9);
    } else {
      out += pad("-", 11) + pad("-", 9) + pad("-", 9);
    }
    out += "  " + r.algorithm + "/" + r.protocol + "/" + std::to_string(r.channels) + "\n";
  }
  // nccl-tests' closing line: the mean busbw over the sizes run.
  const double avg = average_busbw(rows);
  out += "# Avg bus bandwidth    : " + (avg >= 0 ? fmt("%g", avg) : std::string("-")) + "\n";
  return out;
}

double average_busbw(const std::vector<scenario::CollectiveRow>& rows) {
  double sum_busbw = 0;
  int finished = 0;
  for (const scenario::CollectiveRow& r : rows) {
    if (r.time_ps < 0) continue;
    sum_busbw += r.busbw_gbytes_per_s;
    ++finished;
  }
  return finished > 0 ? sum_busbw / finished : -1;
}

std::string sweep_description(const std::vector<scenario::CollectiveRow>& rows) {
  const scenario::CollectiveRow& first = rows.front();
  // The algorithm only when every size ran the same one (forced, or auto's choice throughout);
  // otherwise the table's per-size column says which ran where.
  const bool one_algorithm = std::all_of(rows.begin(), rows.end(), [&](const auto& r) {
    return r.algorithm == first.algorithm;
  });
  return first.op + (one_algorithm ? " " + first.algorithm : std::string()) + ", " +
         std::to_string(first.ranks) + " ranks, " +
         std::to_string(rows.size()) + " sizes from " + format_bytes(first.size_bytes) + " to " +
         format_bytes(rows.back().size_bytes);
}

std::string nccl_tests_csv_text(const std::vector<scenario::CollectiveRow>& rows) {
  std::string out = std::string(kNcclTestsCsvHeader) + "\n";
  for (const scenario::CollectiveRow& r : rows) {
    const bool done = r.time_ps >= 0;
    out += std::to_string(r.size_bytes) + "," + std::to_string(r.count) + "," + r.type + "," +
           r.redop + "," + std::to_string(r.root) + ",";
    if (done) {
      out += fmt("%.6f", static_cast<double>(r.time_ps) * 1e-6) + "," +
             fmt("%.6f", r.algbw_gbytes_per_s) + "," + fmt("%.6f", r.busbw_gbytes_per_s);
    } else {
      out += ",,";
    }
    out += "," + r.op + "," + r.algorithm + "," + r.protocol + "," + std::to_string(r.channels) +
           "," + std::to_string(r.ranks) + "\n";
  }
  return out;
}

std::string scaling_table_text(const std::vector<scenario::ScalingPoint>& points) {
  std::string out = pad("nodes", 7) + pad("GPUs", 7) + pad("step (ms)", 12) +
                    pad("acceleration ratio", 20);
  const bool coll = !points.empty() && !points[0].algorithm.empty();
  const bool ideal = !points.empty() && points[0].ideal_step_time_ps >= 0;
  if (ideal) out += pad("ideal step (ms)", 17) + pad("of ideal", 10);
  if (coll) out += pad("busbw (GB/s)", 15) + "algorithm/protocol/channels";
  out += "\n";
  for (const scenario::ScalingPoint& p : points) {
    out += pad(std::to_string(p.nodes), 7) + pad(std::to_string(p.gpus), 7);
    if (p.step_time_ps >= 0) {
      out += pad(fmt("%.3f", static_cast<double>(p.step_time_ps) * 1e-9), 12) +
             pad(fmt("%.3f", p.acceleration_ratio), 20);
    } else {
      out += pad("-", 12) + pad("-", 20);
    }
    if (ideal) {  // training.ideal_network: the ideal network's step and ideal / step
      out += p.ideal_step_time_ps >= 0
                 ? pad(fmt("%.3f", static_cast<double>(p.ideal_step_time_ps) * 1e-9), 17) +
                       pad(p.step_time_ps > 0 ? fmt("%.3f", p.ideal_efficiency) : "-", 10)
                 : pad("-", 17) + pad("-", 10);
    }
    if (coll) {
      out += pad(p.busbw_gbytes_per_s > 0 ? fmt("%.2f", p.busbw_gbytes_per_s) : "-", 15) +
             p.algorithm + "/" + p.protocol + "/" + std::to_string(p.channels);
    }
    out += "\n";
  }
  return out;
}

std::string scaling_csv_text(const std::vector<scenario::ScalingPoint>& points) {
  std::string out = std::string(kScalingCsvHeader) + "\n";
  for (const scenario::ScalingPoint& p : points) {
    out += std::to_string(p.nodes) + "," + std::to_string(p.gpus) + ",";
    if (p.step_time_ps >= 0) {
      out += fmt("%.6f", static_cast<double>(p.step_time_ps) * 1e-6) + "," +
             fmt("%.6f", p.acceleration_ratio);
    } else {
      out += ",";
    }
    out += "," + (p.busbw_gbytes_per_s > 0 ? fmt("%.6f", p.busbw_gbytes_per_s) : "") + "," +
           p.algorithm + "," + p.protocol + "," + (p.channels > 0 ? std::to_string(p.channels) : "");
    out += "," + (p.ideal_step_time_ps >= 0
                      ? fmt("%.6f", static_cast<double>(p.ideal_step_time_ps) * 1e-6)
                      : std::string()) +
           "," + (p.ideal_step_time_ps >= 0 && p.step_time_ps > 0 ? fmt("%.6f", p.ideal_efficiency)
                                                                  : std::string());
    out += "\n";
  }
  return out;
}

}  // namespace fabricsim::output
