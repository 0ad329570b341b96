#include "cli/staged_dir.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <iterator>
#include <cerrno>
#include <regex>
#include <string_view>
#include <system_error>

#include "output/marker.h"
#include "output/write.h"

namespace fabricsim::cli {
namespace {

using output::kMarkerFile;

namespace fs = std::filesystem;

// Every file name fabricsim writes into an output directory (output/write.h, output/compare.h),
// one per line, so that outputs added by different changes merge without touching each other's
// lines. The order is the one `files_written` lists them in: the main results first.
constexpr std::string_view kOwnFiles[] = {
    kMarkerFile,
    "result.json",
    "compare.csv",
    "flows.csv",
    "links.csv",   // every run (output/links_csv.h)
    "run.json",
    "routes.csv",
    "nccl-tests.csv",
    "scaling.csv",
    "step_timeline.csv",  // training runs (output/step_timeline.h)
    "ping_pong.csv",
    "timeseries_ports.csv",  // outputs.timeseries (output/timeseries.h)
    "timeseries_qps.csv",
    "trace.json",  // outputs.trace.enabled (output/chrome_trace.h)
    "trace.pcap",
    "credits.csv",
    "report.html",  // outputs.report: html (output/report/report.h)
};

bool own_file(const std::string& name) {
  return std::find(std::begin(kOwnFiles), std::end(kOwnFiles), name) != std::end(kOwnFiles);
}

}  // namespace

std::string files_written(const std::filesystem::path& dir) {
  std::string out;
  for (const std::string_view name : kOwnFiles) {
    if (name == kMarkerFile || !fs::is_regular_file(dir / std::string(name))) continue;
    if (!out.empty()) out += ", ";
    out += name;
  }
  return out;
}

namespace {

constexpr const char* kUseAnother = "; a run replaces the whole directory: use a new or empty one";

// Why `dir` may not be replaced, "" if it may; `shown` is how the message names it ("" = the
// directory itself, "ib/" for a subdirectory of it).
std::string refusal(const fs::path& dir, const std::string& shown, bool allow_empty) {
  std::error_code ec;
  // Replacing it means deleting its entries: that needs write and search permission.
  if (::access(dir.c_str(), W_OK | X_OK) != 0) {
    const int err = errno;
    return (shown.empty() ? "is" : "'" + shown + "' is") + std::string(" not writable: ") +
           std::generic_category().message(err);
  }
  // Sorted, so that the entry a refusal names does not depend on the file system's order.
  std::vector<fs::directory_entry> listed;
  for (fs::directory_iterator it(dir, ec); !ec && it != fs::directory_iterator();
       it.increment(ec)) {
    listed.push_back(*it);
  }
  if (ec) return "cannot list " + (shown.empty() ? "it" : "'" + shown + "'") + ": " + ec.message();
  std::sort(listed.begin(), listed.end());
  const bool empty = listed.empty();
  bool marked = false;
  for (const fs::directory_entry& entry : listed) {
    const std::string name = entry.path().filename().string();
    const fs::file_status st = entry.symlink_status(ec);  // a symbolic link is never ours
    if (ec) return "cannot inspect '" + shown + name + "': " + ec.message();
    if (fs::is_regular_file(st) && own_file(name)) {
      // run.json and compare.csv mark the directories of versions that wrote no marker.
      marked |= name == kMarkerFile || name == "run.json" || name == "compare.csv";
      continue;
    }
    if (fs::is_directory(st)) {  // compare's DIR/<fabric>/: must be fabricsim's too
      const std::string why = refusal(entry.path(), shown + name + "/", false);
      if (why.empty()) continue;
      return why;
    }
    return "holds '" + shown + name + "', which fabricsim does not write" + kUseAnother;
  }
  if (empty && allow_empty) return "";
  if (!marked) {
    return (shown.empty() ? "is" : "'" + shown + "' is") +
           std::string(" not a directory fabricsim wrote (no ") + kMarkerFile + ")" + kUseAnother;
  }
  return "";
}

// `path` is `prefix` or inside it (both absolute and normal).
bool inside(const fs::path& path, const fs::path& prefix) {
  return std::mismatch(prefix.begin(), prefix.end(), path.begin(), path.end()).first ==
         prefix.end();
}

// `sibling` with a suffix: DIR.tmp-<pid>, DIR.tmp-<pid>-1, ... whichever does not exist yet.
fs::path sibling(const fs::path& dir, const std::string& tag, int attempt) {
  std::string name = dir.filename().string() + "." + tag + "-" + std::to_string(::getpid());
  if (attempt > 0) name += "-" + std::to_string(attempt);
  return dir.parent_path() / name;
}

// The process that owned a leftover DIR.tmp-<pid>[-n] or DIR.old-<pid>[-n] beside `dir`, or -1
// when `name` is not such a sibling of it.
pid_t leftover_owner(const std::string& dir_name, const std::string& name) {
  static const std::regex kSuffix("([0-9]{1,9})(-[0-9]+)?");  // sibling(): <pid>[-<attempt>]
  for (const char* tag : {".tmp-", ".old-"}) {
    const std::string prefix = dir_name + tag;
    std::smatch m;
    const std::string rest = name.rfind(prefix, 0) == 0 ? name.substr(prefix.size()) : "";
    if (std::regex_match(rest, m, kSuffix)) return static_cast<pid_t>(std::stol(m[1]));
  }
  return -1;
}

// Removes what a killed run (SIGKILL, a second Ctrl-C, a power cut) left beside `dir`: staging
// and set-aside directories whose owning process no longer exists and which hold nothing but
// fabricsim's own files (the same test as for replacing a directory). A live owner (another run
// into the same directory, or a reused pid) or a foreign file keeps the directory.
void remove_leftovers(const fs::path& dir) {
  std::error_code ec;
  const std::string dir_name = dir.filename().string();
  for (fs::directory_iterator it(dir.parent_path(), ec); !ec && it != fs::directory_iterator();
       it.increment(ec)) {
    const std::string name = it->path().filename().string();
    const pid_t owner = leftover_owner(dir_name, name);
    if (owner <= 0 || owner == ::getpid()) continue;
    if (::kill(owner, 0) == 0 || errno != ESRCH) continue;  // alive, or not ours to judge
    std::error_code st_ec;
    if (!fs::is_directory(it->symlink_status(st_ec)) || !refusal(it->path(), "", true).empty()) {
      continue;
    }
    fs::remove_all(it->path(), st_ec);  // best effort: a leftover that stays harms nothing
  }
}

}  // namespace

std::string replace_refusal(const fs::path& dir) { return refusal(dir, "", true); }

StagedDir::StagedDir(const std::string& target) {
  if (target.empty()) throw OutputDirError("empty path");
  std::error_code ec;
  fs::path dir = fs::absolute(target, ec).lexically_normal();
  if (ec) throw OutputDirError(ec.message());
  if (!dir.has_filename() && dir.has_relative_path()) dir = dir.parent_path();  // "out/"
  if (!dir.has_relative_path()) throw OutputDirError("is the root directory");

  fs::file_status st = fs::symlink_status(dir, ec);
  if (ec && st.type() != fs::file_type::not_found) throw OutputDirError(ec.message());
  if (fs::is_symlink(st)) {
    // Replace the directory it points to, not the link (which would become a directory).
    st = fs::status(dir, ec);
    if (!fs::exists(st)) throw OutputDirError("is a symbolic link to nothing");
    if (fs::is_directory(st)) dir = fs::canonical(dir, ec);
    if (ec) throw OutputDirError(ec.message());
  }
  if (fs::exists(st)) {
    if (!fs::is_directory(st)) throw OutputDirError("exists and is not a directory");
    const fs::path cwd = fs::weakly_canonical(fs::current_path(ec), ec);
    if (!ec && inside(cwd, fs::weakly_canonical(dir, ec))) {
      throw OutputDirError("is the working directory or holds it");
    }
    const std::string why = replace_refusal(dir);
    if (!why.empty()) throw OutputDirError(why);
  }
  target_ = dir;

  // Missing parents: find the deepest one that exists, which must be a directory.
  std::vector<fs::path> missing;
  fs::path parent = dir.parent_path();
  for (; !fs::exists(fs::symlink_status(parent, ec)); parent = parent.parent_path()) {
    missing.push_back(parent);
  }
  if (!fs::is_directory(fs::status(parent, ec))) {
    throw OutputDirError("'" + parent.string() + "' is not a directory");
  }
  for (auto p = missing.rbegin(); p != missing.rend(); ++p) {
    if (!fs::create_directory(*p, ec) && ec) {
      const std::string why = "cannot create " + p->string() + ": " + ec.message();
      discard();
      throw OutputDirError(why);
    }
    created_parents_.push_back(*p);
  }
  remove_leftovers(dir);

  for (int attempt = 0; staging_.empty(); ++attempt) {
    const fs::path s = sibling(dir, "tmp", attempt);
    if (fs::create_directory(s, ec)) {
      staging_ = s;
    } else if (ec || attempt == 100) {
      const std::string why = "cannot create directories in " + dir.parent_path().string() + ": " +
                              (ec ? ec.message() : "too many leftover staging directories");
      discard();
      throw OutputDirError(why);
    }
  }
  try {
    output::write_marker(staging_);
  } catch (const std::runtime_error& e) {
    discard();  // here: a constructor that throws runs no destructor
    throw OutputDirError(std::string("cannot write files beside it: ") + e.what());
  }
}

StagedDir::~StagedDir() {
  if (!committed_) discard();
}

void StagedDir::discard() {
  std::error_code ec;
  if (!staging_.empty()) fs::remove_all(staging_, ec);  // ours: created by the constructor
  // fs::remove deletes a directory only when empty: a parent something else wrote into stays.
  for (auto p = created_parents_.rbegin(); p != created_parents_.rend(); ++p) fs::remove(*p, ec);
  staging_.clear();
  created_parents_.clear();
}

void StagedDir::commit() {
  std::error_code ec;
  const fs::file_status st = fs::symlink_status(target_, ec);
  if (!fs::exists(st)) {
    fs::rename(staging_, target_, ec);
    if (ec)
      throw std::runtime_error("cannot rename " + staging_.string() + " to " + target_.string() +
                               ": " + ec.message());
    committed_ = true;
    return;
  }
  // Checked again: the directory may have changed while the run simulated.
  std::string why = fs::is_directory(st) ? replace_refusal(target_) : "is not a directory";
  if (!why.empty()) throw std::runtime_error(target_.string() + ": " + why);
  fs::path old;
  for (int attempt = 0; old.empty() || fs::exists(fs::symlink_status(old, ec)); ++attempt) {
    old = sibling(target_, "old", attempt);
  }
  fs::rename(target_, old, ec);
  if (ec) throw std::runtime_error("cannot move " + target_.string() + " aside: " + ec.message());
  fs::rename(staging_, target_, ec);
  if (ec) {
    const std::string reason = ec.message();
    fs::rename(old, target_, ec);  // put the previous results back
    throw std::runtime_error("cannot rename " + staging_.string() + " to " + target_.string() +
                             ": " + reason);
  }
  committed_ = true;
  fs::remove_all(old, ec);
  if (ec) {
    throw std::runtime_error("results written to " + target_.string() +
                             ", but the previous ones could not be removed from " + old.string() +
                             ": " + ec.message());
  }
}

void write_run_outputs(const std::string& dir, const scenario::RunResult& result) {
  StagedDir staged(dir);
  output::write_run_files(staged.path(), result);
  staged.commit();
}

}  // namespace fabricsim::cli
