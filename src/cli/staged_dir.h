// An output directory that a run replaces as a whole (issue 9: two runs into one directory must
// never mix, and a directory fabricsim did not write must never be deleted).
//
// Life of one run into DIR:
//   1. before simulating, StagedDir(DIR) checks DIR and creates DIR.tmp-<pid> beside it (same
//      parent, so the final rename never crosses a file system) holding only the marker file;
//      anything wrong (DIR is a file, sits under a file or in /proc, cannot be listed, holds
//      files fabricsim does not write, its parent is read-only) throws OutputDirError, so a bad
//      --out costs no simulation; leftovers of killed runs beside DIR (DIR.tmp-<pid>,
//      DIR.old-<pid> whose process is gone and that hold only fabricsim's files) are removed;
//   2. the run writes its files into path() (the staging directory);
//   3. commit() moves the previous DIR aside to DIR.old-<pid>, renames the staging directory to
//      DIR and deletes the old one. If anything fails before commit(), the destructor deletes the
//      staging directory and any parent it created, and DIR is untouched.
//
// Which directories a run may replace: a missing one, an empty one, or one fabricsim wrote, that
// is, one holding the marker file (output/marker.h; or, from versions before the marker, run.json
// or compare.csv) and nothing but files fabricsim writes (result.json, flows.csv, run.json,
// routes.csv, trace.pcap, credits.csv, compare.csv, the marker) and subdirectories that are
// themselves such directories (compare's DIR/<fabric>/). Anything else in DIR, a user's notes or
// DIR=$HOME, is refused: the run would delete it.
//
// The CLI owns this (output/ only formats and writes files): `run` and `compare` stage before
// they simulate, and write_run_outputs below does the whole cycle.
#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "results/result.h"

namespace fabricsim::cli {

// Why an output directory cannot be used; what() is the reason alone ("exists and is not a
// directory"), for the caller to prefix with `--out DIR` or the scenario key's location.
class OutputDirError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The result files fabricsim wrote into `dir`, comma-separated, main results first (for the
// "results in DIR/ (...)" line): what is there, so the list cannot miss a file.
std::string files_written(const std::filesystem::path& dir);

class StagedDir {
 public:
  // Checks `target` and creates the staging directory; throws OutputDirError.
  explicit StagedDir(const std::string& target);
  // Not committed: removes the staging directory and the parents this object created.
  ~StagedDir();
  StagedDir(const StagedDir&) = delete;
  StagedDir& operator=(const StagedDir&) = delete;

  // Where the run writes its files (exists, holds the marker).
  const std::filesystem::path& path() const { return staging_; }
  // The directory the files end up in (absolute; symbolic links resolved if it existed).
  const std::filesystem::path& target() const { return target_; }
  // Replaces the target with the staging directory. Throws std::runtime_error naming what failed;
  // before the swap the target is left as it was, and the staging directory is removed.
  void commit();

 private:
  void discard();  // removes the staging directory and the parents this object created

  std::filesystem::path target_;
  std::filesystem::path staging_;
  std::vector<std::filesystem::path> created_parents_;  // outermost first
  bool committed_ = false;
};

// "" when `dir` (an existing directory) may be replaced by a run, else why not (one line).
std::string replace_refusal(const std::filesystem::path& dir);

// The whole cycle for one run: stages `dir`, writes the files into the staging directory
// (output/write.h: write_run_files) and replaces `dir` with it, so `dir` never mixes two runs'
// files and is left as it was when anything fails. Throws OutputDirError when `dir` cannot be
// used and std::runtime_error when a write fails. (`fabricsim run` goes through the same steps
// itself, staging before it simulates so that a bad --out costs no run.)
void write_run_outputs(const std::string& dir, const scenario::RunResult& result);

}  // namespace fabricsim::cli
