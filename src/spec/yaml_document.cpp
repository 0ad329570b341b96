// The scenario file as one YAML document (parse_scenario_yaml, spec/load.h): yaml-cpp's
// parse with the checks a scenario needs before its keys are read (one document, a mapping at
// the top, an understandable message for yaml-cpp's own failures).
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "spec/knobs.h"
#include "spec/load.h"
#include "spec/yaml_util.h"

namespace fabricsim::scenario {
namespace {

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

// Sees the document boundaries and nothing else, so counting documents builds no nodes.
class DocumentCounter final : public YAML::EventHandler {
 public:
  std::vector<YAML::Mark> starts;  // where each document begins
  void OnDocumentStart(const YAML::Mark& mark) override { starts.push_back(mark); }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t,
                const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}
};


// Whether a line starts with a document marker, "---" or "...", followed by a space or the end
// of the line (YAML 1.2 section 9.1).
bool has_document_marker(std::string_view text) {
  for (size_t at = 0; at < text.size();) {
    const std::string_view line = text.substr(at, text.find('\n', at) - at);
    if ((line.substr(0, 3) == "---" || line.substr(0, 3) == "...") &&
        (line.size() == 3 || line[3] == ' ' || line[3] == '\t' || line[3] == '\r')) {
      return true;
    }
    const size_t next = text.find('\n', at);
    if (next == std::string_view::npos) break;
    at = next + 1;
  }
  return false;
}

}  // namespace

YAML::Node parse_scenario_yaml(std::string_view text, const std::string& file_name) {
  auto fail = [&](int line, const char* key, std::string message) {
    throw LoadError({file_name, line}, key, std::move(message));
  };
  YAML::Node root;
  try {
    // Not YAML::LoadAll: in yaml-cpp 0.7 it loops forever, allocating gigabytes per second, on
    // malformed input such as "[0], [1]," (the parser keeps reporting an empty document without
    // consuming a token; jbeder/yaml-cpp#1040, fixed upstream by PR #1319 after 0.7.0, the
    // version Debian ships). YAML::Load builds only the first document.
    root = YAML::Load(std::string(text));
    // A block mapping at column 0 runs to the end of the text unless a line starts a new
    // document, so every ordinary scenario needs no second pass. Anything else is scanned for
    // a second document with a counter that stops there (a second pass costs ~70% of a load).
    const bool whole = root.IsMap() && root.Style() == YAML::EmitterStyle::Block &&
                       !has_document_marker(text);
    if (!whole) {
      std::istringstream in{std::string(text)};
      YAML::Parser parser(in);
      DocumentCounter counter;
      while (counter.starts.size() < 2 && parser.HandleNextDocument(counter)) {
      }
      if (counter.starts.size() > 1) {
        fail(line_of(counter.starts[1]), "(yaml)",
             "a scenario file holds one YAML document, found more than one");
      }
    }
  } catch (const YAML::Exception& e) {
    // yaml-cpp 0.7 says only "bad file" when flow collections nest past its depth limit
    // (measured: 1000 levels of "[" do it, 300 do not).
    fail(line_of(e.mark), "(yaml)",
         e.msg == "bad file" ? "nested too deeply (yaml-cpp: bad file); a scenario needs a few levels"
                             : e.msg);
  }
  if (!root.IsDefined() || root.IsNull()) {
    fail(1, "(root)", "empty scenario; expected keys such as " + join(child_keys("")));
  }
  if (!root.IsMap()) {
    fail(line_of(root.Mark()), "(root)", "expected a mapping of keys, got " + node_kind(root));
  }
  return root;
}

}  // namespace fabricsim::scenario
