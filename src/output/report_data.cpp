#include "output/report_data.h"

#include <algorithm>
#include <cerrno>
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

const std::string kEmpty;

}  // namespace

int Table::column(const std::string& name) const {
  const auto it = std::find(header.begin(), header.end(), name);
  return it == header.end() ? -1 : static_cast<int>(it - header.begin());
}

const std::string& Table::field(size_t row, int col) const {
  if (col < 0 || row >= rows.size() || static_cast<size_t>(col) >= rows[row].size()) return kEmpty;
  return rows[row][static_cast<size_t>(col)];
}

std::optional<double> Table::number(size_t row, int col) const {
  const std::string& text = field(row, col);
  if (text.empty()) return std::nullopt;
  char* end = nullptr;
  errno = 0;
  const double value = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size() || errno == ERANGE) return std::nullopt;
  return value;
}

std::optional<Table> read_table(const fs::path& file) {
  const std::optional<std::string> text = read_text(file);
  if (!text) return std::nullopt;
  Table table;
  std::istringstream in(*text);
  std::string line;
  bool first = true;
  while (std::getline(in, line)) {
    if (line.empty() || line == "\r") continue;
    if (first) {
      table.header = split_row(line);
      first = false;
    } else {
      table.rows.push_back(split_row(line));
    }
  }
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
