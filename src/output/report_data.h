// Reading a result directory's files for report.html (output/report.h): CSV tables, JSON, and
// the deterministic downsampling that keeps the page small (caps in docs/report.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace fabricsim::output::report {

using Json = nlohmann::ordered_json;

// Caps (docs/report.md). Each is a point count the browser draws in well under a second.
inline constexpr size_t kMaxCdfPoints = 5000;       // per FCT CDF series
inline constexpr size_t kMaxSeriesPoints = 5000;    // per time-series chart, over its series
inline constexpr size_t kMaxTopPorts = 8;           // ports in the queue/pause time series
inline constexpr size_t kMaxQps = 16;               // QPs in the per-QP rate chart
inline constexpr size_t kMaxHeatmapNodes = 64;      // beyond: the heatmap is tier x tier
inline constexpr size_t kMaxTimelineEvents = 5000;  // trace.json spans drawn (the longest)
inline constexpr size_t kMaxTimelineLanes = 64;     // ranks / lanes drawn

// A CSV file with a header row. Fields are split on commas (fabricsim's CSVs quote nothing;
// a quoted field is read without its quotes). Rows shorter than the header read as empty.
struct Table {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;

  // Index of `name` in the header, or -1.
  int column(const std::string& name) const;
  bool has(const std::string& name) const { return column(name) >= 0; }
  // The field, "" when the column or the field is missing.
  const std::string& field(size_t row, int col) const;
  // The field as a number; nullopt when empty or not a number.
  std::optional<double> number(size_t row, int col) const;
};

// nullopt when the file does not exist; throws std::runtime_error naming the file when it
// exists but cannot be read.
std::optional<Table> read_table(const std::filesystem::path& file);
std::optional<Json> read_json(const std::filesystem::path& file);

// Indices 0..n-1 thinned to at most `cap`, evenly spaced by rank, always keeping the first and
// the last; all of them when n <= cap.
std::vector<size_t> thin_indices(size_t n, size_t cap);

// The empirical CDF of `values` (sorted here) as {x, fraction <= x} points, at most
// kMaxCdfPoints (thin_indices over the sorted values: the curve keeps its shape).
std::vector<std::pair<double, double>> cdf_points(std::vector<double> values);

// Escapes &, <, >, " for HTML text and attributes.
std::string html_escape(const std::string& text);

}  // namespace fabricsim::output::report
