#include "output/sig_digits.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace fabricsim::output {
namespace {

// Decimals format_sig writes for `v` before trailing zeros are dropped; -1 = exponent form.
int decimals_for(double v, int digits) {
  const double a = std::fabs(v);
  if (a == 0) return 0;
  if (a < 1e-4 || a >= 1e15) return -1;
  int exponent = static_cast<int>(std::floor(std::log10(a)));
  // Rounding may carry into the next decade (9999.6 -> 10000): measure the rounded value.
  const double scale = std::pow(10.0, exponent - digits + 1);
  if (std::round(a / scale) * scale >= std::pow(10.0, exponent + 1)) ++exponent;
  return std::max(0, digits - 1 - exponent);
}

std::string trim_zeros(std::string text) {
  if (text.find('.') == std::string::npos) return text;
  while (text.back() == '0') text.pop_back();
  if (text.back() == '.') text.pop_back();
  return text;
}

}  // namespace

std::string format_sig(double v, int digits) {
  if (!std::isfinite(v)) return "-";
  digits = std::clamp(digits, 1, 15);
  const int decimals = decimals_for(v, digits);
  char text[64];
  if (decimals < 0) {
    std::snprintf(text, sizeof text, "%.*e", digits - 1, v);
    return text;
  }
  // Round to `digits` significant digits first: %.0f alone would print every integer digit.
  double rounded = v;
  if (v != 0) {
    const int exponent = static_cast<int>(std::floor(std::log10(std::fabs(v))));
    const double scale = std::pow(10.0, exponent - digits + 1);
    if (scale > 1) rounded = std::round(v / scale) * scale;
  }
  std::snprintf(text, sizeof text, "%.*f", decimals, rounded);
  std::string out = trim_zeros(text);
  return out == "-0" ? "0" : out;
}

std::string format_sig_like(double half_width, double mean, int digits) {
  if (!std::isfinite(half_width)) return "-";
  digits = std::clamp(digits, 1, 15);
  const int decimals = decimals_for(mean, digits);
  // The half-width's own four digits when they stop before the mean's last decimal (64801
  // beside 10200 -> "64800"); else cut at the mean's last decimal (0.02134 beside 0.4614 ->
  // "0.0213").
  const int own = decimals_for(half_width, digits);
  if (decimals < 0 || (own >= 0 && own <= decimals)) return format_sig(half_width, digits);
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", decimals, half_width);
  return trim_zeros(text);
}

}  // namespace fabricsim::output
