// The loader's checks between keys: see spec/load_checks.h.
#include "spec/load_checks.h"

#include <cstdint>
#include <string>
#include <utility>

namespace fabricsim::scenario {
namespace {

[[noreturn]] void fail(const SourceLocation& where, const std::string& key_path,
                       std::string message) {
  throw LoadError(where, key_path, std::move(message));
}

}  // namespace

void fail_cross(const LoadedScenario& loaded, const std::map<std::string, KnobValue>& written,
                const std::string& path, std::string message, const std::string& dflt) {
  if (written.count(path) == 0) message += " (the default is " + dflt + ")";
  fail(loaded.locate(path), path, std::move(message));
}

void check_conditions(const LoadedScenario& loaded, const std::vector<std::string>& file_order) {
  for (const std::string& path : file_order) {
    const Knob& k = *find_knob(path);
    std::vector<Condition> failing;
    for (const Condition& c : k.only_with) {
      const std::string v = find_knob(c.key_path)->get(loaded.scenario);
      if (v != c.value && (c.or_value.empty() || v != c.or_value)) failing.push_back(c);
    }
    if (!failing.empty()) {
      fail(loaded.locations.at(path), path, "only valid with " + describe_conditions(failing));
    }
  }
}

void check_cross_fields(const LoadedScenario& loaded,
                        const std::map<std::string, KnobValue>& written) {
  const Scenario& s = loaded.scenario;
  const auto kind = written.find("topology.kind");
  if (kind != written.end() && std::get<std::string>(kind->second) == "leaf_spine" &&
      s.topology.tiers != 2) {
    fail(loaded.locate("topology.tiers"), "topology.tiers",
         "must be 2 with kind: leaf_spine (use kind: fat_tree for 3 tiers)");
  }
  if (s.workload.kind != workload::WorkloadKind::kPattern) return;
  if (s.workload.pattern == workload::PatternKind::kPoisson && s.workload.duration_ps <= 0) {
    fail(loaded.locate("workload.duration"), "workload.duration",
         "required with pattern: poisson, e.g. duration: 1ms");
  }
  if (s.workload.pattern == workload::PatternKind::kIncast) {
    const int64_t nics = int64_t{s.topology.hosts} * s.topology.nics_per_host;
    if (s.workload.incast_receiver >= nics) {
      fail_cross(loaded, written, "workload.receiver",
                 "must be < " + std::to_string(nics) + ", the number of NICs",
                 std::to_string(s.workload.incast_receiver));
    }
    if (s.workload.incast_senders >= nics) {
      fail_cross(loaded, written, "workload.senders",
                 "must be < " + std::to_string(nics) +
                     ", the number of NICs, since the receiver does not send",
                 std::to_string(s.workload.incast_senders));
    }
  }
}

}  // namespace fabricsim::scenario
