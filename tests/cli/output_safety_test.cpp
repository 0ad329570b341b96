// Output safety of the fabricsim binary (issue 9, items 3 and 6, "What to build" 4):
//  - an unusable --out or outputs.dir is bad input found before simulating: exit 2, one line,
//    nothing simulated (no summary on stdout);
//  - a run replaces its output directory as a whole, so an InfiniBand run's routes.csv,
//    credits.csv and trace.pcap never stay beside a later RoCE run's result.json, and a
//    directory fabricsim did not write is refused rather than deleted;
//  - SIGINT and SIGTERM stop a run early: the files are written, complete and valid, with
//    "partial": true, and the process then ends by the same signal (the shell reports 130/143).
#include <algorithm>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "../support/cli_runner.h"

namespace output_safety_test {

namespace fs = std::filesystem;
using fabricsim::test_support::CliOutcome;
using fabricsim::test_support::parse_csv;
using fabricsim::test_support::read_file;
using fabricsim::test_support::split_lines;
using nlohmann::json;

// 16 NICs, a 1 MiB ring all-reduce: a fraction of a second.
constexpr const char* kSmall =
    "name: small\nhosts: {count: 16}\nworkload: {kind: collective, size: 1MiB}\n";
// 64 NICs, a 4 GiB ring all-reduce: about a minute of wall time (176 ms simulated, 945 M
// events), so an interrupt after a fraction of a second always lands mid-run.
constexpr const char* kLong =
    "name: long\nhosts: {count: 64}\nworkload: {kind: collective, size: 4GiB}\n";

std::set<std::string> entries(const fs::path& dir) {
  std::set<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.insert(e.path().filename().string());
  return names;
}

class OutputSafetyTest : public fabricsim::test_support::CliFixture {
 protected:
  OutputSafetyTest() : CliFixture("fabricsim_outsafe") {}

  // Asserts the contract for an unusable output directory: exit 2, exactly `line` on stderr,
  // nothing simulated.
  void expect_refused(const std::string& args, const std::string& line) {
    const CliOutcome o = run(args);
    EXPECT_EQ(o.exit_code, 2) << "fabricsim " << args;
    EXPECT_EQ(o.err_lines, std::vector<std::string>{line}) << "fabricsim " << args;
    EXPECT_EQ(o.out, "") << "nothing simulated, no summary: fabricsim " << args;
  }

  // Starts `fabricsim ARGS...` with stdout/stderr in files of the scratch directory and SIGINT
  // and SIGTERM at their default actions (a test runner started in the background may ignore
  // SIGINT, and fabricsim keeps an ignored signal ignored).
  pid_t spawn(const std::vector<std::string>& args) {
    std::vector<std::string> argv_text = {FABRICSIM_BINARY};
    argv_text.insert(argv_text.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (std::string& a : argv_text) argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t files;
    posix_spawn_file_actions_init(&files);
    posix_spawn_file_actions_addopen(&files, 1, (dir_ / "stdout.txt").c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&files, 2, (dir_ / "stderr.txt").c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    sigset_t defaults;
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGINT);
    sigaddset(&defaults, SIGTERM);
    posix_spawnattr_setsigdefault(&attr, &defaults);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF);
    pid_t pid = -1;
    const int rc = posix_spawn(&pid, argv[0], &files, &attr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&files);
    posix_spawnattr_destroy(&attr);
    return rc == 0 ? pid : -1;
  }

  // Waits until the run has staged `out` (DIR.tmp-<pid> exists: the scenario is loaded, the
  // signal handlers are installed), lets it simulate a little, then sends `sig`. Returns the
  // wait status.
  int interrupt_when_running(pid_t pid, const fs::path& out, int sig) {
    const fs::path staging = out.string() + ".tmp-" + std::to_string(pid);
    for (int i = 0; i < 2000 && !fs::exists(staging); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    EXPECT_TRUE(fs::exists(staging)) << "the run stages its output directory before simulating";
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    kill(pid, sig);
    int status = 0;
    waitpid(pid, &status, 0);
    return status;
  }
};

TEST_F(OutputSafetyTest, UnusableOutIsBadInputBeforeSimulating) {
  const std::string file = write("small.yaml", kSmall);
  const std::string plain = write("plain.txt", "not a directory");
  expect_refused("run '" + file + "' --out '" + plain + "'",
                 "fabricsim: --out " + plain + ": exists and is not a directory");
  EXPECT_EQ(read_file(plain), "not a directory") << "the file is left alone";
  expect_refused("run '" + file + "' --out '" + plain + "/out'",
                 "fabricsim: --out " + plain + "/out: '" + plain + "' is not a directory");
  expect_refused("run '" + file + "' --out /proc/fabricsim-out",
                 "fabricsim: --out /proc/fabricsim-out: cannot create directories in /proc: No "
                 "such file or directory");
  expect_refused("compare '" + file + "' --out '" + plain + "'",
                 "fabricsim: --out " + plain + ": exists and is not a directory");
}

// Permission bits do not stop root, so as root the binary runs as user nobody (setpriv).
TEST_F(OutputSafetyTest, ADirectoryWithoutWritePermissionIsBadInput) {
  std::string prefix;
  if (::getuid() == 0) {
    if (!fs::exists("/usr/bin/setpriv")) GTEST_SKIP() << "root without setpriv(1)";
    prefix = "/usr/bin/setpriv --reuid=65534 --regid=65534 --clear-groups ";
  }
  const std::string file = write("small.yaml", kSmall);
  const fs::path ro = dir_ / "ro";
  fs::create_directories(ro);
  std::ofstream(ro / ".fabricsim-output") << "x";
  fs::permissions(ro, fs::perms::owner_read | fs::perms::owner_exec | fs::perms::group_read |
                          fs::perms::group_exec | fs::perms::others_read | fs::perms::others_exec);
  const auto refused = [&](const fs::path& out, const std::string& line) {
    const CliOutcome o = fabricsim::test_support::run_shell(
        prefix + fabricsim::test_support::shell_quote(FABRICSIM_BINARY) + " run '" + file +
            "' --out '" + out.string() + "'",
        dir_);
    EXPECT_EQ(o.exit_code, 2) << out;
    EXPECT_EQ(o.err_lines, std::vector<std::string>{line});
    EXPECT_EQ(o.out, "") << "nothing simulated";
  };
  refused(ro / "out", "fabricsim: --out " + (ro / "out").string() +
                          ": cannot create directories in " + ro.string() + ": Permission denied");
  refused(ro / "a" / "out", "fabricsim: --out " + (ro / "a" / "out").string() + ": cannot create " +
                                (ro / "a").string() + ": Permission denied");
  refused(ro, "fabricsim: --out " + ro.string() + ": is not writable: Permission denied");
  fs::permissions(ro, fs::perms::owner_all);  // let the scratch directory go
}

TEST_F(OutputSafetyTest, OutputsDirIsReportedAtItsKey) {
  const std::string plain = write("plain.txt", "x");
  const std::string file =
      write("small.yaml", std::string(kSmall) + "outputs: {dir: " + plain + "}\n");
  expect_refused("run '" + file + "'",
                 file + ":4: outputs.dir: '" + plain + "' exists and is not a directory");
  const std::string good = write("good.yaml", kSmall);
  expect_refused("run '" + good + "' --set outputs.dir=/proc/x",
                 "--set:1: outputs.dir: '/proc/x' cannot create directories in /proc: No such "
                 "file or directory");
}

TEST_F(OutputSafetyTest, ADirectoryFabricsimDidNotWriteIsNeverReplaced) {
  const std::string file = write("small.yaml", kSmall);
  // The scratch directory holds the scenario and captured output: like --out . or --out $HOME.
  expect_refused("run '" + file + "' --out '" + dir_.string() + "'",
                 "fabricsim: --out " + dir_.string() +
                     ": holds 'small.yaml', which fabricsim does not write; a run replaces the "
                     "whole directory: use a new or empty one");
  EXPECT_TRUE(fs::exists(file)) << "nothing deleted";
}

TEST_F(OutputSafetyTest, AnIbRunsFilesDoNotStayBesideALaterRoceRun) {
  const std::string file = write("small.yaml", kSmall);
  const fs::path out = dir_ / "out";
  const CliOutcome ib = run("run '" + file +
                            "' --set fabric.technology=ib --set "
                            "outputs.pcap.frames=1000 --out '" +
                            out.string() + "'");
  ASSERT_EQ(ib.exit_code, 0) << ib.err;
  EXPECT_EQ(entries(out),
            (std::set<std::string>{".fabricsim-output", "result.json", "flows.csv", "run.json",
                                   "routes.csv", "trace.pcap", "credits.csv", "links.csv"}));
  const CliOutcome roce = run("run '" + file + "' --out '" + out.string() + "'");
  ASSERT_EQ(roce.exit_code, 0) << roce.err;
  EXPECT_EQ(entries(out),
            (std::set<std::string>{".fabricsim-output", "result.json", "flows.csv", "run.json",
                                   "links.csv"}))
      << "the RoCE run replaced the directory as a whole";
  EXPECT_EQ(json::parse(read_file(out / "result.json")).at("technology"), "roce");
  for (const std::string& name : entries(dir_)) {
    EXPECT_NE(name.rfind("out.", 0), 0u) << "left beside the output: " << name;
  }
}

TEST_F(OutputSafetyTest, CompareReplacesTheWholeDirectory) {
  const std::string file = write("small.yaml", kSmall);
  const fs::path out = dir_ / "cmp";
  const CliOutcome both = run("compare '" + file + "' --out '" + out.string() + "'");
  ASSERT_EQ(both.exit_code, 0) << both.err;
  EXPECT_EQ(entries(out),
            (std::set<std::string>{".fabricsim-output", "compare.csv", "ib", "roce"}));
  const CliOutcome one = run("compare '" + file + "' --fabrics roce --out '" + out.string() + "'");
  ASSERT_EQ(one.exit_code, 0) << one.err;
  EXPECT_EQ(entries(out), (std::set<std::string>{".fabricsim-output", "compare.csv", "roce"}))
      << "the earlier comparison's ib/ is gone";
  EXPECT_EQ(parse_csv(read_file(out / "compare.csv")).size(), 2u) << "header and the roce row";
}

// Issue 23 item 5: Ctrl-C on a training run writes the step as far as it got, marked
// unfinished (no step time), with the ops done, the compute and the communication so far; the
// summary says so.
TEST_F(OutputSafetyTest, SigintOnATrainingRunWritesTheStepSoFar) {
  const std::string file = std::string(FABRICSIM_SOURCE_DIR) + "/examples/gpt-step.yaml";
  const fs::path out = dir_ / "out";
  const pid_t pid = spawn({"run", file, "--out", out.string()});
  ASSERT_GT(pid, 0) << "spawn fabricsim";
  const int status = interrupt_when_running(pid, out, SIGINT);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGINT) << "status " << status;
  const json result = json::parse(read_file(out / "result.json"));
  EXPECT_EQ(result.at("partial"), true);
  const json& t = result.at("jobs").at(0).at("training");
  EXPECT_EQ(t.at("finished"), false);
  EXPECT_TRUE(t.at("step_time_ps").is_null()) << "no step time for a step that did not end";
  // gpt-step: 32 GPUs x (10 x 24 layers x 8 micro-batches + 3 x 8 + 1) compute ops, 4 TP
  // all-reduces per layer and micro-batch for each of 4 DP replicas, 32 DP buckets' all-reduces
  // (the summary of a whole run: "data_parallel 32 collectives").
  EXPECT_EQ(t.at("ops_total"), 32 * (10 * 24 * 8 + 3 * 8 + 1) + 4 * 4 * 24 * 8 + 32);
  EXPECT_LT(t.at("ops_finished").get<int64_t>(), t.at("ops_total").get<int64_t>());
  EXPECT_EQ(t.at("elapsed_ps"), result.at("sim_time_ps")) << "the job started at 0";
  EXPECT_EQ(t.at("compute_ps").get<int64_t>() + t.at("exposed_comm_ps").get<int64_t>(),
            t.at("elapsed_ps").get<int64_t>());
  const std::string summary = read_file(dir_ / "stdout.txt");
  EXPECT_NE(summary.find("PARTIAL: interrupted"), std::string::npos) << summary;
  EXPECT_NE(summary.find("NOT FINISHED: "), std::string::npos) << summary;
  EXPECT_NE(summary.find(" of 65344 ops done"), std::string::npos) << summary;
}

TEST_F(OutputSafetyTest, SigintStopsTheRunAndWritesAPartialResult) {
  const std::string file = write("long.yaml", kLong);
  const fs::path out = dir_ / "out";
  const pid_t pid = spawn({"run", file, "--out", out.string()});
  ASSERT_GT(pid, 0) << "spawn fabricsim";
  const int status = interrupt_when_running(pid, out, SIGINT);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGINT)
      << "ends by SIGINT once the files are written (shell: exit 130); status " << status;

  const json result = json::parse(read_file(out / "result.json"));  // throws if incomplete
  EXPECT_EQ(result.at("partial"), true);
  EXPECT_EQ(result.at("completed"), false);
  const int64_t sim_ps = result.at("sim_time_ps");
  EXPECT_GT(sim_ps, 0) << "it simulated for a while";
  EXPECT_LT(sim_ps, 176'000'000'000) << "but stopped before the 176 ms the whole run takes";
  EXPECT_EQ(result.at("collective").at("time_ps"), -1) << "the collective did not finish";
  EXPECT_TRUE(result.at("collective").at("busbw_gbytes_per_s").is_null()) << "no bandwidth without an end";
  EXPECT_NO_THROW(json::parse(read_file(out / "run.json"))) << "run.json complete";

  // flows.csv: every posted flow, the unfinished ones with an empty finish time.
  const auto rows = parse_csv(read_file(out / "flows.csv"));
  ASSERT_GT(rows.size(), 1u);
  int64_t unfinished = 0;
  for (size_t i = 1; i < rows.size(); ++i) unfinished += rows[i].at(5).empty();
  const json& flows = result.at("flows");
  EXPECT_EQ(static_cast<int64_t>(rows.size() - 1), flows.at("total").get<int64_t>());
  EXPECT_EQ(unfinished, flows.at("total").get<int64_t>() - flows.at("completed").get<int64_t>());
  EXPECT_GT(unfinished, 0) << "a ring step was in flight";

  const std::string stdout_text = read_file(dir_ / "stdout.txt");
  EXPECT_NE(stdout_text.find("  PARTIAL: interrupted at simulated time "), std::string::npos)
      << stdout_text;
  EXPECT_NE(stdout_text.find("not finished"), std::string::npos) << stdout_text;
  EXPECT_EQ(read_file(dir_ / "stderr.txt"), "") << "an interrupt is no error";
  for (const std::string& name : entries(dir_)) {
    EXPECT_NE(name.rfind("out.", 0), 0u) << "left beside the output: " << name;
  }
}

TEST_F(OutputSafetyTest, SigtermStopsACompareAfterTheCurrentRun) {
  const std::string file = write("long.yaml", kLong);
  const fs::path out = dir_ / "cmp";
  const pid_t pid = spawn({"compare", file, "--fabrics", "roce,ib", "--out", out.string()});
  ASSERT_GT(pid, 0) << "spawn fabricsim";
  const int status = interrupt_when_running(pid, out, SIGTERM);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM)
      << "ends by SIGTERM (shell: exit 143); status " << status;
  EXPECT_EQ(entries(out), (std::set<std::string>{".fabricsim-output", "compare.csv", "roce"}))
      << "the interrupted run's files; ib was not run";
  EXPECT_EQ(json::parse(read_file(out / "roce" / "result.json")).at("partial"), true);
  const auto csv = parse_csv(read_file(out / "compare.csv"));
  ASSERT_EQ(csv.size(), 2u) << "header and the roce row";
  const auto col = std::find(csv[0].begin(), csv[0].end(), "partial");
  ASSERT_NE(col, csv[0].end()) << "compare.csv has a partial column";
  EXPECT_EQ(csv[1][static_cast<size_t>(col - csv[0].begin())], "true")
      << "the row says its figures cover only what ran";
  const std::vector<std::string> lines = split_lines(read_file(dir_ / "stdout.txt"));
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines.front().rfind("  PARTIAL: the roce run was interrupted at simulated time ", 0),
            0u)
      << lines.front();
  EXPECT_NE(lines.front().find("; not run: ib"), std::string::npos) << lines.front();
}

}  // namespace output_safety_test
