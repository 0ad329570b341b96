#include "output/json.h"

#include "output/fct_breakdown.h"
#include "output/flow_stats.h"
#include "output/ping_pong_table.h"
#include "results/hottest_links.h"

namespace fabricsim::output {

using nlohmann::ordered_json;

namespace {

// fct_by_size / fct_by_class entries (output/fct_breakdown.h). Slowdowns are null when no
// completed flow of the group has an ideal FCT, FCTs null when none completed.
ordered_json fct_groups_json(const std::vector<FctGroup>& groups, bool by_size) {
  ordered_json out = ordered_json::array();
  for (const FctGroup& g : groups) {
    ordered_json e;
    if (by_size) {
      e["bucket"] = g.label;
      e["min_bytes"] = g.min_bytes;
      e["max_bytes"] = g.max_bytes >= 0 ? ordered_json(g.max_bytes) : nullptr;
    } else {
      e["class"] = g.traffic_class;
    }
    e["flows"] = g.flows;
    e["completed"] = g.completed;
    const bool done = g.completed > 0;
    e["fct_p50_ps"] = done ? ordered_json(g.fct_p50_ps) : nullptr;
    e["fct_p99_ps"] = done ? ordered_json(g.fct_p99_ps) : nullptr;
    e["fct_p999_ps"] = done ? ordered_json(g.fct_p999_ps) : nullptr;
    e["slowdown_p50"] = g.with_slowdown ? ordered_json(g.slowdown_p50) : nullptr;
    e["slowdown_p99"] = g.with_slowdown ? ordered_json(g.slowdown_p99) : nullptr;
    e["slowdown_p999"] = g.with_slowdown ? ordered_json(g.slowdown_p999) : nullptr;
    out.push_back(std::move(e));
  }
  return out;
}

// The helpers below build result.json's sections in the order result_to_json places them; each
// returns the section's value (null where the run has none, as the file documents it).

ordered_json collective_json(const scenario::CollectiveResult& c) {
  if (!c.present) return nullptr;
  // A collective that did not finish has no bandwidth: time -1 and null bandwidths, never a
  // 0 that reads as a measurement.
  const bool done = c.time_ps >= 0;
  return {{"op", c.op},
          {"algorithm", c.algorithm},
          {"ranks", c.ranks},
          {"size_bytes", c.size_bytes},
          {"time_ps", c.time_ps},
          {"algbw_gbytes_per_s", done ? ordered_json(c.algbw_gbytes_per_s) : nullptr},
          {"busbw_gbytes_per_s", done ? ordered_json(c.busbw_gbytes_per_s) : nullptr}};
}

// A job's nccl-tests rows (nccl-tests.csv holds the same).
ordered_json collective_rows_json(const std::vector<scenario::CollectiveRow>& collectives) {
  ordered_json rows = ordered_json::array();
  for (const scenario::CollectiveRow& c : collectives) {
    const bool done = c.time_ps >= 0;
    rows.push_back({{"op", c.op},
                    {"algorithm", c.algorithm},
                    {"protocol", c.protocol},
                    {"channels", c.channels},
                    {"ranks", c.ranks},
                    {"size_bytes", c.size_bytes},
                    {"count", c.count},
                    {"type", c.type},
                    {"redop", c.redop},
                    {"root", c.root},
                    {"time_ps", c.time_ps},
                    {"algbw_gbytes_per_s", done ? ordered_json(c.algbw_gbytes_per_s) : nullptr},
                    {"busbw_gbytes_per_s", done ? ordered_json(c.busbw_gbytes_per_s) : nullptr}});
  }
  return rows;
}

// A step breakdown (workload/step_breakdown.h): step = compute + bubble + skew + the comm parts.
ordered_json breakdown_json(const scenario::StepBreakdownResult& b, bool with_stage) {
  ordered_json comm = ordered_json::array();
  for (const scenario::CommPart& c : b.comm) {
    comm.push_back({{"parallelism", c.parallelism}, {"phase", c.phase}, {"time_ps", c.time_ps}});
  }
  ordered_json out;
  if (with_stage) out["stage"] = b.stage;
  out["rank"] = b.rank;
  out["step_ps"] = b.step_ps;
  out["compute_ps"] = b.compute_ps;
  out["bubble_ps"] = b.bubble_ps;
  out["skew_ps"] = b.skew_ps;
  out["exposed_comm_ps"] = b.exposed_comm_ps;
  out["comm"] = std::move(comm);
  return out;
}

// A step that did not finish (interrupted, stop_time) says how far it got: compute_ps,
// exposed_comm_ps and comm then cover its finished ops until elapsed_ps.
void add_progress_fields(const scenario::TrainingResult& t, ordered_json& j) {
  j["ops_finished"] = t.ops_finished;
  j["ops_total"] = t.ops_total;
  j["elapsed_ps"] = t.elapsed_ps;
}

ordered_json training_json(const scenario::TrainingResult& t) {
  if (!t.present) return nullptr;
  ordered_json stages = ordered_json::array();
  for (const scenario::StepBreakdownResult& b : t.stages) stages.push_back(breakdown_json(b, true));
  ordered_json ideal = nullptr;
  if (t.ideal_step_ps >= 0) {
    ideal = {{"step_time_ps", t.ideal_step_ps},
             {"network_ps", t.step_time_ps >= 0 ? ordered_json(t.network_ps) : nullptr},
             {"efficiency", t.step_time_ps > 0 ? ordered_json(t.ideal_efficiency) : nullptr},
             {"breakdown", t.has_ideal_breakdown ? breakdown_json(t.ideal_breakdown, false)
                                                 : ordered_json(nullptr)}};
  }
  ordered_json comm = ordered_json::array();
  for (const scenario::PhaseComm& pc : t.comm) {
    comm.push_back({{"phase", pc.phase},
                    {"collectives", pc.collectives},
                    {"bytes", pc.bytes},
                    {"time_ps", pc.time_ps}});
  }
  ordered_json colls = ordered_json::array();
  for (const scenario::StepCollective& c : t.collectives) {
    colls.push_back(
        {{"parallelism", c.parallelism},
         {"op", c.op},
         {"ranks", c.ranks},
         {"size_bytes", c.size_bytes},
         {"count", c.count},
         {"mean_time_ps", c.mean_time_ps},
         {"busbw_gbytes_per_s", c.busbw_gbytes_per_s},
         {"expected_busbw_gbytes_per_s",
          c.expected_busbw_gbytes_per_s > 0 ? ordered_json(c.expected_busbw_gbytes_per_s)
                                            : ordered_json(nullptr)}});
  }
  ordered_json j = {{"source", t.source},
          {"gpus", t.gpus},
          {"finished", t.finished()},
          {"step_time_ps", t.finished() ? ordered_json(t.step_time_ps) : nullptr},
          {"compute_ps", t.compute_ps},
          {"exposed_comm_ps", t.exposed_comm_ps},
          {"tflops_per_gpu", t.tflops_per_gpu},
          {"samples_per_step", t.samples_per_step},
          {"comm", std::move(comm)},
          {"collectives", std::move(colls)},
          {"step_timeline_dropped", t.stage_timeline_dropped},
          {"breakdown", t.has_breakdown ? breakdown_json(t.breakdown, false) : ordered_json(nullptr)},
          {"stages", std::move(stages)},
          {"ideal_network", std::move(ideal)}};
  add_progress_fields(t, j);
  return j;
}

// GPU runs: per job its GPUs and what it ran (the nccl-tests rows, or the training step).
ordered_json jobs_json(const std::vector<scenario::JobResult>& all) {
  if (all.empty()) return nullptr;
  ordered_json jobs = ordered_json::array();
  for (const scenario::JobResult& job : all) {
    ordered_json e;
    e["name"] = job.name;
    e["placement"] = job.placement;
    e["gpus"] = job.gpus.size();
    e["first_gpu"] = job.gpus.empty() ? 0 : job.gpus.front();
    e["start_ps"] = job.start_ps;
    e["end_ps"] = job.end_ps;
    e["alone_end_ps"] = job.alone_end_ps;
    e["slowdown"] = job.slowdown > 0 ? ordered_json(job.slowdown) : nullptr;
    // How long the job ran: its last op's end less its start (null while unfinished).
    e["time_ps"] = job.end_ps >= 0 ? ordered_json(job.end_ps - job.start_ps) : nullptr;
    e["collectives"] = collective_rows_json(job.collectives);
    e["training"] = training_json(job.training);
    jobs.push_back(std::move(e));
  }
  return jobs;
}

ordered_json node_resources_json(const std::vector<scenario::NodeResourceLoad>& loads) {
  if (loads.empty()) return nullptr;
  ordered_json res = ordered_json::array();
  for (const scenario::NodeResourceLoad& l : loads) {
    res.push_back({{"kind", l.kind},
                   {"resources", l.resources},
                   {"bytes", l.bytes},
                   {"mean_utilization", l.mean_utilization},
                   {"max_utilization", l.max_utilization}});
  }
  return res;
}

ordered_json scaling_json(const std::vector<scenario::ScalingPoint>& points) {
  if (points.empty()) return nullptr;
  ordered_json pts = ordered_json::array();
  for (const scenario::ScalingPoint& p : points) {
    pts.push_back({{"nodes", p.nodes},
                   {"gpus", p.gpus},
                   {"step_time_ps", p.step_time_ps},
                   {"acceleration_ratio",
                    p.step_time_ps > 0 ? ordered_json(p.acceleration_ratio) : nullptr}});
    if (p.ideal_step_time_ps >= 0) {
      pts.back()["ideal_step_time_ps"] = p.ideal_step_time_ps;
      pts.back()["ideal_efficiency"] =
          p.step_time_ps > 0 ? ordered_json(p.ideal_efficiency) : nullptr;
    }
    if (!p.algorithm.empty()) {
      pts.back()["busbw_gbytes_per_s"] =
          p.busbw_gbytes_per_s > 0 ? ordered_json(p.busbw_gbytes_per_s) : nullptr;
      pts.back()["algorithm"] = p.algorithm;
      pts.back()["protocol"] = p.protocol;
      pts.back()["channels"] = p.channels;
    }
  }
  return pts;
}

ordered_json flows_json(const FlowStats& f) {
  return {{"total", f.total},
          {"completed", f.completed},
          {"fct_p50_ps", f.fct_p50_ps},
          {"fct_p99_ps", f.fct_p99_ps},
          {"fct_max_ps", f.fct_max_ps},
          {"mean_slowdown", f.mean_slowdown},
          // Exact nearest-rank up to 2^18 completed flows, a DDSketch within 0.1% beyond
          // (core/quantile_digest.h).
          {"percentiles", f.sketched ? "nearest-rank, sketched (relative error <= 0.001)"
                                     : "nearest-rank"}};
}

ordered_json cost_json(const scenario::CostResult& c) {
  return {{"priced", c.priced},
          {"why_not", c.why_not},
          {"switch_model", c.switch_model},
          {"fabric_usd", c.price_usd},
          {"network_power_w", c.power_w},
          {"per", c.per_gpu ? "gpu" : "nic"},
          {"units", c.units}};
}

ordered_json steady_window_json(const scenario::SteadyWindowResult& w) {
  return {{"measured", w.measured},
          {"why_not", w.why_not},
          {"start_ps", w.start_ps},
          {"end_ps", w.end_ps},
          {"flows", w.flows},
          {"mean_goodput_gbps", w.mean_goodput_bps * 1e-9},
          {"min_goodput_gbps", w.min_goodput_bps * 1e-9},
          {"max_goodput_gbps", w.max_goodput_bps * 1e-9},
          {"mean_fraction_of_line_rate", w.mean_fraction},
          {"min_fraction_of_line_rate", w.min_fraction}};
}

// fabric.sharp.enabled (net/sharp.h)
ordered_json sharp_json(const scenario::SharpResult& s) {
  ordered_json trees = ordered_json::array();
  for (const auto& t : s.trees) {
    trees.push_back({{"id", t.id},
                     {"root_switch", t.root_switch},
                     {"nics", t.nics},
                     {"switches", t.switches},
                     {"ops_completed", t.ops_completed},
                     {"result_bytes", t.result_bytes}});
  }
  ordered_json failures = ordered_json::array();
  for (const auto& f : s.failures) failures.push_back({{"time_ps", f.time_ps}, {"reason", f.reason}});
  return {{"trees", trees}, {"failures", failures}, {"dropped_packets", s.dropped_packets}};
}

// fabric.nic.context_cache.enabled (net/nic_context_cache.h)
ordered_json context_cache_json(const scenario::ContextCacheResult& c) {
  return {{"entries", c.entries},
          {"context_bytes", c.context_bytes},
          {"miss_latency_ps", c.miss_latency_ps},
          {"hits", c.hits},
          {"misses", c.misses},
          {"miss_stall_ps", c.miss_stall_ps},
          {"max_nic_misses", c.max_nic_misses},
          {"max_connections_per_nic", c.max_connections_per_nic},
          {"total_connections", c.total_connections},
          {"max_nic_context_bytes", c.max_nic_context_bytes}};
}

ordered_json counters_json(const scenario::FabricCounters& n) {
  return {{"data_packets_sent", n.data_packets_sent},
          {"data_bytes_sent", n.data_bytes_sent},
          {"data_bytes_delivered", n.data_bytes_delivered},
          {"dropped_packets", n.dropped_packets},
          {"dropped_bytes", n.dropped_bytes},
          {"retransmitted_packets", n.retransmitted_packets},
          {"timeouts", n.timeouts},
          {"qp_errors", n.qp_errors},
          {"naks", n.naks},
          {"ack_packets", n.ack_packets},
          {"max_switch_buffer_bytes", n.max_switch_buffer_bytes},
          {"lossless_drops", n.lossless_drops},
          {"pause_frames", n.pause_frames},
          {"paused_ps", n.paused_ps},
          {"nic_ports_paused", n.nic_ports_paused},
          {"watchdog_storms", n.watchdog_storms},
          {"watchdog_drops", n.watchdog_drops},
          {"trimmed_packets", n.trimmed_packets},
          {"ecn_marks", n.ecn_marks},
          {"cnps", n.cnps},
          {"plb_repaths", n.plb_repaths},
          {"link_down_drops", n.link_down_drops},
          {"link_loss_drops", n.link_loss_drops},
          {"unroutable_drops", n.unroutable_drops},
          {"credit_packets", n.credit_packets},
          {"credit_waits", n.credit_waits},
          {"credit_violations", n.credit_violations},
          {"credit_stalls", n.credit_stalls},
          {"hoq_discards", n.hoq_discards},
          {"first_credit_stall_ps", n.first_credit_stall_ps},
          {"peak_vl_buffer_fraction", n.peak_vl_buffer_fraction},
          {"out_of_order_packets", n.out_of_order_packets},
          {"go_back_n_fallbacks", n.go_back_n_fallbacks},
          {"go_back_n_retransmits", n.go_back_n_retransmits},
          {"trims", n.trims},
          {"credits", n.credits},
          {"sack_retransmits", n.sack_retransmits},
          {"te_flows", n.te_flows},
          {"te_rules_installed", n.te_rules_installed},
          {"te_reoptimizations", n.te_reoptimizations},
          {"te_flows_moved", n.te_flows_moved},
          {"host_cpu_ps", n.host_cpu_ps},
          {"fast_recoveries", n.fast_recoveries}};
}

ordered_json failure_json(const scenario::FailureTimeline& f) {
  return {{"link", f.link.empty() ? ordered_json(nullptr) : ordered_json(f.link)},
          {"link_failed_ps", f.link_failed_ps},
          {"routes_restored_ps", f.routes_restored_ps},
          {"local_repair_ps", f.local_repair_ps},
          {"link_up_ps", f.link_up_ps},
          {"link_downs", f.link_downs},
          {"affected_qps", f.affected_qps},
          {"recovered_ps", f.recovered_ps},
          {"unrecovered_qps", f.unrecovered_qps}};
}

// InfiniBand: the SM routing engine asked for and the one used (they differ after a
// fat-tree fallback, with its reason); null on Ethernet.
ordered_json sm_json(const scenario::SmRouting& s) {
  if (!s.present) return nullptr;
  ordered_json sm = {{"engine_requested", s.engine_requested}, {"engine_used", s.engine_used}};
  if (s.fallback_reason.empty()) {
    sm["fallback_reason"] = nullptr;
  } else {
    sm["fallback_reason"] = s.fallback_reason;
  }
  sm["after_failure"] = s.after_failure;
  return sm;
}

// Utilization per tier and direction (scenario::LinkLoads); imbalance is null for a group
// that carried nothing.
ordered_json links_json(const scenario::LinkLoads& links) {
  ordered_json groups = ordered_json::array();
  for (const scenario::LinkGroupLoad& g : links.groups) {
    ordered_json e;
    e["tier"] = g.tier;
    e["direction"] = g.direction == scenario::LinkDirection::kUp ? "up" : "down";
    e["ports"] = g.ports;
    e["idle_ports"] = g.idle_ports;
    e["mean_utilization"] = g.mean_utilization;
    e["max_utilization"] = g.max_utilization;
    if (g.mean_utilization > 0) {
      e["imbalance"] = g.imbalance;
    } else {
      e["imbalance"] = nullptr;
    }
    groups.push_back(std::move(e));
  }
  return {{"start_ps", links.start_ps},
          {"end_ps", links.end_ps},
          {"span_ps", links.span_ps},
          {"tiers", std::move(groups)}};
}

// The ten busiest ports of links.csv (engine/packet/link_table.h hottest_links).
ordered_json hottest_links_json(const std::vector<scenario::LinkRow>& rows) {
  ordered_json hot = ordered_json::array();
  for (const scenario::LinkRow& l : scenario::hottest_links(rows, scenario::kHottestLinks)) {
    hot.push_back({{"link", l.link},
                   {"utilization", l.utilization},
                   {"peak_queue_bytes", l.peak_queue_bytes},
                   {"drops", l.drops},
                   {"pause_frames_received", l.pause_frames_received},
                   {"ecn_marks", l.ecn_marks}});
  }
  return hot;
}

}  // namespace

ordered_json result_to_json(const scenario::RunResult& r) {
  ordered_json j;
  j["scenario"] = r.scenario_name;
  j["seed"] = r.seed;
  j["mode"] = r.engine_mode;  // mode: packet or flow (docs/modes.md)
  if (!r.engine_notes.empty()) j["mode_notes"] = r.engine_notes;
  if (r.hybrid.present) {  // mode: hybrid: what was skipped (engine/hybrid/steady_skip.h)
    const scenario::RunResult::Hybrid& h = r.hybrid;
    j["hybrid"] = {{"epsilon", h.epsilon},
                   {"window_rtts", h.window_rtts},
                   {"window_ps", h.window_ps},
                   {"windows_sampled", h.windows_sampled},
                   {"skips", h.skips},
                   {"skips_cut_short", h.cut_short},
                   {"skipped_packets", h.skipped_packets},
                   {"skipped_bytes", h.skipped_bytes},
                   {"skipped_group_ps", h.skipped_group_ps},
                   {"skipped_fraction", h.skipped_fraction}};
  }
  j["technology"] = r.infiniband ? "ib" : r.uet ? "uet" : r.tcp ? "tcp" : r.iwarp ? "iwarp" : "roce";  // fabric.technology of the run
  j["fabric"] = r.fabric_description;
  j["sim_time_ps"] = r.sim_time_ps;
  j["completed"] = r.completed;
  j["partial"] = r.partial;  // interrupted (SIGINT/SIGTERM): figures cover [0, sim_time_ps]

  const scenario::TopologySummary& t = r.topology;
  j["topology"] = {{"description", t.description}, {"hosts", t.hosts}, {"nics", t.nics},
                   {"switches", t.switches},       {"links", t.links}, {"tiers", t.tiers}};
  j["collective"] = collective_json(r.collective);
  j["jobs"] = jobs_json(r.jobs);
  j["node_resources"] = node_resources_json(r.node_resources);
  j["scaling"] = scaling_json(r.scaling);

  j["flows"] = flows_json(r.flow_summary.stats);
  // By flow size and by class (issue 13): output/fct_breakdown.h for the edges and method.
  j["fct_by_size"] = fct_groups_json(r.flow_summary.by_size, true);
  j["fct_by_class"] = fct_groups_json(r.flow_summary.by_class, false);
  if (!r.ping_pong.empty()) j["ping_pong"] = ping_pong_json(r.ping_pong);  // pattern: ping_pong
  j["aggregate_throughput_gbps"] = r.aggregate_throughput_gbps;
  j["cost"] = cost_json(r.cost);
  if (r.steady_window_asked) j["steady_window"] = steady_window_json(r.steady_window);
  if (r.context_cache.present) j["context_cache"] = context_cache_json(r.context_cache);
  if (r.sharp.present) j["sharp"] = sharp_json(r.sharp);

  j["counters"] = counters_json(r.counters);
  if (r.failure.link_failed_ps >= 0) j["failure"] = failure_json(r.failure);
  j["sm"] = sm_json(r.sm);
  j["links"] = links_json(r.links);
  j["hottest_links"] = hottest_links_json(r.link_rows);
  return j;
}

ordered_json run_stats_to_json(const scenario::RunStats& s) {
  ordered_json j;
  j["events"] = s.events;
  j["wall_seconds"] = s.wall_seconds;
  j["build_seconds"] = s.build_seconds;
  j["events_per_second"] = s.events_per_second;
  j["data_packet_hops"] = s.data_packet_hops;
  j["peak_rss_bytes"] = s.peak_rss_bytes;
  j["sim_time_ps"] = s.sim_time_ps;
  j["peak_live_messages"] = s.peak_live_messages;
  if (s.partitions > 1 || !s.partition_note.empty()) {
    j["partitions"] = s.partitions;
    if (s.partitions > 1) {
      if (s.ranks > 1) {
        j["ranks"] = s.ranks;
        j["rank_build_seconds"] = s.rank_build_seconds;
        j["rank_peak_rss_bytes"] = s.rank_peak_rss_bytes;
      }
      j["lookahead_ps"] = s.lookahead_ps;
      j["windows"] = s.windows;
      j["partition_events"] = s.partition_events;
      j["partition_busy_seconds"] = s.partition_busy_seconds;
      j["serial_seconds"] = s.serial_seconds;
    }
    if (!s.partition_note.empty()) j["partition_note"] = s.partition_note;
  }
  return j;
}

std::string result_json_text(const scenario::RunResult& result) {
  return result_to_json(result).dump(2) + "\n";
}

std::string run_json_text(const scenario::RunStats& stats) {
  return run_stats_to_json(stats).dump(2) + "\n";
}

}  // namespace fabricsim::output
