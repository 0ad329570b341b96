// Reading a result directory's files for report.html (output/report/report.h): CSV tables, JSON, and
// the deterministic downsampling that keeps the page small (caps in docs/report.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <unordered_map>
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

// A CSV file with a header row, stored by column: each cell a double (NaN when empty or not a
// number) and, for a cell that is not a number, its text in a string pool. A run's flows.csv
// or time series can hold 10^5 rows; 8 bytes a cell instead of a std::string keeps the report's
// memory far below the simulation's (the pre-flight estimate does not count the report). With
// `keep_text` every cell's text is kept too (small files whose text is shown as written:
// compare.csv, the sweep's CSVs). Fields are split on commas (fabricsim's CSVs quote nothing; a
// quoted field is read without its quotes). Missing trailing fields read as empty.
class Table {
 public:
  std::vector<std::string> header;

  size_t size() const { return rows_; }
  // Index of `name` in the header, or -1.
  int column(const std::string& name) const;
  bool has(const std::string& name) const { return column(name) >= 0; }
  // The field's text: as written with keep_text, else a number in the shortest form that reads
  // back to the same double ("" when the column or the field is missing).
  std::string field(size_t row, int col) const;
  // The field as a number; nullopt when empty or not a number.
  std::optional<double> number(size_t row, int col) const;

 private:
  friend std::optional<Table> read_table(const std::filesystem::path&, bool,
                                         const std::vector<std::string>&);
  void add_row(const std::vector<std::string>& fields);

  size_t rows_ = 0;
  bool keep_text_ = false;
  std::vector<int> source_;                         // kept column -> field index in the file
  std::vector<std::vector<double>> numbers_;        // per kept column
  std::vector<std::vector<int32_t>> labels_;        // per kept column: pool index or -1; lazy
  std::vector<std::string> pool_;                   // texts of non-numeric cells, interned
  std::unordered_map<std::string, int32_t> index_;  // text -> its pool index
  std::vector<std::vector<std::string>> text_;      // keep_text: per row
};

// nullopt when the file does not exist; throws std::runtime_error naming the file when it
// exists but cannot be read.
// `columns`: the columns to keep (empty = all); the header lists only those, in file order.
std::optional<Table> read_table(const std::filesystem::path& file, bool keep_text = false,
                                const std::vector<std::string>& columns = {});
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
