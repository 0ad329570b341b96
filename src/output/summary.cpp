#include "output/summary.h"

#include <algorithm>
#include <cstdio>
#include <utility>
#include <vector>

#include "core/units.h"
#include "output/fct_breakdown.h"
#include "output/flow_stats.h"
#include "output/links_csv.h"
#include "output/nccl_table.h"
#include "output/ping_pong_table.h"
#include "results/hottest_links.h"

namespace fabricsim::output {
namespace {


std::string count(int64_t v) { return std::to_string(v); }

// Display width of a UTF-8 label (the link rows' arrows are one column, three bytes).
size_t columns(const std::string& s) {
  size_t n = 0;
  for (const char c : s) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

std::string tier_name(int tier) { return tier == 0 ? "NIC" : "t" + std::to_string(tier); }

// "uplinks t1→t2": the group's sending and receiving tiers.
std::string link_label(const scenario::LinkGroupLoad& g) {
  const bool up = g.direction == scenario::LinkDirection::kUp;
  const std::string low = tier_name(g.tier), high = tier_name(g.tier + 1);
  return up ? "uplinks " + low + "→" + high : "downlinks " + high + "→" + low;
}

std::string percent(double fraction) { return format_fixed(fraction * 100.0, 1) + "%"; }

// The summary's rows, (label, value), in the order they are printed; the helpers below each add
// one part of them.
using Rows = std::vector<std::pair<std::string, std::string>>;

// A size sweep: r.collective is its first (smallest) size only, so the rows describe the sweep
// and its headline figures, nccl-tests' (the largest size's busbw and the average over the
// sizes); the nccl-tests table below has one row per size.
void add_sweep_rows(const std::vector<scenario::CollectiveRow>& sizes, Rows& rows) {
  const auto finished = std::count_if(sizes.begin(), sizes.end(),
                                      [](const scenario::CollectiveRow& s) { return s.time_ps >= 0; });
  rows.emplace_back("collective", sweep_description(sizes) + ", " + count(finished) + " finished" +
                                      " (one row each in the nccl-tests table below)");
  const scenario::CollectiveRow& largest = sizes.back();
  const double avg = average_busbw(sizes);
  rows.emplace_back("bandwidth",
                    (largest.time_ps >= 0 ? "algbw " + format_fixed(largest.algbw_gbytes_per_s, 2) +
                                                " GB/s, busbw " +
                                                format_fixed(largest.busbw_gbytes_per_s, 2) + " GB/s"
                                          : std::string("not finished")) +
                        " at " + format_bytes(largest.size_bytes) + "; average busbw over the sizes " +
                        (avg >= 0 ? format_fixed(avg, 2) + " GB/s" : std::string("-")));
}

// What ran and for how long: scenario, fabric, topology, simulated time, flows, the collective.
void add_run_rows(const scenario::RunResult& r, const FlowStats& flows, Rows& rows) {
  rows.emplace_back("scenario", r.scenario_name + " (seed " + std::to_string(r.seed) + ")");
  if (!r.fabric_description.empty()) rows.emplace_back("fabric", r.fabric_description);
  if (r.engine_mode != "packet") {  // docs/modes.md
    rows.emplace_back("mode", r.engine_mode + ": fluid flows at max-min fair shares");
    for (const std::string& note : r.engine_notes) rows.emplace_back("", note);
  }
  const scenario::TopologySummary& t = r.topology;
  rows.emplace_back("topology", t.description + ": " + count(t.hosts) + " hosts, " + count(t.nics) +
                                    " NICs, " + count(t.switches) + " switches, " + count(t.links) +
                                    " links");
  rows.emplace_back("sim time", format_time(r.sim_time_ps) +
                                    (r.partial     ? " (interrupted)"
                                     : r.completed ? ""
                                                   : " (stopped before every flow finished)"));
  rows.emplace_back("flows", count(flows.completed) + " / " + count(flows.total) + " completed");
  const scenario::CollectiveResult& c = r.collective;
  if (c.present && !r.jobs.empty() && r.jobs[0].collectives.size() > 1) {
    add_sweep_rows(r.jobs[0].collectives, rows);
  } else if (c.present && c.time_ps < 0) {  // stopped (stop_time, interrupted, QP errors) before the end
    rows.emplace_back("collective", c.op + " " + c.algorithm + ", " + count(c.ranks) + " ranks, " +
                                        format_bytes(c.size_bytes) + ", not finished");
  } else if (c.present) {
    rows.emplace_back("collective", c.op + " " + c.algorithm + ", " + count(c.ranks) + " ranks, " +
                                        format_bytes(c.size_bytes) + " in " +
                                        format_time(c.time_ps));
    // nccl-tests units: GB/s = 1e9 bytes per second.
    rows.emplace_back("bandwidth", "algbw " + format_fixed(c.algbw_gbytes_per_s, 2) + " GB/s, busbw " +
                                       format_fixed(c.busbw_gbytes_per_s, 2) + " GB/s");
  }
}

// "compute 1.2 ms + pipeline bubble 300 us [+ skew ..] + exposed communication 80 us (x%)".
std::string breakdown_text(const scenario::StepBreakdownResult& b) {
  const auto share = [&](int64_t ps) {
    return b.step_ps > 0 ? " (" + percent(static_cast<double>(ps) / static_cast<double>(b.step_ps)) + ")"
                         : std::string();
  };
  return "compute " + format_time(b.compute_ps) + " + pipeline bubble " + format_time(b.bubble_ps) +
         share(b.bubble_ps) +
         (b.skew_ps > 0 ? " + skew " + format_time(b.skew_ps) + share(b.skew_ps) : std::string()) +
         " + exposed communication " + format_time(b.exposed_comm_ps) + share(b.exposed_comm_ps);
}

// The step breakdown (workload/step_breakdown.h) of the critical rank, its exposed
// communication by parallelism and phase, each pipeline stage's, and the ideal network's step.
void add_breakdown_rows(const scenario::TrainingResult& t, Rows& rows) {
  const scenario::StepBreakdownResult& b = t.breakdown;
  rows.emplace_back("  step", format_time(t.step_time_ps) + " = " + breakdown_text(b) +
                                  ", critical rank " + count(b.rank));
  std::string parallelism;  // the comm cells grouped by parallelism, in their order
  for (size_t i = 0; i < b.comm.size();) {
    size_t j = i;
    int64_t sum = 0;
    std::string phases;
    for (; j < b.comm.size() && b.comm[j].parallelism == b.comm[i].parallelism; ++j) {
      sum += b.comm[j].time_ps;
      phases += (phases.empty() ? "" : ", ") + b.comm[j].phase + " " + format_time(b.comm[j].time_ps);
    }
    parallelism += (parallelism.empty() ? "" : "; ") + b.comm[i].parallelism + " " +
                   format_time(sum) + " (" + phases + ")";
    i = j;
  }
  if (!parallelism.empty()) rows.emplace_back("  exposed comm", parallelism);
  if (t.stages.size() > 1) {
    for (const scenario::StepBreakdownResult& st : t.stages) {
      rows.emplace_back("  stage " + count(st.stage), breakdown_text(st) + ", rank " + count(st.rank));
    }
  }
  if (t.ideal_step_ps >= 0 && t.step_time_ps > 0) {
    rows.emplace_back(
        "  ideal network",
        "step " + format_time(t.ideal_step_ps) + "; network-attributable " +
            format_time(t.network_ps) + " (" +
            percent(static_cast<double>(t.network_ps) / static_cast<double>(t.step_time_ps)) +
            " of the step); efficiency vs ideal " + percent(t.ideal_efficiency));
  }
}

// A training job's step: compute and exposed communication, throughput, each phase's traffic.
void add_training_rows(const scenario::TrainingResult& t, Rows& rows) {
  if (!t.finished()) {
    // Obviously partial: how far the step got, then what its finished ops did until then.
    rows.emplace_back("  step", "NOT FINISHED: " + count(t.ops_finished) + " of " +
                                    count(t.ops_total) + " ops done in " +
                                    format_time(t.elapsed_ps) + " simulated");
    rows.emplace_back("  so far", "compute " + format_time(t.compute_ps) +
                                      " + exposed communication " +
                                      format_time(t.exposed_comm_ps) + " (finished ops only)");
    for (const scenario::PhaseComm& pc : t.comm) {
      rows.emplace_back("  " + pc.phase, count(pc.collectives) + " collectives finished, " +
                                             format_bytes(pc.bytes) + ", " +
                                             format_time(pc.time_ps) + " summed");
    }
    return;
  }
  if (t.has_breakdown) {
    add_breakdown_rows(t, rows);
  } else {
    rows.emplace_back(
        "  step",
        format_time(t.step_time_ps) + " = compute " + format_time(t.compute_ps) +
            " + exposed communication " + format_time(t.exposed_comm_ps) + " (" +
            percent(static_cast<double>(t.exposed_comm_ps) / static_cast<double>(t.step_time_ps)) +
            ")");
  }
  if (t.tflops_per_gpu > 0) {
    rows.emplace_back("  throughput", format_fixed(t.tflops_per_gpu, 1) + " model TFLOPS per GPU");
  }
  for (const scenario::PhaseComm& pc : t.comm) {
    rows.emplace_back("  " + pc.phase, count(pc.collectives) + " collectives, " +
                                           format_bytes(pc.bytes) + ", " + format_time(pc.time_ps) +
                                           " summed");
  }
}

// GPU jobs: each one's GPUs, when it finished and its slowdown; then its training step.
void add_job_rows(const scenario::RunResult& r, Rows& rows) {
  for (const scenario::JobResult& job : r.jobs) {
    const std::string label = r.jobs.size() > 1 ? "job " + job.name : std::string("job");
    // Several jobs: each one's own time (end - start) and, for one collective size, its busbw.
    std::string own;
    if (r.jobs.size() > 1 && job.end_ps >= 0) {
      if (job.start_ps > 0) own = "took " + format_time(job.end_ps - job.start_ps);
      if (job.collectives.size() == 1 && job.collectives.front().time_ps >= 0) {
        own += (own.empty() ? "busbw " : ", busbw ") +
               format_fixed(job.collectives.front().busbw_gbytes_per_s, 2) + " GB/s";
      }
      if (!own.empty()) own = " (" + own + ")";
    }
    rows.emplace_back(label, count(static_cast<int64_t>(job.gpus.size())) + " GPUs (" +
                                 job.placement + ")" +
                                 (job.end_ps >= 0 ? ", done at " + format_time(job.end_ps) + own
                                                  : std::string(", not finished")) +
                                 (job.slowdown > 0 ? ", alone " + format_time(job.alone_end_ps) +
                                                         ": slowdown " + format_fixed(job.slowdown, 3)
                                                   : std::string()));
    if (job.training.present) add_training_rows(job.training, rows);
  }
}

// Node resources, ping-pong, FCT, throughput, the steady window, the time series and the
// utilization of each link group.
void add_traffic_rows(const scenario::RunResult& r, const FlowStats& flows, Rows& rows) {
  for (const scenario::NodeResourceLoad& l : r.node_resources) {
    rows.emplace_back(l.kind, format_bytes(l.bytes) + ", mean " + percent(l.mean_utilization) +
                                  ", max " + percent(l.max_utilization) + " (" +
                                  count(l.resources) + ")");
  }
  ping_pong_summary_rows(r.ping_pong, rows);  // pattern: ping_pong
  if (flows.completed > 0) {
    rows.emplace_back("FCT", "p50 " + format_time(flows.fct_p50_ps) + ", p99 " +
                                 format_time(flows.fct_p99_ps) + ", max " +
                                 format_time(flows.fct_max_ps));
    rows.emplace_back("slowdown", "mean " + format_fixed(flows.mean_slowdown, 3) + " (FCT / ideal FCT)");
  } else if (flows.total == 0) {
    // Nothing went through the transport (NVLink only, or IB SHARP streams): say so rather than
    // leave the rows out.
    rows.emplace_back("FCT", "- (no transport messages)");
    rows.emplace_back("slowdown", "- (no transport messages)");
  }
  rows.emplace_back("throughput", format_rate(r.aggregate_throughput_gbps * 1e9) + " aggregate");
  if (r.steady_window_asked) {
    const scenario::SteadyWindowResult& w = r.steady_window;
    rows.emplace_back("steady goodput",
                      w.measured ? "mean " + percent(w.mean_fraction) + ", min " +
                                       percent(w.min_fraction) + " of line rate per flow (" +
                                       format_time(w.start_ps) + " to " + format_time(w.end_ps) +
                                       ", " + count(w.flows) + " flows)"
                                 : "not measured: " + w.why_not);
  }
  if (r.telemetry.present) {  // outputs.timeseries (engine/packet/telemetry.h)
    const scenario::TelemetryResult& t = r.telemetry;
    std::string value = count(static_cast<int64_t>(t.times_ps.size())) + " samples every " +
                        format_time(t.interval_ps) + ", " + count(static_cast<int64_t>(t.ports.size())) + " ports, " +
                        count(static_cast<int64_t>(t.qps.size())) + " QPs";
    if (t.truncated && t.times_ps.size() >= 2) {
      value += "; max_samples reached: the last interval runs from " +
               format_time(t.times_ps[t.times_ps.size() - 2]) + " to the end";
    }
    for (const int qp : t.qps_never_opened) value += "; QP " + std::to_string(qp) + " never opened";
    rows.emplace_back("time series", value);
  }
  for (const scenario::LinkGroupLoad& g : r.links.groups) {
    std::string value = "mean " + percent(g.mean_utilization) + ", max " +
                        percent(g.max_utilization) + ", imbalance " +
                        (g.mean_utilization > 0 ? format_fixed(g.imbalance, 2) : std::string("-")) +
                        " (" + count(g.ports) + " ports";
    if (g.idle_ports > 0) value += ", " + count(g.idle_ports) + " idle";
    rows.emplace_back(link_label(g), value + ")");
  }
}

// A link failure (faults.link_down): when routes came back and whether the QPs recovered.
void add_failure_rows(const scenario::RunResult& r, Rows& rows) {
  const scenario::FabricCounters& n = r.counters;
  if (r.failure.link_failed_ps >= 0) {
    std::string v = (r.failure.link.empty() ? std::string("link") : "link " + r.failure.link) +
                    " failed at " + format_time(r.failure.link_failed_ps) + ", ";
    if (r.failure.local_repair_ps >= 0) {
      v += "removed from its switches' groups " +
           format_time(r.failure.local_repair_ps - r.failure.link_failed_ps) + " later, ";
    }
    v += r.failure.routes_restored_ps >= 0
             ? "routes restored at " + format_time(r.failure.routes_restored_ps) + " (" +
                   format_time(r.failure.routes_restored_ps - r.failure.link_failed_ps) +
                   " without a working route)"
             : std::string("routes never restored before the end");
    rows.emplace_back("failure", v + ", " + count(n.link_down_drops) + " packets lost");
    if (r.failure.link_up_ps >= 0) {
      rows.emplace_back("link up", "first back at " + format_time(r.failure.link_up_ps) +
                                       "; it went down " + count(r.failure.link_downs) +
                                       (r.failure.link_downs == 1 ? " time" : " times"));
    }
    if (r.failure.affected_qps > 0) {
      const scenario::FailureTimeline& f = r.failure;
      std::string q = count(f.affected_qps) +
                      (f.affected_qps == 1 ? " QP lost packets (data or ACKs); "
                                           : " QPs lost packets (data or ACKs); ");
      if (f.unrecovered_qps > 0) {
        q += count(f.unrecovered_qps) + " never recovered";
      } else if (f.recovered_ps >= 0) {
        q += "all recovered " + format_time(f.recovered_ps - f.link_failed_ps) +
             " after the failure";
      } else {
        q += "nothing needed resending";
      }
      rows.emplace_back("recovery", q);
    }
  }
}

// The fabric's counters: drops, retransmits, PFC, IB credits, then (failure rows between) SM
// fallback, reordering, the transports' own counters, the context cache, watchdog, ECN, QP errors.
void add_counter_rows(const scenario::RunResult& r, Rows& rows) {
  const scenario::FabricCounters& n = r.counters;
  rows.emplace_back("drops", count(n.dropped_packets) + " packets (" +
                                 format_bytes(n.dropped_bytes) + " payload)");
  if (n.trimmed_packets > 0) rows.emplace_back("trims", count(n.trimmed_packets) + " packets");
  rows.emplace_back("retransmits", count(n.retransmitted_packets) + " packets, " +
                                       count(n.timeouts) + " timeouts, " + count(n.naks) + " NAKs");
  if (n.pause_frames > 0 || n.lossless_drops > 0) {  // Ethernet PFC
    rows.emplace_back("PFC", count(n.pause_frames) + " pause frames, " +
                                 format_time(n.paused_ps) + " paused (port total), " +
                                 count(n.nic_ports_paused) + " NICs paused, " +
                                 count(n.lossless_drops) + " lossless drops");
  }
  if (n.credit_packets > 0) {
    rows.emplace_back("IB credits", count(n.credit_packets) + " flow-control packets, " +
                                        count(n.credit_waits) + " waits, " +
                                        format_time(n.paused_ps) + " waited (port total), peak VL "
                                        "buffer " + percent(n.peak_vl_buffer_fraction));
  }
  if (n.credit_stalls > 0 || n.credit_violations > 0) {
    rows.emplace_back("credit STALL", count(n.credit_stalls) + " VLs stalled past the HOQ "
                                      "lifetime (first at " + format_time(n.first_credit_stall_ps) +
                                      "), " + count(n.hoq_discards) + " packets discarded, " +
                                      count(n.credit_violations) + " credit violations");
  }
  add_failure_rows(r, rows);
  if (r.sm.present && !r.sm.fallback_reason.empty()) {
    rows.emplace_back("routing", "SM " + r.sm.engine_requested + " -> " + r.sm.engine_used +
                                     (r.sm.after_failure ? " after failure: " : ": ") +
                                     r.sm.fallback_reason);
  }
  if (n.out_of_order_packets > 0) {
    rows.emplace_back("reordering",
                      count(n.out_of_order_packets) +
                          " packets placed out of order (adaptive routing or spraying)");
  }
  if (n.go_back_n_fallbacks > 0) {
    rows.emplace_back("go-back-N", count(n.go_back_n_fallbacks) +
                                       " fallbacks (PSN gap or full reorder buffer), " +
                                       count(n.go_back_n_retransmits) + " packets resent");
  }
  if (n.te_flows > 0) {
    rows.emplace_back("TE", count(n.te_flows) + " flows placed, " + count(n.te_rules_installed) +
                                " rules installed, " + count(n.te_reoptimizations) +
                                " re-placements moving " + count(n.te_flows_moved) + " flows");
  }
  if (!r.tcp && !r.iwarp && (n.trims > 0 || n.credits > 0 || n.sack_retransmits > 0)) {  // UET
    rows.emplace_back("UET", count(n.trims) + " trimmed packets NACKed, " +
                                 count(n.sack_retransmits) + " SACK-inferred resends, " +
                                 count(n.credits) + " RCCC credits");
  }
  if (n.host_cpu_ps > 0 || n.fast_recoveries > 0) {  // TCP / iWARP
    rows.emplace_back("TCP", count(n.fast_recoveries) + " SACK recoveries (" +
                                 count(n.sack_retransmits) + " segments resent), " +
                                 format_time(n.host_cpu_ps) + " host CPU in the stack");
  }
  if (r.context_cache.present) {  // net/nic_context_cache.h
    const scenario::ContextCacheResult& c = r.context_cache;
    rows.emplace_back("context cache",
                      count(c.hits) + " hits, " + count(c.misses) + " misses (" +
                          count(c.entries) + " per NIC), " +
                          format_time(c.miss_stall_ps) + " waited for them; " +
                          count(c.max_connections_per_nic) + " connections on the busiest NIC need " +
                          std::to_string(c.max_nic_context_bytes / 1024) + " KiB of context");
  }
  if (n.watchdog_storms > 0) {
    rows.emplace_back("watchdog", count(n.watchdog_storms) + " storms broken, " +
                                      count(n.watchdog_drops) + " packets dropped");
  }
  if ((n.ecn_marks > 0 || n.cnps > 0) && n.credit_packets > 0) {
    // InfiniBand (credits): the marks are FECN and the notifications BECNs (docs/cc.md).
    rows.emplace_back("IB CC", count(n.ecn_marks) + " FECN marks, " + count(n.cnps) +
                                   " BECNs (CNPs)");
  } else if (n.ecn_marks > 0 || n.cnps > 0) {
    rows.emplace_back("ECN", count(n.ecn_marks) + " CE marks, " + count(n.cnps) + " CNPs, " +
                                 count(n.plb_repaths) + " PLB repaths");
  }
  if (n.qp_errors > 0) {
    rows.emplace_back("QP errors", count(n.qp_errors) +
                                       " QPs exhausted their retries; their flows did not finish");
  }
}

// The simulator's own cost: events, packet-hops, peak memory (wall-clock figures).
void add_run_stats_rows(const scenario::RunStats& s, Rows& rows) {
  const double hops_per_second =
      s.wall_seconds > 0 ? static_cast<double>(s.data_packet_hops) / s.wall_seconds : 0;
  rows.emplace_back("events", format_count(static_cast<double>(s.events)) + " in " +
                                  format_fixed(s.wall_seconds, 3) + " s wall, " +
                                  format_count(s.events_per_second) + " events/s");
  rows.emplace_back("packet-hops", format_count(static_cast<double>(s.data_packet_hops)) +
                                       " data, " + format_count(hops_per_second) + " per s");
  rows.emplace_back("peak RSS", format_bytes(s.peak_rss_bytes));
}

// The rows as aligned text, after the PARTIAL warning of an interrupted run.
std::string rows_text(const scenario::RunResult& r, const Rows& rows) {
  size_t width = 0;
  for (const auto& [label, value] : rows) width = std::max(width, columns(label));
  std::string out;
  if (r.partial) {
    out += "  PARTIAL: interrupted at simulated time " + format_time(r.sim_time_ps) +
           "; every figure covers the run until then, flows not finished count as unfinished\n";
  }
  for (const auto& [label, value] : rows) {
    out += "  " + label + std::string(width - columns(label) + 2, ' ') + value + "\n";
  }
  return out;
}

// The tables after the rows: nccl-tests per job, scaling, FCT breakdowns, the busiest ports.
std::string tables_text(const scenario::RunResult& r) {
  std::string out;
  // The nccl-tests view of every job's collectives, and the scaling table.
  for (const scenario::JobResult& job : r.jobs) {
    if (job.collectives.empty()) continue;
    out += "\n  nccl-tests " + job.collectives.front().op + " on " +
           count(job.collectives.front().ranks) + " GPUs" +
           (r.jobs.size() > 1 ? " (job " + job.name + ")" : std::string()) + ":\n";
    out += nccl_table_text(job.collectives);
  }
  if (!r.scaling.empty()) out += "\n  scaling (step time per node count):\n" + scaling_table_text(r.scaling);
  // Issue 13: FCT by size bucket and by class (only when there is more than one of either),
  // and the busiest ports. output/fct_breakdown.h, output/links_csv.h.
  const std::vector<FctGroup> by_size = r.flow_summary.by_size;
  if (by_size.size() > 1) {
    out += "\n" + fct_groups_text("FCT by flow size (nearest-rank; slowdown = FCT / ideal):",
                                   by_size);
  }
  const std::vector<FctGroup> by_class = r.flow_summary.by_class;
  if (by_class.size() > 1) {
    out += "\n" + fct_groups_text("FCT by class (IB SL / Ethernet priority):", by_class);
  }
  const std::string hot = hottest_links_text(r.link_rows, scenario::kHottestLinks);
  if (!hot.empty()) out += "\n" + hot;
  return out;
}

}  // namespace

std::string format_summary(const scenario::RunResult& r) {
  const FlowStats& flows = r.flow_summary.stats;
  Rows rows;
  add_run_rows(r, flows, rows);
  add_job_rows(r, rows);
  add_traffic_rows(r, flows, rows);
  add_counter_rows(r, rows);
  add_run_stats_rows(r.run, rows);
  return rows_text(r, rows) + tables_text(r);
}

void print_summary(std::ostream& out, const scenario::RunResult& result) {
  out << format_summary(result);
}

}  // namespace fabricsim::output
