#include "spec/knobs.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>

#include "spec/did_you_mean.h"

namespace fabricsim::scenario {
namespace {

std::string quoted(std::string_view text) { return "'" + std::string(text) + "'"; }

std::string join(const std::vector<std::string>& items, std::string_view sep = ", ") {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : std::string(sep)) + item;
  return out;
}

bool is_integral(KnobType type) {
  return type == KnobType::kInt || type == KnobType::kUint || type == KnobType::kTime ||
         type == KnobType::kBytes || type == KnobType::kRate;
}

// A bound as the scenario file would write it: "0", "1", "4096B", "1us".
std::string format_bound(KnobType type, double v) {
  if (v == 0) return "0";
  const auto i = static_cast<int64_t>(v);
  switch (type) {
    case KnobType::kTime:
      return format_time_exact(i);
    case KnobType::kBytes:
      return format_bytes_exact(i);
    case KnobType::kRate:
      return format_rate_exact(i);
    case KnobType::kLength:
      return format_length_exact(v);
    default:
      break;
  }
  if (is_integral(type)) return std::to_string(i);
  char buf[64];
  const auto res = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, res.ptr);
}

// "> 0", ">= 1", "<= 7", "between 0 and 7", "in (0, 1]"; "" when unbounded.
std::string describe_range(const Knob& k) {
  if (k.min && k.max) {
    if (!k.min->exclusive && !k.max->exclusive) {
      return "between " + format_bound(k.type, k.min->value) + " and " +
             format_bound(k.type, k.max->value);
    }
    return std::string("in ") + (k.min->exclusive ? "(" : "[") +
           format_bound(k.type, k.min->value) + ", " + format_bound(k.type, k.max->value) +
           (k.max->exclusive ? ")" : "]");
  }
  if (k.min) return (k.min->exclusive ? "> " : ">= ") + format_bound(k.type, k.min->value);
  if (k.max) return (k.max->exclusive ? "< " : "<= ") + format_bound(k.type, k.max->value);
  return "";
}

std::string describe_one_of(const Knob& k) {
  std::vector<std::string> items;
  for (int64_t v : k.one_of) {
    // MTUs read better as "4096B" than "4KiB": that is how the IBTA table lists them.
    items.push_back(k.type == KnobType::kBytes ? std::to_string(v) + "B" : std::to_string(v));
  }
  return "one of: " + join(items);
}

bool below(const Bound& b, double v) { return b.exclusive ? v <= b.value : v < b.value; }
bool above(const Bound& b, double v) { return b.exclusive ? v >= b.value : v > b.value; }

// Range, one_of and multiple_of for a number already parsed; "" when allowed.
std::string check_number(const Knob& k, double v, int64_t integral) {
  if ((k.min && below(*k.min, v)) || (k.max && above(*k.max, v))) {
    return "must be " + describe_range(k);
  }
  if (!k.one_of.empty()) {
    bool found = false;
    for (int64_t allowed : k.one_of) found = found || allowed == integral;
    if (!found) return "must be " + describe_one_of(k);
  }
  if (k.multiple_of > 0 && integral % k.multiple_of != 0) {
    return k.multiple_of == 2 ? "must be even"
                              : "must be a multiple of " + std::to_string(k.multiple_of);
  }
  return "";
}

}  // namespace

const std::vector<Knob>& knobs() {
  static const std::vector<Knob> registry = build_knob_registry();
  return registry;
}

const Knob* find_knob(std::string_view path) {
  for (const Knob& k : knobs()) {
    if (k.path == path) return &k;
  }
  return nullptr;
}

bool is_group(std::string_view path) {
  if (path.empty()) return true;
  for (const Knob& k : knobs()) {
    if (k.path.size() > path.size() && k.path.compare(0, path.size(), path) == 0 &&
        k.path[path.size()] == '.') {
      return true;
    }
  }
  return false;
}

std::vector<std::string> child_keys(std::string_view group_path) {
  const std::string prefix = group_path.empty() ? "" : std::string(group_path) + ".";
  std::vector<std::string> out;
  for (const Knob& k : knobs()) {
    if (k.path.compare(0, prefix.size(), prefix) != 0) continue;
    const std::string rest = k.path.substr(prefix.size());
    const std::string child = rest.substr(0, rest.find('.'));
    bool seen = false;
    for (const std::string& c : out) seen = seen || c == child;
    if (!seen) out.push_back(child);
  }
  // `jobs:` is a list of workloads the loader reads itself (not a registry leaf).
  // `variants:` likewise (spec/variants.h), last.
  if (group_path.empty()) {
    out.insert(std::find(out.begin(), out.end(), "workload") + 1, "jobs");
    out.push_back("variants");
  }
  return out;
}

ParseResult<int64_t> parse_integer(std::string_view text) {
  ParseResult<int64_t> r;
  const char* end = text.data() + text.size();
  const auto res = std::from_chars(text.data(), end, r.value);
  if (text.empty() || res.ptr != end || res.ec == std::errc::invalid_argument) {
    r.error = quoted(text) + " is not an integer";
  } else if (res.ec == std::errc::result_out_of_range) {
    r.error = quoted(text) + " is too large";
  } else {
    r.ok = true;
  }
  return r;
}

ParseResult<double> parse_real(std::string_view text) {
  ParseResult<double> r;
  const char* end = text.data() + text.size();
  const auto res = std::from_chars(text.data(), end, r.value);
  if (text.empty() || res.ptr != end || res.ec != std::errc() || !std::isfinite(r.value)) {
    r.error = quoted(text) + " is not a number";
  } else {
    r.ok = true;
  }
  return r;
}

namespace {

ParseResult<KnobValue> failed(std::string error) {
  ParseResult<KnobValue> r;
  r.error = std::move(error);
  return r;
}

// `value` once its number passes the knob's range, one_of and multiple_of.
ParseResult<KnobValue> checked(const Knob& k, KnobValue value, double number, int64_t integral) {
  std::string error = check_number(k, number, integral);
  if (!error.empty()) return failed(std::move(error));
  ParseResult<KnobValue> r;
  r.value = std::move(value);
  r.ok = true;
  return r;
}

bool outside_int(int64_t v) {
  return v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max();
}

// A list in the form `get` prints, "[a, b]", loses its brackets; "a, b" stays as it is.
std::string_view strip_brackets(std::string_view text) {
  if (text.size() >= 2 && text.front() == '[' && text.back() == ']') {
    return text.substr(1, text.size() - 2);
  }
  return text;
}

std::string_view trim_spaces(std::string_view item) {
  while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
  while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
  return item;
}

ParseResult<KnobValue> parse_uint_value(const Knob& k, std::string_view text) {
  uint64_t v = 0;
  const char* end = text.data() + text.size();
  const auto res = std::from_chars(text.data(), end, v);
  if (!text.empty() && text.front() == '-') return failed("must be >= 0");
  if (text.empty() || res.ptr != end || res.ec == std::errc::invalid_argument) {
    return failed(quoted(text) + " is not a non-negative integer");
  }
  if (res.ec == std::errc::result_out_of_range) return failed(quoted(text) + " is too large");
  return checked(k, v, static_cast<double>(v), static_cast<int64_t>(v));
}

// kIntList: "[1, 2, 4]" or "1,2,4"; every item is checked like a kInt; "[]" is no values.
ParseResult<KnobValue> parse_int_list(const Knob& k, std::string_view text) {
  std::vector<int64_t> values;
  text = strip_brackets(text);
  ParseResult<KnobValue> r;
  if (text.find_first_not_of(' ') == std::string_view::npos) {
    r.value = std::move(values);
    r.ok = true;
    return r;
  }
  for (size_t at = 0; at <= text.size();) {
    size_t comma = text.find(',', at);
    if (comma == std::string_view::npos) comma = text.size();
    const std::string_view item = trim_spaces(text.substr(at, comma - at));
    const ParseResult<int64_t> p = parse_integer(item);
    if (!p.ok) return failed(p.error + " (expected a list of integers like [1, 2, 4])");
    if (outside_int(p.value)) return failed(quoted(item) + " is too large");
    std::string error = check_number(k, static_cast<double>(p.value), p.value);
    if (!error.empty()) return failed(std::move(error));
    values.push_back(p.value);
    at = comma + 1;
  }
  r.value = std::move(values);
  r.ok = true;
  return r;
}

// kStringList: "[a, b]" or "a,b" -> "a,b" (knob_bind splits it); "[]" is no names.
ParseResult<KnobValue> parse_string_list(const Knob& k, std::string_view text) {
  text = strip_brackets(text);
  std::string joined;
  if (text.find_first_not_of(' ') == std::string_view::npos) return checked(k, joined, 0, 0);
  for (size_t at = 0; at <= text.size();) {
    size_t comma = text.find(',', at);
    if (comma == std::string_view::npos) comma = text.size();
    const std::string_view item = trim_spaces(text.substr(at, comma - at));
    if (item.empty()) return failed("empty name in the list (expected names like [a, b])");
    joined += (joined.empty() ? "" : ",") + std::string(item);
    at = comma + 1;
  }
  return checked(k, std::move(joined), 0, 0);
}

}  // namespace

ParseResult<KnobValue> parse_knob_value(const Knob& k, std::string_view text) {
  switch (k.type) {
    case KnobType::kInt: {
      const ParseResult<int64_t> p = parse_integer(text);
      if (!p.ok) return failed(p.error);
      if (outside_int(p.value)) return failed(quoted(text) + " is too large");
      return checked(k, p.value, static_cast<double>(p.value), p.value);
    }
    case KnobType::kUint:
      return parse_uint_value(k, text);
    case KnobType::kDouble: {
      const ParseResult<double> p = parse_real(text);
      if (!p.ok) return failed(p.error);
      return checked(k, p.value, p.value, 0);
    }
    case KnobType::kBool:
      if (text == "true" || text == "on") return checked(k, true, 0, 0);
      if (text == "false" || text == "off") return checked(k, false, 0, 0);
      return failed("must be true or false");
    case KnobType::kTime:
    case KnobType::kBytes:
    case KnobType::kRate: {
      const ParseResult<int64_t> p = k.type == KnobType::kTime    ? parse_time_ps(text)
                                     : k.type == KnobType::kBytes ? parse_bytes(text)
                                                                  : parse_rate_bps(text);
      if (!p.ok) return failed(p.error);
      return checked(k, p.value, static_cast<double>(p.value), p.value);
    }
    case KnobType::kLength: {
      const ParseResult<double> p = parse_length_m(text);
      if (!p.ok) return failed(p.error);
      return checked(k, p.value, p.value, 0);
    }
    case KnobType::kEnum:
      for (const std::string& choice : k.choices) {
        if (choice == text) return checked(k, std::string(text), 0, 0);
      }
      return failed("must be one of: " + join(k.choices) + did_you_mean_suffix(text, k.choices));
    case KnobType::kString:
      return checked(k, std::string(text), 0, 0);
    case KnobType::kIntList:
      return parse_int_list(k, text);
    case KnobType::kStringList:
      return parse_string_list(k, text);
    case KnobType::kSizeCdf:
    case KnobType::kFlowList:
      break;
  }
  return failed(k.type == KnobType::kFlowList
                    ? "expected a list of [src, dst, size, start] flows"
                    : "expected a list of [size, cumulative probability] pairs");
}

std::string knob_default(const Knob& k) { return k.get(Scenario{}); }

std::string_view type_name(KnobType type) {
  switch (type) {
    case KnobType::kInt:
      return "int";
    case KnobType::kUint:
      return "uint";
    case KnobType::kDouble:
      return "number";
    case KnobType::kBool:
      return "bool";
    case KnobType::kTime:
      return "time";
    case KnobType::kBytes:
      return "bytes";
    case KnobType::kRate:
      return "rate";
    case KnobType::kLength:
      return "length";
    case KnobType::kEnum:
      return "enum";
    case KnobType::kString:
      return "string";
    case KnobType::kSizeCdf:
    case KnobType::kFlowList:
    case KnobType::kIntList:
    case KnobType::kStringList:
      return "list";
  }
  return "?";
}

std::string describe_allowed(const Knob& k) {
  std::vector<std::string> parts;
  if (!k.choices.empty()) parts.push_back(join(k.choices, " \\| "));
  if (!k.one_of.empty()) parts.push_back(describe_one_of(k));
  const std::string range = describe_range(k);
  if (!range.empty()) parts.push_back(range);
  if (k.multiple_of == 2) parts.push_back("even");
  if (k.multiple_of > 2) parts.push_back("multiple of " + std::to_string(k.multiple_of));
  if (k.type == KnobType::kBool) parts.push_back("true \\| false");
  return join(parts);
}

std::string describe_conditions(const std::vector<Condition>& conditions) {
  std::vector<std::string> parts;
  for (const Condition& c : conditions) {
    parts.push_back(c.key_path.substr(c.key_path.rfind('.') + 1) + ": " + c.value +
                    (c.or_value.empty() ? "" : " or " + c.or_value));
  }
  return join(parts);
}

std::string render_keys_markdown() {
  std::string out =
      "# Scenario keys\n\n"
      "Generated by `fabricsim keys > docs/scenario-keys.md` from the knob registry\n"
      "(src/spec/knob_registry.cpp); defaults are the member initialisers of the config\n"
      "structs. Nested keys may be written as YAML maps (`fabric: {link: {rate: 400Gbps}}`) and\n"
      "overridden on the command line with `--set fabric.link.rate=100Gbps`. Values with units\n"
      "need the unit: time ps|ns|us|ms|s, bytes B|KB|MB|GB|KiB|MiB|GiB, rate\n"
      "bps|Kbps|Mbps|Gbps|Tbps (also b/s|Kb/s|Mb/s|Gb/s|Tb/s, as in `400 Gb/s`), length m|cm|km.\n\n"
      "| key | type | default | allowed | only with | description | default's source |\n"
      "|---|---|---|---|---|---|---|\n";
  for (const Knob& k : knobs()) {
    std::string def = knob_default(k);
    if (def.empty()) def = "\"\"";
    out += "| `" + k.path + "` | " + std::string(type_name(k.type)) + " | `" + def + "` | " +
           describe_allowed(k) + " | " + describe_conditions(k.only_with) + " | " + k.description +
           " | " + k.source + " |\n";
  }
  return out;
}

}  // namespace fabricsim::scenario
