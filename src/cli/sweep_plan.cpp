// cli/sweep_plan.h: parsing, checking and planning a sweep (docs/sweep.md).
#include "cli/sweep_plan.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/error.h"
#include "resolve/resolve.h"
#include "engine/run.h"
#include "output/report/report.h"

namespace fabricsim::cli::sweep_detail {
namespace fs = std::filesystem;

// The marker a sweep leaves in DIR: a DIR holding files but not this one is someone else's.
constexpr const char* kSweepMarker = ".fabricsim-sweep";
// Runs in one sweep at most: beyond this a typo in a list (or a forgotten --seeds 1000) would
// queue hours of simulation.
constexpr size_t kMaxRuns = 100000;
constexpr int kMaxSeeds = 1000;
constexpr int kMaxJobs = 256;
// Separates the fields hashed into a run's id (a byte no key or value holds).
const std::string kSep(1, '\0');

namespace {

std::string trim(const std::string& s) {
  const size_t b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

// KEY=V1,V2,...; values trimmed, none empty, none twice.
Param parse_param(const std::string& text, const std::vector<Param>& earlier) {
  const auto fail = [&](const std::string& why) {
    return BadInput("fabricsim: --param " + text + ": " + why);
  };
  const size_t eq = text.find('=');
  if (eq == std::string::npos)
    throw fail("expected KEY=V1,V2,... (e.g. fabric.ecn.kmin=50KB,100KB)");
  Param p{trim(text.substr(0, eq)), {}, text};
  if (p.key.empty()) throw fail("empty key before '='");
  if (p.key == "seed") throw fail("seeds come from --seeds N (seed i = the file's seed + i)");
  for (const Param& e : earlier) {
    if (e.key == p.key) throw fail("key '" + p.key + "' is already swept by --param " + e.text);
  }
  const std::string list = text.substr(eq + 1);
  size_t start = 0;
  for (;;) {
    const size_t comma = list.find(',', start);
    const std::string v = trim(list.substr(start, comma - start));
    if (v.empty()) throw fail("empty value in '" + list + "'");
    if (std::find(p.values.begin(), p.values.end(), v) != p.values.end()) {
      throw fail("value '" + v + "' is listed twice");
    }
    p.values.push_back(v);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return p;
}

// FNV-1a 64-bit: a stable hash (same on every build and machine), not a cryptographic one.
uint64_t fnv1a(const std::string& bytes, uint64_t h = 0xcbf29ce484222325ULL) {
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return h;
}

std::string sanitized(const std::string& text) {
  std::string out;
  for (char c : text) {
    const bool keep = std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-';
    out += keep ? c : '_';
  }
  return out;
}

// The directory name of one run: readable (the last segment of each key with its value, in key
// order, and the seed) and unique (a hash of everything that defines the run: the file's bytes,
// the --unset and --set options, every key=value and the seed). Rerunning the same command finds
// the same names; editing the file or a --set gives new ones, so stale results are never reused.
std::string run_id(const std::string& context, const std::vector<Param>& params,
                   const std::vector<std::string>& values, uint64_t seed) {
  std::vector<std::pair<std::string, std::string>> kv;
  for (size_t k = 0; k < params.size(); ++k) kv.emplace_back(params[k].key, values[k]);
  std::sort(kv.begin(), kv.end());  // --param order does not matter
  std::string readable, canonical = context;
  for (const auto& [key, value] : kv) {
    const size_t dot = key.rfind('.');
    readable += sanitized(dot == std::string::npos ? key : key.substr(dot + 1)) + "=" +
                sanitized(value) + "_";
    canonical += kSep + key + '=' + value;
  }
  readable = readable.substr(0, 96) + "seed" + std::to_string(seed);
  canonical += kSep + "seed=" + std::to_string(seed);
  char hash[17];
  // MurmurHash3's fmix64 finalizer: FNV-1a's high bits barely move when only the last bytes (the
  // seed) differ; after it every digit depends on every byte.
  uint64_t h = fnv1a(canonical);
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ULL;
  h ^= h >> 33;
  std::snprintf(hash, sizeof hash, "%016llx", static_cast<unsigned long long>(h));
  return readable + "-" + std::string(hash, 8);
}

}  // namespace

// Every point's --set list: the common --set first, then one key=value per --param.
std::vector<std::vector<std::string>> cartesian(const std::vector<Param>& params) {
  std::vector<std::vector<std::string>> points{{}};
  for (const Param& p : params) {
    std::vector<std::vector<std::string>> next;
    for (const auto& partial : points) {
      for (const std::string& v : p.values) {
        next.push_back(partial);
        next.back().push_back(v);
      }
    }
    points = std::move(next);
  }
  return points;
}

// Loads and checks one point; throws BadInput with the one line. An error located at one of the
// point's --param values names it; any other names the point.
void check_point(const SweepArgs& args, const std::vector<Param>& params,
                 const std::vector<std::string>& values) {
  std::vector<std::string> sets = args.sets;
  std::string label;
  for (size_t k = 0; k < params.size(); ++k) {
    sets.push_back(params[k].key + "=" + values[k]);
    label += (label.empty() ? "" : " ") + params[k].key + "=" + values[k];
  }
  const auto param_line = [&](const scenario::SourceLocation& where, const std::string& key,
                              const std::string& message) -> std::string {
    const int first_param = static_cast<int>(args.sets.size()) + 1;
    if (where.file == "--set" && where.line >= first_param) {
      const std::string& kv = sets[static_cast<size_t>(where.line - 1)];
      return "fabricsim: --param " + kv + ": " + key + ": " + message;
    }
    return scenario::format_error_line(where, key, message) + " (in the sweep point " + label + ")";
  };
  scenario::LoadedScenario loaded;
  try {
    loaded = scenario::load_scenario(args.file, sets, args.unsets);
  } catch (const scenario::LoadError& e) {
    throw BadInput(param_line(e.where(), e.key_path(), e.message()));
  }
  try {
    (void)scenario::resolve(loaded.scenario);
    scenario::check_buildable(loaded.scenario);
  } catch (const ImportError& e) {
    throw BadInput(scenario::format_input_error(loaded, e));
  } catch (const InputError& e) {
    const std::string key = e.key_path().empty() ? "(scenario)" : e.key_path();
    throw BadInput(param_line(loaded.locate(e.key_path()), key, e.what()));
  }
}

bool is_sweep_dir(const fs::path& dir) {
  std::error_code ec;
  return fs::exists(dir / kSweepMarker, ec);
}

void prepare_dir(const fs::path& dir) {
  const auto fail = [&](const std::string& why) {
    std::string line = "fabricsim: --out " + dir.string() + ": " + why;
    std::replace(line.begin(), line.end(), '\n', ' ');
    return BadInput(line);
  };
  std::error_code ec;
  if (fs::exists(dir, ec)) {
    if (!fs::is_directory(dir, ec)) throw fail("exists and is not a directory");
    if (!fs::is_empty(dir, ec) && !fs::exists(dir / kSweepMarker, ec)) {
      throw fail("holds files a sweep did not write (no " + std::string(kSweepMarker) +
                 "); choose another directory");
    }
  }
  fs::create_directories(dir / "points", ec);
  if (!ec) fs::create_directories(dir / "logs", ec);
  if (ec) throw fail("cannot create: " + ec.message());
  std::ofstream marker(dir / kSweepMarker);
  marker << "written by fabricsim sweep; the directory may be resumed by the same command\n";
  if (!marker) throw fail("cannot write " + std::string(kSweepMarker));
}

// A finished run: its result.json exists (a run writes through a staging directory renamed into
// place, cli/staged_dir.h, so it is complete) and is not partial (an interrupted run).
bool read_finished(const fs::path& dir, std::map<std::string, double>& metrics) {
  std::ifstream in(dir / "result.json");
  if (!in) return false;
  const nlohmann::json j = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object() || j.value("partial", true)) return false;
  metrics = output::extract_sweep_metrics(j);
  return true;
}

std::string first_line(const fs::path& file) {
  std::ifstream in(file);
  std::string line;
  std::getline(in, line);
  return line;
}

static std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The --param list with the limits on seeds, jobs and runs checked; throws BadInput.
std::vector<Param> parse_params(const SweepArgs& args) {
  if (args.seeds < 1 || args.seeds > kMaxSeeds) {
    throw BadInput("fabricsim: --seeds: must be 1.." + std::to_string(kMaxSeeds));
  }
  if (args.jobs < 0 || args.jobs > kMaxJobs) {
    throw BadInput("fabricsim: --jobs: must be 1.." + std::to_string(kMaxJobs) +
                   " (0 or none: one per processor available)");
  }
  if (args.params.empty())
    throw BadInput("fabricsim: sweep: at least one --param KEY=V1,V2,... is needed");
  std::vector<Param> params;
  size_t runs = static_cast<size_t>(args.seeds);
  for (const std::string& text : args.params) {
    params.push_back(parse_param(text, params));
    runs *= params.back().values.size();
    if (runs > kMaxRuns) {
      throw BadInput("fabricsim: --param " + text + ": the sweep would exceed " +
                     std::to_string(kMaxRuns) + " runs (points x seeds)");
    }
  }
  return params;
}

// --out, else the scenario's outputs.dir + "-sweep"; throws BadInput when there is neither.
std::string sweep_out_dir(const SweepArgs& args, const scenario::LoadedScenario& base) {
  if (!args.out_dir.empty()) return args.out_dir;
  if (base.scenario.output_dir.empty()) {
    throw BadInput("fabricsim: sweep: give --out DIR (the scenario has no outputs.dir)");
  }
  return base.scenario.output_dir + "-sweep";
}

// `fabricsim run FILE` of one point and seed, into DIR/points/<id>, logs in DIR/logs/.
// `exe` is this binary (self_executable()).
static ChildCommand run_command(const std::string& exe, const SweepArgs& args,
                         const std::vector<Param>& params, const std::vector<std::string>& values,
                         uint64_t seed, const fs::path& dir, const std::string& id) {
  ChildCommand c;
  c.argv = {exe, "run", args.file};
  for (const std::string& u : args.unsets) c.argv.insert(c.argv.end(), {"--unset", u});
  for (const std::string& s : args.sets) c.argv.insert(c.argv.end(), {"--set", s});
  for (size_t k = 0; k < params.size(); ++k) {
    c.argv.insert(c.argv.end(), {"--set", params[k].key + "=" + values[k]});
  }
  c.argv.insert(c.argv.end(),
                {"--set", "seed=" + std::to_string(seed), "--out", (dir / "points" / id).string()});
  if (!args.max_memory.empty()) c.argv.insert(c.argv.end(), {"--max-memory", args.max_memory});
  c.stdout_path = (dir / "logs" / (id + ".out")).string();
  c.stderr_path = (dir / "logs" / (id + ".err")).string();
  return c;
}

SweepPlan plan_sweep(const SweepArgs& args, const std::vector<Param>& params,
                     const std::vector<std::vector<std::string>>& points, uint64_t first_seed,
                     const fs::path& dir) {
  SweepPlan plan;
  output::SweepTable& table = plan.table;
  table.file = args.file;
  for (const Param& p : params) table.keys.push_back(p.key);
  table.points = points;
  for (int i = 0; i < args.seeds; ++i) table.seeds.push_back(first_seed + static_cast<uint64_t>(i));

  std::string context = "file=" + std::to_string(fnv1a(file_bytes(args.file)));
  for (const std::string& u : args.unsets) context += kSep + "unset=" + u;
  for (const std::string& s : args.sets) context += kSep + "set=" + s;
  const std::string exe = self_executable();
  for (size_t p = 0; p < points.size(); ++p) {
    for (uint64_t seed : table.seeds) {
      output::SweepRun r;
      r.point = p;
      r.seed = seed;
      r.id = run_id(context, params, points[p], seed);
      if (read_finished(dir / "points" / r.id, r.metrics)) {
        r.ok = r.reused = true;
      } else {
        plan.commands.push_back(run_command(exe, args, params, points[p], seed, dir, r.id));
        plan.command_run.push_back(table.runs.size());
      }
      table.runs.push_back(std::move(r));
    }
  }
  return plan;
}

bool write_sweep_results(const fs::path& dir, const output::SweepTable& table, bool report,
                         const std::string& counts) {
  try {
    output::write_sweep_files(dir, table);
    // outputs.report: html: the sweep's own report (each metric against each parameter) beside
    // the points' reports, as `fabricsim report DIR` draws it.
    if (report) output::write_report(dir);
  } catch (const std::runtime_error& e) {
    std::cerr << "fabricsim: " << e.what() << "\n";
    return false;
  }
  output::print_sweep_summary(std::cout, table);
  std::cout << "  " << counts << "; results in " << dir.string()
            << "/ (sweep.csv, sweep_aggregate.csv, sweep.json" << (report ? ", report.html" : "")
            << ", points/, logs/)\n";
  return true;
}

}  // namespace fabricsim::cli::sweep_detail
