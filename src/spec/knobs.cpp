#include <algorithm>
#include "spec/knobs.h"

#include <charconv>
#include <cmath>
#include <limits>

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

ParseResult<KnobValue> parse_knob_value(const Knob& k, std::string_view text) {
  ParseResult<KnobValue> r;
  auto fail = [&r](std::string error) {
    r.error = std::move(error);
    return r;
  };
  auto finish = [&](KnobValue value, double number, int64_t integral) {
    std::string error = check_number(k, number, integral);
    if (!error.empty()) return fail(std::move(error));
    r.value = std::move(value);
    r.ok = true;
    return r;
  };
  switch (k.type) {
    case KnobType::kInt: {
      const ParseResult<int64_t> p = parse_integer(text);
      if (!p.ok) return fail(p.error);
      if (p.value < std::numeric_limits<int>::min() || p.value > std::numeric_limits<int>::max()) {
        return fail(quoted(text) + " is too large");
      }
      return finish(p.value, static_cast<double>(p.value), p.value);
    }
    case KnobType::kUint: {
      uint64_t v = 0;
      const char* end = text.data() + text.size();
      const auto res = std::from_chars(text.data(), end, v);
      if (!text.empty() && text.front() == '-') return fail("must be >= 0");
      if (text.empty() || res.ptr != end || res.ec == std::errc::invalid_argument) {
        return fail(quoted(text) + " is not a non-negative integer");
      }
      if (res.ec == std::errc::result_out_of_range) return fail(quoted(text) + " is too large");
      return finish(v, static_cast<double>(v), static_cast<int64_t>(v));
    }
    case KnobType::kDouble: {
      const ParseResult<double> p = parse_real(text);
      if (!p.ok) return fail(p.error);
      return finish(p.value, p.value, 0);
    }
    case KnobType::kBool:
      if (text == "true" || text == "on") return finish(true, 0, 0);
      if (text == "false" || text == "off") return finish(false, 0, 0);
      return fail("must be true or false");
    case KnobType::kTime:
    case KnobType::kBytes:
    case KnobType::kRate: {
      const ParseResult<int64_t> p = k.type == KnobType::kTime    ? parse_time_ps(text)
                                     : k.type == KnobType::kBytes ? parse_bytes(text)
                                                                  : parse_rate_bps(text);
      if (!p.ok) return fail(p.error);
      return finish(p.value, static_cast<double>(p.value), p.value);
    }
    case KnobType::kLength: {
      const ParseResult<double> p = parse_length_m(text);
      if (!p.ok) return fail(p.error);
      return finish(p.value, p.value, 0);
    }
    case KnobType::kEnum:
      for (const std::string& choice : k.choices) {
        if (choice == text) return finish(std::string(text), 0, 0);
      }
      return fail("must be one of: " + join(k.choices));
    case KnobType::kString:
      return finish(std::string(text), 0, 0);
    case KnobType::kIntList: {
      std::vector<int64_t> values;
      if (text.size() >= 2 && text.front() == '[' && text.back() == ']') {
        text = text.substr(1, text.size() - 2);  // the form `get` prints
      }
      if (text.find_first_not_of(' ') == std::string_view::npos) {  // [] = no values
        r.value = std::move(values);
        r.ok = true;
        return r;
      }
      for (size_t at = 0; at <= text.size();) {
        size_t comma = text.find(',', at);
        if (comma == std::string_view::npos) comma = text.size();
        std::string_view item = text.substr(at, comma - at);
        while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
        while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
        const ParseResult<int64_t> p = parse_integer(item);
        if (!p.ok) return fail(p.error + " (expected a list of integers like [1, 2, 4])");
        if (p.value < std::numeric_limits<int>::min() || p.value > std::numeric_limits<int>::max()) {
          return fail(quoted(item) + " is too large");
        }
        std::string error = check_number(k, static_cast<double>(p.value), p.value);
        if (!error.empty()) return fail(std::move(error));
        values.push_back(p.value);
        at = comma + 1;
      }
      r.value = std::move(values);
      r.ok = true;
      return r;
    }
    case KnobType::kStringList: {
      if (text.size() >= 2 && text.front() == '[' && text.back() == ']') {
        text = text.substr(1, text.size() - 2);  // the form `get` prints
      }
      std::string joined;
      if (text.find_first_not_of(' ') == std::string_view::npos) return finish(joined, 0, 0);
      for (size_t at = 0; at <= text.size();) {
        size_t comma = text.find(',', at);
        if (comma == std::string_view::npos) comma = text.size();
        std::string_view item = text.substr(at, comma - at);
        while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
        while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
        if (item.empty()) return fail("empty name in the list (expected names like [a, b])");
        joined += (joined.empty() ? "" : ",") + std::string(item);
        at = comma + 1;
      }
      return finish(std::move(joined), 0, 0);
    }
    case KnobType::kSizeCdf:
    case KnobType::kFlowList:
      break;
  }
  return fail(k.type == KnobType::kFlowList ? "expected a list of [src, dst, size, start] flows"
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
    parts.push_back(c.key_path.substr(c.key_path.rfind('.') + 1) + ": " + c.value);
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
      "bps|Kbps|Mbps|Gbps|Tbps, length m|cm|km.\n\n"
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
