// `fabricsim describe`: the bill of materials without simulating. The totals it prints are the
// sums of its rows (tests/resolve/bom_test.cpp derives the rows); here: the command's shape,
// side by side over --fabrics, and bad input exits 2 with one line.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "../support/cli_runner.h"

namespace describe_test {

using fabricsim::test_support::CliOutcome;
using fabricsim::test_support::ScratchDir;
using fabricsim::test_support::run_fabricsim;
using fabricsim::test_support::shell_quote;

TEST(Describe, PrintsTheBillOfMaterialsPerFabricSideBySide) {
  ScratchDir scratch("fabricsim_describe");
  const std::string scenario = (scratch.path() / "k16.yaml").string();
  std::ofstream(scenario) << "topology: {kind: fat_tree, tiers: 2, radix: 16}\nhosts: {count: 128}\n";
  const CliOutcome r =
      run_fabricsim("describe " + shell_quote(scenario) + " --fabrics ib,roce,uet", scratch.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  for (const char* want : {"== ib", "== roce", "== uet", "NVIDIA Quantum-2 QM9700",
                           "Broadcom Tomahawk 5", "UEC NIC", "24 switches (tier 1: 16, tier 2: 8)",
                           "cost per GPU", "power per GPU", "estimated peak memory"}) {
    EXPECT_NE(r.out.find(want), std::string::npos) << want << "\n" << r.out;
  }
  // IB: 24 x 36k + 128 x 2k + 128 x 200 + 256 x 700 = 1,325,200 USD.
  EXPECT_NE(r.out.find("total $1.325 M"), std::string::npos) << r.out;
  EXPECT_FALSE(std::ifstream(scratch.path() / "out").good()) << "describe writes nothing";
}

TEST(Describe, BadCostValueExitsTwoWithOneLine) {
  ScratchDir scratch("fabricsim_describe");
  const std::string scenario = (scratch.path() / "bad.yaml").string();
  std::ofstream(scenario) << "cost:\n  nic: {price_usd: -5}\n";
  const CliOutcome r = run_fabricsim("describe " + shell_quote(scenario), scratch.path());
  EXPECT_EQ(r.exit_code, 2);
  ASSERT_EQ(r.err_lines.size(), 1u) << r.err;
  EXPECT_NE(r.err_lines[0].find(":2: cost.nic.price_usd:"), std::string::npos) << r.err_lines[0];
  EXPECT_EQ(r.out, "");
}

}  // namespace describe_test
