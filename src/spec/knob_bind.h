// Binding a Knob to the Scenario field it fills: the setter and the getter the registry
// (the area tables of knob_registry_*.cpp) attach to each entry. Internal to the spec layer.
#pragma once

#include <charconv>
#include <initializer_list>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/units.h"
#include "spec/knobs.h"

namespace fabricsim::scenario::knob_bind {

// Bounds and conditions most area tables share (one definition, so that the tables can be
// compiled together: CMakeLists.txt's unity groups).
inline const Bound positive{0, true};
inline const Bound non_negative{0, false};
inline const Condition pattern{"workload.kind", "pattern"};  // workload.kind: pattern

using workload::SizeCdfPoint;

inline void assign(int& field, const KnobValue& v) {
  field = static_cast<int>(std::get<int64_t>(v));
}
inline void assign(int64_t& field, const KnobValue& v) { field = std::get<int64_t>(v); }
inline void assign(uint64_t& field, const KnobValue& v) { field = std::get<uint64_t>(v); }
inline void assign(uint32_t& field, const KnobValue& v) {
  field = static_cast<uint32_t>(std::get<uint64_t>(v));
}
inline void assign(double& field, const KnobValue& v) { field = std::get<double>(v); }
inline void assign(bool& field, const KnobValue& v) { field = std::get<bool>(v); }
inline void assign(std::string& field, const KnobValue& v) { field = std::get<std::string>(v); }
inline void assign(std::vector<SizeCdfPoint>& field, const KnobValue& v) {
  field = std::get<std::vector<SizeCdfPoint>>(v);
}

inline void assign(std::vector<workload::ExplicitFlow>& field, const KnobValue& v) {
  field = std::get<std::vector<workload::ExplicitFlow>>(v);
}

inline void assign(std::vector<int>& field, const KnobValue& v) {
  field.clear();
  for (int64_t x : std::get<std::vector<int64_t>>(v)) field.push_back(static_cast<int>(x));
}

// kStringList: the names joined by commas (parse_knob_value), none when empty.
inline void assign(std::vector<std::string>& field, const KnobValue& v) {
  field.clear();
  const std::string& joined = std::get<std::string>(v);
  for (size_t at = 0; at < joined.size();) {
    size_t comma = joined.find(',', at);
    if (comma == std::string::npos) comma = joined.size();
    field.push_back(joined.substr(at, comma - at));
    at = comma + 1;
  }
}

// After every overload it may call: a template finds only what is declared before it (the
// field types' own namespaces, std's for the lists, hold no assign).
template <typename T>
inline void assign(std::optional<T>& field, const KnobValue& v) {
  T value{};
  assign(value, v);
  field = value;
}

inline std::string shortest(double v) {
  char buf[64];
  const auto res = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, res.ptr);
}

inline std::string format(KnobType type, int64_t v) {
  switch (type) {
    case KnobType::kTime:
      return format_time_exact(v);
    case KnobType::kBytes:
      return format_bytes_exact(v);
    case KnobType::kRate:
      return format_rate_exact(v);
    default:
      return std::to_string(v);
  }
}
inline std::string format(KnobType type, int v) { return format(type, static_cast<int64_t>(v)); }
inline std::string format(KnobType, uint64_t v) { return std::to_string(v); }
inline std::string format(KnobType, uint32_t v) { return std::to_string(v); }
inline std::string format(KnobType type, double v) {
  return type == KnobType::kLength ? format_length_exact(v) : shortest(v);
}
inline std::string format(KnobType, bool v) { return v ? "true" : "false"; }
inline std::string format(KnobType, const std::string& v) { return v; }
inline std::string format(KnobType, const std::vector<SizeCdfPoint>& points) {
  std::string out = "[";
  for (const SizeCdfPoint& p : points) {
    out += (out.size() > 1 ? ", [" : "[") + format_bytes_exact(p.size_bytes) + ", " +
           shortest(p.cumulative) + "]";
  }
  return out + "]";
}

inline std::string format(KnobType, const std::vector<workload::ExplicitFlow>& flows) {
  std::string out = "[";
  for (const workload::ExplicitFlow& f : flows) {
    out += (out.size() > 1 ? ", [" : "[") + std::to_string(f.src) + ", " + std::to_string(f.dst) +
           ", " + format_bytes_exact(f.size_bytes) + ", " + format_time_exact(f.start_ps) + "]";
  }
  return out + "]";
}

inline std::string format(KnobType, const std::vector<int>& values) {
  std::string out = "[";
  for (size_t i = 0; i < values.size(); ++i) out += (i ? ", " : "") + std::to_string(values[i]);
  return out + "]";
}

inline std::string format(KnobType, const std::vector<std::string>& values) {
  std::string out = "[";
  for (size_t i = 0; i < values.size(); ++i) out += (i ? ", " : "") + values[i];
  return out + "]";
}

// An unset optional shows as "(profile)": its value comes from the named profile.
template <typename T>
inline std::string format(KnobType type, const std::optional<T>& v) {
  return v ? format(type, *v) : std::string("(profile)");
}

// `access` is a generic lambda returning a reference to the field. Without captures it becomes
// two plain function pointers (Scenario& -> T&, const Scenario& -> const T&), so the setter's and
// getter's std::function are instantiated once per field type T, not once per knob: one per knob
// lambda type made the registry's two unity groups 41 of the 302 CPU-s a first build spent
// (docs/performance.md "Build time"). A lambda with captures (the families a loop generates: one
// key per protocol) cannot become a function pointer and is wrapped itself.
template <typename Write, typename Read>
Knob bind_with(Knob k, Write write, Read read) {
  k.set = [write](Scenario& s, const KnobValue& v) { assign(write(s), v); };
  // Sizes restricted to a list (MTUs) print the way the list does: "4096B", not "4KiB".
  const bool plain_bytes = k.type == KnobType::kBytes && !k.one_of.empty();
  const KnobType type = plain_bytes ? KnobType::kInt : k.type;
  k.get = [read, type, unit = std::string(plain_bytes ? "B" : "")](const Scenario& s) {
    return format(type, read(s)) + unit;
  };
  return k;
}

template <typename Access>
Knob bind(Knob k, Access access) {
  using T = std::remove_reference_t<decltype(access(std::declval<Scenario&>()))>;
  if constexpr (std::is_convertible_v<Access, T& (*)(Scenario&)>) {
    T& (*write)(Scenario&) = access;
    const T& (*read)(const Scenario&) = access;
    return bind_with(std::move(k), write, read);
  } else {
    return bind_with(std::move(k), access, access);
  }
}

// A parameter of one scheme or mode: meaningful only when `when` holds (its only_with).
template <typename Access>
Knob bind_when(const Condition& when, const char* path, KnobType type, const char* description,
               const char* source, std::optional<Bound> min, std::optional<Bound> max,
               Access access) {
  return bind({.path = path,
               .type = type,
               .description = description,
               .source = source,
               .min = min,
               .max = max,
               .only_with = {when}},
              access);
}

template <typename E, typename Write, typename Read>
Knob bind_enum_with(Knob k, std::vector<std::pair<std::string, E>> table, Write write,
                    Read read) {
  k.type = KnobType::kEnum;
  for (const auto& [name, value] : table) k.choices.push_back(name);
  k.set = [table, write](Scenario& s, const KnobValue& v) {
    for (const auto& [name, value] : table) {
      if (name == std::get<std::string>(v)) write(s) = value;
    }
  };
  k.get = [table = std::move(table), read](const Scenario& s) {
    for (const auto& [name, value] : table) {
      if (value == read(s)) return name;
    }
    return std::string("?");
  };
  return k;
}

template <typename E, typename Access>
Knob bind_enum(Knob k, std::vector<std::pair<std::string, E>> table, Access access) {
  if constexpr (std::is_convertible_v<Access, E& (*)(Scenario&)>) {
    E& (*write)(Scenario&) = access;
    const E& (*read)(const Scenario&) = access;
    return bind_enum_with(std::move(k), std::move(table), write, read);
  } else {
    return bind_enum_with(std::move(k), std::move(table), access, access);
  }
}

// An area's table in registry order from its pieces: runs of literal entries and the families a
// loop generates (one key per protocol, per link class).
inline std::vector<Knob> concat(std::initializer_list<std::vector<Knob>> pieces) {
  std::vector<Knob> out;
  for (const std::vector<Knob>& piece : pieces) out.insert(out.end(), piece.begin(), piece.end());
  return out;
}

}  // namespace fabricsim::scenario::knob_bind
