#include "core/units.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

namespace fabricsim {
namespace {

using u128 = unsigned __int128;

// A unit is a multiplier from the unit to the base unit (ps, bytes, bps), or a divisor for units
// smaller than the base (cm for metres).
struct Unit {
  std::string_view name;
  uint64_t multiplier;
  uint64_t divisor;
};

// What a quantity is called in messages.
struct Quantity {
  std::string_view noun;       // "time"
  std::string_view example;    // "1.5us"
  std::string_view base_name;  // "picoseconds"
};

constexpr std::array<Unit, 5> kTimeUnits{{{"ps", 1, 1},
                                          {"ns", 1'000, 1},
                                          {"us", 1'000'000, 1},
                                          {"ms", 1'000'000'000, 1},
                                          {"s", 1'000'000'000'000, 1}}};
constexpr std::array<Unit, 7> kByteUnits{{{"B", 1, 1},
                                          {"KB", 1'000, 1},
                                          {"MB", 1'000'000, 1},
                                          {"GB", 1'000'000'000, 1},
                                          {"KiB", 1ull << 10, 1},
                                          {"MiB", 1ull << 20, 1},
                                          {"GiB", 1ull << 30, 1}}};
constexpr std::array<Unit, 5> kRateUnits{{{"bps", 1, 1},
                                          {"Kbps", 1'000, 1},
                                          {"Mbps", 1'000'000, 1},
                                          {"Gbps", 1'000'000'000, 1},
                                          {"Tbps", 1'000'000'000'000, 1}}};
// What the parser reads: the canonical units above and the "b/s" spelling that summaries, the
// fabric description and the docs print ("400 Gb/s"), so a rate copied from fabricsim's own
// output reads back. format_rate_exact keeps to kRateUnits, whose forms are the canonical ones.
constexpr std::array<Unit, 10> kRateParseUnits{{kRateUnits[0],
                                                kRateUnits[1],
                                                kRateUnits[2],
                                                kRateUnits[3],
                                                kRateUnits[4],
                                                {"b/s", 1, 1},
                                                {"Kb/s", 1'000, 1},
                                                {"Mb/s", 1'000'000, 1},
                                                {"Gb/s", 1'000'000'000, 1},
                                                {"Tb/s", 1'000'000'000'000, 1}}};
constexpr std::array<Unit, 3> kLengthUnits{{{"m", 1, 1}, {"cm", 1, 100}, {"km", 1'000, 1}}};

constexpr Quantity kTime{"time", "1.5us", "picoseconds"};
constexpr Quantity kSize{"size", "64MiB", "bytes"};
constexpr Quantity kRate{"rate", "400Gbps", "bits per second"};
constexpr Quantity kLength{"length", "3m", "metres"};

// 10^38 < 2^128 / 3.4, so a 38-digit mantissa always fits; longer inputs are rejected.
constexpr int kMaxDigits = 38;

// A parsed "DIGITS[.DIGITS] UNIT": value = mantissa / 10^scale x unit.
struct Decimal {
  u128 mantissa = 0;
  int scale = 0;  // digits after the point, trailing zeros dropped
  Unit unit{};
};

std::string quoted(std::string_view text) { return "'" + std::string(text) + "'"; }

template <size_t N>
std::string unit_list(const std::array<Unit, N>& units) {
  std::string out;
  for (const Unit& u : units) out += (out.empty() ? "" : ", ") + std::string(u.name);
  return out;
}

template <size_t N>
ParseResult<Decimal> parse_decimal(std::string_view text, const std::array<Unit, N>& units,
                                   const Quantity& q) {
  ParseResult<Decimal> r;
  const std::string expected =
      "expected a " + std::string(q.noun) + " like " + std::string(q.example);
  if (text.empty()) {
    r.error = "empty value; " + expected;
    return r;
  }
  if (text.front() == '-') {
    r.error = "negative value " + quoted(text) + " is not allowed";
    return r;
  }
  size_t i = 0;
  std::string digits;  // significant digits, integer then fraction
  int scale = 0;
  bool any_digit = false;
  for (; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])); ++i) {
    any_digit = true;
    if (!digits.empty() || text[i] != '0') digits += text[i];  // drop leading zeros
  }
  if (i < text.size() && text[i] == '.') {
    ++i;
    bool frac_digit = false;
    for (; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])); ++i) {
      frac_digit = true;
      digits += text[i];
      ++scale;
    }
    if (!frac_digit) {
      r.error = "malformed number in " + quoted(text) + "; " + expected;
      return r;
    }
    any_digit = true;
  }
  if (!any_digit) {
    r.error = quoted(text) + " is not a " + std::string(q.noun) + "; " + expected;
    return r;
  }
  // Trailing fractional zeros carry no value ("1.500us"); dropping them keeps the digit limit
  // about significant digits only.
  while (scale > 0 && !digits.empty() && digits.back() == '0') {
    digits.pop_back();
    --scale;
  }
  if (static_cast<int>(digits.size()) > kMaxDigits) {
    r.error = "too many digits in " + quoted(text);
    return r;
  }
  while (i < text.size() && text[i] == ' ') ++i;
  const std::string_view unit_text = text.substr(i);
  if (unit_text.empty()) {
    r.error = "missing unit in " + quoted(text) + "; " + expected;
    return r;
  }
  const Unit* unit = nullptr;
  for (const Unit& u : units) {
    if (u.name == unit_text) unit = &u;
  }
  if (unit == nullptr) {
    r.error = "unknown unit " + quoted(unit_text) + " in " + quoted(text) +
              "; expected one of: " + unit_list(units);
    return r;
  }
  for (char c : digits) r.value.mantissa = r.value.mantissa * 10 + static_cast<u128>(c - '0');
  r.value.scale = scale;
  r.value.unit = *unit;
  r.ok = true;
  return r;
}

u128 pow10(int n) {
  u128 p = 1;
  for (int k = 0; k < n; ++k) p *= 10;
  return p;
}

// value = mantissa x multiplier / (10^scale x divisor), required to be a whole int64.
template <size_t N>
ParseResult<int64_t> parse_integral(std::string_view text, const std::array<Unit, N>& units,
                                    const Quantity& q) {
  ParseResult<int64_t> r;
  const ParseResult<Decimal> d = parse_decimal(text, units, q);
  if (!d.ok) {
    r.error = d.error;
    return r;
  }
  const u128 max = static_cast<u128>(std::numeric_limits<int64_t>::max());
  const u128 m = d.value.mantissa;
  const u128 mul = d.value.unit.multiplier;
  if (m != 0 && m > std::numeric_limits<u128>::max() / mul) {
    r.error = quoted(text) + " is too large";
    return r;
  }
  const u128 numerator = m * mul;
  const u128 denominator = pow10(d.value.scale) * d.value.unit.divisor;
  if (numerator % denominator != 0) {
    r.error = quoted(text) + " is not a whole number of " + std::string(q.base_name);
    return r;
  }
  const u128 v = numerator / denominator;
  if (v > max) {
    r.error = quoted(text) + " is too large";
    return r;
  }
  r.value = static_cast<int64_t>(v);
  r.ok = true;
  return r;
}

// "25781250000" over 1e9 -> "25.78125": exact because the divisor is a power of ten.
std::string decimal_quotient(int64_t value, int64_t divisor) {
  std::string out = std::to_string(value / divisor);
  int64_t rest = value % divisor;
  if (rest == 0) return out;
  std::string frac;
  for (int64_t d = divisor / 10; d > 0; d /= 10) {
    frac += static_cast<char>('0' + rest / d);
    rest %= d;
  }
  while (!frac.empty() && frac.back() == '0') frac.pop_back();
  return out + "." + frac;
}

// Picks the largest power-of-1000 unit not larger than the value.
template <size_t N>
std::string format_decimal_exact(int64_t value, const std::array<Unit, N>& units) {
  const Unit* best = &units[0];
  for (const Unit& u : units) {
    if (value >= static_cast<int64_t>(u.multiplier)) best = &u;
  }
  return decimal_quotient(value, static_cast<int64_t>(best->multiplier)) + std::string(best->name);
}

struct Scale {
  double factor;
  const char* name;
};

// Four significant digits in the largest unit whose value is >= 1.
template <size_t N>
std::string format_scaled(double value, const std::array<Scale, N>& scales) {
  size_t k = 0;
  while (k + 1 < N && std::fabs(value) >= scales[k + 1].factor) ++k;
  double v = value / scales[k].factor;
  int decimals = 3 - static_cast<int>(std::floor(std::log10(std::max(std::fabs(v), 1.0))));
  decimals = std::max(0, std::min(3, decimals));
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  // Rounding can carry into the next unit (999.96 ns -> "1000 ns"): show it as 1.000 us.
  if (k + 1 < N &&
      std::fabs(std::strtod(buf, nullptr)) >= scales[k + 1].factor / scales[k].factor) {
    std::snprintf(buf, sizeof buf, "%.3f", value / scales[k + 1].factor);
    ++k;
  }
  std::string out = buf;
  if (scales[k].name[0] != '\0') out += std::string(" ") + scales[k].name;
  return out;
}

}  // namespace

ParseResult<int64_t> parse_time_ps(std::string_view text) {
  return parse_integral(text, kTimeUnits, kTime);
}

ParseResult<int64_t> parse_bytes(std::string_view text) {
  return parse_integral(text, kByteUnits, kSize);
}

ParseResult<int64_t> parse_rate_bps(std::string_view text) {
  ParseResult<int64_t> r = parse_integral(text, kRateParseUnits, kRate);
  // Bytes per second ("50GB/s", "50 GBps": how PCIe and NVLink are quoted) is the likely mix-up
  // behind an unknown rate unit with a capital B; say so rather than list the bit units alone.
  const size_t unit_at = text.find_first_not_of("0123456789. ");
  if (!r.ok && unit_at != std::string_view::npos && r.error.rfind("unknown unit", 0) == 0) {
    const std::string_view unit = text.substr(unit_at);
    if (unit.find('B') != std::string_view::npos) {
      r.error = "unknown unit " + quoted(unit) + " in " + quoted(text) +
                "; rates are in bits per second (bps, Gbps, Gb/s ...), not bytes: 1 GB/s = 8 Gb/s";
    }
  }
  return r;
}

ParseResult<double> parse_length_m(std::string_view text) {
  ParseResult<double> r;
  const ParseResult<Decimal> d = parse_decimal(text, kLengthUnits, kLength);
  if (!d.ok) {
    r.error = d.error;
    return r;
  }
  const double metres =
      static_cast<double>(d.value.mantissa) / static_cast<double>(pow10(d.value.scale)) *
      static_cast<double>(d.value.unit.multiplier) / static_cast<double>(d.value.unit.divisor);
  if (!std::isfinite(metres)) {
    r.error = quoted(text) + " is too large";
    return r;
  }
  r.value = metres;
  r.ok = true;
  return r;
}

std::string format_time_exact(int64_t ps) {
  if (ps == 0) return "0s";
  return format_decimal_exact(ps, kTimeUnits);
}

std::string format_rate_exact(int64_t bps) {
  if (bps == 0) return "0bps";
  return format_decimal_exact(bps, kRateUnits);
}

std::string format_bytes_exact(int64_t bytes) {
  // Binary units first: buffers and MTUs are powers of two; decimal sizes ("2MB") stay decimal.
  static constexpr std::array<Unit, 3> kBinary{{kByteUnits[6], kByteUnits[5], kByteUnits[4]}};
  static constexpr std::array<Unit, 3> kDecimal{{kByteUnits[3], kByteUnits[2], kByteUnits[1]}};
  if (bytes > 0) {
    for (const auto* units : {&kBinary, &kDecimal}) {
      for (const Unit& u : *units) {
        const auto m = static_cast<int64_t>(u.multiplier);
        if (bytes % m == 0) return std::to_string(bytes / m) + std::string(u.name);
      }
    }
  }
  return std::to_string(bytes) + "B";
}

std::string format_length_exact(double metres) {
  char buf[400];  // fixed notation of the largest double needs 309 digits
  // Whole kilometres read better as km ("20000km", not "20000000m").
  const bool km = metres >= 1000 && std::fmod(metres, 1000.0) == 0;
  // Shortest fixed-notation form that reads back to the same double: the parser takes no
  // exponent, so "2e+07m" would not read back.
  const auto res = std::to_chars(buf, buf + sizeof buf, km ? metres / 1000 : metres,
                                 std::chars_format::fixed);
  return std::string(buf, res.ptr) + (km ? "km" : "m");
}

std::string format_time(int64_t ps) {
  if (ps > -1000 && ps < 1000) return std::to_string(ps) + " ps";
  static constexpr std::array<Scale, 5> kScales{
      {{1, "ps"}, {1e3, "ns"}, {1e6, "us"}, {1e9, "ms"}, {1e12, "s"}}};
  return format_scaled(static_cast<double>(ps), kScales);
}

std::string format_bytes(int64_t bytes) {
  if (bytes > -1024 && bytes < 1024) return std::to_string(bytes) + " B";
  static constexpr std::array<Scale, 5> kScales{{{1, "B"},
                                                 {1024.0, "KiB"},
                                                 {1048576.0, "MiB"},
                                                 {1073741824.0, "GiB"},
                                                 {1099511627776.0, "TiB"}}};
  return format_scaled(static_cast<double>(bytes), kScales);
}

std::string format_rate(double bps) {
  static constexpr std::array<Scale, 5> kScales{
      {{1, "bps"}, {1e3, "Kbps"}, {1e6, "Mbps"}, {1e9, "Gbps"}, {1e12, "Tbps"}}};
  return format_scaled(bps, kScales);
}

std::string format_count(double count) {
  if (count == std::floor(count) && std::fabs(count) < 1000) {
    return std::to_string(static_cast<int64_t>(count));
  }
  static constexpr std::array<Scale, 5> kScales{
      {{1, ""}, {1e3, "K"}, {1e6, "M"}, {1e9, "G"}, {1e12, "T"}}};
  return format_scaled(count, kScales);
}

std::string format_fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

}  // namespace fabricsim
