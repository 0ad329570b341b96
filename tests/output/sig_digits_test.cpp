// output/sig_digits.h on values worked by hand: four significant digits, written out, never in
// exponent form within [1e-4, 1e15) (issue 23: "1.02e+04 ± 5050" in the sweep summary).
#include "output/sig_digits.h"

#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include "output/sweep_table.h"

namespace fabricsim::output {
namespace sig_digits_test {

TEST(SigDigits, FourSignificantDigitsWrittenOut) {
  EXPECT_EQ(format_sig(10200), "10200");
  EXPECT_EQ(format_sig(123456), "123500");  // 1.23456e5 rounded at the 4th digit
  EXPECT_EQ(format_sig(0.4613811323), "0.4614");
  EXPECT_EQ(format_sig(5050), "5050");
  EXPECT_EQ(format_sig(3.14159), "3.142");
  EXPECT_EQ(format_sig(-2.5), "-2.5");  // trailing zeros dropped
  EXPECT_EQ(format_sig(1000), "1000");
  EXPECT_EQ(format_sig(0), "0");
  EXPECT_EQ(format_sig(-0.0), "0");
  EXPECT_EQ(format_sig(9999.6), "10000");  // the carry into the next decade
  EXPECT_EQ(format_sig(0.00012345, 3), "0.000123");
  EXPECT_EQ(format_sig(64066.8), "64070");
}

TEST(SigDigits, ExtremesKeepAnExponentAndNonFiniteIsADash) {
  EXPECT_EQ(format_sig(1.23456e-5), "1.235e-05");
  EXPECT_EQ(format_sig(2e15), "2.000e+15");
  EXPECT_EQ(format_sig(NAN), "-");
  EXPECT_EQ(format_sig(INFINITY), "-");
}

TEST(SigDigits, HalfWidthTakesTheMeansDecimals) {
  EXPECT_EQ(format_sig(10200) + " ± " + format_sig_like(5050, 10200), "10200 ± 5050");
  EXPECT_EQ(format_sig_like(0.02134, 0.46138), "0.0213");
  EXPECT_EQ(format_sig_like(0.4, 12.5), "0.4");
  EXPECT_EQ(format_sig_like(64801, 10200), "64800");  // four digits, not five
  EXPECT_EQ(format_sig_like(NAN, 1), "-");
}

// The terminal's sweep summary (issue 23 saw "1.02e+04 ± 5050"): mean and half-width written
// out. Two seeds of 5100 and 15300 us: mean 10200; sd 7212.5, half-width t(0.975, 1) = 12.706
// x 7212.5 / sqrt 2 = 64800 to four digits, no decimals as the mean has none.
TEST(SigDigits, SweepSummaryWritesNumbersOut) {
  SweepTable t;
  t.keys = {"hosts.count"};
  t.points = {{"16"}};
  t.seeds = {1, 2};
  for (uint64_t seed : t.seeds) {
    SweepRun r;
    r.seed = seed;
    r.ok = true;
    r.metrics["completion_time_us"] = seed == 1 ? 5100 : 15300;
    t.runs.push_back(r);
  }
  std::ostringstream out;
  print_sweep_summary(out, t);
  EXPECT_NE(out.str().find("hosts.count=16  10200 ± 64800"), std::string::npos) << out.str();
  EXPECT_EQ(out.str().find("e+"), std::string::npos) << out.str();
}

}  // namespace sig_digits_test
}  // namespace fabricsim::output
