// How the scenario loader's messages spell things: a list, a dotted key path, what a value of a
// knob's type looks like, and what is wrong with text that is not UTF-8 (load.cpp).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "spec/knobs.h"

namespace fabricsim::scenario {

// "a, b, c"
std::string join(const std::vector<std::string>& items);
// "group.key", or "key" at the top level.
std::string join_path(const std::string& group, const std::string& key);
// "unknown key 'rat'; did you mean 'rate'? allowed: rate, cable, loss_rate" (the hint only when
// one allowed key is close, spec/did_you_mean.h).
std::string unknown_key_message(const std::string& key, const std::vector<std::string>& allowed);
// What a value of the knob's type looks like, for "missing value; expected ..." messages.
std::string expected_value(const Knob& k);
// "" when `text` is valid UTF-8, else what is wrong and where, without echoing the bytes (the
// error line itself must stay valid UTF-8).
std::string utf8_problem(std::string_view text);

}  // namespace fabricsim::scenario
