// report.html's step section (output/report/report_sections.h): where a training step's time goes
// on each fabric and on the ideal network, what the network costs, the collectives against
// NCCL's model, one rank per pipeline stage over time, and the fabric's load during the step.
// Everything is read from each run's result.json, step_timeline.csv and links.csv.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "core/units.h"
#include "output/report/report_sections.h"
#include "output/report/report_specs.h"
#include "output/sig_digits.h"

namespace fabricsim::output::report {
namespace {

namespace fs = std::filesystem;

struct StepRun {
  std::string name;
  fs::path dir;
  Json result;
  const Json* training = nullptr;  // the first training job's jobs[].training (finished)
};

const Json* number_or_null(const Json& j, const char* key) {
  return j.contains(key) && j[key].is_number() ? &j[key] : nullptr;
}

int64_t ps_of(const Json& j, const char* key) {
  const Json* v = number_or_null(j, key);
  return v ? v->get<int64_t>() : -1;
}

std::vector<StepRun> load_runs(const std::vector<std::pair<std::string, fs::path>>& dirs) {
  std::vector<StepRun> runs;
  for (const auto& [name, dir] : dirs) {
    StepRun r{name, dir, read_json(dir / "result.json").value_or(Json::object()), nullptr};
    runs.push_back(std::move(r));
  }
  // Pointers into the vector's elements, set once it no longer moves.
  for (StepRun& r : runs) r.training = step_training(r.result);
  return runs;
}

// A time axis unit for values up to `max_ps`: ms from 1 ms, else us.
struct TimeUnit {
  double per_ps;
  const char* name;
};
TimeUnit unit_for(double max_ps) {
  return max_ps >= 1e9 ? TimeUnit{1e-9, "ms"} : TimeUnit{1e-6, "us"};
}

std::string time_cell(int64_t ps) { return ps < 0 ? "-" : format_time(ps); }

// "tensor_parallel" -> "TP": the short names Megatron-LM's papers use.
std::string short_parallelism(const std::string& p) {
  static const std::map<std::string, std::string> kShort = {{"tensor_parallel", "TP"},
                                                            {"pipeline_parallel", "PP"},
                                                            {"data_parallel", "DP"},
                                                            {"expert_parallel", "EP"},
                                                            {"sequence_parallel", "SP"}};
  const auto it = kShort.find(p);
  return it == kShort.end() ? p : it->second;
}

// The parts of one breakdown in a fixed order: compute, bubble, skew, then exposed communication
// per parallelism (every phase summed), in the order `parallelisms` lists them.
std::vector<std::pair<std::string, int64_t>> parts_of(
    const Json& b, const std::vector<std::string>& parallelisms) {
  std::vector<std::pair<std::string, int64_t>> parts = {{"compute", ps_of(b, "compute_ps")},
                                                        {"pipeline bubble", ps_of(b, "bubble_ps")},
                                                        {"skew", ps_of(b, "skew_ps")}};
  for (const std::string& p : parallelisms) {
    int64_t sum = 0;
    if (b.contains("comm") && b["comm"].is_array()) {
      for (const Json& c : b["comm"]) {
        if (c.value("parallelism", std::string()) == p) sum += c.value("time_ps", int64_t{0});
      }
    }
    parts.emplace_back("exposed " + short_parallelism(p), sum);
  }
  return parts;
}

void collect_parallelisms(const Json& b, std::vector<std::string>& out) {
  if (!b.is_object() || !b.contains("comm") || !b["comm"].is_array()) return;
  for (const Json& c : b["comm"]) {
    const std::string p = c.value("parallelism", std::string());
    if (!p.empty() && std::find(out.begin(), out.end(), p) == out.end()) out.push_back(p);
  }
}

const Json* ideal_breakdown(const Json& training) {
  if (!training.contains("ideal_network") || !training["ideal_network"].is_object()) return nullptr;
  const Json& ideal = training["ideal_network"];
  return ideal.contains("breakdown") && ideal["breakdown"].is_object() ? &ideal["breakdown"]
                                                                       : nullptr;
}

}  // namespace

std::string step_colour(const std::string& name) {
  // Tableau-10 hues (Vega's default scheme), fixed per meaning so that the stacked bars and the
  // timeline agree: compute blue, waiting on other compute greys, each parallelism its own hue.
  std::string key = name.rfind("exposed ", 0) == 0 ? name.substr(8) : name;
  key = short_parallelism(key);
  static const std::map<std::string, std::string> kColours = {
      {"compute", "#4c78a8"}, {"pipeline bubble", "#bab0ac"},
      {"skew", "#9d755d"},    {"TP", "#54a24b"},
      {"PP", "#b279a2"},      {"DP", "#f58518"},
      {"EP", "#e45756"},      {"SP", "#72b7b2"}};
  const auto it = kColours.find(key);
  return it == kColours.end() ? "#eeca3b" : it->second;
}

Palette step_palette(const std::vector<std::string>& names) {
  Palette p;
  for (const std::string& n : names) p.emplace_back(n, step_colour(n));
  return p;
}

const Json* step_training(const Json& result) {
  if (!result.contains("jobs") || !result["jobs"].is_array()) return nullptr;
  for (const Json& job : result["jobs"]) {
    if (job.contains("training") && job["training"].is_object()) return &job["training"];
  }
  return nullptr;
}

std::vector<StepBar> step_bars(const std::vector<std::pair<std::string, Json>>& results) {
  std::vector<std::string> parallelisms;
  for (const auto& [name, result] : results) {
    const Json* t = step_training(result);
    if (!t) continue;
    if (t->contains("breakdown")) collect_parallelisms((*t)["breakdown"], parallelisms);
    if (const Json* ib = ideal_breakdown(*t)) collect_parallelisms(*ib, parallelisms);
  }
  std::vector<StepBar> bars;
  // The ideal network's bar: one when every run's ideal step is the same (it does not depend on
  // the fabric's switches), else one per run.
  std::set<int64_t> ideal_steps;
  for (const auto& [name, result] : results) {
    const Json* t = step_training(result);
    if (t && ideal_breakdown(*t)) ideal_steps.insert(ps_of(*ideal_breakdown(*t), "step_ps"));
  }
  bool ideal_drawn = false;
  for (const auto& [name, result] : results) {
    const Json* t = step_training(result);
    if (!t || !t->contains("breakdown") || !(*t)["breakdown"].is_object()) continue;
    const Json& b = (*t)["breakdown"];
    bars.push_back({name, ps_of(b, "step_ps"), parts_of(b, parallelisms)});
    const Json* ib = ideal_breakdown(*t);
    if (ib && (ideal_steps.size() > 1 || !ideal_drawn)) {
      bars.push_back({ideal_steps.size() > 1 ? name + " ideal network" : "ideal network",
                      ps_of(*ib, "step_ps"), parts_of(*ib, parallelisms)});
      ideal_drawn = true;
    }
  }
  // The ideal bar last when there is one for all.
  if (ideal_steps.size() == 1) {
    auto it = std::find_if(bars.begin(), bars.end(),
                           [](const StepBar& b) { return b.name == "ideal network"; });
    if (it != bars.end()) std::rotate(it, it + 1, bars.end());
  }
  return bars;
}

namespace {

Block stacked_step_block(const std::vector<StepBar>& bars) {
  const std::string title = "Where the step goes";
  if (bars.empty()) return note_block(title, "no run has a finished step with a breakdown");
  double max_ps = 0;
  for (const StepBar& b : bars) max_ps = std::max(max_ps, static_cast<double>(b.step_ps));
  const TimeUnit unit = unit_for(max_ps);
  Json rows = Json::array();
  std::vector<std::string> categories, parts;
  for (const StepBar& b : bars) {
    categories.push_back(b.name);
    for (size_t i = 0; i < b.parts.size(); ++i) {
      const auto& [part, ps] = b.parts[i];
      if (std::find(parts.begin(), parts.end(), part) == parts.end()) parts.push_back(part);
      if (ps <= 0) continue;
      rows.push_back({{"category", b.name},
                      {"part", part},
                      {"order", i},
                      {"value", static_cast<double>(ps) * unit.per_ps}});
    }
  }
  Block block;
  block.title = title;
  block.caption =
      "One step of the critical rank (the rank of most compute), split exactly: step = compute "
      "+ pipeline bubble (waiting for another stage) + skew (waiting for another rank of its "
      "stage) + exposed communication by parallelism (waiting for a collective or a pipeline "
      "send, every training phase summed). The ideal network runs the same DAG with no "
      "contention (training.ideal_network). From each run's result.json jobs[].training.";
  block.spec = stacked_bar_spec(std::move(rows), categories, parts,
                                {std::string("time (") + unit.name + ")", ""}, unit.name,
                                step_palette(parts));
  return block;
}

// step, ideal step, network-attributable time, efficiency, steps per hour (and per $M).
Block network_time_block(const std::vector<StepRun>& runs) {
  const std::string title = "Network-attributable time";
  std::vector<std::vector<std::string>> rows;
  for (const StepRun& r : runs) {
    if (!r.training) continue;
    const Json& t = *r.training;
    const int64_t step = ps_of(t, "step_time_ps");
    int64_t ideal = -1, network = -1;
    std::string efficiency = "-";
    if (t.contains("ideal_network") && t["ideal_network"].is_object()) {
      const Json& i = t["ideal_network"];
      ideal = ps_of(i, "step_time_ps");
      network = ps_of(i, "network_ps");
      if (const Json* e = number_or_null(i, "efficiency")) {
        efficiency = format_sig(100 * e->get<double>()) + " %";
      }
    }
    const std::string share =
        network >= 0 && step > 0
            ? format_sig(100.0 * static_cast<double>(network) / static_cast<double>(step)) + " %"
            : "-";
    std::string per_hour = "-", per_musd = "-";
    if (step > 0) {
      const double h = 3600e12 / static_cast<double>(step);
      per_hour = format_sig(h);
      const Json& cost = r.result.value("cost", Json::object());
      if (cost.value("priced", false) && cost.value("fabric_usd", 0.0) > 0) {
        per_musd = format_sig(h / (cost["fabric_usd"].get<double>() * 1e-6));
      }
    }
    rows.push_back({r.name, time_cell(step), time_cell(ideal), time_cell(network), share,
                    efficiency, per_hour, per_musd});
  }
  if (rows.empty()) return note_block(title, "no run has a finished training step");
  Block b;
  b.title = title;
  b.caption =
      "Network-attributable time = step − the same step on the ideal network; efficiency = "
      "ideal step / step. Steps per hour = 3600 s / step; per $M: per million USD of network "
      "(result.json cost.fabric_usd, docs/cost.md). From result.json jobs[].training.";
  b.html = html_table({"run", "step", "ideal-network step", "network-attributable", "share of step",
                       "efficiency vs ideal", "steps/hour", "steps/hour per network $M"},
                      rows);
  return b;
}

// The breakdown as numbers: the critical rank per run and every stage's rank.
Block breakdown_table_block(const std::vector<StepRun>& runs) {
  const std::string title = "Step breakdown per pipeline stage";
  std::vector<std::string> parallelisms;
  for (const StepRun& r : runs) {
    if (!r.training) continue;
    if (r.training->contains("breakdown"))
      collect_parallelisms((*r.training)["breakdown"], parallelisms);
    if (r.training->contains("stages") && (*r.training)["stages"].is_array()) {
      for (const Json& s : (*r.training)["stages"]) collect_parallelisms(s, parallelisms);
    }
  }
  std::vector<std::string> header = {"run / rank", "step", "compute", "bubble", "skew"};
  for (const std::string& p : parallelisms) header.push_back("exposed " + short_parallelism(p));
  std::vector<std::vector<std::string>> rows;
  auto add = [&](const std::string& label, const Json& b) {
    std::vector<std::string> row = {label, time_cell(ps_of(b, "step_ps"))};
    for (const auto& [part, ps] : parts_of(b, parallelisms)) row.push_back(time_cell(ps));
    rows.push_back(std::move(row));
  };
  for (const StepRun& r : runs) {
    if (!r.training || !r.training->contains("breakdown") ||
        !(*r.training)["breakdown"].is_object()) {
      continue;
    }
    const Json& b = (*r.training)["breakdown"];
    add(r.name + ": critical rank " + std::to_string(b.value("rank", 0)), b);
    if (r.training->contains("stages") && (*r.training)["stages"].is_array() &&
        (*r.training)["stages"].size() > 1) {
      for (const Json& s : (*r.training)["stages"]) {
        add(r.name + ": stage " + std::to_string(s.value("stage", 0)) + ", rank " +
                std::to_string(s.value("rank", 0)),
            s);
      }
    }
  }
  if (rows.empty()) return note_block(title, "no run has a step breakdown");
  Block b;
  b.title = title;
  b.caption =
      "Each row sums exactly to its step (integer picoseconds in result.json; shown to four "
      "significant digits). Stage rows: the rank of most compute of each pipeline stage.";
  b.html = html_table(header, rows);
  return b;
}

}  // namespace

std::vector<Block> step_blocks(const std::vector<std::pair<std::string, fs::path>>& dirs) {
  const std::vector<StepRun> runs = load_runs(dirs);
  std::vector<std::pair<std::string, Json>> results;
  for (const StepRun& r : runs) results.emplace_back(r.name, r.result);
  std::vector<Block> blocks;
  blocks.push_back(stacked_step_block(step_bars(results)));
  blocks.push_back(network_time_block(runs));
  blocks.push_back(breakdown_table_block(runs));
  for (Block& b : step_detail_blocks(dirs)) blocks.push_back(std::move(b));
  return blocks;
}

}  // namespace fabricsim::output::report
