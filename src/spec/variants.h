// variants: named runs of one scenario for `fabricsim compare` (one table, one column each).
//
//   variants:
//     - {name: ecmp, fabric: roce, set: [routing.load_balancing=ecmp]}
//     - {name: uet-reps, fabric: uet, set: [fabric.uet.load_balancing=reps]}
//
// Each variant is the file's scenario on its `fabric`, scoped as compare scopes a fabric
// (cli/fabric_scope.h), with its `set` overrides applied as --set would apply them (the command
// line's own --set come after, so they win). `fabricsim run` runs the file's scenario itself.
#pragma once

#include <string>
#include <vector>

namespace YAML {
class Node;
}

namespace fabricsim::scenario {

struct VariantSpec {
  std::string name;    // column header and the name of its result directory
  std::string fabric;  // a fabric.technology value
  std::vector<std::string> sets;  // key.path=value
  int line = 0;                   // where the variant is written
  std::vector<int> set_lines;     // where each override is written
};

// Reads the `variants:` list; throws LoadError (spec/load.h) naming variants[i].key.
std::vector<VariantSpec> read_variants(const YAML::Node& value, const std::string& file,
                                       int line);

}  // namespace fabricsim::scenario
