// The fabricsim binary on bad input: exit code 2, exactly one line on stderr of the form
// `file:line: key.path: message`, and no output directory left behind (SPEC §5).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <regex>
#include <string>
#include <vector>

#include "../support/cli_runner.h"

namespace cli_bad_input_test {

namespace fs = std::filesystem;
using fabricsim::test_support::CliOutcome;

class CliTest : public fabricsim::test_support::CliFixture {
 protected:
  CliTest() : CliFixture("fabricsim_cli") {}
};

// A small, fast scenario (16 NICs, 1 MiB all-reduce).
constexpr const char* kGood =
    "name: small\nhosts: {count: 16}\nworkload: {kind: collective, size: 1MiB}\n";

// `path` as a regex matching itself.
std::string escaped(const std::string& path) {
  return std::regex_replace(path, std::regex(R"([.^$|()\[\]{}*+?\\])"), R"(\$&)");
}

TEST_F(CliTest, LoaderErrorsExitTwoWithOneLine) {
  struct Case {
    const char* name;
    const char* yaml;
    const char* line_and_key;  // regex for "LINE: key.path"
  };
  const std::vector<Case> cases = {
      {"malformed", "name: x\nfabric: {link: [\n", "3: \\(yaml\\)"},
      {"unknown_top", "name: x\nrat: 1\n", "2: rat"},
      {"unknown_nested", "fabric:\n  link:\n    rat: 1Gbps\n", "3: fabric\\.link\\.rat"},
      {"missing_unit", "fabric:\n  link: {rate: 400}\n", "2: fabric\\.link\\.rate"},
      {"impossible", "hosts: {count: 1}\n", "1: hosts\\.count"},
      {"wrong_enum", "routing: {ecmp: {hash: md5}}\n", "1: routing\\.ecmp\\.hash"},
      {"other_kind", "workload:\n  kind: pattern\n  senders: 4\n", "3: workload\\.senders"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const std::string file = write(std::string(c.name) + ".yaml", c.yaml);
    expect_bad_input(file, "", "^" + escaped(file) + ":" + c.line_and_key + ": .+$");
  }
}

TEST_F(CliTest, BadOverrideExitsTwo) {
  const std::string file = write("good.yaml", kGood);
  expect_bad_input(file, "--set seed=1 --set fabric.link.rat=1Gbps",
                   R"(^--set:2: fabric\.link\.rat: unknown key 'rat'; did you mean 'rate'\? allowed: rate, cable, loss_rate$)");
}

TEST_F(CliTest, MissingFileExitsTwo) {
  const std::string file = (dir_ / "absent.yaml").string();
  expect_bad_input(file, "", "^" + escaped(file) + ": \\(file\\): cannot open: .+$");
}

TEST_F(CliTest, EngineInputErrorGetsTheLoadersLine) {
  // A radix-4 leaf-spine holds 8 NICs: resolve() rejects 128 hosts, naming a key path the
  // loader maps back to a line in the file.
  const std::string file = write("too_big.yaml", "topology:\n  radix: 4\nhosts: {count: 128}\n");
  expect_bad_input(file, "", "^" + escaped(file) + ":[0-9]+: [a-z_.]+: .+$");
}

// Errors only a built fabric can find (here: a failed link on switch 999 of a 16-NIC fabric) are
// refused by validate and by compare's up-front check as by run: exit 2, one line, nothing run.
TEST_F(CliTest, BuildTimeErrorsAreRefusedByValidateAndCompareToo) {
  const std::string file =
      write("bad_switch.yaml", std::string(kGood) + "faults:\n  link_down: {switch: 999}\n");
  expect_bad_input(file, "", escaped(file) + ":5: faults\\.link_down\\.switch: must be a "
                                             "switch index below [0-9]+");
  const CliOutcome o = run("compare '" + file + "' --out '" + (dir_ / "cmp").string() + "'");
  EXPECT_EQ(o.exit_code, 2) << o.err;
  ASSERT_EQ(o.err_lines.size(), 1u) << o.err;
  EXPECT_NE(o.err_lines[0].find("faults.link_down.switch: must be a switch index below"),
            std::string::npos)
      << o.err;
  EXPECT_TRUE(o.out.empty()) << "no run started: " << o.out;
  EXPECT_FALSE(fs::exists(dir_ / "cmp"));
}

// faults.link_down's flap keys: each cycle must come back up after it fails, and fail again only
// after it is back; every refusal is the one line naming the key at its line in the file.
TEST_F(CliTest, LinkFlapKeysAreValidated) {
  struct Case {
    const char* name;
    const char* faults;
    const char* line_and_key;
  };
  const std::vector<Case> cases = {
      {"up_before_down", "  link_down: {switch: 0, port: 4, at: 50us, until: 40us}\n",
       "5: faults\\.link_down\\.until: must be after faults\\.link_down\\.at"},
      {"flaps_without_until", "  link_down: {switch: 0, port: 4, at: 50us, flaps: 3}\n",
       "5: faults\\.link_down\\.flaps: a link that flaps comes back up"},
      {"period_too_short",
       "  link_down: {switch: 0, at: 50us, until: 150us, flaps: 2, period: 100us}\n",
       "5: faults\\.link_down\\.period: must be longer than until - at \\(100us\\)"},
      {"zero_flaps", "  link_down:\n    flaps: 0\n", "6: faults\\.link_down\\.flaps"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const std::string file =
        write(std::string(c.name) + ".yaml", std::string(kGood) + "faults:\n" + c.faults);
    expect_bad_input(file, "", "^" + escaped(file) + ":" + c.line_and_key + ".*$");
  }
}

// A DCQCN parameter the transport refuses names its own key, not the group (min_rate above the
// 400 Gb/s line rate).
TEST_F(CliTest, DcqcnParameterErrorsNameTheirKey) {
  const std::string file = write("good.yaml", kGood);
  expect_bad_input(file, "--set fabric.roce.cc=dcqcn --set fabric.roce.dcqcn.min_rate=800Gbps",
                   "--set:2: fabric\\.roce\\.dcqcn\\.min_rate: must be in \\(0, the line rate "
                   "400000000000 bps\\].*");
}

TEST_F(CliTest, UsageErrorExitsTwo) {
  const CliOutcome o = run("run");
  EXPECT_EQ(o.exit_code, 2) << "a missing scenario argument is bad input";
  EXPECT_EQ(o.err_lines.size(), 1u) << "one line for a usage error";
}

TEST_F(CliTest, GoodScenarioValidatesAndRuns) {
  const std::string file = write("good.yaml", kGood);
  const CliOutcome v = run("validate '" + file + "'");
  EXPECT_EQ(v.exit_code, 0) << "a good scenario validates";
  EXPECT_EQ(v.out.rfind(file + ": ok (estimated peak memory ", 0), 0u)
      << "validate prints FILE: ok and the memory estimate";

  const fs::path out_dir = dir_ / "results";
  const CliOutcome r = run("run '" + file + "' --out '" + out_dir.string() + "'");
  EXPECT_EQ(r.exit_code, 0) << "a good scenario runs";
  EXPECT_TRUE(r.err_lines.empty()) << "no progress bar when stderr is not a terminal";
  EXPECT_NE(r.out.find("small (seed"), std::string::npos) << "summary on stdout:\n" << r.out;
  for (const char* name : {"result.json", "flows.csv", "run.json"}) {
    EXPECT_TRUE(fs::exists(out_dir / name)) << name << " written after a successful run";
  }
}

}  // namespace cli_bad_input_test
