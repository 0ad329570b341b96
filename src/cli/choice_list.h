// A comma-separated list of choices on the command line (compare's --fabrics and --modes).
#pragma once

#include <string>
#include <vector>

namespace fabricsim::cli {

// The names in `list` (each a `noun`: fabric, mode), in the order given, each one of `known` and none twice. On a bad list
// prints one line, `fabricsim: OPTION: reason; allowed: ...` (with `example` after an empty
// name), and returns an empty list.
std::vector<std::string> parse_choice_list(const std::string& option, const std::string& noun,
                                           const std::string& list,
                                           const std::vector<std::string>& known,
                                           const std::string& example);

// The items joined by ", " (the inverse of a choice list, for messages).
std::string join_list(const std::vector<std::string>& items);

}  // namespace fabricsim::cli
