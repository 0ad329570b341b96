#include "output/compare.h"
#include "output/compare_sweep.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>

#include "core/units.h"
#include "output/flow_stats.h"
#include "output/marker.h"
#include "output/nccl_table.h"
#include "output/sig_digits.h"
#include "output/usd.h"
#include "output/write.h"

namespace fabricsim::output {
namespace {


// One metric row: the text per fabric and, for continuous metrics, the value behind it (for the
// ratio column); nullopt = a count or a figure the run does not have.
struct Row {
  std::string label;
  std::vector<std::string> cells;
  std::vector<std::optional<double>> values;
};

template <typename Fn>
Row make_row(const std::string& label, const std::vector<CompareMetrics>& ms, Fn cell) {
  Row row{label, {}, {}};
  for (const CompareMetrics& m : ms) {
    auto [text, value] = cell(m);
    row.cells.push_back(std::move(text));
    row.values.push_back(value);
  }
  return row;
}

using Cell = std::pair<std::string, std::optional<double>>;

Cell time_cell(int64_t ps, bool present) {
  if (!present) return {"-", std::nullopt};
  return {format_time(ps), static_cast<double>(ps)};
}

Cell count_cell(int64_t n) { return {std::to_string(n), std::nullopt}; }

// The shortest text that reads back to the same double, as result.json (nlohmann) writes it.
std::string exact(double v) { return nlohmann::json(v).dump(); }

void write_text(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

}  // namespace

CompareMetrics compare_metrics(const scenario::RunResult& r) {
  CompareMetrics m;
  const FlowStats& flows = r.flow_summary.stats;
  m.flows_total = flows.total;
  m.flows_completed = flows.completed;
  m.collective = r.collective.present;
  m.collective_done = r.collective.present && r.collective.time_ps >= 0;
  if (m.collective_done) {
    m.collective_time_ps = r.collective.time_ps;
    m.busbw_gbytes_per_s = r.collective.busbw_gbytes_per_s;
  }
  if (m.collective && !r.jobs.empty() && r.jobs[0].collectives.size() > 1) {
    m.sweep = r.jobs[0].collectives;
  }
  if (!r.jobs.empty() && r.jobs[0].training.present) {
    const scenario::TrainingResult& t = r.jobs[0].training;
    m.training = true;
    m.training_done = t.step_time_ps >= 0;
    if (m.training_done) {
      m.step_time_ps = t.step_time_ps;
      m.compute_ps = t.compute_ps;
      m.exposed_comm_ps = t.exposed_comm_ps;
      if (t.has_breakdown) {
        m.compute_ps = t.breakdown.compute_ps;
        m.bubble_ps = t.breakdown.bubble_ps;
        m.skew_ps = t.breakdown.skew_ps;
        m.exposed_comm_ps = t.breakdown.exposed_comm_ps;
        for (const scenario::CommPart& c : t.breakdown.comm) {
          auto it = std::find_if(m.exposed_by_parallelism.begin(), m.exposed_by_parallelism.end(),
                                 [&](const auto& e) { return e.first == c.parallelism; });
          if (it == m.exposed_by_parallelism.end()) {
            m.exposed_by_parallelism.emplace_back(c.parallelism, c.time_ps);
          } else {
            it->second += c.time_ps;
          }
        }
      }
      if (t.ideal_step_ps >= 0) {
        m.ideal_step_ps = t.ideal_step_ps;
        m.network_ps = t.network_ps;
        m.ideal_efficiency = t.ideal_efficiency;
      }
    }
  }
  if (flows.total > 0 && flows.completed == flows.total) {
    m.completion_ps = std::max(m.completion_ps, r.flow_summary.last_finish_ps);
  }
  m.fct_p50_ps = flows.fct_p50_ps;
  m.fct_p99_ps = flows.fct_p99_ps;
  m.aggregate_throughput_gbps = r.aggregate_throughput_gbps;
  const scenario::FabricCounters& n = r.counters;
  m.dropped_packets = n.dropped_packets;
  m.pause_frames = n.pause_frames;
  m.credit_waits = n.credit_waits;
  m.credit_stalls = n.credit_stalls;
  m.paused_ps = n.paused_ps;
  m.retransmitted_packets = n.retransmitted_packets;
  m.timeouts = n.timeouts;
  const scenario::FailureTimeline& f = r.failure;
  m.failed = f.link_failed_ps >= 0;
  if (m.failed && f.routes_restored_ps >= 0) m.no_route_ps = f.routes_restored_ps - f.link_failed_ps;
  if (m.failed && f.recovered_ps >= 0) m.recovery_ps = f.recovered_ps - f.link_failed_ps;
  if (m.failed && f.local_repair_ps >= 0) m.local_repair_ps = f.local_repair_ps - f.link_failed_ps;
  m.link_down_drops = n.link_down_drops;
  m.steady = r.steady_window.measured;
  m.steady_mean_fraction = r.steady_window.mean_fraction;
  m.steady_min_fraction = r.steady_window.min_fraction;
  m.out_of_order_packets = n.out_of_order_packets;
  if (r.cost.priced && r.cost.units > 0) {
    m.priced = true;
    m.per_gpu = r.cost.per_gpu;
    m.cost_per_unit_usd = r.cost.price_usd / static_cast<double>(r.cost.units);
    m.power_per_unit_w = r.cost.power_w / static_cast<double>(r.cost.units);
    m.fabric_musd = r.cost.price_usd * 1e-6;
  }
  m.max_switch_buffer_bytes = n.max_switch_buffer_bytes;
  m.trimmed_packets = n.trimmed_packets;
  m.context_cache = r.context_cache.present;
  m.context_misses = r.context_cache.misses;
  m.max_connections_per_nic = r.context_cache.max_connections_per_nic;
  m.max_nic_context_bytes = r.context_cache.max_nic_context_bytes;
  if (!r.ping_pong.empty() && r.ping_pong[0].iterations > 0) {
    m.ping_pong_one_way_ps = r.ping_pong[0].one_way_typical_ps;
  }
  m.host_cpu_ps = n.host_cpu_ps;
  m.messages = flows.total;
  return m;
}

namespace {

// nccl-tests' average busbw over a sweep's sizes; a run of one size (a variant may drop the
// sweep) counts as a sweep of that size; -1 when nothing finished.
double sweep_busbw(const CompareMetrics& m) {
  if (!m.sweep.empty()) return average_busbw(m.sweep);
  return m.collective_done ? m.busbw_gbytes_per_s : -1;
}

std::string topology_text(const scenario::TopologySummary& t) {
  return t.description + ": " + std::to_string(t.hosts) + " hosts, " + std::to_string(t.nics) +
         " NICs, " + std::to_string(t.switches) + " switches, " + std::to_string(t.links) +
         " links";
}

// One topology line when every run built the same fabric shape; otherwise one per run, named
// (variants may set other switches, radix or planes, and the first run's shape would then
// misdescribe the others).
std::string topology_lines(const FabricRuns& runs) {
  const std::string first = topology_text(runs.front().second.topology);
  const bool same = std::all_of(runs.begin(), runs.end(), [&](const auto& run) {
    return topology_text(run.second.topology) == first;
  });
  if (same) return "  topology   " + first + "\n";
  size_t width = 0;
  for (const auto& [name, result] : runs) width = std::max(width, name.size());
  std::string out;
  for (const auto& [name, result] : runs) {
    out += std::string(out.empty() ? "  topology   " : "             ") + name +
           std::string(width - name.size(), ' ') + "  " + topology_text(result.topology) + "\n";
  }
  return out;
}

// What every run shares, above the table: the scenario, the topology shape (each run's when
// they differ) and the workload.
std::string shared_text(const FabricRuns& runs, const CompareMetrics& first_metrics) {
  const scenario::RunResult& first = runs.front().second;
  std::string out =
      "  scenario   " + first.scenario_name + " (seed " + std::to_string(first.seed) + ")\n";
  out += topology_lines(runs);
  if (!first.jobs.empty() && first.jobs[0].training.present) {
    const scenario::TrainingResult& tr = first.jobs[0].training;
    out += "  workload   training step (" + tr.source + "), " + std::to_string(tr.gpus) +
           " GPUs\n";
  } else if (!first_metrics.sweep.empty()) {
    out += "  workload   " + sweep_description(first_metrics.sweep) + "\n";
  } else if (first.collective.present) {
    const scenario::CollectiveResult& c = first.collective;
    out += "  workload   " + c.op + " " + c.algorithm + ", " + std::to_string(c.ranks) +
           " ranks, " + format_bytes(c.size_bytes) + "\n";
  } else if (!first.ping_pong.empty()) {
    const workload::PingPongStats& pp = first.ping_pong.front();
    out += "  workload   ping-pong, " + std::to_string(first.ping_pong.size()) + " pair(s), " +
           format_bytes(pp.size_bytes) + ", " + std::to_string(pp.iterations) +
           " round trips (one-way latency = RTT / 2)\n";
  } else {
    out += "  workload   " + std::to_string(first_metrics.flows_total) + " flows\n";
  }
  out += "\n";
  return out;
}

// A training step's breakdown (step = compute + bubble + skew + exposed communication, each
// parallelism's share below it) and the ideal network's step beside it.
void add_step_rows(const std::vector<CompareMetrics>& ms, std::vector<Row>& rows) {
  rows.push_back(make_row("  compute", ms, [](const CompareMetrics& m) {
    return time_cell(m.compute_ps, m.training_done);
  }));
  rows.push_back(make_row("  pipeline bubble", ms, [](const CompareMetrics& m) {
    return time_cell(m.bubble_ps, m.training_done);
  }));
  if (std::any_of(ms.begin(), ms.end(), [](const CompareMetrics& m) { return m.skew_ps > 0; })) {
    rows.push_back(make_row("  skew", ms, [](const CompareMetrics& m) {
      return time_cell(m.skew_ps, m.training_done);
    }));
  }
  rows.push_back(make_row("  exposed comm", ms, [](const CompareMetrics& m) {
    return time_cell(m.exposed_comm_ps, m.training_done);
  }));
  std::vector<std::string> kinds;  // every parallelism any run exposed, in first-seen order
  for (const CompareMetrics& m : ms) {
    for (const auto& [kind, ps] : m.exposed_by_parallelism) {
      if (std::find(kinds.begin(), kinds.end(), kind) == kinds.end()) kinds.push_back(kind);
    }
  }
  for (const std::string& kind : kinds) {
    rows.push_back(make_row("    " + kind, ms, [&kind](const CompareMetrics& m) {
      int64_t ps = 0;
      for (const auto& [k, v] : m.exposed_by_parallelism) ps += k == kind ? v : 0;
      return time_cell(ps, m.training_done);
    }));
  }
  if (std::none_of(ms.begin(), ms.end(),
                   [](const CompareMetrics& m) { return m.ideal_step_ps >= 0; })) {
    return;
  }
  rows.push_back(make_row("ideal-network step", ms, [](const CompareMetrics& m) {
    return time_cell(m.ideal_step_ps, m.ideal_step_ps >= 0);
  }));
  rows.push_back(make_row("network-attributable", ms, [](const CompareMetrics& m) {
    return time_cell(m.network_ps, m.ideal_step_ps >= 0 && m.training_done);
  }));
  rows.push_back(make_row("efficiency vs ideal", ms, [](const CompareMetrics& m) -> Cell {
    if (m.ideal_step_ps < 0 || !m.training_done) return {"-", std::nullopt};
    return {format_fixed(100 * m.ideal_efficiency, 1) + " %", m.ideal_efficiency};
  }));
}

// The rows of what the workload achieved: flows, the collective or training step, ping-pong
// latency, completion time, FCT, throughput and the steady-window goodput.
void add_outcome_rows(const FabricRuns& runs, const std::vector<CompareMetrics>& ms,
                      bool collective, bool training, std::vector<Row>& rows) {
  const bool sweep =
      std::any_of(ms.begin(), ms.end(), [](const CompareMetrics& m) { return !m.sweep.empty(); });
  rows.push_back(make_row("flows completed", ms, [](const CompareMetrics& m) -> Cell {
    return {std::to_string(m.flows_completed) + " / " + std::to_string(m.flows_total),
            std::nullopt};
  }));
  if (collective && sweep) {
    // The first size alone would stand for the sweep: nccl-tests' own summary figure instead,
    // with every size in the table below.
    rows.push_back(make_row("avg busbw (sizes)", ms, [](const CompareMetrics& m) -> Cell {
      const double avg = sweep_busbw(m);
      if (avg < 0) return {"-", std::nullopt};
      return {format_fixed(avg, 2) + " GB/s", avg};
    }));
  } else if (collective) {
    rows.push_back(make_row("collective time", ms, [](const CompareMetrics& m) {
      return time_cell(m.collective_time_ps, m.collective_done);
    }));
    rows.push_back(make_row("busbw", ms, [](const CompareMetrics& m) -> Cell {
      if (!m.collective_done) return {"-", std::nullopt};
      return {format_fixed(m.busbw_gbytes_per_s, 2) + " GB/s", m.busbw_gbytes_per_s};
    }));
  }
  if (training) {
    rows.push_back(make_row("step time", ms, [](const CompareMetrics& m) {
      return time_cell(m.step_time_ps, m.training_done);
    }));
    add_step_rows(ms, rows);
  }
  if (std::any_of(ms.begin(), ms.end(),
                  [](const CompareMetrics& m) { return m.ping_pong_one_way_ps >= 0; })) {
    rows.push_back(make_row("one-way latency", ms, [](const CompareMetrics& m) -> Cell {
      if (m.ping_pong_one_way_ps < 0) return {"-", std::nullopt};
      return {format_fixed(m.ping_pong_one_way_ps * 1e-6, 3) + " us", m.ping_pong_one_way_ps};
    }));
  }
  rows.push_back(make_row("completion time", ms, [](const CompareMetrics& m) {
    return time_cell(m.completion_ps, m.completion_ps >= 0);
  }));
  rows.push_back(make_row("FCT p50", ms, [](const CompareMetrics& m) {
    return time_cell(m.fct_p50_ps, m.flows_completed > 0);
  }));
  rows.push_back(make_row("FCT p99", ms, [](const CompareMetrics& m) {
    return time_cell(m.fct_p99_ps, m.flows_completed > 0);
  }));
  rows.push_back(make_row("throughput", ms, [](const CompareMetrics& m) -> Cell {
    return {format_rate(m.aggregate_throughput_gbps * 1e9), m.aggregate_throughput_gbps};
  }));
  if (std::any_of(runs.begin(), runs.end(),
                  [](const auto& run) { return run.second.steady_window_asked; })) {
    rows.push_back(make_row("goodput mean (steady)", ms, [](const CompareMetrics& m) -> Cell {
      if (!m.steady) return {"-", std::nullopt};
      return {format_fixed(100 * m.steady_mean_fraction, 1) + " %", m.steady_mean_fraction};
    }));
    rows.push_back(make_row("goodput min (steady)", ms, [](const CompareMetrics& m) -> Cell {
      if (!m.steady) return {"-", std::nullopt};
      return {format_fixed(100 * m.steady_min_fraction, 1) + " %", m.steady_min_fraction};
    }));
  }
}

// The rows of what the fabric did on the way: buffers, drops, flow control, retransmits,
// reordering, NIC context, host CPU and a link failure's recovery.
void add_fabric_rows(const std::vector<CompareMetrics>& ms, std::vector<Row>& rows) {
  rows.push_back(make_row("peak switch buffer", ms, [](const CompareMetrics& m) -> Cell {
    return {format_bytes(m.max_switch_buffer_bytes), std::nullopt};
  }));
  rows.push_back(
      make_row("drops", ms, [](const CompareMetrics& m) { return count_cell(m.dropped_packets); }));
  if (std::any_of(ms.begin(), ms.end(), [](const CompareMetrics& m) { return m.trimmed_packets > 0; })) {
    rows.push_back(make_row("trimmed packets", ms, [](const CompareMetrics& m) {
      return count_cell(m.trimmed_packets);
    }));
  }
  rows.push_back(make_row("PFC pause frames", ms,
                          [](const CompareMetrics& m) { return count_cell(m.pause_frames); }));
  rows.push_back(make_row("IB credit waits", ms,
                          [](const CompareMetrics& m) { return count_cell(m.credit_waits); }));
  rows.push_back(make_row("IB credit stalls", ms,
                          [](const CompareMetrics& m) { return count_cell(m.credit_stalls); }));
  rows.push_back(make_row("pause/credit wait, port sum", ms, [](const CompareMetrics& m) -> Cell {
    return {format_time(m.paused_ps), std::nullopt};
  }));
  rows.push_back(make_row("retransmits", ms, [](const CompareMetrics& m) {
    return count_cell(m.retransmitted_packets);
  }));
  rows.push_back(
      make_row("timeouts", ms, [](const CompareMetrics& m) { return count_cell(m.timeouts); }));
  rows.push_back(make_row("reordered packets", ms, [](const CompareMetrics& m) {
    return count_cell(m.out_of_order_packets);
  }));
  if (std::any_of(ms.begin(), ms.end(), [](const CompareMetrics& m) { return m.context_cache; })) {
    rows.push_back(make_row("connections per NIC", ms, [](const CompareMetrics& m) {
      return count_cell(m.max_connections_per_nic);
    }));
    rows.push_back(make_row("NIC context memory", ms, [](const CompareMetrics& m) -> Cell {
      return {format_bytes(m.max_nic_context_bytes), std::nullopt};
    }));
    rows.push_back(make_row("context misses", ms, [](const CompareMetrics& m) {
      return count_cell(m.context_misses);
    }));
  }
  // Kernel TCP's host CPU (syscalls, per-segment stack work, copies); RDMA and iWARP spend none.
  if (std::any_of(ms.begin(), ms.end(), [](const CompareMetrics& m) { return m.host_cpu_ps > 0; })) {
    rows.push_back(make_row("host CPU in stack", ms, [](const CompareMetrics& m) -> Cell {
      return {format_time(m.host_cpu_ps), std::nullopt};
    }));
    rows.push_back(make_row("host CPU per message", ms, [](const CompareMetrics& m) -> Cell {
      return {format_time(m.messages > 0 ? m.host_cpu_ps / m.messages : 0), std::nullopt};
    }));
  }
  if (std::any_of(ms.begin(), ms.end(), [](const CompareMetrics& m) { return m.failed; })) {
    rows.push_back(make_row("local repair", ms, [](const CompareMetrics& m) {
      return time_cell(m.local_repair_ps, m.local_repair_ps >= 0);
    }));
    rows.push_back(make_row("without route", ms, [](const CompareMetrics& m) {
      return time_cell(m.no_route_ps, m.no_route_ps >= 0);
    }));
    rows.push_back(make_row("recovery", ms, [](const CompareMetrics& m) {
      return time_cell(m.recovery_ps, m.recovery_ps >= 0);
    }));
    rows.push_back(make_row("link-down drops", ms, [](const CompareMetrics& m) {
      return count_cell(m.link_down_drops);
    }));
  }
}

// Cost (resolve/cost/bom.h; docs/cost.md): per GPU, and the run's headline figure per million USD
// of network (busbw for a collective, steps per hour for training, else throughput).
void add_cost_rows(const std::vector<CompareMetrics>& ms, bool collective, bool training,
                   std::vector<Row>& rows) {
  if (std::none_of(ms.begin(), ms.end(), [](const CompareMetrics& m) { return m.priced; })) return;
  const bool gpus = std::all_of(ms.begin(), ms.end(),
                                [](const CompareMetrics& m) { return !m.priced || m.per_gpu; });
  const std::string per = gpus ? "GPU" : "NIC";
  rows.push_back(make_row("network cost per " + per, ms, [](const CompareMetrics& m) -> Cell {
    if (!m.priced) return {"-", std::nullopt};
    return {format_usd(m.cost_per_unit_usd), m.cost_per_unit_usd};
  }));
  rows.push_back(make_row("network power per " + per, ms, [](const CompareMetrics& m) -> Cell {
    if (!m.priced) return {"-", std::nullopt};
    return {format_fixed(m.power_per_unit_w, 1) + " W", m.power_per_unit_w};
  }));
  const bool sweep =
      std::any_of(ms.begin(), ms.end(), [](const CompareMetrics& m) { return !m.sweep.empty(); });
  if (collective && sweep) {
    rows.push_back(make_row("avg busbw per network $M", ms, [](const CompareMetrics& m) -> Cell {
      const double avg = sweep_busbw(m);
      if (!m.priced || avg < 0) return {"-", std::nullopt};
      const double v = avg / m.fabric_musd;
      return {format_fixed(v, 2) + " GB/s", v};
    }));
  } else if (collective) {
    rows.push_back(make_row("busbw per network $M", ms, [](const CompareMetrics& m) -> Cell {
      if (!m.priced || !m.collective_done) return {"-", std::nullopt};
      const double v = m.busbw_gbytes_per_s / m.fabric_musd;
      return {format_fixed(v, 2) + " GB/s", v};
    }));
  } else if (training) {
    rows.push_back(make_row("steps/hour per network $M", ms, [](const CompareMetrics& m) -> Cell {
      if (!m.priced || !m.training_done || m.step_time_ps <= 0) return {"-", std::nullopt};
      const double v = 3600e12 / static_cast<double>(m.step_time_ps) / m.fabric_musd;
      return {format_sig(v), v};  // four significant digits, as every other figure
    }));
  } else {
    rows.push_back(make_row("throughput per network $M", ms, [](const CompareMetrics& m) -> Cell {
      if (!m.priced) return {"-", std::nullopt};
      const double v = m.aggregate_throughput_gbps / m.fabric_musd;
      return {format_rate(v * 1e9), v};
    }));
  }
}

// The header row and `rows` aligned, labels left and values right-aligned under their fabric.
std::string aligned_table_text(const FabricRuns& runs, std::vector<Row>& rows) {
  // Two fabrics: first / second, the figure a reader computes anyway.
  const bool ratio = runs.size() == 2;
  Row header{"fabric", {}, {}};
  for (const auto& [fabric, result] : runs) header.cells.push_back(fabric);
  if (ratio) {
    header.cells.push_back(runs[0].first + "/" + runs[1].first);
    for (Row& row : rows) {
      const auto& v = row.values;
      row.cells.push_back(v[0] && v[1] && *v[0] > 0 && *v[1] > 0 ? format_fixed(*v[0] / *v[1], 3) : "");
    }
  }

  size_t label_width = header.label.size();
  std::vector<size_t> widths(header.cells.size());
  for (size_t i = 0; i < widths.size(); ++i) widths[i] = header.cells[i].size();
  for (const Row& row : rows) {
    label_width = std::max(label_width, row.label.size());
    for (size_t i = 0; i < widths.size(); ++i) widths[i] = std::max(widths[i], row.cells[i].size());
  }
  auto line = [&](const Row& row) {
    std::string text = "  " + row.label + std::string(label_width - row.label.size(), ' ');
    for (size_t i = 0; i < widths.size(); ++i) {
      text += std::string(3 + widths[i] - row.cells[i].size(), ' ') + row.cells[i];
    }
    while (!text.empty() && text.back() == ' ') text.pop_back();
    return text + "\n";
  };
  std::string out = line(header);
  for (const Row& row : rows) out += line(row);
  return out;
}

// compare.csv's training columns, each preceded by its comma; empty fields when the run has
// no finished step (or no ideal run).
std::string training_csv_fields(const CompareMetrics& m) {
  const bool done = m.training_done;
  auto field = [](bool present, const std::string& text) { return "," + (present ? text : ""); };
  std::string out = field(done, std::to_string(m.compute_ps)) +
                    field(done, std::to_string(m.bubble_ps)) +
                    field(done, std::to_string(m.skew_ps));
  int64_t other = 0;
  for (const auto& [kind, ps] : m.exposed_by_parallelism) {
    bool listed = false;
    for (const char* k : kCompareCsvParallelisms) listed |= kind == k;
    if (!listed) other += ps;
  }
  for (const char* k : kCompareCsvParallelisms) {
    int64_t ps = 0;
    for (const auto& [kind, v] : m.exposed_by_parallelism) ps += kind == k ? v : 0;
    out += field(done, std::to_string(ps));
  }
  out += field(done, std::to_string(other));
  const bool ideal = m.ideal_step_ps >= 0;
  out += field(ideal, std::to_string(m.ideal_step_ps)) +
         field(ideal && done, std::to_string(m.network_ps)) +
         field(ideal && done && m.step_time_ps > 0, exact(m.ideal_efficiency));
  // Steps per hour, and per million USD of network (the table's "steps/hour per network $M").
  const bool rate = done && m.step_time_ps > 0;
  const double per_hour = rate ? 3600e12 / static_cast<double>(m.step_time_ps) : 0;
  out += field(rate, exact(per_hour)) +
         field(rate && m.priced && m.fabric_musd > 0, exact(per_hour / m.fabric_musd));
  return out;
}

}  // namespace

std::string format_compare_table(const FabricRuns& runs) {
  std::vector<CompareMetrics> ms;
  bool collective = false;
  bool training = false;
  for (const auto& [fabric, result] : runs) {
    ms.push_back(compare_metrics(result));
    collective |= ms.back().collective;
    training |= ms.back().training;
  }
  std::vector<Row> rows;
  add_outcome_rows(runs, ms, collective, training, rows);
  add_fabric_rows(ms, rows);
  add_cost_rows(ms, collective, training, rows);
  return shared_text(runs, ms.front()) + aligned_table_text(runs, rows) +
         sweep_table_text(runs, ms);
}

std::string compare_csv_text(const FabricRuns& runs) {
  std::string out = std::string(kCompareCsvHeader) + "\n";
  for (const auto& [fabric, result] : runs) {
    const CompareMetrics m = compare_metrics(result);
    const bool done = m.collective_done;
    out += fabric + "," + std::to_string(m.flows_total) + "," + std::to_string(m.flows_completed) +
           "," + (done ? std::to_string(m.collective_time_ps) : "") + "," +
           (done ? exact(m.busbw_gbytes_per_s) : "") + "," +
           (m.completion_ps >= 0 ? std::to_string(m.completion_ps) : "") + "," +
           std::to_string(m.fct_p50_ps) + "," + std::to_string(m.fct_p99_ps) + "," +
           exact(m.aggregate_throughput_gbps) + "," + std::to_string(m.dropped_packets) + "," +
           std::to_string(m.pause_frames) + "," + std::to_string(m.credit_waits) + "," +
           std::to_string(m.credit_stalls) + "," + std::to_string(m.paused_ps) + "," +
           std::to_string(m.retransmitted_packets) + "," + std::to_string(m.timeouts) + "," +
           (m.training_done ? std::to_string(m.step_time_ps) : "") + "," +
           (m.training_done ? std::to_string(m.exposed_comm_ps) : "") + "," +
           (result.partial ? "true" : "false") + "," +
           (m.steady ? exact(m.steady_mean_fraction) : "") + "," +
           (m.steady ? exact(m.steady_min_fraction) : "") + "," +
           std::to_string(m.out_of_order_packets) + "," +
           (m.priced ? exact(m.cost_per_unit_usd) : "") + "," +
           (m.priced ? exact(m.power_per_unit_w) : "") + "," + std::to_string(m.host_cpu_ps) +
           training_csv_fields(m) + "\n";
  }
  return out;
}

void write_compare_files(const std::filesystem::path& root, const FabricRuns& runs) {
  write_marker(root);
  for (const auto& [fabric, result] : runs) write_run_files(root / fabric, result);
  write_text(root / "compare.csv", compare_csv_text(runs));
}

}  // namespace fabricsim::output
