// Exact parsing of unit strings ("1.5us", "2MiB", "25.78125Gbps") into integer base units, and
// formatting back for humans and for docs.
//
// Why exact: scenario values become int64 picoseconds, bytes and bits per second (core/time.h), and
// a double round trip turns "25.78125Gbps" into 25781249999 on some inputs. The number is read as a
// decimal integer mantissa and a power-of-ten exponent, multiplied by the unit in 128-bit integers,
// and rejected unless the result is a whole number of base units that fits in int64.
//
// Grammar: DIGITS [ "." DIGITS ] [ spaces ] UNIT, with at least one digit. Units are case-sensitive
// because "Mb" and "MB" differ by a factor of eight. No sign, no exponent, no unit-less numbers.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace fabricsim {

// The outcome of a parse. When !ok, `error` is one phrase without the key path, e.g.
// "missing unit in '400'; expected a rate like 400Gbps"; `value` is then unspecified.
template <typename T>
struct ParseResult {
  bool ok = false;
  T value{};
  std::string error;
};

// Units: ps, ns, us, ms, s. "0.1ps" is an error (not a whole picosecond).
ParseResult<int64_t> parse_time_ps(std::string_view text);
// Units: B, KB (1000), MB, GB, KiB (1024), MiB, GiB. "0.5B" is an error.
ParseResult<int64_t> parse_bytes(std::string_view text);
// Units: bps, Kbps, Mbps, Gbps, Tbps (powers of 1000, as link rates are quoted), also spelt
// b/s, Kb/s, Mb/s, Gb/s, Tb/s as fabricsim prints them ("400 Gb/s"). A unit with a capital B
// (bytes per second) gets its own message.
ParseResult<int64_t> parse_rate_bps(std::string_view text);
// Units: m, cm, km. Metres as a double: cable lengths only feed a propagation delay that is
// rounded to the picosecond anyway (net::LinkConfig::propagation_ps).
ParseResult<double> parse_length_m(std::string_view text);

// Exact, canonical forms that the parsers read back to the same value: the largest unit that
// keeps the number short and exact ("450ns", "64MiB", "400Gbps", "25.78125Gbps", "1000B").
// Used for defaults in docs and in messages. REQUIRES: value >= 0.
std::string format_time_exact(int64_t ps);
std::string format_bytes_exact(int64_t bytes);
std::string format_rate_exact(int64_t bps);
std::string format_length_exact(double metres);

// Human forms for the summary table, four significant digits and a space before the unit:
// "2.734 ms", "64.00 MiB", "400.0 Gbps", "12.35 M" (format_count: plain SI prefixes, no unit).
std::string format_time(int64_t ps);
std::string format_bytes(int64_t bytes);
std::string format_rate(double bps);
std::string format_count(double count);
// `v` with exactly `decimals` digits after the point ("%.*f"): the figures of tables and
// progress lines, which keep a fixed number of places whatever the magnitude.
std::string format_fixed(double v, int decimals);

}  // namespace fabricsim
