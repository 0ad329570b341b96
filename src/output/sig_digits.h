// Numbers for people: at most four significant digits, written out rather than in exponent form
// ("10200", not "1.02e+04"; "0.4614", not "0.4613811323..."). The report's tables and the
// terminal's sweep summary use it for figures that have no unit of their own (ratios, means of
// metrics already in their unit); figures with a unit use core/units.h's format_time and kin.
#pragma once

#include <string>

namespace fabricsim::output {

// `v` rounded to `digits` significant digits (1..15), fixed notation with trailing zeros after
// the point dropped: 10200 -> "10200", 123456 -> "123500", 0.46138 -> "0.4614", 5050 -> "5050",
// -2.5 -> "-2.5", 0 -> "0". Magnitudes below 1e-4 or from 1e15 keep an exponent
// ("1.235e-05"): fixed notation would print a row of zeros. NaN and infinities -> "-".
std::string format_sig(double v, int digits = 4);

// `half_width` to at most `digits` significant digits and no more decimals than
// format_sig(mean) has, so that "mean ± half" reads at one precision ("10200 ± 5050",
// "10200 ± 64800", "0.4614 ± 0.0213"); "-" when not finite.
std::string format_sig_like(double half_width, double mean, int digits = 4);

}  // namespace fabricsim::output
