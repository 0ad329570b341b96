// Reads a scenario YAML file, applies `--set key.path=value` overrides, and validates every key
// against the knob registry (spec/knobs.h), producing a frozen Scenario.
//
// Every error is one line, `FILE:LINE: key.path: message`, so editors and CI can jump to it:
//   default.yaml:4: fabric.link.rat: unknown key 'rat'; did you mean 'rate'? allowed: rate, cable
//   default.yaml:4: fabric.link.rate: missing unit in '400'; expected a rate like 400Gbps
//   --set:2: routing.ecmp.hash: must be one of: crc32, xor_fold; did you mean 'crc32'?
//   default.yaml:9: (yaml): end of map not found
// LINE is 1-based. An override is located as `--set:N` (or `--unset:N`), N counting that
// option's occurrences from 1 in command-line order. Pseudo key paths name errors that belong to
// no key: (yaml) for malformed YAML, (file) for a file that cannot or may not be read (no line
// then), (root) for a document that is not a map, (set) for an override without '=', (unset)
// for a malformed --unset.
//
// Bounded input: the file is read by read_scenario_file (spec/scenario_file.h), which
// refuses anything but a regular file of limited size, and every string the scenario carries
// (keys, values, list items, overrides) must be valid UTF-8, since the result files are JSON.
#pragma once

#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "spec/scenario.h"

namespace YAML {
class Node;
}  // namespace YAML

namespace fabricsim::scenario {

// Where a key was written. file is "--set" for an override, line its 1-based index.
struct SourceLocation {
  std::string file;
  int line = 0;  // 0 = no line (the file as a whole)
  // "FILE:LINE", or "FILE" when line is 0.
  std::string str() const;
};

class LoadError : public std::runtime_error {
 public:
  LoadError(SourceLocation where, std::string key_path, std::string message);
  const SourceLocation& where() const { return where_; }
  const std::string& key_path() const { return key_path_; }
  const std::string& message() const { return message_; }

 private:
  SourceLocation where_;
  std::string key_path_;
  std::string message_;
};

struct LoadedScenario {
  Scenario scenario;
  std::string file;
  // Key path -> where it was written, for every key in the file (groups and leaves) and every
  // override. Keys left at their defaults are absent.
  std::map<std::string, SourceLocation> locations;

  // Where to point an error about `key_path` (e.g. an InputError from resolve): the key
  // itself if written, else its nearest written ancestor, else the file without a line.
  SourceLocation locate(std::string_view key_path) const;
};

// Throws LoadError on any bad input, the file's absence included. `unset_overrides` are key
// paths (a leaf, or a group and everything under it) removed from the file before the
// `set_overrides` (key.path=value) are applied, each list in its own order: --unset goes first
// whatever the order on the command line. Unsetting a known key the file does not set does
// nothing; an unknown key is the usual error, located at --unset:N.
LoadedScenario load_scenario(const std::string& path,
                             const std::vector<std::string>& set_overrides = {},
                             const std::vector<std::string>& unset_overrides = {});
// The same from text in memory; `file_name` only labels messages.
LoadedScenario load_scenario_string(std::string_view yaml, const std::string& file_name,
                                    const std::vector<std::string>& set_overrides = {},
                                    const std::vector<std::string>& unset_overrides = {});
// load_scenario without the locations.
Scenario load_scenario_file(const std::string& path,
                            const std::vector<std::string>& set_overrides = {},
                            const std::vector<std::string>& unset_overrides = {});

// The scenario text parsed into its one YAML document, which must be a mapping; throws the
// loader's LoadError ((yaml) or (root)) otherwise. For callers that need the tree itself
// (cli/fabric_scope.cpp); safe on the malformed input that makes yaml-cpp's LoadAll loop.
YAML::Node parse_scenario_yaml(std::string_view text, const std::string& file_name);

// `FILE:LINE: key.path: message` with newlines flattened, so the result is always one line.
std::string format_error_line(const SourceLocation& where, std::string_view key_path,
                              std::string_view message);
// The one line for an InputError thrown by run_scenario/resolve after loading `loaded`.
std::string format_input_error(const LoadedScenario& loaded, const InputError& error);

}  // namespace fabricsim::scenario
