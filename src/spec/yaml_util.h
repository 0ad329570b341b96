// Small helpers the scenario loader shares between its files (load.cpp, yaml_document.cpp):
// how a YAML node reads in an error message and the 1-based line of a mark.
#pragma once

#include <yaml-cpp/yaml.h>

#include <string>

namespace fabricsim::scenario {

inline std::string node_kind(const YAML::Node& node) {
  if (node.IsMap()) return "a mapping";
  if (node.IsSequence()) return "a list";
  if (node.IsNull()) return "nothing";
  return "'" + node.Scalar() + "'";
}

inline int line_of(const YAML::Mark& mark) { return mark.is_null() ? 0 : mark.line + 1; }

}  // namespace fabricsim::scenario
