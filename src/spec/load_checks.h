// The scenario loader's checks between keys (load.cpp runs them once every key is set): keys
// written for another workload kind or pattern, and values that contradict another key. Each
// failure throws the loader's LoadError, located at the key it names.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "spec/knobs.h"
#include "spec/load.h"

namespace fabricsim::scenario {

// Throws the LoadError for `path` at the place it was written; a key left at its default (not in
// `written`, the leaves the file or --set wrote) gets that default, `dflt`, in the message, since
// the user never wrote it.
[[noreturn]] void fail_cross(const LoadedScenario& loaded,
                             const std::map<std::string, KnobValue>& written,
                             const std::string& path, std::string message, const std::string& dflt);

// Keys written for another workload kind or pattern are errors rather than silently ignored:
// `senders: 64` under pattern: permutation almost always means a forgotten `pattern: incast`.
// `file_order` lists the leaves the file and --set wrote.
void check_conditions(const LoadedScenario& loaded, const std::vector<std::string>& file_order);

// kind: leaf_spine with 3 tiers, poisson without a duration, an incast receiver or sender count
// beyond the NICs. `written` maps each leaf the file or --set wrote to its parsed value; a value
// left at its default says so in the message.
void check_cross_fields(const LoadedScenario& loaded,
                        const std::map<std::string, KnobValue>& written);

}  // namespace fabricsim::scenario
