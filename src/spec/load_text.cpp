#include "spec/load_text.h"

#include <cstdio>

#include "spec/did_you_mean.h"
#include "spec/scenario_file.h"

namespace fabricsim::scenario {

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

std::string join_path(const std::string& group, const std::string& key) {
  return group.empty() ? key : group + "." + key;
}

std::string unknown_key_message(const std::string& key, const std::vector<std::string>& allowed) {
  return "unknown key '" + key + "'; " + did_you_mean_prefix(key, allowed) + "allowed: " +
         join(allowed);
}

std::string expected_value(const Knob& k) {
  switch (k.type) {
    case KnobType::kInt:
    case KnobType::kUint:
      return "expected an integer";
    case KnobType::kDouble:
      return "expected a number";
    case KnobType::kBool:
      return "expected true or false";
    case KnobType::kTime:
      return "expected a time like 1.5us";
    case KnobType::kBytes:
      return "expected a size like 64MiB";
    case KnobType::kRate:
      return "expected a rate like 400Gbps";
    case KnobType::kLength:
      return "expected a length like 3m";
    case KnobType::kEnum:
      return "expected one of: " + join(k.choices);
    case KnobType::kString:
      return "expected a string";
    case KnobType::kSizeCdf:
      return "expected a list of [size, cumulative probability] like [[1KB, 0.5], [1MB, 1.0]]";
    case KnobType::kFlowList:
      return "expected a list of [src NIC, dst NIC, size, start] like [[1, 0, 1MB, 0us]]";
    case KnobType::kIntList:
      return "expected a list of integers like [1, 2, 4]";
    case KnobType::kStringList:
      return "expected a list of names like [sw0:1->sw4]";
  }
  return "";
}

std::string utf8_problem(std::string_view text) {
  const size_t at = invalid_utf8_offset(text);
  if (at == std::string_view::npos) return "";
  char byte[8];
  std::snprintf(byte, sizeof byte, "0x%02X", static_cast<unsigned char>(text[at]));
  return std::string("invalid UTF-8 (byte ") + byte + " at offset " + std::to_string(at) +
         "); scenario text must be UTF-8";
}

}  // namespace fabricsim::scenario
