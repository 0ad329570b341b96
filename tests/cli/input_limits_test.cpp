// Issue 9, items 1, 4, 5 and 9 through the real binary: endless or huge files, invalid UTF-8 and
// overflowing arithmetic are refused before simulating (exit 2, one line, no output directory),
// the lowest accepted link rate runs correctly, and --unset makes an A/B run without a copied
// file.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>

#include "../support/cli_runner.h"

namespace input_limits_test {

namespace fs = std::filesystem;
using fabricsim::test_support::CliOutcome;
using fabricsim::test_support::read_file;

class InputLimitsTest : public fabricsim::test_support::CliFixture {
 protected:
  InputLimitsTest() : CliFixture("fabricsim_input_limits") {}
};

constexpr const char* kSmall =
    "name: small\nhosts: {count: 4}\nworkload: {kind: collective, size: 64KiB}\n";

// Each case would have read forever, blocked, or read 64 MiB before this change.
TEST_F(InputLimitsTest, EndlessAndHugeFilesAreRefusedBeforeReading) {
  expect_bad_input(
      "/dev/zero", "",
      R"(^/dev/zero: \(file\): cannot read: is a character device, not a regular file$)");
  const std::string link = (dir_ / "x.yaml").string();
  fs::create_symlink("/dev/zero", link);
  expect_bad_input(
      link, "",
      "^" + link +
          R"(: \(file\): cannot read: is a symbolic link to a character device, not a regular file$)");
  const std::string fifo = (dir_ / "fifo.yaml").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  expect_bad_input(fifo, "",
                 "^" + fifo + R"(: \(file\): cannot read: is a FIFO, not a regular file$)");
  const std::string big = write("big.yaml", kSmall);
  fs::resize_file(big, (64u << 20) + 1);  // sparse: costs no disk
  expect_bad_input(big, "",
                 "^" + big + R"(: \(file\): is 64\.00 MiB; a scenario file may be at most 64MiB$)");
  // yaml-cpp 0.7's LoadAll looped forever, allocating, on this (jbeder/yaml-cpp#1040).
  const std::string loop = write("loop.yaml", "[0], [1],\n");
  expect_bad_input(
      loop, "",
      "^" + loop +
          R"(:1: \(yaml\): a scenario file holds one YAML document, found more than one$)");
  EXPECT_EQ(run("compare '" + loop + "'").exit_code, 2) << "compare parses the same way";
  const CliOutcome compare = run("compare /dev/urandom");
  EXPECT_EQ(compare.exit_code, 2) << "compare reads through the same bound";
  EXPECT_EQ(compare.err,
            "/dev/urandom: (file): cannot read: is a character device, not a regular file\n");
}

TEST_F(InputLimitsTest, InvalidUtf8NameIsRefusedBeforeSimulating) {
  // Issue 9 item 5: this name used to simulate fully, then fail in the JSON writer.
  const std::string file = write("utf8.yaml", std::string(kSmall) + "seed: 2\n");
  std::ofstream(file, std::ios::app) << "outputs: {dir: \"o\xFF\"}\n";
  expect_bad_input(
      file, "",
      "^" + file +
          R"(:5: outputs\.dir: invalid UTF-8 \(byte 0xFF at offset 1\); scenario text must be UTF-8$)");
  expect_bad_input(
      write("ok.yaml", kSmall), "--set 'name=a\xC3\x28'",
      R"(^--set:1: \(set\): invalid UTF-8 \(byte 0xC3 at offset 6\); scenario text must be UTF-8$)");
}

TEST_F(InputLimitsTest, OverflowingArithmeticIsRefusedWithItsKey) {
  const std::string file = write("small.yaml", kSmall);
  // Issue 9 item 4: 1 bps used to pass validate and abort the run (exit 134).
  expect_bad_input(file, "--set fabric.link.rate=1bps",
                 R"(^--set:1: fabric\.link\.rate: must be between 1Mbps and 100Tbps$)");
  expect_bad_input(
      file, "--set workload.size=1024GiB --set fabric.link.rate=1Mbps",
      // 4 ranks each send 6 x 2^38 B: 1.32e7 s at 1 Mb/s.
      R"(^--set:1: workload\.size: needs at least 1\.32e\+07 s of simulated time \(1649267441664 B through one NIC at 1\.000 Mbps\); the simulator's horizon is 1000000s \(int64 picoseconds\)$)");
  expect_bad_input(file, "--set stop_time=1000001s",
                 R"(^--set:1: stop_time: must be between 0 and 1000000s$)");
  expect_bad_input(
      file, "--set workload.slice=1B --set workload.size=1024GiB",
      // 4 ranks x 6 steps x 2^38 one-byte slices.
      R"(^--set:1: workload\.slice: the workload posts 6597069766656 messages; message ids are 32-bit \(at most 4294967295\)$)");
  expect_bad_input(file, "--set hosts.count=4294967296",
                 R"(^--set:1: hosts\.count: '4294967296' is too large$)");
}

TEST_F(InputLimitsTest, TheSlowestLinkRunsCorrectly) {
  // 64 KiB ring all-reduce on 4 ranks at 1 Mb/s: each rank sends 2 x 3/4 x 64 KiB = 98304 B of
  // payload, 0.786 s at 1 Mb/s; headers add ~2% (82 B per 4 KiB RoCEv2 frame) and latencies are
  // microseconds, so the collective takes 0.786-0.83 s.
  const std::string file = write("slow.yaml", kSmall);
  const fs::path out = dir_ / "slow";
  const CliOutcome o =
      run("run '" + file + "' --set fabric.link.rate=1Mbps --out '" + out.string() + "'");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const nlohmann::json r = nlohmann::json::parse(read_file(out / "result.json"));
  EXPECT_TRUE(r["completed"].get<bool>());
  const double seconds = r["collective"]["time_ps"].get<double>() * 1e-12;
  EXPECT_GE(seconds, 0.786) << "no faster than the payload alone";
  EXPECT_LE(seconds, 0.83) << "headers and latencies add little";
}

TEST_F(InputLimitsTest, AStuckFabricStopsAtTheHorizon) {
  // A NIC that never drains, PFC on and no stop_time: PAUSE refreshes would go on forever (and,
  // at a low enough rate, past int64). The run now ends at the 10^6 s horizon, unfinished.
  const std::string file =
      write("storm.yaml", std::string(kSmall) +
                              "fabric: {link: {rate: 1Mbps}, pfc: {enabled: true}}\n"
                              "faults: {nic_stall: {nic: 1, at: 0s}}\n");
  const fs::path out = dir_ / "storm";
  const CliOutcome o = run("run '" + file + "' --out '" + out.string() + "'");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const nlohmann::json r = nlohmann::json::parse(read_file(out / "result.json"));
  EXPECT_FALSE(r["completed"].get<bool>()) << "stopped, not finished";
  EXPECT_EQ(r["sim_time_ps"].get<int64_t>(), 1'000'000'000'000'000'000) << "the horizon";
}

constexpr const char* kDcqcn =
    "name: ab\nhosts: {count: 4}\nworkload: {kind: collective, size: 64KiB}\n"
    "fabric:\n  roce: {cc: dcqcn, dcqcn_profile: hpcc-paper}\n";

TEST_F(InputLimitsTest, UnsetMakesAnAbRun) {
  const std::string file = write("ab.yaml", kDcqcn);
  // Issue 9 item 9: --set alone cannot turn DCQCN off.
  const CliOutcome set_only = run("validate '" + file + "' --set fabric.roce.cc=none");
  EXPECT_EQ(set_only.exit_code, 2);
  // Options in either order: every --unset applies before every --set.
  const CliOutcome ab = run("run '" + file +
                            "' --set fabric.roce.cc=none --unset "
                            "fabric.roce.dcqcn_profile");
  ASSERT_EQ(ab.exit_code, 0) << ab.err;
  EXPECT_NE(ab.out.find("no congestion control"), std::string::npos) << ab.out;
  const CliOutcome compare = run("compare '" + file + "' --unset fabric.roce");
  EXPECT_EQ(compare.exit_code, 0) << compare.err;
  expect_bad_input(
      file, "--unset seed --unset fabric.roce.dcqcn_profil",
      R"(^--unset:2: fabric\.roce\.dcqcn_profil: unknown key 'dcqcn_profil'; did you mean 'dcqcn_profile'\? allowed: .*$)");
  EXPECT_EQ(run("validate '" + file + "' --unset fabric.ib.mtu").exit_code, 0)
      << "a known key the file does not set is harmless";
  const CliOutcome tech = run("compare '" + file + "' --unset fabric.technology");
  EXPECT_EQ(tech.exit_code, 2);
  EXPECT_EQ(tech.err,
            "--unset:1: fabric.technology: compare sets the technology of each run "
            "from --fabrics; drop this --unset\n");
  const CliOutcome help = run("run --help");
  EXPECT_NE(help.out.find("--unset"), std::string::npos) << "documented in --help";
}

}  // namespace input_limits_test
