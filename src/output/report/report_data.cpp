#include "output/report/report_data.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace fabricsim::output::report {
namespace {

namespace fs = std::filesystem;

std::optional<std::string> read_text(const fs::path& file) {
  std::error_code ec;
  if (!fs::is_regular_file(file, ec)) return std::nullopt;
  std::ifstream in(file, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + file.string());
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<std::string> split_row(const std::string& line) {
  std::vector<std::string> fields;
  std::string field;
  bool quoted = false;
  for (char c : line) {
    if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      fields.push_back(std::move(field));
      field.clear();
    } else if (c != '\r') {
      field += c;
    }
  }
  fields.push_back(std::move(field));
  return fields;
}

}  // namespace

int Table::column(const std::string& name) const {
  const auto it = std::find(header.begin(), header.end(), name);
  return it == header.end() ? -1 : static_cast<int>(it - header.begin());
}

std::string Table::field(size_t row, int col) const {
  if (col < 0 || row >= rows_ || static_cast<size_t>(col) >= header.size()) return "";
  const size_t c = static_cast<size_t>(col);
  if (keep_text_) return c < text_[row].size() ? text_[row][c] : "";
  if (!labels_[c].empty() && labels_[c][row] >= 0)
    return pool_[static_cast<size_t>(labels_[c][row])];
  const double v = numbers_[c][row];
  if (std::isnan(v)) return "";
  // The shortest of %.15g / %.17g that reads back to the same double (0.9, not
  // 0.90000000000000002); integers (ids, bytes, ps) print without a fraction.
  char text[32];
  std::snprintf(text, sizeof text, "%.15g", v);
  if (std::strtod(text, nullptr) != v) std::snprintf(text, sizeof text, "%.17g", v);
  return text;
}

std::optional<double> Table::number(size_t row, int col) const {
  if (col < 0 || row >= rows_ || static_cast<size_t>(col) >= header.size()) return std::nullopt;
  const double v = numbers_[static_cast<size_t>(col)][row];
  if (std::isnan(v)) return std::nullopt;
  return v;
}

void Table::add_row(const std::vector<std::string>& fields) {
  for (size_t c = 0; c < source_.size(); ++c) {
    const size_t f = static_cast<size_t>(source_[c]);
    const std::string empty;
    const std::string& text = f < fields.size() ? fields[f] : empty;
    double value = NAN;
    if (!text.empty()) {
      char* end = nullptr;
      errno = 0;
      const double v = std::strtod(text.c_str(), &end);
      if (end == text.c_str() + text.size() && errno != ERANGE) value = v;
    }
    numbers_[c].push_back(value);
    if (std::isnan(value) && !text.empty()) {
      if (labels_[c].empty()) labels_[c].assign(rows_, -1);
      const auto [it, added] = index_.try_emplace(text, static_cast<int32_t>(pool_.size()));
      if (added) pool_.push_back(text);
      labels_[c].push_back(it->second);
    } else if (!labels_[c].empty()) {
      labels_[c].push_back(-1);
    }
  }
  if (keep_text_) {
    std::vector<std::string> kept;
    for (int f : source_)
      kept.push_back(static_cast<size_t>(f) < fields.size() ? fields[static_cast<size_t>(f)] : "");
    text_.push_back(std::move(kept));
  }
  ++rows_;
}

std::optional<Table> read_table(const fs::path& file, bool keep_text,
                                const std::vector<std::string>& columns) {
  std::error_code ec;
  if (!fs::is_regular_file(file, ec)) return std::nullopt;
  std::ifstream in(file, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + file.string());
  Table table;
  table.keep_text_ = keep_text;
  std::string line;
  bool first = true;
  // Streamed line by line: the file's text is never held whole.
  while (std::getline(in, line)) {
    if (line.empty() || line == "\r") continue;
    const std::vector<std::string> fields = split_row(line);
    if (first) {
      for (size_t f = 0; f < fields.size(); ++f) {
        if (!columns.empty() &&
            std::find(columns.begin(), columns.end(), fields[f]) == columns.end())
          continue;
        table.header.push_back(fields[f]);
        table.source_.push_back(static_cast<int>(f));
      }
      table.numbers_.resize(table.header.size());
      table.labels_.resize(table.header.size());
      first = false;
    } else {
      table.add_row(fields);
    }
  }
  if (in.bad()) throw std::runtime_error("cannot read " + file.string());
  return table;
}

std::optional<Json> read_json(const fs::path& file) {
  const std::optional<std::string> text = read_text(file);
  if (!text) return std::nullopt;
  try {
    return Json::parse(*text);
  } catch (const Json::parse_error& e) {
    throw std::runtime_error(file.string() + " is not valid JSON: " + e.what());
  }
}

std::vector<size_t> thin_indices(size_t n, size_t cap) {
  std::vector<size_t> out;
  if (n == 0) return out;
  if (n <= cap) {
    for (size_t i = 0; i < n; ++i) out.push_back(i);
    return out;
  }
  if (cap < 2) return {n - 1};
  out.reserve(cap);
  // i-th kept index = round(i * (n-1) / (cap-1)): evenly spaced, first and last included.
  for (size_t i = 0; i < cap; ++i) {
    out.push_back(static_cast<size_t>(
        (static_cast<unsigned __int128>(i) * (n - 1) + (cap - 1) / 2) / (cap - 1)));
  }
  return out;
}

std::vector<std::pair<double, double>> cdf_points(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  std::vector<std::pair<double, double>> points;
  const double n = static_cast<double>(values.size());
  for (size_t i : thin_indices(values.size(), kMaxCdfPoints)) {
    points.emplace_back(values[i], static_cast<double>(i + 1) / n);
  }
  return points;
}

std::string html_escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

}  // namespace fabricsim::output::report
