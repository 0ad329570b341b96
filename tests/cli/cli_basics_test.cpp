// The command line's first contact: --version, a bare `fabricsim`, --help, and a subcommand that
// does not exist (yet). Each runs the real binary; command-line errors exit with 2 and print
// exactly one line on stderr (SPEC §5), `fabricsim: ...`.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include "../support/cli_runner.h"

namespace cli_basics_test {

namespace fs = std::filesystem;
using fabricsim::test_support::CliOutcome;
using fabricsim::test_support::read_file;
using fabricsim::test_support::run_shell;
using fabricsim::test_support::shell_quote;

const std::vector<std::string> kSubcommands = {"run", "compare", "validate", "keys"};

class CliBasicsTest : public fabricsim::test_support::CliFixture {
 protected:
  CliBasicsTest() : CliFixture("fabricsim_cli_basics") {}

  // The stderr line names every subcommand there is.
  static void expect_lists_subcommands(const std::string& line) {
    for (const std::string& name : kSubcommands) {
      EXPECT_NE(line.find(name), std::string::npos) << "'" << line << "' does not name " << name;
    }
  }
};

// The x.y.z of `project(fabricsim VERSION x.y.z ...)` in CMakeLists.txt: read from the source,
// not from the binary under test.
std::string project_version() {
  const std::string cmake = read_file(fs::path(FABRICSIM_SOURCE_DIR) / "CMakeLists.txt");
  std::smatch m;
  if (!std::regex_search(cmake, m, std::regex(R"(project\(fabricsim VERSION ([0-9.]+))"))) {
    return "";
  }
  return m[1];
}

TEST_F(CliBasicsTest, VersionPrintsProjectVersionAndCommit) {
  const std::string version = project_version();
  ASSERT_FALSE(version.empty()) << "CMakeLists.txt has no project(fabricsim VERSION ...)";
  const CliOutcome o = run("--version");
  EXPECT_EQ(o.exit_code, 0);
  EXPECT_TRUE(o.err.empty()) << o.err;
  // "fabricsim 0.1.0", then " (git <12 hex>)" or " (git <12 hex>-dirty)" from a git checkout.
  const std::regex pattern("fabricsim " + std::regex_replace(version, std::regex(R"(\.)"), R"(\.)") +
                           R"(( \(git [0-9a-f]{12}(-dirty)?\))?\n)");
  EXPECT_TRUE(std::regex_match(o.out, pattern)) << "--version printed '" << o.out << "'";
  // Deterministic: nothing in it changes from one call to the next (no time stamp).
  EXPECT_EQ(run("--version").out, o.out);
}

// scripts/version.cmake on a source tree that is no git checkout (a release tarball): the
// project version alone, and the header is written all the same.
TEST_F(CliBasicsTest, VersionScriptWithoutGitIsTheProjectVersion) {
  const fs::path source = dir_ / "tarball";
  fs::create_directories(source);
  const fs::path header = dir_ / "generated" / "fabricsim_version.h";
  const std::string script = std::string(FABRICSIM_SOURCE_DIR) + "/scripts/version.cmake";
  const std::string command = "cmake -DVERSION=7.8.9 -DSOURCE_DIR=" + shell_quote(source.string()) +
                              " -DOUT=" + shell_quote(header.string()) + " -P " +
                              shell_quote(script);
  const CliOutcome o = run_shell(command, dir_);
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(read_file(header).find("#define FABRICSIM_VERSION \"7.8.9\"\n"), std::string::npos)
      << read_file(header);
}

TEST_F(CliBasicsTest, BareFabricsimPrintsHelpAndExits2) {
  const CliOutcome o = run("");
  EXPECT_EQ(o.exit_code, 2) << "no subcommand is a command-line error";
  EXPECT_NE(o.out.find("Usage: fabricsim"), std::string::npos) << o.out;
  for (const std::string& name : kSubcommands) {
    EXPECT_NE(o.out.find("\n  " + name + " "), std::string::npos) << "help lists " << name;
  }
  ASSERT_EQ(o.err_lines.size(), 1u) << o.err;
  EXPECT_EQ(o.err_lines[0].rfind("fabricsim: a subcommand is required", 0), 0u) << o.err;
  expect_lists_subcommands(o.err_lines[0]);
}

TEST_F(CliBasicsTest, HelpExits0) {
  const CliOutcome o = run("--help");
  EXPECT_EQ(o.exit_code, 0);
  EXPECT_NE(o.out.find("Usage: fabricsim"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("--version"), std::string::npos) << o.out;
  EXPECT_TRUE(o.err.empty()) << o.err;
}

TEST_F(CliBasicsTest, UnknownSubcommandNamesTheKnownOnes) {
  for (const std::string word : {"frobnicate", "Run", "simulate"}) {
    const CliOutcome o = run(word + " examples/default.yaml");
    EXPECT_EQ(o.exit_code, 2) << word;
    ASSERT_EQ(o.err_lines.size(), 1u) << word << ": " << o.err;
    EXPECT_EQ(o.err_lines[0].rfind("fabricsim: unknown subcommand '" + word + "'", 0), 0u)
        << o.err_lines[0];
    expect_lists_subcommands(o.err_lines[0]);
    EXPECT_TRUE(o.out.empty()) << o.out;
  }
}

// `report` (issue 13, once planned) is built: without DIR it is a usage error, not "unknown"
// (tests/cli/report_cli_test.cpp covers it further).
TEST_F(CliBasicsTest, ReportSubcommandIsBuilt) {
  const CliOutcome o = run("report");
  EXPECT_EQ(o.exit_code, 2);
  ASSERT_EQ(o.err_lines.size(), 1u) << o.err;
  EXPECT_EQ(o.err_lines[0].find("unknown subcommand"), std::string::npos) << o.err_lines[0];
  EXPECT_EQ(o.err_lines[0].find("not built yet"), std::string::npos) << o.err_lines[0];
  EXPECT_NE(o.err_lines[0].find("dir"), std::string::npos) << o.err_lines[0];
}

TEST_F(CliBasicsTest, UnknownTopLevelOptionIsOneLine) {
  const CliOutcome o = run("-x");
  EXPECT_EQ(o.exit_code, 2);
  ASSERT_EQ(o.err_lines.size(), 1u) << o.err;
  EXPECT_NE(o.err_lines[0].find("-x"), std::string::npos) << o.err_lines[0];
}

}  // namespace cli_basics_test
