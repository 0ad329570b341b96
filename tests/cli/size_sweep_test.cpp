// A collective size sweep (workload.max_size, nccl-tests -b/-e/-f) in the terminal: the summary
// describes the sweep rather than its first size, and compare prints one row per size for every
// run (issue 23 item 6). Every expected figure is read from the runs' own nccl-tests.csv, so the
// terminal and the files are checked against each other, not against a copy of the formatter.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "../support/cli_runner.h"

namespace size_sweep_test {

namespace fs = std::filesystem;
using fabricsim::test_support::parse_csv;
using fabricsim::test_support::read_file;
using fabricsim::test_support::split_lines;

class SizeSweepTest : public fabricsim::test_support::CliFixture {
 protected:
  SizeSweepTest() : CliFixture("size_sweep") {}
};

// 2 nodes x 8 GPUs on a rail fabric, as examples/nccl-tests-sweep.yaml, over 1, 2 and 4 MiB.
constexpr const char* kSweep =
    "name: sweep\n"
    "fabric: {technology: ib, link: {rate: 400Gbps}}\n"
    "topology: {kind: rail, radix: 16}\n"
    "hosts: {count: 2, nics_per_host: 8}\n"
    "node: {gpus_per_node: 8}\n"
    "workload: {kind: collective, op: all_reduce, size: 1MiB, max_size: 4MiB, step_factor: 2}\n";

const std::vector<int64_t> kSizes = {1 << 20, 2 << 20, 4 << 20};

std::string two_decimals(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}

// The summary's (or table's) line whose label is `label`, without the label's padding.
std::string row(const std::string& out, const std::string& label) {
  for (const std::string& l : split_lines(out)) {
    if (l.rfind("  " + label + " ", 0) == 0) {
      const size_t value = l.find_first_not_of(' ', label.size() + 2);
      return value == std::string::npos ? "" : l.substr(value);
    }
  }
  return "(no row " + label + ")";
}

// One column per size from nccl-tests.csv (6 = algbw, 7 = busbw), checked to hold exactly
// kSizes.
std::vector<double> column_of(const fs::path& csv, size_t column) {
  const auto rows = parse_csv(read_file(csv));
  std::vector<double> values;
  EXPECT_EQ(rows.size(), kSizes.size() + 1) << csv;
  for (size_t i = 1; i < rows.size() && i <= kSizes.size(); ++i) {
    EXPECT_EQ(rows[i][0], std::to_string(kSizes[i - 1])) << csv;
    values.push_back(std::stod(rows[i][column]));
  }
  return values;
}

std::vector<double> busbw_of(const fs::path& csv) { return column_of(csv, 7); }

double mean(const std::vector<double>& v) {
  double sum = 0;
  for (double x : v) sum += x;
  return v.empty() ? 0 : sum / static_cast<double>(v.size());
}

TEST_F(SizeSweepTest, SummaryDescribesTheSweepNotItsFirstSize) {
  const std::string file = write("sweep.yaml", kSweep);
  const auto o = run("run '" + file + "' --out '" + (dir_ / "run").string() + "'");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const std::vector<double> busbw = busbw_of(dir_ / "run" / "nccl-tests.csv");
  ASSERT_EQ(busbw.size(), 3u);
  EXPECT_EQ(row(o.out, "collective"),
            "all_reduce, 16 ranks, 3 sizes from 1.000 MiB to 4.000 MiB, 3 finished (one row "
            "each in the nccl-tests table below)")
      << o.out;
  const std::vector<double> algbw = column_of(dir_ / "run" / "nccl-tests.csv", 6);
  ASSERT_EQ(algbw.size(), 3u);
  EXPECT_EQ(row(o.out, "bandwidth"), "algbw " + two_decimals(algbw[2]) + " GB/s, busbw " +
                                         two_decimals(busbw[2]) +
                                         " GB/s at 4.000 MiB; average busbw over the sizes " +
                                         two_decimals(mean(busbw)) + " GB/s")
      << o.out;
  // The nccl-tests table below still has one row per size.
  for (int64_t size : kSizes) {
    bool found = false;
    for (const std::string& l : split_lines(o.out)) {
      found = found || l.rfind(" " + std::string(12 - std::to_string(size).size(), ' ') +
                                   std::to_string(size) + " ",
                               0) == 0;
    }
    EXPECT_TRUE(found) << "nccl-tests row for " << size << ":\n" << o.out;
  }
}

TEST_F(SizeSweepTest, OneAlgorithmForEverySizeIsNamed) {
  // auto picks tree and NVLS tree across 1-4 MiB here (the test above names none); a forced
  // ring runs every size, so the description names it.
  const std::string file = write("sweep.yaml", kSweep);
  const auto o = run("run '" + file + "' --set workload.algorithm=ring --out '" +
                     (dir_ / "ring").string() + "'");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_EQ(row(o.out, "collective"),
            "all_reduce ring, 16 ranks, 3 sizes from 1.000 MiB to 4.000 MiB, 3 finished (one "
            "row each in the nccl-tests table below)")
      << o.out;
}

// hosts.count: 1 (issue 23 item 6): one 8-GPU node's sweep without a jobs: detour. Its GPUs
// talk over NVLink only, so no transport message crosses the (two-host) fabric.
TEST_F(SizeSweepTest, OneNodeSweepNeedsNoJobs) {
  std::string text = kSweep;
  text.replace(text.find("hosts: {count: 2,"), 17, "hosts: {count: 1,");
  const std::string file = write("one.yaml", text);
  const auto o = run("run '" + file + "' --out '" + (dir_ / "one").string() + "'");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_EQ(o.err, "");
  EXPECT_EQ(row(o.out, "job").rfind("8 GPUs (contiguous), done at ", 0), 0u) << o.out;
  EXPECT_EQ(row(o.out, "collective").rfind("all_reduce", 0), 0u) << o.out;
  EXPECT_NE(row(o.out, "collective").find(", 8 ranks, 3 sizes"), std::string::npos) << o.out;
  EXPECT_EQ(row(o.out, "flows"), "0 / 0 completed") << "NVLink only:\n" << o.out;
  EXPECT_EQ(busbw_of(dir_ / "one" / "nccl-tests.csv").size(), 3u);
}

TEST_F(SizeSweepTest, CompareShowsEverySizeForEveryRun) {
  const std::string file = write("sweep.yaml", kSweep);
  const fs::path out = dir_ / "cmp";
  const auto o = run("compare '" + file + "' --fabrics ib,roce --out '" + out.string() + "'");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const std::vector<double> ib = busbw_of(out / "ib" / "nccl-tests.csv");
  const std::vector<double> roce = busbw_of(out / "roce" / "nccl-tests.csv");
  ASSERT_EQ(ib.size(), 3u);
  ASSERT_EQ(roce.size(), 3u);
  EXPECT_EQ(row(o.out, "workload"), "all_reduce, 16 ranks, 3 sizes from 1.000 MiB to 4.000 MiB")
      << o.out;
  EXPECT_EQ(row(o.out, "collective time"), "(no row collective time)")
      << "the first size's time no longer stands for the sweep:\n" << o.out;
  const std::string avg = row(o.out, "avg busbw (sizes)");
  EXPECT_EQ(avg.rfind(two_decimals(mean(ib)) + " GB/s", 0), 0u) << o.out;
  EXPECT_NE(avg.find(two_decimals(mean(roce)) + " GB/s"), std::string::npos) << o.out;

  // The per-size table: size, then time and busbw per run, then the busbw ratio.
  const std::vector<std::string> lines = split_lines(o.out);
  size_t at = 0;
  while (at < lines.size() && lines[at].find("nccl-tests rows per size") == std::string::npos) ++at;
  ASSERT_LT(at + 1 + kSizes.size(), lines.size() + 1) << o.out;
  EXPECT_NE(lines[at + 1].find("ib busbw (GB/s)"), std::string::npos) << lines[at + 1];
  EXPECT_NE(lines[at + 1].find("roce busbw (GB/s)"), std::string::npos) << lines[at + 1];
  for (size_t i = 0; i < kSizes.size(); ++i) {
    std::vector<std::string> cells;
    char buf[256];
    size_t n = 0;
    for (size_t p = 0; p <= lines[at + 2 + i].size(); ++p) {
      const char c = p < lines[at + 2 + i].size() ? lines[at + 2 + i][p] : ' ';
      if (c != ' ' && n + 1 < sizeof buf) {
        buf[n++] = c;
      } else if (n > 0) {
        cells.emplace_back(buf, n);
        n = 0;
      }
    }
    ASSERT_EQ(cells.size(), 6u) << lines[at + 2 + i];
    EXPECT_EQ(cells[0], std::to_string(kSizes[i]));
    EXPECT_EQ(cells[2], two_decimals(ib[i])) << "ib busbw of " << kSizes[i];
    EXPECT_EQ(cells[4], two_decimals(roce[i])) << "roce busbw of " << kSizes[i];
    char ratio[32];
    std::snprintf(ratio, sizeof ratio, "%.3f", ib[i] / roce[i]);
    EXPECT_EQ(cells[5], ratio) << "busbw ib/roce of " << kSizes[i];
  }
}

}  // namespace size_sweep_test
