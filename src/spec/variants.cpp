#include "spec/variants.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>

#include "spec/did_you_mean.h"
#include "spec/load.h"
#include "spec/load_text.h"

namespace fabricsim::scenario {

namespace {

int line_of(const YAML::Node& node, int fallback) {
  const YAML::Mark mark = node.Mark();
  return mark.is_null() ? fallback : mark.line + 1;
}

// Names become directory names under the compare output: keep them portable.
bool portable_name(const std::string& name) {
  if (name.empty() || name.size() > 64 || name == "." || name == "..") return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '-' || c == '_' || c == '.' || c == '+';
  });
}

}  // namespace

std::vector<VariantSpec> read_variants(const YAML::Node& value, const std::string& file,
                                       int line) {
  auto fail = [&](int at, const std::string& key, const std::string& message) {
    throw LoadError({file, at}, key, message);
  };
  if (!value.IsSequence() || value.size() == 0) {
    fail(line, "variants",
         "expected a list of variants like [{name: ecmp, fabric: roce, set: [key.path=value]}]");
  }
  static const std::vector<std::string> kFabrics = {"roce", "ib", "uet", "tcp", "iwarp"};
  std::vector<VariantSpec> out;
  for (size_t i = 0; i < value.size(); ++i) {
    const YAML::Node& item = value[i];
    const std::string base = "variants[" + std::to_string(i) + "]";
    VariantSpec v;
    v.line = line_of(item, line);
    if (!item.IsMap()) fail(v.line, base, "expected a mapping with keys name, fabric, set");
    for (const auto& pair : item) {
      const std::string key = pair.first.IsScalar() ? pair.first.Scalar() : "";
      const YAML::Node& val = pair.second;
      const std::string path = base + "." + key;
      const int at = line_of(pair.first, v.line);
      if (key == "name") {
        if (!val.IsScalar() || !portable_name(val.Scalar())) {
          fail(at, path, "expected a name of letters, digits and - _ . + (at most 64)");
        }
        v.name = val.Scalar();
      } else if (key == "fabric") {
        if (!val.IsScalar() ||
            std::find(kFabrics.begin(), kFabrics.end(), val.Scalar()) == kFabrics.end()) {
          fail(at, path,
               "expected one of: roce, ib, uet, tcp, iwarp" +
                   did_you_mean_suffix(val.IsScalar() ? val.Scalar() : "",
                                       kFabrics));
        }
        v.fabric = val.Scalar();
      } else if (key == "set") {
        if (!val.IsSequence()) fail(at, path, "expected a list of key.path=value overrides");
        for (size_t j = 0; j < val.size(); ++j) {
          const int set_at = line_of(val[j], at);
          const std::string s = val[j].IsScalar() ? val[j].Scalar() : "";
          const size_t eq = s.find('=');
          if (eq == std::string::npos || eq == 0) {
            fail(set_at, path + "[" + std::to_string(j) + "]", "expected key.path=value");
          }
          if (s.substr(0, eq) == "fabric.technology") {
            fail(set_at, path + "[" + std::to_string(j) + "]",
                 "a variant's technology is its `fabric`; drop this override");
          }
          v.sets.push_back(s);
          v.set_lines.push_back(set_at);
        }
      } else {
        fail(at, path, unknown_key_message(key, {"name", "fabric", "set"}));
      }
    }
    if (v.name.empty()) fail(v.line, base + ".name", "missing: the variant's column name");
    if (v.fabric.empty()) fail(v.line, base + ".fabric", "missing: one of roce, ib, uet");
    for (const VariantSpec& earlier : out) {
      if (earlier.name == v.name) fail(v.line, base + ".name", "'" + v.name + "' is used twice");
    }
    out.push_back(std::move(v));
  }
  return out;
}

}  // namespace fabricsim::scenario
