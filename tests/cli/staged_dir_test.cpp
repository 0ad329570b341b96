// The output directory's life (cli/staged_dir.h, output/write.h): checked and staged before a
// run, replaced as a whole by commit(), never mixed with an earlier run's files, and never
// deleted when fabricsim did not write it. (Tests run as root in CI, so nothing here relies on
// permission bits: the unusable paths are ones root cannot use either.)
#include "cli/staged_dir.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "../support/cli_runner.h"
#include "output/marker.h"

namespace fabricsim::cli {
namespace staged_dir_test {

namespace fs = std::filesystem;
using output::kMarkerFile;
using test_support::read_file;
using test_support::ScratchDir;

void touch(const fs::path& path, const std::string& text = "x") { std::ofstream(path) << text; }

std::set<std::string> entries(const fs::path& dir) {
  std::set<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.insert(e.path().filename().string());
  return names;
}

// The reason StagedDir(target) refuses with, "" if it accepts.
std::string refusal_of(const fs::path& target) {
  try {
    StagedDir staged(target.string());
    return "";
  } catch (const OutputDirError& e) {
    return e.what();
  }
}

scenario::RunResult small_result(bool infiniband) {
  scenario::RunResult r;
  r.scenario_name = infiniband ? "ib-run" : "roce-run";
  r.infiniband = infiniband;
  if (infiniband) r.sm_routes.push_back(scenario::PortRoutes{0, 1, 0, true, false, 1, 4});
  return r;
}

TEST(StagedDir, StagesBesideTheTargetAndCommitsByRename) {
  ScratchDir scratch("fabricsim_staged");
  const fs::path target = scratch / "a" / "b" / "out";
  StagedDir staged(target.string());
  EXPECT_EQ(staged.target(), target);
  EXPECT_EQ(staged.path().parent_path(), target.parent_path()) << "same parent: rename, no copy";
  EXPECT_EQ(staged.path().filename(), "out.tmp-" + std::to_string(::getpid()));
  EXPECT_EQ(entries(staged.path()), std::set<std::string>{kMarkerFile})
      << "the staging directory proves the parent writable before the run";
  EXPECT_FALSE(fs::exists(target)) << "the target appears only at commit";
  touch(staged.path() / "result.json");
  staged.commit();
  EXPECT_EQ(entries(target), (std::set<std::string>{kMarkerFile, "result.json"}));
  EXPECT_EQ(entries(target.parent_path()), std::set<std::string>{"out"}) << "no staging left";
}

TEST(StagedDir, AbandonedStagingLeavesNothing) {
  ScratchDir scratch("fabricsim_staged");
  {
    StagedDir staged((scratch / "a" / "b" / "out").string());
    touch(staged.path() / "result.json");
  }  // a run that failed (bad input found late, a capture that cannot be written)
  EXPECT_TRUE(entries(scratch.path()).empty()) << "staging and the parents it made are gone";
}

TEST(StagedDir, ANewRunReplacesTheWholeDirectory) {
  // Issue 9 item 6: an InfiniBand run's routes.csv must not stay beside a later RoCE run's files.
  ScratchDir scratch("fabricsim_staged");
  const fs::path out = scratch / "out";
  write_run_outputs(out.string(), small_result(true));
  ASSERT_TRUE(fs::exists(out / "routes.csv")) << "the IB run writes routes.csv";
  write_run_outputs(out.string(), small_result(false));
  EXPECT_EQ(entries(out),
            (std::set<std::string>{kMarkerFile, "result.json", "flows.csv", "links.csv",
                                   "run.json"}))
      << "only the RoCE run's files";
  EXPECT_NE(read_file(out / "result.json").find("roce-run"), std::string::npos);
  EXPECT_EQ(entries(scratch.path()), std::set<std::string>{"out"})
      << "neither the staging nor the previous directory is left beside it";
}

TEST(StagedDir, AcceptsEmptyMarkedAndOlderFabricsimDirectories) {
  ScratchDir scratch("fabricsim_staged");
  fs::create_directories(scratch / "empty");
  EXPECT_EQ(refusal_of(scratch / "empty"), "") << "an empty directory (mkdir out)";
  fs::create_directories(scratch / "old");
  touch(scratch / "old" / "result.json");
  touch(scratch / "old" / "run.json");
  EXPECT_EQ(refusal_of(scratch / "old"), "")
      << "written before the marker existed: run.json marks it";
  fs::create_directories(scratch / "cmp" / "ib");
  touch(scratch / "cmp" / kMarkerFile);
  touch(scratch / "cmp" / "compare.csv");
  touch(scratch / "cmp" / "ib" / kMarkerFile);
  touch(scratch / "cmp" / "ib" / "trace.pcap");
  EXPECT_EQ(refusal_of(scratch / "cmp"), "") << "a compare directory with a fabric directory";
}

TEST(StagedDir, NeverReplacesWhatFabricsimDidNotWrite) {
  ScratchDir scratch("fabricsim_staged");
  const fs::path home = scratch / "home";
  fs::create_directories(home);
  touch(home / kMarkerFile);
  touch(home / "notes.txt", "mine");
  EXPECT_EQ(refusal_of(home),
            "holds 'notes.txt', which fabricsim does not write; a run replaces the whole "
            "directory: use a new or empty one")
      << "even with the marker: the run would delete notes.txt";
  EXPECT_EQ(read_file(home / "notes.txt"), "mine") << "untouched";

  fs::create_directories(scratch / "own-names");
  touch(scratch / "own-names" / "result.json");
  EXPECT_EQ(refusal_of(scratch / "own-names"),
            "is not a directory fabricsim wrote (no .fabricsim-output); a run replaces the whole "
            "directory: use a new or empty one")
      << "a file named like ours is not enough";

  fs::create_directories(scratch / "cmp" / "ib");
  touch(scratch / "cmp" / "compare.csv");
  touch(scratch / "cmp" / "ib" / "run.json");
  touch(scratch / "cmp" / "ib" / "plot.py");
  EXPECT_NE(refusal_of(scratch / "cmp").find("holds 'ib/plot.py'"), std::string::npos)
      << "subdirectories are checked too";
  fs::create_directories(scratch / "cmp2" / "mine");
  touch(scratch / "cmp2" / "compare.csv");
  EXPECT_NE(refusal_of(scratch / "cmp2").find("'mine/' is not a directory fabricsim wrote"),
            std::string::npos)
      << "an unmarked subdirectory, even an empty one";
  fs::create_directories(scratch / "with-link");
  touch(scratch / "with-link" / "run.json");
  fs::create_symlink(home / "notes.txt", scratch / "with-link" / "result.json");
  EXPECT_NE(refusal_of(scratch / "with-link").find("holds 'result.json'"), std::string::npos)
      << "a symbolic link is never fabricsim's file";
}

TEST(StagedDir, RefusesPathsNoRunCanUse) {
  ScratchDir scratch("fabricsim_staged");
  touch(scratch / "file");
  EXPECT_EQ(refusal_of(scratch / "file"), "exists and is not a directory");
  EXPECT_EQ(refusal_of(scratch / "file" / "out"),
            "'" + (scratch / "file").string() + "' is not a directory")
      << "a path under a regular file";
  EXPECT_EQ(refusal_of(scratch / "file" / "a" / "out"),
            "'" + (scratch / "file").string() + "' is not a directory");
  EXPECT_EQ(refusal_of("/proc/fabricsim-out"),
            "cannot create directories in /proc: No such file or directory")
      << "procfs takes no directories, not even from root";
  EXPECT_EQ(refusal_of("/"), "is the root directory");
  EXPECT_EQ(refusal_of(""), "empty path");
  fs::create_symlink(scratch / "nowhere", scratch / "dangling");
  EXPECT_EQ(refusal_of(scratch / "dangling"), "is a symbolic link to nothing");
  EXPECT_EQ(entries(scratch.path()), (std::set<std::string>{"file", "dangling"}))
      << "a refusal creates nothing";
}

TEST(StagedDir, RefusesTheWorkingDirectory) {
  ScratchDir scratch("fabricsim_staged");
  const fs::path here = scratch / "here";
  fs::create_directories(here / "sub");
  const fs::path saved = fs::current_path();
  fs::current_path(here / "sub");
  const std::string dot = refusal_of(".");
  const std::string up = refusal_of("..");
  fs::current_path(saved);
  EXPECT_EQ(dot, "is the working directory or holds it") << "even empty: the shell sits in it";
  EXPECT_EQ(up, "is the working directory or holds it");
}

TEST(StagedDir, ASymbolicLinkKeepsPointingAtTheResults) {
  ScratchDir scratch("fabricsim_staged");
  fs::create_directories(scratch / "real");
  fs::create_directory_symlink(scratch / "real", scratch / "link");
  write_run_outputs((scratch / "link").string(), small_result(true));
  write_run_outputs((scratch / "link").string(), small_result(false));
  EXPECT_TRUE(fs::is_symlink(scratch / "link")) << "the link is not replaced by a directory";
  EXPECT_TRUE(fs::exists(scratch / "real" / "result.json")) << "the directory it names is";
  EXPECT_FALSE(fs::exists(scratch / "real" / "routes.csv")) << "as a whole";
}

TEST(StagedDir, CommitChecksTheTargetAgain) {
  ScratchDir scratch("fabricsim_staged");
  const fs::path out = scratch / "out";
  write_run_outputs(out.string(), small_result(false));
  {
    StagedDir staged(out.string());
    touch(out / "notes.txt", "written while the run simulated");
    EXPECT_THROW(staged.commit(), std::runtime_error) << "the user's file appeared meanwhile";
  }
  EXPECT_TRUE(fs::exists(out / "notes.txt")) << "kept";
  EXPECT_TRUE(fs::exists(out / "result.json")) << "the previous run's files stay as they were";
  EXPECT_EQ(entries(scratch.path()), std::set<std::string>{"out"}) << "staging removed";
}

// A run killed outright (SIGKILL, a second Ctrl-C) leaves DIR.tmp-<pid> (or DIR.old-<pid>)
// behind; the next run into DIR removes those whose process is gone and that hold only
// fabricsim's files, and keeps anything else: a live owner's, a foreign file's, other names.
TEST(StagedDir, RemovesLeftoversOfKilledRunsOnly) {
  ScratchDir scratch("fabricsim_staged");
  // A pid that certainly belongs to no process: a child that has exited and been reaped.
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  ASSERT_GT(child, 0);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  const std::string dead = std::to_string(child);
  const std::string alive = std::to_string(::getppid());  // the test runner's parent
  for (const std::string& name : {"out.tmp-" + dead, "out.old-" + dead + "-2",
                                  "out.tmp-" + alive, "out.tmp-" + dead + "x", "other.tmp-" + dead}) {
    fs::create_directory(scratch / name);
    touch(scratch / name / kMarkerFile);
    touch(scratch / name / "result.json");
  }
  fs::create_directory(scratch / ("out.old-" + dead + "-3"));
  touch(scratch / ("out.old-" + dead + "-3") / "notes.txt");  // not fabricsim's: kept

  StagedDir staged((scratch / "out").string());
  const std::set<std::string> left = entries(scratch.path());
  EXPECT_FALSE(left.count("out.tmp-" + dead)) << "a dead run's staging directory is removed";
  EXPECT_FALSE(left.count("out.old-" + dead + "-2")) << "and its set-aside directory";
  EXPECT_TRUE(left.count("out.tmp-" + alive)) << "a live process's is not touched";
  EXPECT_TRUE(left.count("out.tmp-" + dead + "x")) << "not a name fabricsim makes";
  EXPECT_TRUE(left.count("other.tmp-" + dead)) << "another directory's leftover";
  EXPECT_TRUE(left.count("out.old-" + dead + "-3")) << "holds a file fabricsim does not write";
  EXPECT_TRUE(left.count(staged.path().filename().string())) << "this run's own staging";
}

}  // namespace staged_dir_test
}  // namespace fabricsim::cli
