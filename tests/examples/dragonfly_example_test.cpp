// examples/dragonfly.yaml through `fabricsim compare`: minimal vs Valiant vs UGAL-L on uniform
// (all-to-all) and adversarial (group shift) traffic on the 72-NIC balanced Dragonfly, 100 Gb/s.
// The ordering asserted is the physics of docs/load-balancing.md "Dragonfly" (uniform = Poisson
// arrivals to uniformly random destinations at 90% load):
//   group shift: minimal is capped by one global link per group pair, 9 x 100 Gb/s in all;
//     Valiant and UGAL spread over every global link and exceed twice that cap.
//   uniform: Valiant crosses ~2 global links per packet (at most 4.26 Tb/s here) and falls
//     behind minimal; UGAL-L stays within 10% of minimal (measured 0.99) and above Valiant.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "../support/cli_runner.h"

namespace fabricsim {
namespace dragonfly_example_test {

namespace fs = std::filesystem;
using test_support::parse_csv;
using test_support::read_file;
using test_support::run_fabricsim;
using test_support::ScratchDir;
using test_support::shell_quote;

TEST(DragonflyExample, CompareOrdersTheRoutingsAsTheBoundsSay) {
  const fs::path file = fs::path(FABRICSIM_SOURCE_DIR) / "examples" / "dragonfly.yaml";
  ScratchDir scratch("fabricsim_dragonfly_example");
  const fs::path out = scratch / "out";
  const auto r = run_fabricsim("compare " + shell_quote(file.string()) + " --out " +
                                   shell_quote(out.string()),
                               scratch.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto rows = parse_csv(read_file(out / "compare.csv"));
  ASSERT_EQ(rows.size(), 7u);
  std::map<std::string, size_t> col;
  for (size_t i = 0; i < rows[0].size(); ++i) col[rows[0][i]] = i;
  ASSERT_TRUE(col.count("aggregate_throughput_gbps"));
  std::map<std::string, double> gbps;
  for (size_t i = 1; i < rows.size(); ++i) {
    EXPECT_EQ(rows[i][col.at("flows_total")], rows[i][col.at("flows_completed")]) << rows[i][0];
    EXPECT_EQ(rows[i][col.at("dropped_packets")], "0") << rows[i][0] << ": lossless";
    gbps[rows[i][0]] = std::stod(rows[i][col.at("aggregate_throughput_gbps")]);
  }
  const double cap = 9 * 100.0;  // Gb/s: one 100 Gb/s global link out of each of 9 groups
  EXPECT_LE(gbps.at("adversarial-minimal"), cap);
  EXPECT_GT(gbps.at("adversarial-valiant"), 2 * cap);
  EXPECT_GT(gbps.at("adversarial-ugal"), 2 * cap);
  EXPECT_LE(gbps.at("uniform-valiant"), 4260.0);
  EXPECT_LT(gbps.at("uniform-valiant"), 0.85 * gbps.at("uniform-minimal"));
  EXPECT_GT(gbps.at("uniform-ugal"), gbps.at("uniform-valiant"));
  EXPECT_GE(gbps.at("uniform-ugal"), 0.9 * gbps.at("uniform-minimal"));
}

}  // namespace dragonfly_example_test
}  // namespace fabricsim
