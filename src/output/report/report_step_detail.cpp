// report.html's step section, continued (output/report/report_sections.h): the step's collectives
// against NCCL's model, the timeline of one rank per pipeline stage (step_timeline.csv), and the
// fabric's load per tier and per rail over the window the network carried traffic.
#include <algorithm>
#include <cmath>
#include <map>

#include "core/units.h"
#include "output/report/report_sections.h"
#include "output/report/report_specs.h"
#include "output/sig_digits.h"

namespace fabricsim::output::report {
namespace {

namespace fs = std::filesystem;
using Dirs = std::vector<std::pair<std::string, fs::path>>;

struct DetailRun {
  std::string name;
  fs::path dir;
  Json result;
};

std::vector<DetailRun> load(const Dirs& dirs) {
  std::vector<DetailRun> out;
  for (const auto& [name, dir] : dirs) {
    out.push_back({name, dir, read_json(dir / "result.json").value_or(Json::object())});
  }
  return out;
}

std::string short_name(const std::string& p) {
  if (p == "tensor_parallel") return "TP";
  if (p == "pipeline_parallel") return "PP";
  if (p == "data_parallel") return "DP";
  if (p == "expert_parallel") return "EP";
  if (p == "sequence_parallel") return "SP";
  return p;
}

// "TP all_reduce 16 MiB x 8": what nccl-tests would be asked to run.
std::string collective_label(const Json& c) {
  return short_name(c.value("parallelism", std::string("?"))) + " " +
         c.value("op", std::string("?")) + " " + format_bytes(c.value("size_bytes", int64_t{0})) +
         " x " + std::to_string(c.value("ranks", 0));
}

constexpr size_t kMaxCollectiveKinds = 12;  // bars in the busbw chart: the costliest kinds

std::vector<Block> busbw_blocks(const std::vector<DetailRun>& runs) {
  const std::string title = "Collectives against NCCL's model";
  // Categories from the first run that has any (costliest first, as result.json orders them).
  std::vector<std::string> categories;
  std::map<std::pair<std::string, std::string>, const Json*> cell;  // (category, run) -> entry
  for (const DetailRun& r : runs) {
    const Json* t = step_training(r.result);
    if (!t || !t->contains("collectives") || !(*t)["collectives"].is_array()) continue;
    for (const Json& c : (*t)["collectives"]) {
      const std::string label = collective_label(c);
      if (std::find(categories.begin(), categories.end(), label) == categories.end()) {
        if (categories.size() == kMaxCollectiveKinds) continue;
        categories.push_back(label);
      }
      cell[{label, r.name}] = &c;
    }
  }
  if (categories.empty()) {
    return {note_block(title, "no run's result.json has jobs[].training.collectives")};
  }
  // One "NCCL model" group when every run expects the same busbw, else one per run.
  bool same_model = true;
  for (const std::string& cat : categories) {
    double first = -1;
    for (const DetailRun& r : runs) {
      const auto it = cell.find({cat, r.name});
      if (it == cell.end() || !(*it->second)["expected_busbw_gbytes_per_s"].is_number()) continue;
      const double e = (*it->second)["expected_busbw_gbytes_per_s"].get<double>();
      if (first < 0) first = e;
      same_model &= std::fabs(e - first) <= 1e-9 * std::max(1.0, first);
    }
  }
  Json rows = Json::array();
  std::vector<std::string> groups;
  auto add_group = [&](const std::string& g) {
    if (std::find(groups.begin(), groups.end(), g) == groups.end()) groups.push_back(g);
  };
  std::vector<std::vector<std::string>> table;
  for (const std::string& cat : categories) {
    std::vector<std::string> row = {cat};
    std::string model = "-";
    for (const DetailRun& r : runs) {
      const auto it = cell.find({cat, r.name});
      if (it == cell.end()) {
        row.insert(row.end(), {"-", "-", "-"});
        continue;
      }
      const Json& c = *it->second;
      const double busbw = c.value("busbw_gbytes_per_s", 0.0);
      add_group(r.name);
      rows.push_back({{"category", cat}, {"group", r.name}, {"value", busbw}});
      if (c["expected_busbw_gbytes_per_s"].is_number()) {
        const double e = c["expected_busbw_gbytes_per_s"].get<double>();
        const std::string g = same_model ? "NCCL model" : r.name + " NCCL model";
        if (!same_model || model == "-") {
          add_group(g);
          rows.push_back({{"category", cat}, {"group", g}, {"value", e}});
        }
        model = format_sig(e) + " GB/s";
      }
      row.push_back(std::to_string(c.value("count", 0)));
      row.push_back(format_time(c.value("mean_time_ps", int64_t{0})));
      row.push_back(format_sig(busbw) + " GB/s");
    }
    row.push_back(model);
    table.push_back(std::move(row));
  }
  // The model's groups after the measured ones.
  std::stable_partition(groups.begin(), groups.end(), [](const std::string& g) {
    return g.find("NCCL model") == std::string::npos;
  });
  Block chart;
  chart.title = title;
  chart.caption =
      "nccl-tests bus bandwidth of the step's collectives (mean duration of each kind: "
      "parallelism, op, nccl-tests size x ranks; the " +
      std::to_string(kMaxCollectiveKinds) +
      " costliest kinds at most) against NCCL's own tuning model for the same collective "
      "(src/graph/tuning.cc: the busbw nccl-tests approaches alone on the fabric). Point-to-"
      "point sends have no model. From result.json jobs[].training.collectives.";
  chart.spec =
      grouped_bar_spec(std::move(rows), categories, groups, {"collective", "busbw (GB/s)"});
  Block numbers;
  numbers.title = "Collectives of the step";
  std::vector<std::string> header = {"collective"};
  for (const DetailRun& r : runs) {
    header.push_back(r.name + " count");
    header.push_back(r.name + " mean time");
    header.push_back(r.name + " busbw");
  }
  header.push_back(same_model ? "NCCL model busbw" : "NCCL model busbw (last run)");
  numbers.caption = "count: collectives of that kind in the run; busbw as nccl-tests computes it.";
  numbers.html = html_table(header, table);
  return {chart, numbers};
}

struct StageBar {
  double start_ps;
  double end_ps;
  std::string kind;
  std::string label;
  int merged = 1;
};

constexpr double kMergeFraction = 1.0 / 2000;  // of the step: below a pixel at 900 px

Block timeline_block(const DetailRun& run, bool several) {
  const std::string title =
      "Timeline of one rank per pipeline stage" + (several ? ": " + run.name : "");
  const std::optional<Table> t = read_table(run.dir / "step_timeline.csv");
  if (!t)
    return note_block(title, "step_timeline.csv is absent (written for a finished training step)");
  const int job = t->column("job"), stage = t->column("stage"), rank = t->column("rank");
  const int start = t->column("start_ps"), end = t->column("end_ps");
  const int kind = t->column("kind"), label = t->column("label");
  std::map<std::pair<int, std::string>, std::vector<StageBar>> lanes;  // (stage, lane name)
  double span_end = 0;
  size_t total = 0;
  for (size_t r = 0; r < t->size(); ++r) {
    if (t->number(r, job).value_or(-1) != 0) continue;  // the first training job
    const int s = static_cast<int>(t->number(r, stage).value_or(0));
    const std::string k = t->field(r, kind);
    const std::string lane = "stage " + std::to_string(s) + " rank " + t->field(r, rank) +
                             (k == "compute" ? " compute" : " comm");
    const double a = t->number(r, start).value_or(0), b = t->number(r, end).value_or(0);
    lanes[{s, lane}].push_back({a, b, k, t->field(r, label)});
    span_end = std::max(span_end, b);
    ++total;
  }
  if (total == 0) return note_block(title, "step_timeline.csv has no span of job 0");
  const double unit = span_end >= 1e9 ? 1e-9 : 1e-6;
  const std::string unit_name = span_end >= 1e9 ? "ms" : "us";
  // Neighbouring spans of one kind closer than a pixel are drawn as one (label "xN").
  const double gap = span_end * kMergeFraction;
  std::vector<StageBar> drawn;
  std::vector<std::string> lane_names;
  std::vector<std::string> lane_of;
  for (auto& [key, spans] : lanes) {
    lane_names.push_back(key.second);
    std::vector<StageBar> merged;
    for (const StageBar& s : spans) {
      if (!merged.empty() && merged.back().kind == s.kind &&
          s.start_ps - merged.back().end_ps <= gap) {
        merged.back().end_ps = std::max(merged.back().end_ps, s.end_ps);
        ++merged.back().merged;
        continue;
      }
      merged.push_back(s);
    }
    for (StageBar& s : merged) {
      drawn.push_back(std::move(s));
      lane_of.push_back(key.second);
    }
  }
  // At most kMaxTimelineEvents bars: the longest.
  std::vector<size_t> order(drawn.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return drawn[a].end_ps - drawn[a].start_ps > drawn[b].end_ps - drawn[b].start_ps;
  });
  if (order.size() > kMaxTimelineEvents) order.resize(kMaxTimelineEvents);
  std::sort(order.begin(), order.end());
  Json rows = Json::array();
  for (size_t i : order) {
    const StageBar& s = drawn[i];
    rows.push_back({{"lane", lane_of[i]},
                    {"start", s.start_ps * unit},
                    {"end", s.end_ps * unit},
                    {"kind", s.kind},
                    {"label", s.merged > 1 ? s.label + " x" + std::to_string(s.merged) : s.label}});
  }
  Block b;
  b.title = title;
  b.caption =
      "The ops of the rank the breakdown names for each pipeline stage: its compute stream, and "
      "below it the collectives and sends it took part in, coloured by parallelism. "
      "step_timeline.csv keeps at most 10,000 spans per rank (the first); spans of one kind less "
      "than 1/2000 of the run apart are drawn merged; " +
      std::to_string(rows.size()) + " bars from " + std::to_string(total) +
      " spans. trace.json (outputs.trace) has every rank.";
  std::vector<std::string> kinds;
  for (const Json& row : rows) {
    const std::string k = row["kind"].get<std::string>();
    if (std::find(kinds.begin(), kinds.end(), k) == kinds.end()) kinds.push_back(k);
  }
  std::sort(kinds.begin(), kinds.end());
  b.spec = gantt_spec(std::move(rows), lane_names, {"time (" + unit_name + ")", "rank"},
                      step_palette(kinds));
  return b;
}

// The window utilization is measured over, per run: T = result.json links.span_ps, from the
// first cross-node flow's post to the last finish, against the step. A step whose only
// network traffic is its data-parallel reduction has a T much shorter than the step, and
// 100% over T is not 100% over the step.
std::string window_text(const std::vector<DetailRun>& runs) {
  std::string text;
  for (const DetailRun& r : runs) {
    const Json& links = r.result.value("links", Json::object());
    const Json* t = step_training(r.result);
    if (!links.is_object() || !links.contains("span_ps") || !links["span_ps"].is_number()) continue;
    text += (text.empty() ? "" : "; ") + r.name + ": T = " +
            format_time(links["span_ps"].get<int64_t>());
    if (t && t->contains("step_time_ps") && (*t)["step_time_ps"].is_number()) {
      text += " of a " + format_time((*t)["step_time_ps"].get<int64_t>()) + " step";
    }
  }
  return text.empty() ? "" : " (" + text + ")";
}

// Mean utilization per tier (result.json links.tiers) and per rail (links.csv NIC uplinks).
std::vector<Block> load_blocks(const std::vector<DetailRun>& runs) {
  const std::string window = window_text(runs);
  std::vector<Block> blocks;
  Json tier_rows = Json::array();
  std::vector<std::string> tiers, names;
  for (const DetailRun& r : runs) {
    names.push_back(r.name);
    const Json& links = r.result.value("links", Json::object());
    if (!links.is_object() || !links.contains("tiers") || !links["tiers"].is_array()) continue;
    for (const Json& g : links["tiers"]) {
      const std::string label = "tier " + std::to_string(g.value("tier", 0)) + " " +
                                g.value("direction", std::string("?"));
      if (std::find(tiers.begin(), tiers.end(), label) == tiers.end()) tiers.push_back(label);
      tier_rows.push_back(
          {{"category", label}, {"group", r.name}, {"value", g.value("mean_utilization", 0.0)}});
    }
  }
  if (tiers.empty()) {
    blocks.push_back(
        note_block("Utilization per tier over the network's busy window",
                   "no run's result.json has links.tiers"));
  } else {
    Block b;
    b.title = "Utilization per tier over the network's busy window";
    b.caption =
        "Mean utilization per tier and direction: wire bytes over line rate x T, T from the "
        "first cross-node flow's post to the last finish" +
        window + "; tier 0 = NICs' links (NVLink traffic is not on them). From result.json "
        "links.tiers.";
    b.spec = grouped_bar_spec(std::move(tier_rows), tiers, names, {"tier", "mean utilization"});
    blocks.push_back(std::move(b));
  }
  // Rails: NIC i of a host is on rail i mod nics_per_host (the rail topology's wiring).
  Json rail_rows = Json::array();
  std::vector<std::string> rails;
  for (const DetailRun& r : runs) {
    const Json& topo = r.result.value("topology", Json::object());
    const int hosts = topo.is_object() ? topo.value("hosts", 0) : 0;
    const int nics = topo.is_object() ? topo.value("nics", 0) : 0;
    if (hosts <= 0 || nics <= hosts || nics % hosts != 0) continue;
    const int per_host = nics / hosts;
    const std::optional<Table> links =
        read_table(r.dir / "links.csv", false, {"from", "from_tier", "utilization"});
    if (!links) continue;
    std::vector<double> sum(static_cast<size_t>(per_host), 0);
    std::vector<int> count(static_cast<size_t>(per_host), 0);
    const int from = links->column("from"), tier = links->column("from_tier");
    const int util = links->column("utilization");
    for (size_t row = 0; row < links->size(); ++row) {
      if (links->number(row, tier).value_or(-1) != 0) continue;
      const std::string f = links->field(row, from);
      if (f.rfind("nic", 0) != 0) continue;
      const long nic = std::atol(f.c_str() + 3);
      const size_t rail = static_cast<size_t>(nic % per_host);
      sum[rail] += links->number(row, util).value_or(0);
      ++count[rail];
    }
    for (int rail = 0; rail < per_host; ++rail) {
      if (count[static_cast<size_t>(rail)] == 0) continue;
      const std::string label = "rail " + std::to_string(rail);
      if (std::find(rails.begin(), rails.end(), label) == rails.end()) rails.push_back(label);
      rail_rows.push_back(
          {{"category", label},
           {"group", r.name},
           {"value", sum[static_cast<size_t>(rail)] / count[static_cast<size_t>(rail)]}});
    }
  }
  if (!rails.empty()) {
    Block b;
    b.title = "Utilization per rail over the network's busy window";
    b.caption =
        "Mean utilization of the NICs' uplinks per rail (NIC index mod NICs per host), over the "
        "same T" + window + ". From links.csv.";
    b.spec = grouped_bar_spec(std::move(rail_rows), rails, names, {"rail", "mean utilization"});
    blocks.push_back(std::move(b));
  }
  return blocks;
}

}  // namespace

std::vector<Block> step_detail_blocks(const Dirs& dirs) {
  const std::vector<DetailRun> runs = load(dirs);
  std::vector<Block> blocks = busbw_blocks(runs);
  for (const DetailRun& r : runs) {
    if (step_training(r.result)) blocks.push_back(timeline_block(r, runs.size() > 1));
  }
  for (Block& b : load_blocks(runs)) blocks.push_back(std::move(b));
  return blocks;
}

}  // namespace fabricsim::output::report
