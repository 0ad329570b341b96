#include "cli/choice_list.h"

#include <algorithm>
#include <iostream>

namespace fabricsim::cli {

namespace {

std::string trim(const std::string& text) {
  const size_t begin = text.find_first_not_of(" \t");
  if (begin == std::string::npos) return "";
  return text.substr(begin, text.find_last_not_of(" \t") - begin + 1);
}

}  // namespace

std::vector<std::string> parse_choice_list(const std::string& option, const std::string& noun,
                                           const std::string& list,
                                           const std::vector<std::string>& known,
                                           const std::string& example) {
  std::string allowed = "; allowed: ";
  for (size_t i = 0; i < known.size(); ++i) allowed += (i ? ", " : "") + known[i];
  std::vector<std::string> names;
  size_t start = 0;
  for (;;) {
    const size_t comma = list.find(',', start);
    const std::string name = trim(list.substr(start, comma - start));
    std::string error;
    if (name.empty()) {
      error = "empty " + noun + " name in '" + list + "'" + allowed + " (comma-separated, e.g. " + example + ")";
    } else if (std::find(known.begin(), known.end(), name) == known.end()) {
      error = "unknown " + noun + " '" + name + "'" + allowed;
    } else if (std::find(names.begin(), names.end(), name) != names.end()) {
      error = "'" + name + "' is listed twice" + allowed;
    }
    if (!error.empty()) {
      std::cerr << "fabricsim: " << option << ": " << error << "\n";
      return {};
    }
    names.push_back(name);
    if (comma == std::string::npos) return names;
    start = comma + 1;
  }
}

std::string join_list(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

}  // namespace fabricsim::cli
