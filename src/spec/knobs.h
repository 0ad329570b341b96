// The one typed registry of scenario keys (STYLE §7). The YAML loader, `--set` overrides,
// `fabricsim validate` and the key reference (`fabricsim keys`, docs/scenario-keys.md) all read
// this table, so a key's type, range and default are stated exactly once.
//
// Defaults are not restated here: a knob reads its default from a default-constructed Scenario
// (the member initialisers in the config headers), and `source` says where that value comes from.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "core/units.h"
#include "spec/scenario.h"

namespace fabricsim::scenario {

enum class KnobType : uint8_t {
  kInt,   // signed integer, also bounded to the range of the `int` it fills
  kUint,  // unsigned 64-bit integer (seeds)
  kDouble,
  kBool,    // true | false (on | off also accepted)
  kTime,    // "450ns" -> int64 ps
  kBytes,   // "64MiB" -> int64 bytes
  kRate,    // "400Gbps" -> int64 bps
  kLength,  // "3m" -> double metres
  kEnum,    // one word out of `choices`
  kString,
  kSizeCdf,  // list of [size, cumulative probability]; parsed by the loader, which has the lines
  kFlowList,  // list of [src NIC, dst NIC, size, start time]; parsed by the loader
  kIntList,   // list of integers: [1, 2, 4] in YAML, 1,2,4 with --set; each checked like kInt
  // list of names without commas: [sw0:1->sw4, nic0:0->sw0] in YAML, a,b with --set; the value
  // is the names joined by commas (knob_bind splits it into the vector<string> it fills)
  kStringList,
};

// kInt, kTime, kBytes, kRate -> int64_t; kUint -> uint64_t; kDouble, kLength -> double;
// kBool -> bool; kEnum, kString, kStringList -> std::string; kSizeCdf -> the point list.
using KnobValue =
    std::variant<int64_t, uint64_t, double, bool, std::string, std::vector<workload::SizeCdfPoint>,
                 std::vector<workload::ExplicitFlow>, std::vector<int64_t>>;

// One end of a numeric range, in base units (ps, bytes, bps, metres) for unit types.
struct Bound {
  double value = 0;
  bool exclusive = false;
};

// The knob is meaningful only when another knob has this value, e.g. workload.senders only with
// {workload.kind, pattern} and {workload.pattern, incast}.
struct Condition {
  std::string key_path;
  std::string value;
  std::string or_value{};  // a second value that satisfies the condition too; empty = none
};

// Every member has an initialiser so the registry can use designated initialisers and name only
// what a knob needs.
struct Knob {
  std::string path{};  // "fabric.link.rate"
  KnobType type = KnobType::kString;
  std::string description{};
  std::string source{};                // where the default value comes from
  std::vector<std::string> choices{};  // kEnum
  std::optional<Bound> min{};
  std::optional<Bound> max{};
  std::vector<int64_t> one_of{};  // integral types: the only accepted values (e.g. MTUs)
  int64_t multiple_of = 0;        // integral types: 0 = no constraint; 2 = even
  std::vector<Condition> only_with{};
  // REQUIRES: the value's alternative matches `type` (as parse_knob_value produces it).
  std::function<void(Scenario&, const KnobValue&)> set{};
  // The current value in the same syntax a scenario file uses ("400Gbps", "crc32").
  std::function<std::string(const Scenario&)> get{};
};

// Every knob, in the order the docs list them.
const std::vector<Knob>& knobs();
// nullptr when `path` is not a leaf key.
const Knob* find_knob(std::string_view path);
// Whether `path` names a group of keys ("fabric", "fabric.link"); "" is the top level.
bool is_group(std::string_view path);
// The keys directly under a group, in registry order: child_keys("fabric.link") = {rate, cable}.
std::vector<std::string> child_keys(std::string_view group_path);

// Parses one scalar for `knob` (not kSizeCdf) and checks its range. On failure the error is one
// phrase such as "missing unit in '400'; expected a rate like 400Gbps" or "must be > 0".
ParseResult<KnobValue> parse_knob_value(const Knob& knob, std::string_view text);
// The default as the scenario file would spell it.
std::string knob_default(const Knob& knob);
// "rate", "enum", "int" ...
std::string_view type_name(KnobType type);
// The accepted values for the markdown table ('|' escaped): "> 0", "between 0 and 7",
// "crc32 \| xor_fold", "" when anything of the type goes.
std::string describe_allowed(const Knob& knob);
// "kind: pattern, pattern: incast" (the last path component of each condition's key).
std::string describe_conditions(const std::vector<Condition>& conditions);

// A plain number without unit, used for scalar knobs and the size_cdf probabilities.
ParseResult<int64_t> parse_integer(std::string_view text);
ParseResult<double> parse_real(std::string_view text);

// The markdown key reference printed by `fabricsim keys` (docs/scenario-keys.md is its output).
std::string render_keys_markdown();

// The registry's entries: the area tables of spec/knob_tables.h in order (knob_registry.cpp).
// Callers use knobs().
std::vector<Knob> build_knob_registry();
// For a key that was removed or renamed: a one-phrase pointer to what replaces it ("" if none).
std::string retired_key_hint(std::string_view path);

}  // namespace fabricsim::scenario
