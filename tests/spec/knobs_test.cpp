// The knob registry (spec/knobs.h): every key is well-formed, its default reads back through
// its own parser, and docs/scenario-keys.md is what `fabricsim keys` prints.
#include "spec/knobs.h"

#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>
#include <string>

namespace fabricsim::scenario {
namespace knobs_test {

TEST(Knobs, PathsAreUniqueAndNeverBothLeafAndGroup) {
  std::set<std::string> paths;
  for (const Knob& k : knobs()) {
    EXPECT_TRUE(paths.insert(k.path).second) << "duplicate knob " << k.path;
    EXPECT_FALSE(is_group(k.path)) << k.path << " is a leaf and a group at once";
    EXPECT_FALSE(k.description.empty()) << k.path << " needs a description";
    EXPECT_FALSE(k.source.empty()) << k.path << " needs the source of its default";
    EXPECT_TRUE(k.set && k.get) << k.path << " must be bound to a field";
    for (const Condition& c : k.only_with) {
      EXPECT_NE(find_knob(c.key_path), nullptr) << k.path << " depends on unknown " << c.key_path;
    }
  }
}

TEST(Knobs, DefaultsReadBackThroughTheirParser) {
  // workload.duration defaults to 0 but must be given (> 0) whenever it applies.
  const std::set<std::string> required = {"workload.duration"};
  for (const Knob& k : knobs()) {
    if (k.type == KnobType::kSizeCdf || k.type == KnobType::kFlowList ||
        required.count(k.path) != 0) {
      continue;  // lists are read by the loader, not by the scalar parser
    }
    const std::string text = knob_default(k);
    if (text == "(profile)") continue;  // unset: the named DCQCN profile decides
    const ParseResult<KnobValue> r = parse_knob_value(k, text);
    ASSERT_TRUE(r.ok) << k.path << " default '" << text << "' does not parse: " << r.error;
    Scenario s;
    k.set(s, r.value);
    EXPECT_EQ(k.get(s), text) << k.path << " default does not round-trip";
  }
}

TEST(Knobs, GroupsAndChildren) {
  EXPECT_TRUE(is_group("fabric.link")) << "fabric.link holds rate, cable and loss_rate";
  EXPECT_FALSE(is_group("fabric.link.rate")) << "a leaf is not a group";
  EXPECT_EQ(child_keys("fabric.link"), (std::vector<std::string>{"rate", "cable", "loss_rate"}))
      << "children in registry order";
  EXPECT_EQ(find_knob("fabric.lnk.rate"), nullptr) << "misspelt path";
}

TEST(Knobs, DocsAreUpToDate) {
  std::ifstream in(std::string(FABRICSIM_SOURCE_DIR) + "/docs/scenario-keys.md");
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str(), render_keys_markdown())
      << "docs/scenario-keys.md is stale; regenerate with: build/fabricsim keys > "
         "docs/scenario-keys.md";
}

}  // namespace knobs_test
}  // namespace fabricsim::scenario
