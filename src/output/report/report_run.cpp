// report.html blocks of one run's flows and links (output/report/report_sections.h).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "core/units.h"
#include "output/report/report_sections.h"
#include "output/report/report_specs.h"
#include "output/sig_digits.h"

namespace fabricsim::output::report {
namespace {

namespace fs = std::filesystem;

// Nearest-rank percentile (the definition output/flow_stats.h uses): the value at rank
// ceil(p/100 x n) of the sorted values. REQUIRES: sorted non-empty.
double nearest_rank(const std::vector<double>& sorted, double percent) {
  const double rank = std::ceil(percent / 100.0 * static_cast<double>(sorted.size()));
  const size_t index = static_cast<size_t>(std::max(1.0, rank)) - 1;
  return sorted[std::min(index, sorted.size() - 1)];
}

// Flow-size buckets when result.json has no fct_by_size: decades from 10 KB (decimal), the
// split datacenter-transport papers report slowdown in (short < 100 KB, long > 1 MB).
struct SizeBucket {
  double below_bytes;
  const char* label;
};
constexpr SizeBucket kSizeBuckets[] = {{1e4, "<10KB"},
                                       {1e5, "10KB-100KB"},
                                       {1e6, "100KB-1MB"},
                                       {1e7, "1MB-10MB"},
                                       {INFINITY, ">=10MB"}};

// A statistic of one fct_by_size / fct_by_class entry, read tolerantly: {"slowdown": {"p99":
// x}} or "slowdown_p99": x. p99 never matches p999.
std::optional<double> stat(const Json& entry, const std::string& what, const std::string& p) {
  if (entry.contains(what) && entry[what].is_object() && entry[what].contains(p) &&
      entry[what][p].is_number()) {
    return entry[what][p].get<double>();
  }
  const std::string flat = what + "_" + p;
  if (entry.contains(flat) && entry[flat].is_number()) return entry[flat].get<double>();
  return std::nullopt;
}

// "<bucket or class> (<finished flows>)", e.g. "10KB-100KB (8)" or "class 3 (16)".
std::string entry_label(const Json& entry) {
  std::string label;
  for (const char* key : {"bucket", "label", "class", "range", "name", "size", "sl", "priority"}) {
    if (!entry.contains(key)) continue;
    const Json& v = entry[key];
    if (v.is_string()) label = v.get<std::string>();
    if (v.is_number()) label = std::string(key) + " " + v.dump();
    if (!label.empty()) break;
  }
  for (const char* count : {"completed", "flows"}) {
    if (!label.empty() && entry.contains(count) && entry[count].is_number_integer()) {
      return label + " (" + entry[count].dump() + ")";
    }
  }
  return label;
}

// Slowdown p50/p99/p99.9 bars from a result.json array (fct_by_size or fct_by_class).
std::optional<Block> breakdown_from_json(const Json& result, const char* key,
                                         const std::string& title, const std::string& category) {
  if (!result.contains(key) || !result[key].is_array() || result[key].empty()) return std::nullopt;
  Json rows = Json::array();
  std::vector<std::string> categories;
  const std::vector<std::pair<std::string, std::string>> stats = {
      {"p50", "p50"}, {"p99", "p99"}, {"p999", "p99.9"}};
  for (const Json& entry : result[key]) {
    const std::string label = entry_label(entry);
    if (label.empty()) continue;
    bool any = false;
    for (const auto& [p, name] : stats) {
      if (const auto v = stat(entry, "slowdown", p)) {
        rows.push_back({{"category", label}, {"group", name}, {"value", *v}});
        any = true;
      }
    }
    if (any) categories.push_back(label);
  }
  if (categories.empty()) return std::nullopt;
  Block b;
  b.title = title;
  b.caption = "Slowdown (FCT / ideal FCT of the flow alone) percentiles per " + category +
              ", from result.json " + key + ".";
  b.spec = grouped_bar_spec(std::move(rows), categories, {"p50", "p99", "p99.9"},
                            {category, "slowdown"});
  return b;
}

Block size_breakdown(const Json& result, const Table* flows) {
  const std::string title = "Slowdown by flow size";
  if (auto b = breakdown_from_json(result, "fct_by_size", title, "flow size")) return *b;
  if (!flows) return note_block(title, "flows.csv is absent");
  const int size = flows->column("size_bytes");
  const int slowdown = flows->column("slowdown");
  std::vector<std::vector<double>> per(std::size(kSizeBuckets));
  for (size_t r = 0; r < flows->size(); ++r) {
    const auto s = flows->number(r, size);
    const auto sd = flows->number(r, slowdown);
    if (!s || !sd) continue;  // unfinished flows have no slowdown
    size_t i = 0;
    while (*s >= kSizeBuckets[i].below_bytes) ++i;
    per[i].push_back(*sd);
  }
  Json rows = Json::array();
  std::vector<std::string> categories;
  for (size_t i = 0; i < per.size(); ++i) {
    if (per[i].empty()) continue;
    std::sort(per[i].begin(), per[i].end());
    const std::string label =
        std::string(kSizeBuckets[i].label) + " (" + std::to_string(per[i].size()) + ")";
    categories.push_back(label);
    rows.push_back({{"category", label}, {"group", "p50"}, {"value", nearest_rank(per[i], 50)}});
    rows.push_back({{"category", label}, {"group", "p99"}, {"value", nearest_rank(per[i], 99)}});
    rows.push_back(
        {{"category", label}, {"group", "p99.9"}, {"value", nearest_rank(per[i], 99.9)}});
  }
  if (categories.empty()) return note_block(title, "no flow in flows.csv finished");
  Block b;
  b.title = title;
  b.caption =
      "Slowdown (FCT / ideal FCT) percentiles, nearest rank, per size bucket (decades "
      "from 10 KB; finished flows in brackets), computed from flows.csv because "
      "result.json has no fct_by_size.";
  b.spec = grouped_bar_spec(std::move(rows), categories, {"p50", "p99", "p99.9"},
                            {"flow size", "slowdown"});
  return b;
}

Block class_breakdown(const Json& result, const Table* flows) {
  const std::string title = "Slowdown by class";
  if (auto b = breakdown_from_json(result, "fct_by_class", title, "class (priority / SL)")) {
    return *b;
  }
  const int cls = flows ? flows->column("class") : -1;
  if (cls < 0)
    return note_block(title, "result.json has no fct_by_class and flows.csv no class column");
  // From flows.csv's class column: classes in numeric order.
  std::map<double, std::vector<double>> per;
  const int slowdown = flows->column("slowdown");
  for (size_t r = 0; r < flows->size(); ++r) {
    const auto c = flows->number(r, cls);
    const auto sd = flows->number(r, slowdown);
    if (c && sd) per[*c].push_back(*sd);
  }
  if (per.empty()) return note_block(title, "no flow in flows.csv finished");
  Json rows = Json::array();
  std::vector<std::string> categories;
  for (auto& [c, values] : per) {
    std::sort(values.begin(), values.end());
    const std::string label = "class " + std::to_string(static_cast<long>(c)) + " (" +
                              std::to_string(values.size()) + ")";
    categories.push_back(label);
    rows.push_back({{"category", label}, {"group", "p50"}, {"value", nearest_rank(values, 50)}});
    rows.push_back({{"category", label}, {"group", "p99"}, {"value", nearest_rank(values, 99)}});
    rows.push_back(
        {{"category", label}, {"group", "p99.9"}, {"value", nearest_rank(values, 99.9)}});
  }
  Block b;
  b.title = title;
  b.caption =
      "Slowdown percentiles, nearest rank, per traffic class (priority / SL; finished "
      "flows in brackets), computed from flows.csv because result.json has no "
      "fct_by_class.";
  b.spec =
      grouped_bar_spec(std::move(rows), categories, {"p50", "p99", "p99.9"}, {"class", "slowdown"});
  return b;
}

// A hottest-links cell in its unit, four significant digits at most: utilization as a fraction
// ("0.7605"), the peak queue in bytes ("4.189 KiB"), counts exact below 10,000 ("12.35 K" on).
std::string link_cell(const std::string& column, double v) {
  if (column == "peak_queue_bytes") return format_bytes(static_cast<int64_t>(v));
  if (column == "utilization" || v != std::floor(v)) return format_sig(v);
  return std::fabs(v) < 1e4 ? format_sig(v) : format_count(v);
}

std::string tier_label(const Json& group) {
  return "tier " + std::to_string(group.value("tier", 0)) + " " +
         group.value("direction", std::string("?"));
}

}  // namespace

std::vector<double> finished_fcts_us(const Table& flows) {
  std::vector<double> fcts;
  const int fct = flows.column("fct_ps");
  for (size_t r = 0; r < flows.size(); ++r) {
    if (const auto v = flows.number(r, fct)) fcts.push_back(*v * 1e-6);
  }
  return fcts;
}

Block fct_cdf_block(const std::vector<std::pair<std::string, std::vector<double>>>& series,
                    const std::string& source) {
  const std::string title = "FCT CDF";
  Json rows = Json::array();
  double lo = INFINITY, hi = 0;
  for (const auto& [name, fcts] : series) {
    for (const auto& [x, y] : cdf_points(fcts)) {
      rows.push_back({{"x", x}, {"y", y}, {"series", name}});
      lo = std::min(lo, x);
      hi = std::max(hi, x);
    }
  }
  if (rows.empty()) return note_block(title, "no finished flow in " + source);
  Block b;
  b.title = title;
  b.caption = "Fraction of finished flows with FCT <= x (empirical CDF, at most " +
              std::to_string(kMaxCdfPoints) + " points per series, evenly spaced by rank), from " +
              source + ".";
  // A log x axis when FCTs span more than two decades.
  b.spec =
      line_spec(std::move(rows), {"FCT (us)", "fraction of flows", lo > 0 && hi > 100 * lo}, true);
  return b;
}

std::vector<Block> flow_blocks(const fs::path& dir, const Json& result) {
  std::vector<Block> blocks;
  const std::optional<Table> flows = read_table(dir / "flows.csv", false, kFlowColumns);
  if (flows) {
    blocks.push_back(fct_cdf_block({{"flows", finished_fcts_us(*flows)}}, "flows.csv"));
  } else {
    blocks.push_back(note_block("FCT CDF", "flows.csv is absent"));
  }
  blocks.push_back(size_breakdown(result, flows ? &*flows : nullptr));
  blocks.push_back(class_breakdown(result, flows ? &*flows : nullptr));
  return blocks;
}

namespace {

// Per-tier utilization and imbalance: result.json links.tiers (scenario::LinkLoads).
void add_tier_blocks(const Json& result, std::vector<Block>& blocks) {
  const Json* tiers = nullptr;
  if (result.contains("links") && result["links"].is_object() &&
      result["links"].contains("tiers") && result["links"]["tiers"].is_array() &&
      !result["links"]["tiers"].empty()) {
    tiers = &result["links"]["tiers"];
  }
  if (!tiers) {
    blocks.push_back(note_block("Utilization per tier", "result.json has no links.tiers groups"));
    return;
  }
  Json util = Json::array(), imbalance = Json::array();
  std::vector<std::string> labels, imbalance_labels;
  for (const Json& g : *tiers) {
    const std::string label = tier_label(g);
    labels.push_back(label);
    util.push_back(
        {{"category", label}, {"group", "mean"}, {"value", g.value("mean_utilization", 0.0)}});
    util.push_back(
        {{"category", label}, {"group", "max"}, {"value", g.value("max_utilization", 0.0)}});
    if (g.contains("imbalance") && g["imbalance"].is_number()) {
      imbalance_labels.push_back(label);
      imbalance.push_back(
          {{"category", label}, {"group", "max / mean"}, {"value", g["imbalance"]}});
    }
  }
  Block u;
  u.title = "Utilization per tier";
  u.caption =
      "Mean and busiest port's utilization (fraction of line rate over the traffic "
      "span) per tier and direction, from result.json links.tiers.";
  u.spec = grouped_bar_spec(std::move(util), labels, {"mean", "max"}, {"tier", "utilization"});
  blocks.push_back(std::move(u));
  if (imbalance_labels.empty()) {
    blocks.push_back(note_block("Imbalance per tier", "no tier carried traffic"));
    return;
  }
  Block b;
  b.title = "Imbalance per tier";
  b.caption =
      "max / mean utilization per tier and direction (1 = even; ECMP collisions and "
      "polarization raise it), from result.json links.tiers.";
  b.spec = grouped_bar_spec(std::move(imbalance), imbalance_labels, {"max / mean"},
                            {"tier", "imbalance"});
  blocks.push_back(std::move(b));
}

// Every node links.csv names, NICs then switches, by index ("nic10" after "nic9").
std::vector<std::string> heatmap_nodes(const Table& links) {
  const int from = links.column("from"), to = links.column("to");
  auto node_key = [](const std::string& label) {
    const size_t digits = label.find_first_of("0123456789");
    const std::string prefix = label.substr(0, digits);
    const long index = digits == std::string::npos ? 0 : std::atol(label.c_str() + digits);
    return std::make_tuple(prefix == "nic" ? 0 : 1, prefix, index);
  };
  std::set<std::string> node_set;
  for (size_t r = 0; r < links.size(); ++r) {
    node_set.insert(links.field(r, from));
    node_set.insert(links.field(r, to));
  }
  std::vector<std::string> nodes(node_set.begin(), node_set.end());
  std::sort(nodes.begin(), nodes.end(),
            [&](const std::string& a, const std::string& b) { return node_key(a) < node_key(b); });
  return nodes;
}

// Node x node: each cell one cable direction's utilization.
void fill_node_heatmap(const Table& links, const std::vector<std::string>& nodes, Block& b) {
  const int from = links.column("from"), to = links.column("to");
  const int util = links.column("utilization");
  // Parallel cables between the same two nodes: the busiest one's utilization.
  std::map<std::pair<std::string, std::string>, double> cell;
  for (size_t r = 0; r < links.size(); ++r) {
    const auto u = links.number(r, util);
    if (!u) continue;
    double& c = cell[{links.field(r, from), links.field(r, to)}];
    c = std::max(c, *u);
  }
  Json rows = Json::array();
  for (const auto& [key, value] : cell) {
    rows.push_back({{"row", key.first}, {"col", key.second}, {"value", value}});
  }
  b.caption =
      "Utilization of each cable direction (row = sending node, column = receiving "
      "node; parallel cables: the busiest), from links.csv.";
  b.spec = heatmap_spec(std::move(rows), nodes, nodes, {"to", "from"}, "utilization");
}

// Tier x tier, for fabrics above kMaxHeatmapNodes nodes: mean utilization per tier pair.
void fill_tier_heatmap(const Table& links, size_t node_count, Block& b) {
  const int from_tier = links.column("from_tier"), to_tier = links.column("to_tier");
  const int util = links.column("utilization");
  std::map<std::pair<std::string, std::string>, std::pair<double, int>> cell;  // sum, ports
  std::set<std::string> tier_set;
  for (size_t r = 0; r < links.size(); ++r) {
    const auto u = links.number(r, util);
    if (!u) continue;
    const std::string a = "tier " + links.field(r, from_tier);
    const std::string c = "tier " + links.field(r, to_tier);
    tier_set.insert(a);
    tier_set.insert(c);
    auto& [sum, n] = cell[{a, c}];
    sum += *u;
    ++n;
  }
  Json rows = Json::array();
  for (const auto& [key, value] : cell) {
    rows.push_back(
        {{"row", key.first}, {"col", key.second}, {"value", value.first / value.second}});
  }
  const std::vector<std::string> tier_list(tier_set.begin(), tier_set.end());
  b.caption = std::to_string(node_count) + " nodes exceed the node x node cap of " +
              std::to_string(kMaxHeatmapNodes) +
              ": mean utilization of the ports from each tier to each tier, from links.csv.";
  b.spec = heatmap_spec(std::move(rows), tier_list, tier_list, {"to tier", "from tier"},
                        "mean utilization");
}

// Heatmap from links.csv: node x node, or tier x tier above kMaxHeatmapNodes nodes.
Block heatmap_block(const std::optional<Table>& links) {
  const std::string heat_title = "Link utilization heatmap";
  if (!links) return note_block(heat_title, "links.csv is absent");
  const std::vector<std::string> nodes = heatmap_nodes(*links);
  Block b;
  b.title = heat_title;
  if (nodes.size() <= kMaxHeatmapNodes) {
    fill_node_heatmap(*links, nodes, b);
  } else {
    fill_tier_heatmap(*links, nodes.size(), b);
  }
  if (b.spec.text.find("\"values\":[]") != std::string::npos) {
    return note_block(heat_title, "links.csv has no utilization values");
  }
  return b;
}

// The hottest links: result.json hottest_links, else the top 10 of links.csv.
Block hottest_links_block(const Json& result, const std::optional<Table>& links) {
  const std::string hot_title = "Hottest links";
  const std::vector<std::string> hot_cols = {"link",  "utilization",           "peak_queue_bytes",
                                             "drops", "pause_frames_received", "ecn_marks"};
  std::vector<std::vector<std::string>> hot_rows;
  std::string hot_source;
  if (result.contains("hottest_links") && result["hottest_links"].is_array()) {
    hot_source = "result.json hottest_links";
    for (const Json& e : result["hottest_links"]) {
      std::vector<std::string> row;
      for (const std::string& c : hot_cols) {
        row.push_back(!e.contains(c)      ? ""
                      : e[c].is_string()  ? e[c].get<std::string>()
                      : e[c].is_number() ? link_cell(c, e[c].get<double>())
                                          : e[c].dump());
      }
      hot_rows.push_back(std::move(row));
    }
  } else if (links) {
    hot_source = "links.csv (top 10 by utilization)";
    std::vector<size_t> order(links->size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    const int util = links->column("utilization");
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      return links->number(a, util).value_or(-1) > links->number(b, util).value_or(-1);
    });
    for (size_t i = 0; i < std::min<size_t>(10, order.size()); ++i) {
      std::vector<std::string> row;
      for (const std::string& c : hot_cols) {
        const int col = links->column(c);
        const auto v = links->number(order[i], col);
        row.push_back(v ? link_cell(c, *v) : links->field(order[i], col));
      }
      hot_rows.push_back(std::move(row));
    }
  }
  if (hot_rows.empty()) {
    return note_block(hot_title, "result.json has no hottest_links and links.csv is absent");
  }
  Block b;
  b.title = hot_title;
  b.caption = "From " + hot_source + ".";
  b.html = html_table(hot_cols, hot_rows);
  return b;
}

}  // namespace

std::vector<Block> link_blocks(const fs::path& dir, const Json& result) {
  std::vector<Block> blocks;
  add_tier_blocks(result, blocks);
  const std::optional<Table> links =
      read_table(dir / "links.csv", false,
                 {"link", "from", "to", "from_tier", "to_tier", "utilization", "peak_queue_bytes",
                  "drops", "pause_frames_received", "ecn_marks"});
  blocks.push_back(heatmap_block(links));
  blocks.push_back(hottest_links_block(result, links));
  return blocks;
}

}  // namespace fabricsim::output::report
