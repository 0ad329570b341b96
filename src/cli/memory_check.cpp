// The pre-flight memory check of run, compare and validate (cli/memory_check.h).
#include "cli/memory_check.h"

#include <malloc.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "cli/choice_list.h"
#include "core/error.h"
#include "core/rss.h"
#include "core/units.h"
#include "resolve/resolve.h"
#include "spec/scenario_file.h"

namespace fabricsim::cli {
namespace {

// The keys that size `part` which the file (or a --set) writes, in the part's order.
std::vector<std::string> size_drivers_set(const scenario::LoadedScenario& loaded,
                                          const scenario::MemoryPart& part) {
  std::vector<std::string> set;
  const std::vector<std::string> keys =
      part.drivers.empty() ? std::vector<std::string>{part.key} : part.drivers;
  for (const std::string& k : keys) {
    if (loaded.locations.count(k) != 0) set.push_back(k);
  }
  return set;
}

// What to change to make the run smaller: the keys the file sets that size the largest part,
// with their lines, or that it sets none of them.
std::string drivers_note(const scenario::LoadedScenario& loaded, const scenario::MemoryPart& part,
                         const std::vector<std::string>& set) {
  if (set.empty()) {
    return "the " + part.name + " part is sized by keys the file does not set (" +
           join_list(part.drivers.empty() ? std::vector<std::string>{part.key} : part.drivers) +
           ", all at their defaults)";
  }
  std::string out;
  for (const std::string& k : set) {
    const scenario::SourceLocation at = loaded.locate(k);
    out += (out.empty() ? "" : ", ") + k +
           (at.file == "--set" || at.line <= 0 ? "" : " (line " + std::to_string(at.line) + ")");
  }
  return "the " + part.name + " part grows with " + out;
}

}  // namespace

bool memory_limit(const MemoryLimitArg& arg, int64_t& limit) {
  if (arg.max_memory.empty()) {
    limit = scenario::available_memory_bytes();
    return true;
  }
  const ParseResult<int64_t> size = parse_bytes(arg.max_memory);
  if (!size.ok || size.value <= 0) {
    std::cerr << "fabricsim: --max-memory: " << (size.ok ? "must be > 0" : size.error) << "\n";
    return false;
  }
  limit = size.value;
  return true;
}

bool parse_fits(const std::string& file, const MemoryLimitArg& arg, int64_t limit) {
  std::error_code ec;
  const std::uintmax_t size = std::filesystem::file_size(file, ec);
  if (ec || limit <= 0 || size > static_cast<std::uintmax_t>(scenario::kMaxScenarioFileBytes)) {
    return true;  // the loader reports a missing, special or oversized file
  }
  const int64_t need =
      scenario::current_rss_bytes() + scenario::parse_peak_bytes(static_cast<int64_t>(size));
  if (need <= limit) return true;
  std::cerr << scenario::LoadError(
                   {file, 0}, "(file)",
                   "parsing this " + format_bytes(static_cast<int64_t>(size)) +
                       " file needs about " + format_bytes(need) +
                       " (yaml-cpp: ~80 bytes per byte of file), over the limit " +
                       format_bytes(limit) +
                       (arg.max_memory.empty() ? " (available memory; see --max-memory)"
                                               : " (--max-memory)"))
                   .what()
            << "\n";
  return false;
}

Preflight preflight(const scenario::LoadedScenario& loaded, const MemoryLimitArg& arg,
                    int64_t limit, int64_t held) {
  Preflight p;
  try {
    (void)scenario::resolve(loaded.scenario);
    p.estimate = scenario::estimate_resources(loaded.scenario);
  } catch (const InputError& e) {
    p.error = scenario::format_input_error(loaded, e);
    return p;
  }
  // Each term is below 2^62 (estimate_resources refuses larger); held is a sum of a few such.
  // Estimating a training step builds its DAG (preflight/resources_gpu.cpp) and frees it; glibc
  // keeps the freed small chunks in its heap, resident, and the run would reuse them, so the RSS
  // read below would count them twice (the 70B-class step: 49 MiB resident after its estimate
  // against 7 MiB before). malloc_trim hands the free pages back first, so what is read is what
  // the process still holds.
  malloc_trim(0);
  const double projected = static_cast<double>(scenario::current_rss_bytes()) +
                           static_cast<double>(scenario::code_to_page_in_bytes()) +
                           static_cast<double>(held) + static_cast<double>(p.estimate.peak_bytes());
  p.peak_bytes = std::max(peak_rss_bytes(), static_cast<int64_t>(std::min(projected, 9.0e18)));
  if (limit > 0 && p.peak_bytes > limit) {
    const scenario::MemoryPart& largest = p.estimate.largest();
    const std::vector<std::string> set = size_drivers_set(loaded, largest);
    const InputError e(
        set.empty() ? largest.key : set.front(),
        "estimated peak memory " + format_bytes(p.peak_bytes) + " exceeds the limit " +
            format_bytes(limit) +
            (arg.max_memory.empty() ? " (available memory; see --max-memory)" : " (--max-memory)") +
            ": " + scenario::describe_parts(p.estimate) + "; " +
            drivers_note(loaded, largest, set));
    p.error = scenario::format_input_error(loaded, e);
  }
  return p;
}

std::string worst_case_note(const scenario::ResourceEstimate& e) {
  int64_t packets = 0;
  for (const scenario::MemoryPart& part : e.parts) {
    if (part.name == "packets") packets = part.bytes;
  }
  if (e.packets_bound_bytes <= packets) return "";
  return "; queued packets are expected near the ECN threshold, up to " +
         format_bytes(e.packets_bound_bytes) +
         " if every switch buffer filled (a run stops with an error if they outgrow the limit)";
}

}  // namespace fabricsim::cli
