// `fabricsim sweep --slurm` and `--collect` (docs/sweep.md "On a Slurm cluster"): the job array
// scripts run each pending run once, as the local sweep would (their results and the collected
// sweep.csv, sweep_aggregate.csv and sweep.json are byte-identical to a local sweep's); collect
// counts runs not yet finished and failed runs as such; resume writes only what is left; more
// than 1,000 runs are split into arrays under Slurm's default MaxArraySize; bad input is exit 2.
// The last test submits through a real single-node Slurm from Debian's slurm-wlm, started by
// tests/cli/slurm_local.sh; when the daemons cannot start it is skipped with their reason.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <regex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "../support/cli_runner.h"

namespace sweep_slurm_test {

namespace fs = std::filesystem;
using fabricsim::test_support::CliFixture;
using fabricsim::test_support::CliOutcome;
using fabricsim::test_support::read_file;
using fabricsim::test_support::run_shell;
using fabricsim::test_support::shell_quote;

const fs::path kExample = fs::path(FABRICSIM_SOURCE_DIR) / "examples" / "sweep-dcqcn.yaml";
const fs::path kHarness = fs::path(FABRICSIM_SOURCE_DIR) / "tests" / "cli" / "slurm_local.sh";
const std::string kParams = "--param fabric.ecn.kmin=5KB,50KB --seeds 2";

class SweepSlurmTest : public CliFixture {
 protected:
  SweepSlurmTest() : CliFixture("fabricsim_sweep_slurm") {}

  CliOutcome sweep(const fs::path& out, const std::string& extra) {
    return run("sweep " + shell_quote(kExample.string()) + " " + kParams + " --jobs 2 --out " +
               shell_quote(out.string()) + " " + extra);
  }
  CliOutcome collect(const fs::path& out) { return run("sweep --collect " + shell_quote(out.string())); }

  // Runs task `task` of a script as Slurm would: bash with SLURM_ARRAY_TASK_ID set.
  int run_task(const fs::path& script, int task) {
    const std::string cmd = "SLURM_ARRAY_TASK_ID=" + std::to_string(task) + " bash " +
                            shell_quote(script.string());
    return run_shell(cmd, dir_).exit_code;
  }

  // Every file a local sweep and a collected one both write, byte for byte, and every run's
  // result.json: the same commands with the same seeds give the same bytes.
  void expect_same_as_local(const fs::path& slurm_out) {
    const fs::path local = dir_ / "local";
    ASSERT_EQ(sweep(local, "").exit_code, 0);
    for (const char* f : {"sweep.csv", "sweep_aggregate.csv", "sweep.json"}) {
      EXPECT_EQ(read_file(slurm_out / f), read_file(local / f)) << f;
    }
    int runs = 0;
    for (const fs::directory_entry& e : fs::directory_iterator(local / "points")) {
      const fs::path name = e.path().filename();
      EXPECT_EQ(read_file(slurm_out / "points" / name / "result.json"),
                read_file(e.path() / "result.json"))
          << name;
      ++runs;
    }
    EXPECT_EQ(runs, 4);
  }
};

// The number of array tasks a script declares (#SBATCH --array=0-N[%J]), and the throttle.
std::pair<int, int> array_of(const std::string& script) {
  std::smatch m;
  if (!std::regex_search(script, m, std::regex("#SBATCH --array=0-([0-9]+)(%([0-9]+))?\n"))) {
    return {-1, -1};
  }
  return {std::stoi(m[1]) + 1, m[3].matched ? std::stoi(m[3]) : 0};
}

TEST_F(SweepSlurmTest, ArrayTasksRunEachRunOnceAndCollectMatchesALocalSweep) {
  const fs::path out = dir_ / "slurm";
  const CliOutcome w = sweep(out, "--slurm --sbatch=--partition=test");
  ASSERT_EQ(w.exit_code, 0) << w.out << w.err;
  EXPECT_NE(w.out.find("4 to run on Slurm"), std::string::npos) << w.out;
  const fs::path script = out / "slurm" / "sweep-0.sbatch";
  const std::string text = read_file(script);
  EXPECT_EQ(array_of(text), std::make_pair(4, 2)) << text;  // --jobs 2 throttles the array
  EXPECT_NE(text.find("#SBATCH --partition=test\n"), std::string::npos);
  EXPECT_FALSE(fs::exists(out / "slurm" / "sweep-1.sbatch"));

  // Nothing ran yet: every run is "not finished", the files are written, exit 1.
  CliOutcome c = collect(out);
  EXPECT_EQ(c.exit_code, 1) << c.out << c.err;
  EXPECT_NE(c.out.find("0 finished, 0 failed, 4 not finished"), std::string::npos) << c.out;
  EXPECT_NE(read_file(out / "sweep.csv").find(",not_run,"), std::string::npos);

  for (int t = 0; t < 4; ++t) EXPECT_EQ(run_task(script, t), 0) << "task " << t;
  EXPECT_EQ(run_task(script, 4), 2) << "a task index beyond the array runs nothing";
  c = collect(out);
  ASSERT_EQ(c.exit_code, 0) << c.out << c.err;
  EXPECT_NE(c.out.find("4 finished, 0 failed, 0 not finished"), std::string::npos) << c.out;
  expect_same_as_local(out);

  // A run whose task failed: no result, a non-zero .exit and its stderr: failed, with both.
  const std::string id = fs::directory_iterator(out / "points")->path().filename().string();
  fs::remove_all(out / "points" / id);
  {
    std::ofstream(out / "logs" / (id + ".exit")) << "3\n";
    std::ofstream(out / "logs" / (id + ".err")) << "fabricsim: out of disk\n";
  }
  c = collect(out);
  EXPECT_EQ(c.exit_code, 1);
  EXPECT_NE(c.out.find("3 finished, 1 failed, 0 not finished"), std::string::npos) << c.out;
  EXPECT_NE(read_file(out / "sweep.csv").find("exit 3: fabricsim: out of disk"), std::string::npos);

  // Resume: --slurm again writes that run alone, and running it completes the sweep.
  const CliOutcome again = sweep(out, "--slurm");
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.out.find("3 finished earlier (skipped), 1 to run"), std::string::npos)
      << again.out;
  const std::string one = read_file(script);
  EXPECT_EQ(array_of(one).first, 1);
  EXPECT_NE(one.find("id='" + id + "'"), std::string::npos);
  EXPECT_EQ(run_task(script, 0), 0);
  EXPECT_EQ(collect(out).exit_code, 0);
  EXPECT_TRUE(fs::exists(out / "points" / id / "result.json"));
}

// 501 points x 2 seeds = 1,002 runs: two arrays, 1,000 tasks (indices 0-999, under Slurm's
// default MaxArraySize of 1001) and 2, each run in exactly one of them.
TEST_F(SweepSlurmTest, MoreThanAThousandRunsAreSplitIntoArrays) {
  std::string values;
  for (int kb = 1; kb <= 501; ++kb) values += (kb > 1 ? "," : "") + std::to_string(kb) + "KB";
  const fs::path out = dir_ / "big";
  const CliOutcome w = run("sweep " + shell_quote(kExample.string()) +
                           " --param fabric.ecn.kmin=" + values + " --seeds 2 --slurm --out " +
                           shell_quote(out.string()));
  ASSERT_EQ(w.exit_code, 0) << w.err;
  const std::string a = read_file(out / "slurm" / "sweep-0.sbatch");
  const std::string b = read_file(out / "slurm" / "sweep-1.sbatch");
  EXPECT_EQ(array_of(a).first, 1000);
  EXPECT_EQ(array_of(b).first, 2);
  const std::regex id_re("\\) id='([^']+)'");
  std::set<std::string> ids;
  size_t listed = 0;
  for (const std::string* s : {&a, &b}) {
    for (std::sregex_iterator it(s->begin(), s->end(), id_re), end; it != end; ++it) {
      ids.insert((*it)[1]);
      ++listed;
    }
  }
  EXPECT_EQ(listed, 1002u);
  EXPECT_EQ(ids.size(), 1002u);
}

TEST_F(SweepSlurmTest, BadCommandLinesAreExitTwoWithOneLine) {
  const fs::path out = dir_ / "x";
  for (const std::string& extra : {std::string("--submit"), std::string("--sbatch=--qos=low")}) {
    const CliOutcome o = sweep(out, extra);
    EXPECT_EQ(o.exit_code, 2) << extra;
    EXPECT_EQ(o.err_lines.size(), 1u) << o.err;
    EXPECT_NE(o.err.find("needs --slurm"), std::string::npos) << o.err;
  }
  CliOutcome o = sweep(out, "--slurm --sbatch=partition");
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_NE(o.err.find("--sbatch partition: must be one sbatch option"), std::string::npos) << o.err;
  o = run("sweep " + shell_quote(kExample.string()) + " --collect " + shell_quote(out.string()));
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_NE(o.err.find("takes no FILE"), std::string::npos) << o.err;
  fs::create_directories(dir_ / "notasweep");
  o = collect(dir_ / "notasweep");
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_NE(o.err.find("not a sweep directory"), std::string::npos) << o.err;
  // A local sweep's directory has no plan to collect.
  ASSERT_EQ(sweep(dir_ / "local", "").exit_code, 0);
  o = collect(dir_ / "local");
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_NE(o.err.find("no slurm/plan.json"), std::string::npos) << o.err;
}

// A real Slurm (slurmctld + slurmd + munged on localhost): --submit queues the array, the
// tasks run under slurmd, and the collected sweep is the local sweep's, byte for byte.
TEST_F(SweepSlurmTest, RunsThroughARealSingleNodeSlurm) {
  // Ports and a short directory from the pid (slurmstepd's sockets live under it, and a unix
  // socket path holds 108 bytes): parallel test processes of other checkouts do not collide.
  const int port = 20000 + static_cast<int>(::getpid() % 5000) * 2;
  const fs::path cluster = "/tmp/fabricsim-slurm-" + std::to_string(::getpid());
  fs::remove_all(cluster);
  const CliOutcome up = run_shell("bash " + shell_quote(kHarness.string()) + " start " +
                                      shell_quote(cluster.string()) + " " + std::to_string(port),
                                  dir_);
  struct Stop {
    fs::path harness, cluster, dir;
    ~Stop() {
      run_shell("bash " + shell_quote(harness.string()) + " stop " + shell_quote(cluster.string()),
                dir);
      std::error_code ec;
      fs::remove_all(cluster, ec);
    }
  } stop{kHarness, cluster, dir_};
  if (up.exit_code != 0) GTEST_SKIP() << "Slurm could not start here: " << up.err;

  const fs::path out = dir_ / "slurm";
  const std::string conf = "SLURM_CONF=" + shell_quote((cluster / "slurm.conf").string()) + " ";
  const CliOutcome s =
      run_shell(conf + shell_quote(FABRICSIM_BINARY) + " sweep " +
                    shell_quote(kExample.string()) + " " + kParams + " --out " +
                    shell_quote(out.string()) + " --slurm --submit",
                dir_);
  ASSERT_EQ(s.exit_code, 0) << s.out << s.err;
  EXPECT_TRUE(std::regex_search(s.out, std::regex("submitted .*sweep-0\\.sbatch as job [0-9]+")))
      << s.out;
  // Each task leaves logs/<id>.exit when its run ends; a few seconds here, 120 s at most.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  int exits = 0;
  while (std::chrono::steady_clock::now() < deadline) {
    exits = 0;
    for (const fs::directory_entry& e : fs::directory_iterator(out / "logs")) {
      exits += e.path().extension() == ".exit";
    }
    if (exits == 4) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  if (exits != 4) {
    const std::string log = read_file(cluster / "log" / "slurmd.log");
    FAIL() << exits << " of 4 tasks ended within 120 s; the end of slurmd.log:\n"
           << log.substr(log.size() > 3000 ? log.size() - 3000 : 0);
  }
  const CliOutcome c = collect(out);
  ASSERT_EQ(c.exit_code, 0) << c.out << c.err;
  expect_same_as_local(out);
  // Slurm ran them: its own per-task output files exist.
  int slurm_logs = 0;
  for (const fs::directory_entry& e : fs::directory_iterator(out / "logs")) {
    slurm_logs += e.path().filename().string().rfind("slurm-", 0) == 0;
  }
  EXPECT_EQ(slurm_logs, 4);
}

}  // namespace sweep_slurm_test
