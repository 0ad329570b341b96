// report.html blocks of a run's time series and timeline (output/report/report_sections.h).
#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "output/report/report_sections.h"
#include "output/report/report_specs.h"

namespace fabricsim::output::report {
namespace {

namespace fs = std::filesystem;

// Rows of `table` grouped by the value of `key` (file order kept inside each group).
std::map<std::string, std::vector<size_t>> group_rows(const Table& table, int key) {
  std::map<std::string, std::vector<size_t>> groups;
  for (size_t r = 0; r < table.size(); ++r) groups[table.field(r, key)].push_back(r);
  return groups;
}

// One line per series of `series_rows` (name -> rows), y = column `y` x `scale`; each series
// thinned to kMaxSeriesPoints / series count (thin_indices: evenly spaced, ends kept).
Json series_values(const Table& t,
                   const std::vector<std::pair<std::string, std::vector<size_t>>>& series, int y,
                   double scale) {
  Json rows = Json::array();
  const int time = t.column("time_ps");
  const size_t cap = std::max<size_t>(2, kMaxSeriesPoints / std::max<size_t>(1, series.size()));
  for (const auto& [name, members] : series) {
    for (size_t i : thin_indices(members.size(), cap)) {
      const auto ps = t.number(members[i], time);
      const auto v = t.number(members[i], y);
      if (!ps || !v) continue;
      rows.push_back({{"x", *ps * 1e-6}, {"y", *v * scale}, {"series", name}});
    }
  }
  return rows;
}

Block series_block(const std::string& title, const std::string& caption, Json rows,
                   const std::string& y_title) {
  if (rows.empty()) return note_block(title, "the samples of this quantity are all empty");
  Block b;
  b.title = title;
  b.caption = caption;
  b.spec = line_spec(std::move(rows), {"time (us)", y_title}, true);
  return b;
}

std::vector<Block> port_series(const fs::path& dir) {
  std::vector<Block> blocks;
  const std::optional<Table> t = read_table(dir / "timeseries_ports.csv", false,
                                            {"time_ps", "port", "link", "utilization",
                                             "queue_bytes", "paused_fraction", "credits_blocks"});
  if (!t) {
    blocks.push_back(note_block("Queue depth of the top ports",
                                "timeseries_ports.csv is absent "
                                "(outputs.timeseries)"));
    return blocks;
  }
  const int port = t->column("port"), link = t->column("link");
  const int queue = t->column("queue_bytes");
  // Top ports: the highest peak queue, ties by port id (numeric), at most kMaxTopPorts.
  std::vector<std::tuple<double, double, std::string>> peaks;  // -peak, port id, port
  std::map<std::string, std::vector<size_t>> by_port = group_rows(*t, port);
  std::map<std::string, std::string> names;
  for (const auto& [id, members] : by_port) {
    double peak = 0;
    for (size_t r : members) peak = std::max(peak, t->number(r, queue).value_or(0));
    peaks.emplace_back(-peak, std::atof(id.c_str()), id);
    names[id] =
        t->field(members.front(), link).empty() ? "port " + id : t->field(members.front(), link);
  }
  std::sort(peaks.begin(), peaks.end());
  std::vector<std::pair<std::string, std::vector<size_t>>> top;
  for (size_t i = 0; i < std::min(kMaxTopPorts, peaks.size()); ++i) {
    const std::string& id = std::get<2>(peaks[i]);
    top.emplace_back(names[id], by_port[id]);
  }
  const std::string which = "the " + std::to_string(top.size()) +
                            " sampled ports with the "
                            "highest peak queue (of " +
                            std::to_string(by_port.size()) + "), from timeseries_ports.csv";
  blocks.push_back(series_block("Queue depth of the top ports",
                                "Bytes queued at each sample instant, " + which + ".",
                                series_values(*t, top, queue, 1e-3), "queue (KB)"));
  blocks.push_back(series_block(
      "Paused fraction of the top ports",
      "Fraction of each interval some class was paused (PFC; on InfiniBand a VL waited for "
      "credits), " +
          which + ".",
      series_values(*t, top, t->column("paused_fraction"), 1.0), "paused fraction"));
  blocks.push_back(
      series_block("Utilization of the top ports",
                   "Wire bytes sent per interval x 8 / (rate x interval), " + which + ".",
                   series_values(*t, top, t->column("utilization"), 1.0), "utilization"));
  // IB credits: only when some sample has a value (empty on Ethernet).
  const int credits = t->column("credits_blocks");
  bool any_credits = false;
  for (size_t r = 0; r < t->size() && !any_credits; ++r)
    any_credits = t->number(r, credits).has_value();
  if (any_credits) {
    blocks.push_back(
        series_block("InfiniBand credits of the top ports",
                     "Credits available (64-byte blocks) summed over data VLs, " + which + ".",
                     series_values(*t, top, credits, 1.0), "credits (blocks)"));
  }
  return blocks;
}

Block qp_series(const fs::path& dir) {
  const std::string title = "Per-QP rate";
  const std::optional<Table> t =
      read_table(dir / "timeseries_qps.csv", false,
                 {"time_ps", "qp", "src_nic", "dst_nic", "rate_bps", "window_bytes"});
  if (!t) return note_block(title, "timeseries_qps.csv is absent (outputs.timeseries)");
  const int qp = t->column("qp"), rate = t->column("rate_bps"), window = t->column("window_bytes");
  bool any_rate = false;
  for (size_t r = 0; r < t->size() && !any_rate; ++r) any_rate = t->number(r, rate).has_value();
  // The first kMaxQps QPs by id (numeric).
  std::map<std::string, std::vector<size_t>> by_qp = group_rows(*t, qp);
  std::vector<std::pair<double, std::string>> ids;
  for (const auto& [id, members] : by_qp) ids.emplace_back(std::atof(id.c_str()), id);
  std::sort(ids.begin(), ids.end());
  std::vector<std::pair<std::string, std::vector<size_t>>> chosen;
  for (size_t i = 0; i < std::min(kMaxQps, ids.size()); ++i) {
    const std::vector<size_t>& members = by_qp[ids[i].second];
    const std::string src = t->field(members.front(), t->column("src_nic"));
    const std::string dst = t->field(members.front(), t->column("dst_nic"));
    chosen.emplace_back("qp" + ids[i].second + (src.empty() ? "" : " " + src + "->" + dst),
                        members);
  }
  const std::string which = "the first " + std::to_string(chosen.size()) + " QPs by id (of " +
                            std::to_string(by_qp.size()) + "), from timeseries_qps.csv";
  if (any_rate) {
    return series_block(title,
                        "Congestion-control sending rate (DCQCN: current rate) of " + which + ".",
                        series_values(*t, chosen, rate, 1e-9), "rate (Gb/s)");
  }
  return series_block("Per-QP window", "Congestion window (NSCC / TCP) of " + which + ".",
                      series_values(*t, chosen, window, 1e-3), "window (KB)");
}

Block nccl_bars(const Table& t) {
  const std::string title = "Collective bandwidth";
  const int size = t.column("size_bytes"), busbw = t.column("busbw_gbytes_per_s");
  const int op = t.column("op");
  Json rows = Json::array();
  std::vector<std::string> categories, groups;
  for (size_t r = 0; r < t.size(); ++r) {
    const auto bw = t.number(r, busbw);
    if (!bw) continue;
    const std::string cat = t.field(r, size);
    const std::string grp = t.field(r, op).empty() ? "busbw" : t.field(r, op);
    if (std::find(categories.begin(), categories.end(), cat) == categories.end())
      categories.push_back(cat);
    if (std::find(groups.begin(), groups.end(), grp) == groups.end()) groups.push_back(grp);
    rows.push_back({{"category", cat}, {"group", grp}, {"value", *bw}});
  }
  if (rows.empty()) return note_block(title, "nccl-tests.csv has no finished row");
  Block b;
  b.title = title;
  b.caption =
      "nccl-tests bus bandwidth per message size (bytes), from nccl-tests.csv (no "
      "trace.json: the per-rank timeline needs outputs.trace).";
  b.spec = grouped_bar_spec(std::move(rows), categories, groups, {"size (bytes)", "busbw (GB/s)"});
  return b;
}

}  // namespace

std::vector<Block> telemetry_blocks(const fs::path& dir) {
  std::vector<Block> blocks = port_series(dir);
  blocks.push_back(qp_series(dir));
  return blocks;
}

std::vector<Block> timeline_blocks(const fs::path& dir) {
  if (std::optional<Block> trace = trace_timeline_block(dir / "trace.json")) return {*trace};
  if (const std::optional<Table> nccl = read_table(dir / "nccl-tests.csv", true)) {
    return {nccl_bars(*nccl)};
  }
  return {note_block("Timeline", "trace.json and nccl-tests.csv are absent")};
}

}  // namespace fabricsim::output::report
