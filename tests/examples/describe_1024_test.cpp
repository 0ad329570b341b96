// examples/describe-1024.yaml through `fabricsim describe`: IB, RoCE and UET bills of materials
// for 1,024 GPUs in 2- and 3-tier designs, checked against closed forms and against prices
// derived here by hand from ../shared/reference/cost-power.md (not read back from the table).
//
// Switch counts (non-blocking, radix k, N NICs; cost-power.md s3 count rules):
//   2 tiers: N/(k/2) leaves + N/k spines = 3N/k;   3 tiers: 2N/k edges, 2N/k aggs, N/k cores = 5N/k
//   cables: N host links + N per switch tier above (2N or 3N).
// Per-GPU cost = (switches x switch price + N x (NIC + DAC) + 2 x switch-switch cables x SR4) / N:
//   QM9700 36,000 (s1, FS-branded Aug-2024 sheet); Tomahawk 5 white box 45,000 (s1 "suggested
//   defaults"); ConnectX-7 2,000 (s2, default of 1,500-2,500); UEC NIC = RoCE NIC + 10% = 2,200
//   (s2/UEC note: "RoCE merchant + 0-20% NIC premium"); DAC 200 (s3, 100-300); 400G SR4 700
//   (s3, "400G QSFP-DD 600-800").
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include "../support/cli_runner.h"

namespace fabricsim {
namespace describe_1024_test {

namespace fs = std::filesystem;
using test_support::CliOutcome;
using test_support::run_fabricsim;
using test_support::ScratchDir;
using test_support::shell_quote;
using test_support::split_lines;

const fs::path kSourceDir = FABRICSIM_SOURCE_DIR;

// "$36.0 k" -> 36000, "$1.152 M" -> 1152000, "$2000" -> 2000; the printed precision beside it.
struct Usd {
  double value = 0;
  double half_step = 0;  // half of the last printed digit: the rounding the text allows
};

Usd parse_usd(const std::string& text) {
  std::smatch m;
  const std::regex re(R"(\$([0-9]+)(?:\.([0-9]+))?(?: ([kM]))?)");
  EXPECT_TRUE(std::regex_match(text, m, re)) << text;
  if (m.empty()) return {};
  const double scale = m[3] == "M" ? 1e6 : m[3] == "k" ? 1e3 : 1.0;
  const std::string digits = m[2].matched ? m[2].str() : "";
  Usd u;
  u.value = std::stod(m[1].str() + (digits.empty() ? "" : "." + digits)) * scale;
  u.half_step = 0.5 * scale * std::pow(10.0, -static_cast<double>(digits.size()));
  return u;
}

struct Row {
  std::string item;
  int64_t count = 0;
  Usd unit, total;
};

struct Block {
  std::vector<int64_t> per_tier;  // switches per tier
  int64_t switches = 0, cables = 0, nics = 0, gpus = 0;
  std::vector<Row> rows;
  Usd total, per_gpu;
};

// The describe blocks by variant name ("== name" opens one).
std::map<std::string, Block> parse(const std::string& out) {
  std::map<std::string, Block> blocks;
  Block* b = nullptr;
  const std::regex counts(
      R"(  ([0-9]+) NICs, ([0-9]+) GPUs, ([0-9]+) switches \(([^)]*)\), ([0-9]+) cables)");
  const std::regex row(
      R"(  (.+?)  +.*?  +([0-9]+)  +(\$[0-9.]+(?: [kM])?)  +(\$[0-9.]+(?: [kM])?)  +[0-9.]+  +[0-9.]+ k?W  +\S+  +\S+)");
  const std::regex total(R"(  total (\$[0-9.]+(?: [kM])?), .*; per GPU (\$[0-9.]+(?: [kM])?), .*)");
  for (const std::string& line : split_lines(out)) {
    std::smatch m;
    if (line.rfind("== ", 0) == 0) {
      b = &blocks[line.substr(3)];
    } else if (b && std::regex_match(line, m, counts)) {
      b->nics = std::stoll(m[1]);
      b->gpus = std::stoll(m[2]);
      b->switches = std::stoll(m[3]);
      b->cables = std::stoll(m[5]);
      const std::string tiers = m[4];
      const std::regex tier(R"(tier [0-9]+: ([0-9]+))");
      for (auto it = std::sregex_iterator(tiers.begin(), tiers.end(), tier);
           it != std::sregex_iterator(); ++it) {
        b->per_tier.push_back(std::stoll((*it)[1]));
      }
    } else if (b && std::regex_match(line, m, total)) {
      b->total = parse_usd(m[1]);
      b->per_gpu = parse_usd(m[2]);
    } else if (b && line.rfind("  item ", 0) != 0 && std::regex_match(line, m, row)) {
      b->rows.push_back({m[1], std::stoll(m[2]), parse_usd(m[3]), parse_usd(m[4])});
    }
  }
  return blocks;
}

struct Design {
  const char* name;
  int tiers;
  int radix;
  double switch_usd;
  double nic_usd;
};

TEST(Describe1024Example, CountsPricesAndOrderingFollowTheClosedForms) {
  ScratchDir scratch("fabricsim_describe_1024");
  const fs::path file = kSourceDir / "examples" / "describe-1024.yaml";
  const CliOutcome r = run_fabricsim("describe " + shell_quote(file.string()), scratch.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  const std::map<std::string, Block> blocks = parse(r.out);

  constexpr int64_t kN = 1024;
  constexpr double kQm9700 = 36'000, kTh5 = 45'000, kCx7 = 2'000, kUecNic = 2'200;
  constexpr double kDac = 200, kSr4 = 700;
  const Design designs[] = {
      {"ib-2tier", 2, 64, kQm9700, kCx7},   {"roce-2tier", 2, 128, kTh5, kCx7},
      {"uet-2tier", 2, 128, kTh5, kUecNic}, {"ib-3tier", 3, 32, kQm9700, kCx7},
      {"roce-3tier", 3, 32, kTh5, kCx7},    {"uet-3tier", 3, 32, kTh5, kUecNic},
  };
  std::map<std::string, double> expected_per_gpu;
  for (const Design& d : designs) {
    SCOPED_TRACE(d.name);
    ASSERT_TRUE(blocks.count(d.name)) << r.out;
    const Block& b = blocks.at(d.name);
    const int64_t k = d.radix;
    EXPECT_EQ(b.nics, kN);
    EXPECT_EQ(b.gpus, kN) << "128 nodes x 8 GPUs, one NIC per GPU";
    const std::vector<int64_t> want =
        d.tiers == 2 ? std::vector<int64_t>{kN / (k / 2), kN / k}
                     : std::vector<int64_t>{2 * kN / k, 2 * kN / k, kN / k};
    EXPECT_EQ(b.per_tier, want);
    EXPECT_EQ(b.switches, (d.tiers == 2 ? 3 : 5) * kN / k) << "3N/k or 5N/k";
    EXPECT_EQ(b.cables, d.tiers * kN) << "N host links + N per switch tier above";

    // The total is the sum of its itemised rows: each row's total is count x unit price, and
    // the rows add up to the total, each within the rounding of its printed digits.
    ASSERT_GE(b.rows.size(), 5u) << r.out;
    double sum = 0, slack = 0;
    for (const Row& row : b.rows) {
      const double exact = static_cast<double>(row.count) * row.unit.value;
      EXPECT_NEAR(row.total.value, exact, row.total.half_step + row.count * row.unit.half_step)
          << row.item;
      sum += exact;
      slack += row.count * row.unit.half_step;
    }
    EXPECT_NEAR(b.total.value, sum, b.total.half_step + slack) << "total = sum of the rows";

    // By hand from the sheet: switches, a NIC and a DAC per GPU, two SR4 per switch cable.
    const double switch_cables = static_cast<double>((d.tiers - 1) * kN);
    const double usd = b.switches * d.switch_usd + kN * (d.nic_usd + kDac) +
                       2 * switch_cables * kSr4;
    expected_per_gpu[d.name] = usd / kN;
    EXPECT_NEAR(b.total.value, usd, b.total.half_step);
    EXPECT_NEAR(b.per_gpu.value, usd / kN, b.per_gpu.half_step) << "per GPU";
  }
  // 2 tiers: 5,287.5 (IB), 4,654.7 (RoCE), 4,854.7 (UET) USD per GPU: the 128-port Tomahawk 5
  // halves the switch count, which outweighs its higher price; UET adds the NIC premium.
  EXPECT_LT(expected_per_gpu["roce-2tier"], expected_per_gpu["uet-2tier"]);
  EXPECT_LT(expected_per_gpu["uet-2tier"], expected_per_gpu["ib-2tier"]);
  // 3 tiers of radix 32: 10,625 (IB), 12,031.25 (RoCE), 12,231.25 (UET): the same 160
  // switches, so the cheaper QM9700 wins and the order turns.
  EXPECT_LT(expected_per_gpu["ib-3tier"], expected_per_gpu["roce-3tier"]);
  EXPECT_LT(expected_per_gpu["roce-3tier"], expected_per_gpu["uet-3tier"]);
  EXPECT_NEAR(expected_per_gpu["ib-2tier"], 5287.5, 1e-9);
  EXPECT_NEAR(expected_per_gpu["ib-3tier"], 10625.0, 1e-9);
  // The printed ordering is the derived one (per GPU values differ by far more than rounding).
  for (const auto& [a, va] : expected_per_gpu) {
    for (const auto& [b, vb] : expected_per_gpu) {
      if (va < vb) {
        EXPECT_LT(blocks.at(a).per_gpu.value, blocks.at(b).per_gpu.value) << a << " < " << b;
      }
    }
  }
  // The side-by-side table closes the output.
  EXPECT_NE(r.out.find("cost per GPU"), std::string::npos);
  EXPECT_EQ(r.out.find("whole spine"), std::string::npos);
}

}  // namespace describe_1024_test
}  // namespace fabricsim
