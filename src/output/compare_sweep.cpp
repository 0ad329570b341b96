// The size-sweep table of `fabricsim compare` (output/compare_sweep.h), moved out of
// compare.cpp unchanged.
#include "output/compare_sweep.h"

#include <algorithm>
#include <cstdint>

#include "core/units.h"

namespace fabricsim::output {

// A size sweep, one row per size as nccl-tests prints it: each run's time (us) and busbw (GB/s),
// and with two runs the busbw ratio. Sizes are the union over the runs (a variant's --set may
// change the sweep), ascending; "-" where a run has no such size or did not finish it.
std::string sweep_table_text(const FabricRuns& runs, const std::vector<CompareMetrics>& ms) {
  std::vector<int64_t> sizes;
  for (const CompareMetrics& m : ms) {
    for (const scenario::CollectiveRow& r : m.sweep) sizes.push_back(r.size_bytes);
  }
  if (sizes.empty()) return "";
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  auto find = [](const CompareMetrics& m, int64_t size) -> const scenario::CollectiveRow* {
    for (const scenario::CollectiveRow& r : m.sweep) {
      if (r.size_bytes == size && r.time_ps >= 0) return &r;
    }
    return nullptr;
  };
  const bool ratio = runs.size() == 2;
  std::vector<std::vector<std::string>> lines;
  std::vector<std::string> header{"size (B)"};
  for (const auto& [name, result] : runs) {
    header.push_back(name + " time (us)");
    header.push_back(name + " busbw (GB/s)");
  }
  if (ratio) header.push_back("busbw " + runs[0].first + "/" + runs[1].first);
  lines.push_back(std::move(header));
  for (int64_t size : sizes) {
    std::vector<std::string> line{std::to_string(size)};
    for (const CompareMetrics& m : ms) {
      const scenario::CollectiveRow* r = find(m, size);
      line.push_back(r ? format_fixed(static_cast<double>(r->time_ps) * 1e-6, 2) : "-");
      line.push_back(r ? format_fixed(r->busbw_gbytes_per_s, 2) : "-");
    }
    if (ratio) {
      const scenario::CollectiveRow* a = find(ms[0], size);
      const scenario::CollectiveRow* b = find(ms[1], size);
      line.push_back(a && b && a->busbw_gbytes_per_s > 0 && b->busbw_gbytes_per_s > 0
                         ? format_fixed(a->busbw_gbytes_per_s / b->busbw_gbytes_per_s, 3)
                         : "");
    }
    lines.push_back(std::move(line));
  }
  std::vector<size_t> widths(lines.front().size());
  for (const auto& line : lines) {
    for (size_t i = 0; i < line.size(); ++i) widths[i] = std::max(widths[i], line[i].size());
  }
  std::string out = "\n  nccl-tests rows per size (every run's DIR/<run>/nccl-tests.csv has them):\n";
  for (const auto& line : lines) {
    std::string text = " ";
    for (size_t i = 0; i < line.size(); ++i) {
      text += std::string(3 + widths[i] - line[i].size(), ' ') + line[i];
    }
    while (!text.empty() && text.back() == ' ') text.pop_back();
    out += text + "\n";
  }
  return out;
}

}  // namespace fabricsim::output
