// `fabricsim report DIR` and outputs.report (cli/report.h, output/report/report.h): exit codes, the
// one-line errors, and which commands write report.html. What the page holds is tested in
// tests/output/report_test.cpp and in Chromium by tests/browser/.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "../support/cli_runner.h"

namespace report_cli_test {

namespace fs = std::filesystem;
using fabricsim::test_support::CliFixture;
using fabricsim::test_support::CliOutcome;
using fabricsim::test_support::shell_quote;

// A 2-sender incast on a small leaf-spine: a run of a few milliseconds of wall time.
constexpr const char* kIncast =
    "fabric: {technology: roce, link: {rate: 100Gbps}}\n"
    "topology: {kind: leaf_spine, radix: 4}\n"
    "hosts: {count: 4}\n"
    "workload: {kind: pattern, pattern: incast, senders: 2, receiver: 0, flow_size: 100KB}\n";

class ReportCliTest : public CliFixture {
 protected:
  ReportCliTest() : CliFixture("fabricsim_report_cli") {}
};

TEST_F(ReportCliTest, MissingOrForeignDirectoryIsOneLineExitTwo) {
  const CliOutcome missing = run("report " + shell_quote((dir_ / "nope").string()));
  EXPECT_EQ(missing.exit_code, 2);
  ASSERT_EQ(missing.err_lines.size(), 1u) << missing.err;
  EXPECT_EQ(missing.err_lines[0],
            "fabricsim: report: " + (dir_ / "nope").string() + ": not a directory");
  fs::create_directory(dir_ / "empty");
  const CliOutcome empty = run("report " + shell_quote((dir_ / "empty").string()));
  EXPECT_EQ(empty.exit_code, 2);
  ASSERT_EQ(empty.err_lines.size(), 1u) << empty.err;
  EXPECT_NE(empty.err_lines[0].find("not a fabricsim run, compare or sweep directory"),
            std::string::npos)
      << empty.err_lines[0];
  EXPECT_FALSE(fs::exists(dir_ / "empty" / "report.html"));
}

TEST_F(ReportCliTest, RunWritesReportOnlyWhenAsked) {
  const std::string file = write("incast.yaml", kIncast);
  const fs::path plain = dir_ / "plain", with = dir_ / "with";
  ASSERT_EQ(run("run " + shell_quote(file) + " --out " + shell_quote(plain.string())).exit_code, 0);
  EXPECT_FALSE(fs::exists(plain / "report.html")) << "outputs.report defaults to none";
  const CliOutcome r = run("run " + shell_quote(file) + " --set outputs.report=html --out " +
                           shell_quote(with.string()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::exists(with / "report.html"));
  EXPECT_NE(r.out.find("report.html)"), std::string::npos) << r.out;
  // A second run into the same directory replaces it (report.html is one of fabricsim's files).
  const CliOutcome again = run("run " + shell_quote(file) + " --set outputs.report=html --out " +
                               shell_quote(with.string()));
  EXPECT_EQ(again.exit_code, 0) << again.err;
  // `fabricsim report` on the plain run writes the same kind of page.
  const CliOutcome rep = run("report " + shell_quote(plain.string()));
  EXPECT_EQ(rep.exit_code, 0) << rep.err;
  EXPECT_EQ(rep.out, (plain / "report.html").string() + " written\n");
  EXPECT_TRUE(fs::exists(plain / "report.html"));
}

TEST_F(ReportCliTest, CompareWritesTheComparisonAndEachRunsReport) {
  const std::string file = write("incast.yaml", kIncast);
  const fs::path out = dir_ / "cmp";
  const CliOutcome r = run("compare " + shell_quote(file) + " --set outputs.report=html --out " +
                           shell_quote(out.string()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const fs::path& f :
       {out / "report.html", out / "ib" / "report.html", out / "roce" / "report.html"}) {
    EXPECT_TRUE(fs::exists(f)) << f;
  }
  std::ifstream in(out / "report.html");
  const std::string html((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(html.find("<a href=\"ib/report.html\">"), std::string::npos);
}

TEST_F(ReportCliTest, BadReportValueIsOneLine) {
  const std::string file = write("incast.yaml", kIncast);
  expect_bad_input(file, "--set outputs.report=pdf", ".*outputs\\.report.*(none|html).*");
}

}  // namespace report_cli_test
