// Exact unit parsing and formatting (core/units.h).
#include "core/units.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>

namespace fabricsim {
namespace units_test {

int64_t time_ok(const std::string& text) {
  const auto r = parse_time_ps(text);
  EXPECT_TRUE(r.ok) << text << " should parse as a time, got: " << r.error;
  return r.value;
}

int64_t bytes_ok(const std::string& text) {
  const auto r = parse_bytes(text);
  EXPECT_TRUE(r.ok) << text << " should parse as a size, got: " << r.error;
  return r.value;
}

int64_t rate_ok(const std::string& text) {
  const auto r = parse_rate_bps(text);
  EXPECT_TRUE(r.ok) << text << " should parse as a rate, got: " << r.error;
  return r.value;
}

TEST(ParseTime, EveryUnit) {
  EXPECT_EQ(time_ok("7ps"), 7) << "ps is the base unit";
  EXPECT_EQ(time_ok("450ns"), 450'000) << "1 ns = 1000 ps";
  EXPECT_EQ(time_ok("1.5us"), 1'500'000) << "the brief's example";
  EXPECT_EQ(time_ok("2ms"), 2'000'000'000) << "1 ms = 1e9 ps";
  EXPECT_EQ(time_ok("3s"), 3'000'000'000'000) << "1 s = 1e12 ps";
  EXPECT_EQ(time_ok("0s"), 0) << "zero is a valid time (stop_time: 0s)";
}

TEST(ParseTime, DecimalsAreExact) {
  EXPECT_EQ(time_ok("0.001ns"), 1) << "one picosecond written in ns";
  EXPECT_EQ(time_ok("1.500000us"), 1'500'000) << "trailing zeros carry no precision problem";
  EXPECT_EQ(time_ok("0004us"), 4'000'000) << "leading zeros are harmless";
  EXPECT_EQ(time_ok("4096 ns"), 4'096'000) << "a space before the unit is allowed";
  EXPECT_EQ(time_ok(".5ns"), 500) << "a fraction without integer digits is a number";
}

TEST(ParseTime, Rejections) {
  EXPECT_EQ(parse_time_ps("400").error, "missing unit in '400'; expected a time like 1.5us")
      << "a number without a unit must name what is expected";
  EXPECT_EQ(parse_time_ps("0.1ps").error, "'0.1ps' is not a whole number of picoseconds")
      << "sub-picosecond values cannot be represented";
  EXPECT_EQ(parse_time_ps("-1us").error, "negative value '-1us' is not allowed")
      << "negative times are impossible";
  EXPECT_EQ(parse_time_ps("5 min").error,
            "unknown unit 'min' in '5 min'; expected one of: ps, ns, us, ms, s")
      << "the message lists the units that are accepted";
  EXPECT_EQ(parse_time_ps("abc").error, "'abc' is not a time; expected a time like 1.5us")
      << "garbage is named as such";
  EXPECT_EQ(parse_time_ps("").error, "empty value; expected a time like 1.5us")
      << "an empty string is not zero";
  EXPECT_FALSE(parse_time_ps("1.us").ok) << "a point must be followed by digits";
  EXPECT_FALSE(parse_time_ps("1e3ns").ok) << "exponent notation is not part of the grammar";
  EXPECT_FALSE(parse_time_ps("+1ns").ok) << "no explicit sign";
  EXPECT_FALSE(parse_time_ps("1US").ok) << "units are case-sensitive";
  EXPECT_FALSE(parse_time_ps("1.2.3us").ok) << "two decimal points";
}

TEST(ParseTime, Overflow) {
  EXPECT_EQ(time_ok("9223372036854775807ps"), std::numeric_limits<int64_t>::max())
      << "the largest int64 still fits";
  EXPECT_EQ(parse_time_ps("9223372036854775808ps").error, "'9223372036854775808ps' is too large")
      << "one past int64 max must be rejected, not wrap";
  EXPECT_FALSE(parse_time_ps("10000000s").ok) << "1e19 ps overflows int64";
  EXPECT_FALSE(parse_time_ps("123456789012345678901234567890123456789012s").ok)
      << "more digits than 128-bit arithmetic holds";
}

TEST(ParseBytes, DecimalAndBinaryUnits) {
  EXPECT_EQ(bytes_ok("4096B"), 4096) << "B is the base unit";
  EXPECT_EQ(bytes_ok("1KB"), 1000) << "KB is decimal";
  EXPECT_EQ(bytes_ok("2MB"), 2'000'000) << "MB is decimal";
  EXPECT_EQ(bytes_ok("1GB"), 1'000'000'000) << "GB is decimal";
  EXPECT_EQ(bytes_ok("1KiB"), 1024) << "KiB is binary";
  EXPECT_EQ(bytes_ok("2MiB"), 2 << 20) << "the brief's example";
  EXPECT_EQ(bytes_ok("64MiB"), 64ll << 20) << "the default switch buffer";
  EXPECT_EQ(bytes_ok("1.5GiB"), 3ll << 29) << "fractions of binary units";
  EXPECT_EQ(bytes_ok("0.0009765625KiB"), 1) << "a long binary fraction that is exactly 1 B";
  EXPECT_EQ(parse_bytes("0.5B").error, "'0.5B' is not a whole number of bytes")
      << "half a byte is not a size";
  EXPECT_FALSE(parse_bytes("1Mb").ok) << "Mb (megabit) is not a size unit";
  EXPECT_EQ(parse_bytes("512").error, "missing unit in '512'; expected a size like 64MiB")
      << "sizes need a unit too";
}

TEST(ParseRate, ExactDecimalRates) {
  EXPECT_EQ(rate_ok("400Gbps"), 400'000'000'000) << "the default link rate";
  EXPECT_EQ(rate_ok("25.78125Gbps"), 25'781'250'000)
      << "EDR lane rate (SPEC §8) must be exact, which a double round trip is not";
  EXPECT_EQ(rate_ok("53.125Gbps"), 53'125'000'000) << "HDR lane rate";
  EXPECT_EQ(rate_ok("106.25Gbps"), 106'250'000'000) << "NDR lane rate";
  EXPECT_EQ(rate_ok("1.6Tbps"), 1'600'000'000'000) << "Tbps";
  EXPECT_EQ(rate_ok("5Mbps"), 5'000'000) << "DCQCN additive increase";
  EXPECT_EQ(rate_ok("10Kbps"), 10'000) << "Kbps";
  EXPECT_EQ(rate_ok("9bps"), 9) << "bps";
  EXPECT_EQ(parse_rate_bps("400").error, "missing unit in '400'; expected a rate like 400Gbps")
      << "the brief's message for a unit-less rate";
  EXPECT_EQ(parse_rate_bps("0.5bps").error, "'0.5bps' is not a whole number of bits per second")
      << "fractional bits per second";
  EXPECT_FALSE(parse_rate_bps("400GB/s").ok) << "bytes per second is not accepted";
}

// Issue 23 item 6: a rate as fabricsim prints it (the fabric description's "400 Gb/s", the
// summary's "400.0 Gbps") is accepted. Expected values are written out in bits per second.
TEST(ParseRate, PrintedSpellings) {
  EXPECT_EQ(rate_ok("400 Gb/s"), 400'000'000'000) << "the fabric description's form";
  EXPECT_EQ(rate_ok("400Gb/s"), 400'000'000'000) << "without the space";
  EXPECT_EQ(rate_ok("400 Gbps"), 400'000'000'000) << "the canonical unit with a space";
  EXPECT_EQ(rate_ok("400.0 Gbps"), 400'000'000'000) << "format_rate's form";
  EXPECT_EQ(rate_ok("1.6 Tb/s"), 1'600'000'000'000) << "Tb/s";
  EXPECT_EQ(rate_ok("100 Mb/s"), 100'000'000) << "Mb/s";
  EXPECT_EQ(rate_ok("10 Kb/s"), 10'000) << "Kb/s";
  EXPECT_EQ(rate_ok("9 b/s"), 9) << "b/s";
  EXPECT_EQ(rate_ok("25.78125 Gb/s"), 25'781'250'000) << "EDR lane rate, exact in b/s too";
  EXPECT_EQ(format_rate_exact(400'000'000'000), "400Gbps")
      << "the canonical (docs, messages) spelling does not change";
}

TEST(ParseRate, PrintedFormsReadBack) {
  // format_rate keeps 4 significant digits: a value that has no more reads back exactly.
  for (int64_t bps : {int64_t{9}, int64_t{100'000'000}, int64_t{1'000'000'000},
                      int64_t{400'000'000'000}, int64_t{1'600'000'000'000}}) {
    EXPECT_EQ(rate_ok(format_rate(static_cast<double>(bps))), bps) << format_rate(bps);
  }
  // The fabric description (engine/packet/harvest.cpp) prints whole Gb/s as "N Gb/s".
  for (int64_t gbps : {1, 100, 400, 800, 1600}) {
    EXPECT_EQ(rate_ok(std::to_string(gbps) + " Gb/s"), gbps * 1'000'000'000) << gbps;
  }
}

TEST(ParseRate, BadRatesOneClearPhrase) {
  EXPECT_EQ(parse_rate_bps("400GB/s").error,
            "unknown unit 'GB/s' in '400GB/s'; rates are in bits per second (bps, Gbps, Gb/s ...), "
            "not bytes: 1 GB/s = 8 Gb/s")
      << "bytes per second is named as the mix-up";
  EXPECT_EQ(parse_rate_bps("50 GBps").error,
            "unknown unit 'GBps' in '50 GBps'; rates are in bits per second (bps, Gbps, Gb/s ...), "
            "not bytes: 1 GB/s = 8 Gb/s");
  EXPECT_EQ(parse_rate_bps("400 Gbit/s").error,
            "unknown unit 'Gbit/s' in '400 Gbit/s'; expected one of: bps, Kbps, Mbps, Gbps, Tbps, "
            "b/s, Kb/s, Mb/s, Gb/s, Tb/s");
  EXPECT_EQ(parse_rate_bps("400 gb/s").error,
            "unknown unit 'gb/s' in '400 gb/s'; expected one of: bps, Kbps, Mbps, Gbps, Tbps, "
            "b/s, Kb/s, Mb/s, Gb/s, Tb/s")
      << "units stay case-sensitive (Mb and MB differ by 8)";
  EXPECT_EQ(parse_rate_bps("Gb/s").error, "'Gb/s' is not a rate; expected a rate like 400Gbps");
}

TEST(ParseLength, Metres) {
  EXPECT_DOUBLE_EQ(parse_length_m("3m").value, 3.0) << "metres";
  EXPECT_DOUBLE_EQ(parse_length_m("50cm").value, 0.5) << "centimetres";
  EXPECT_DOUBLE_EQ(parse_length_m("1.5km").value, 1500.0) << "kilometres";
  EXPECT_DOUBLE_EQ(parse_length_m("0m").value, 0.0) << "zero length is allowed";
  EXPECT_EQ(parse_length_m("3").error, "missing unit in '3'; expected a length like 3m")
      << "lengths need a unit";
  EXPECT_FALSE(parse_length_m("-3m").ok) << "negative cable length";
  EXPECT_FALSE(parse_length_m("3 ft").ok) << "imperial units are not accepted";
}

TEST(FormatExact, RoundTrips) {
  EXPECT_EQ(format_time_exact(450'000), "450ns") << "largest unit that keeps it whole";
  EXPECT_EQ(format_time_exact(1'500'000), "1.5us") << "exact decimal fraction";
  EXPECT_EQ(format_time_exact(0), "0s") << "zero";
  EXPECT_EQ(format_bytes_exact(64ll << 20), "64MiB") << "binary sizes stay binary";
  EXPECT_EQ(format_bytes_exact(2'000'000), "2MB") << "decimal sizes stay decimal";
  EXPECT_EQ(format_bytes_exact(1536), "1536B") << "neither binary nor decimal multiple";
  EXPECT_EQ(format_rate_exact(25'781'250'000), "25.78125Gbps") << "exact rate formatting";
  EXPECT_EQ(format_length_exact(3.0), "3m") << "shortest length form";
  EXPECT_EQ(format_length_exact(20'000'000.0), "20000km") << "whole kilometres, no exponent";
  EXPECT_EQ(format_length_exact(1500.0), "1500m") << "not a whole number of km";
  EXPECT_EQ(format_length_exact(1e-7), "0.0000001m") << "fixed notation reads back";
  EXPECT_DOUBLE_EQ(parse_length_m(format_length_exact(1e-7)).value, 1e-7);
  for (int64_t v : {int64_t{1}, int64_t{999}, int64_t{1001}, int64_t{123'456'789},
                    std::numeric_limits<int64_t>::max()}) {
    EXPECT_EQ(parse_time_ps(format_time_exact(v)).value, v) << "time round trip of " << v;
    EXPECT_EQ(parse_bytes(format_bytes_exact(v)).value, v) << "bytes round trip of " << v;
    EXPECT_EQ(parse_rate_bps(format_rate_exact(v)).value, v) << "rate round trip of " << v;
  }
}

TEST(FormatHuman, FourSignificantDigits) {
  EXPECT_EQ(format_time(2'734'000'000), "2.734 ms") << "the brief's example";
  EXPECT_EQ(format_time(450'000), "450.0 ns") << "hundreds keep one decimal";
  EXPECT_EQ(format_time(12), "12 ps") << "picoseconds are whole";
  EXPECT_EQ(format_time(999'999), "1.000 us") << "rounding carries into the next unit";
  EXPECT_EQ(format_bytes(64ll << 20), "64.00 MiB") << "binary units for sizes";
  EXPECT_EQ(format_bytes(100), "100 B") << "small sizes in bytes";
  EXPECT_EQ(format_rate(400e9), "400.0 Gbps") << "rates in decimal units";
  EXPECT_EQ(format_count(12'345'678), "12.35 M") << "counts with SI prefix";
  EXPECT_EQ(format_count(532), "532") << "small whole counts as they are";
}

}  // namespace units_test
}  // namespace fabricsim
