#include "scenario/run.h"

#include "net/plane_choice.h"
#include "scenario/bom.h"

#include <algorithm>
#include <chrono>
#include <string>

#include "core/checked.h"
#include "core/error.h"
#include "core/rss.h"
#include "core/units.h"
#include "scenario/infiniband.h"
#include "scenario/link_load.h"
#include "scenario/link_table.h"
#include "scenario/ranges.h"
#include "scenario/simulation.h"

namespace fabricsim::scenario {

namespace {

// One line on what the fabric is: technology, link rate and its mechanisms.
std::string describe_fabric(const Scenario& sc, const Simulation& sim) {
  // Whole Gb/s as "400 Gb/s"; anything finer exactly ("1Mbps"), never rounded to "0 Gb/s".
  const std::string gbps = sc.link.rate_bps % 1'000'000'000 == 0
                               ? std::to_string(sc.link.rate_bps / 1'000'000'000) + " Gb/s"
                               : format_rate_exact(sc.link.rate_bps);
  if (sc.technology == Technology::kInfiniband) {
    std::string d = "InfiniBand";
    if (sc.ib.generation != IbGeneration::kNone) {
      const IbGenerationInfo g = ib_generation_info(sc.ib.generation);
      d += std::string(" ") + g.name + " 4x (" + g.lane + ")";
    }
    const routing::LidRoutes& lr = sim.lid_routes();
    // "SM ftree -> updn" when the engine asked for refused the subnet (RunResult::sm says why).
    d += ", " + gbps + ", " + std::to_string(sc.ib.link.data_vls) + " data VL(s), SM " +
         (lr.fallback_reason.empty() ? std::string() : "ftree -> ") +
         routing::sm_engine_name(lr.engine_used) +
         (sc.recovery.adaptive ? " + adaptive routing" : " static LFTs");
    // Route balance: the widest spread of CA routes over one switch's up-ports.
    int32_t spread = 0;
    const net::Network& net = sim.network();
    for (uint32_t s = 0; s < net.num_switches(); ++s) {
      const net::Switch& sw = net.switch_at(s);
      int32_t lo = INT32_MAX, hi = -1;
      for (uint32_t k = 0; k < sw.num_ports; ++k) {
        const uint32_t p = sw.first_port + k;
        const net::Port& far = net.port(net.port(p).peer);
        if (far.is_nic || net.switch_at(static_cast<uint32_t>(far.switch_index)).tier <= sw.tier) {
          continue;
        }
        lo = std::min(lo, lr.port_routes[p]);
        hi = std::max(hi, lr.port_routes[p]);
      }
      if (hi >= 0) spread = std::max(spread, hi - lo);
    }
    d += ", up-port routes differ by <= " + std::to_string(spread) + " per switch";
    return d;
  }
  if (sc.technology == Technology::kUet) {
    static constexpr const char* kLb[] = {"single path", "oblivious spraying", "REPS"};
    const transport::UetConfig& u = sc.uet;
    std::string d = std::string("Ultra Ethernet (UET ") +
                    (u.delivery == transport::UetDelivery::kRud ? "RUD" : "ROD") + "), " + gbps +
                    ", " + kLb[static_cast<int>(u.load_balancing)] + " over " +
                    std::to_string(u.paths) + " EVs, ";
    d += u.nscc && u.rccc ? "NSCC + RCCC" : u.nscc ? "NSCC" : u.rccc ? "RCCC" : "fixed window";
    d += std::string(", trimming ") + (u.trimming ? "on" : "off") + ", PFC " +
         (sc.switch_config.pfc.enabled ? "on" : "off");
    return d;
  }
  if (sc.technology == Technology::kTcp || sc.technology == Technology::kIwarp) {
    const transport::TcpConfig& t = sc.tcp;
    std::string d = sc.technology == Technology::kTcp ? "TCP (kernel sockets), " : "iWARP (TCP offload), ";
    d += gbps + ", MTU " + std::to_string(t.mtu_bytes) + ", " +
         (t.cc == transport::TcpCc::kDctcp
              ? "DCTCP, K " + std::to_string(sc.switch_config.ecn.kmin_bytes) + " B"
              : std::string(t.cc == transport::TcpCc::kCubic ? "CUBIC" : "NewReno")) +
         ", lossy (no PFC)";
    return d;
  }
  std::string d = "RoCEv2, " + gbps + ", PFC " + (sc.switch_config.pfc.enabled ? "on" : "off");
  d += sc.roce.cc == transport::CongestionControl::kDcqcn ? ", DCQCN " + sc.roce.dcqcn_profile
                                                          : ", no congestion control";
  if (sc.roce.plb.enabled) d += ", PLB";
  return d;
}

}  // namespace

namespace {

void check_scaling(const Scenario& sc) {
  const std::vector<int>& nodes = sc.scaling_nodes;
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (i > 0 && nodes[i] <= nodes[i - 1]) {
      throw InputError("scaling.nodes", "node counts must increase, got " +
                                            std::to_string(nodes[i]) + " after " +
                                            std::to_string(nodes[i - 1]));
    }
    if (nodes[i] > sc.topology.hosts) {
      throw InputError("scaling.nodes",
                       std::to_string(nodes[i]) + " nodes exceed hosts.count (" +
                           std::to_string(sc.topology.hosts) +
                           "), which sizes the memory pre-flight: set hosts.count to the largest");
    }
    if (nodes[i] < 2 && sc.node.gpus_per_node == 0) {
      throw InputError("scaling.nodes", "without GPUs a fabric needs at least 2 hosts");
    }
  }
  if (!nodes.empty() && !sc.jobs.empty()) {
    throw InputError("scaling.nodes", "runs one job at several sizes; remove jobs: or scaling:");
  }
  if (!nodes.empty() && sc.topology.kind == topo::TopologyKind::kFile) {
    // Scaling rebuilds the fabric at each node count; a file has one size.
    throw InputError("scaling.nodes", "a topology file has one size; use a generated topology "
                                      "(topology.kind fat_tree, leaf_spine or rail) to scale");
  }
  for (int n : nodes) {
    Scenario s = sc;
    s.topology.hosts = std::max(n, 2);
    topo::check_shape(s.topology);
  }
}

// Step (or collective) time of a run's first job, -1 when it did not finish.
int64_t scaling_time_ps(const RunResult& r) {
  if (!r.jobs.empty() && r.jobs[0].training.present) return r.jobs[0].training.step_time_ps;
  return r.collective.present ? r.collective.time_ps : -1;
}

// Work per step: the generator's global batch (samples), else proportional to the GPUs (a job
// whose per-GPU work is fixed, e.g. an imported data-parallel step or a collective of a fixed
// per-rank size).
double scaling_work(const RunResult& r, int gpus) {
  if (!r.jobs.empty() && r.jobs[0].training.samples_per_step > 0) {
    return r.jobs[0].training.samples_per_step;
  }
  return gpus;
}

RunResult run_scaling(const Scenario& sc, const RunOptions& options) {
  RunResult last;
  std::vector<ScalingPoint> points;
  double base_rate = 0;  // work per second per node at the first count
  for (int n : sc.scaling_nodes) {
    Scenario s = sc;
    s.scaling_nodes.clear();
    // A fabric has at least two hosts; with GPUs the job runs on n of them (one node: its
    // GPUs talk over NVLink only).
    s.topology.hosts = std::max(n, 2);
    if (s.node.gpus_per_node > 0) {
      JobSpec job;
      job.name = "job0";
      job.nodes = n;
      job.workload = sc.workload;
      job.training = sc.training;
      s.jobs = {job};
    }
    last = run_scenario(s, options);
    ScalingPoint p;
    p.nodes = n;
    p.gpus = last.jobs.empty() ? last.topology.nics : static_cast<int>(last.jobs[0].gpus.size());
    p.step_time_ps = scaling_time_ps(last);
    if (p.step_time_ps > 0) {
      const double rate_per_node =
          scaling_work(last, p.gpus) / (static_cast<double>(p.step_time_ps) * 1e-12) / n;
      if (points.empty()) base_rate = rate_per_node;
      p.acceleration_ratio = base_rate > 0 ? rate_per_node / base_rate : 0;
    }
    points.push_back(p);
    if (last.partial) break;  // interrupted: the remaining counts were not run
  }
  last.scaling = std::move(points);
  return last;
}

// jobs_alone: the run with every job, then each job alone on the nodes it had, so that the
// interference each job suffers is measured against its own baseline.
RunResult run_with_baselines(const Scenario& sc, const RunOptions& options) {
  Scenario all = sc;
  all.jobs_alone = false;
  RunResult r = run_scenario(all, options);
  if (r.partial) return r;
  for (size_t j = 0; j < r.jobs.size() && j < sc.jobs.size(); ++j) {
    JobResult& job = r.jobs[j];
    Scenario alone = all;
    JobSpec spec = sc.jobs[j];
    const uint32_t gpn = static_cast<uint32_t>(sc.node.gpus_per_node);
    for (size_t g = 0; g < job.gpus.size(); g += gpn) {
      spec.fixed_nodes.push_back(static_cast<int>(job.gpus[g] / gpn));
    }
    alone.jobs = {spec};
    alone.trace.enabled = false;  // only its end time is used: trace.json is the shared run's
    const RunResult a = run_scenario(alone, options);
    if (a.partial) {
      r.partial = true;
      break;
    }
    if (!a.jobs.empty() && a.jobs[0].end_ps >= 0) {
      job.alone_end_ps = a.jobs[0].end_ps;
      if (job.end_ps >= 0 && job.alone_end_ps > 0) {
        job.slowdown = static_cast<double>(job.end_ps) / static_cast<double>(job.alone_end_ps);
      }
    }
  }
  return r;
}

}  // namespace

void check_scenario(const Scenario& sc) {
  if (sc.link.rate_bps <= 0) throw InputError("fabric.link.rate", "must be > 0");
  if (sc.link.cable_m < 0) throw InputError("fabric.link.cable", "must be >= 0");
  topo::check_shape(sc.topology);
  const int nics = sc.topology.hosts * sc.topology.nics_per_host;
  if (sc.nic_stall.nic >= nics) {
    throw InputError("faults.nic_stall.nic", "must be a NIC index below " + std::to_string(nics));
  }
  if (sc.nic_stall.nic >= 0 && sc.nic_stall.until_ps > 0 &&
      sc.nic_stall.until_ps <= sc.nic_stall.at_ps) {
    throw InputError("faults.nic_stall.until", "must be after faults.nic_stall.at (or 0)");
  }
  const bool gpus = sc.node.gpus_per_node > 0;
  workload::check(sc.workload, sc.topology.hosts * sc.topology.nics_per_host, gpus);
  for (size_t j = 0; j < sc.jobs.size(); ++j) {
    if (!gpus) throw InputError("jobs", "jobs run on GPUs: set node.gpus_per_node");
    try {
      workload::check(sc.jobs[j].workload, sc.topology.hosts * sc.topology.nics_per_host, true);
    } catch (const InputError& e) {
      throw InputError("jobs[" + std::to_string(j) + "]." + e.key_path(), e.what());
    }
  }
  check_scaling(sc);
  Scenario resolved = sc;
  resolve_fabric(resolved);
  check_ranges(resolved);  // products of rates, sizes and times stay inside int64 / uint32
}

void check_buildable(const Scenario& sc) {
  check_scenario(sc);
  Simulation sim(sc);
  sim.start_workload();
}

RunResult run_scenario(const Scenario& sc, const RunOptions& options) {
  check_scenario(sc);
  if (!sc.scaling_nodes.empty()) return run_scaling(sc, options);
  if (sc.jobs_alone && sc.jobs.size() > 1) return run_with_baselines(sc, options);
  const auto wall_start = std::chrono::steady_clock::now();

  Simulation sim(sc);
  sim.start_workload();
  // Without a stop_time the run still ends at the horizon (core/checked.h), so the clock, and
  // every time derived from it, stays inside int64; it then reports unfinished flows.
  const bool finished = sim.run(sc.stop_time_ps > 0 ? sc.stop_time_ps : kSimHorizonPs,
                                options.progress, options.stop);
  sim.finish_telemetry();  // the last, partial interval ends where the run did
  if (options.progress && !sim.interrupted()) {
    options.progress(ProgressSample{1.0, sim.scheduler().now_ps, sim.events()});
  }
  const net::Network& net = sim.network();
  const topo::BuiltTopology& topo = sim.topology();
  const transport::Transport& transport = sim.transport();
  const workload::Workload& work = sim.workload();
  const routing::EcmpRoutes& routes = sim.routes();
  const Scenario& resolved = sim.scenario();  // technology defaults applied (IB latency, MTU)

  RunResult r;
  try {
    const Bom bom = bill_of_materials(resolved, net, topo);
    r.cost = {true, "", bom.switch_model, bom.total_price_usd(), bom.total_power_w(), bom.gpus,
              bom.per_gpu};
  } catch (const InputError& e) {
    r.cost.why_not = e.what();  // the run stands; only its price is unknown (describe says why)
  }
  r.scenario_name = sc.name;
  r.seed = sc.seed;
  r.sim_time_ps = sim.scheduler().now_ps;
  r.partial = sim.interrupted();
  r.topology.description = topo.description;
  r.topology.hosts = topo.hosts;
  r.topology.nics = topo.nics;
  r.topology.switches = topo.switches;
  r.topology.links = topo.cables;
  r.topology.tiers = topo.tiers;

  // The link a message's ideal FCT is computed on: its shortest path's (EcmpRoutes::path_link),
  // whose bottleneck on a multi-plane fabric is one plane port; a per-packet split sends every
  // message over all P planes at once, up to the NIC's own rate (topo/multi_plane.h).
  const bool packet_split =
      resolved.topology.planes > 1 &&
      resolved.topology.plane_split == static_cast<uint8_t>(net::PlaneSplit::kPacket);
  auto ideal_link = [&](uint32_t src, uint32_t dst) {
    net::LinkConfig link = routes.path_link(src, dst, resolved.link);
    if (packet_split) {
      link.rate_bps = std::min(resolved.link.rate_bps, link.rate_bps * resolved.topology.planes);
    }
    return link;
  };
  int64_t first_start = -1, last_finish = -1, finished_bytes = 0;
  r.flows.reserve(transport.num_messages());
  for (uint32_t id = 0; id < transport.num_messages(); ++id) {
    const transport::MessageRecord& m = transport.message(id);
    FlowRecord f;
    f.id = id;
    f.src_nic = m.src_nic;
    f.dst_nic = m.dst_nic;
    f.size_bytes = m.size_bytes;
    f.start_ps = m.post_ps;
    f.finish_ps = m.rx_done_ps;
    f.ideal_fct_ps = transport.ideal_fct_ps(m.size_bytes, routes.switch_hops(m.src_nic, m.dst_nic),
                                            ideal_link(m.src_nic, m.dst_nic),
                                            resolved.switch_config, resolved.nic);
    f.sent_bytes = m.sent_bytes;
    f.delivered_bytes = m.delivered_bytes;
    f.dropped_bytes = m.dropped_bytes;
    f.retransmitted_packets = m.retransmitted_packets;
    f.traffic_class = m.traffic_class;
    f.qp = m.connection;
    if (const FlowPaths* paths = sim.flow_paths()) f.path = paths->text(id);
    if (f.finish_ps < 0) {
      r.completed = false;
    } else {
      finished_bytes += m.size_bytes;
      last_finish = std::max(last_finish, f.finish_ps);
    }
    if (first_start < 0 || f.start_ps < first_start) first_start = f.start_ps;
    r.flows.push_back(f);
  }
  if (!finished) r.completed = false;
  if (last_finish > first_start) {
    r.aggregate_throughput_gbps =
        static_cast<double>(finished_bytes) * 8.0 / (static_cast<double>(last_finish - first_start) * 1e-3);
  }

  if (const SteadyWindow* w = sim.steady_window()) {
    r.steady_window_asked = true;
    r.steady_window = w->result();
  }
  if (const net::NicContextCache* cc = transport.context_cache()) {  // net/nic_context_cache.h
    ContextCacheResult& c = r.context_cache;
    c.present = true;
    c.entries = cc->entries();
    c.context_bytes = cc->context_bytes();
    c.miss_latency_ps = cc->miss_latency_ps();
    c.hits = cc->hits();
    c.misses = cc->misses();
    c.miss_stall_ps = cc->miss_stall_ps();
    for (uint32_t nic = 0; nic < cc->num_nics(); ++nic) {
      c.max_nic_misses = std::max(c.max_nic_misses, cc->nic_misses(nic));
    }
    c.max_connections_per_nic = cc->max_connections_per_nic();
    c.total_connections = cc->total_connections();
    c.max_nic_context_bytes = c.max_connections_per_nic * c.context_bytes;
  }

  // Link utilization over the span of the traffic (LinkLoads): first flow start to last flow
  // finish (the end of the simulation if some flow never finished), extended to the end of the
  // last frame sent, so that bytes and time cover one interval.
  r.links = link_loads(net, first_start, r.completed ? last_finish : r.sim_time_ps);

  if (sc.trace.enabled) {  // trace.json (docs/trace.md)
    r.trace.max_flows = sc.trace.max_flows;
    if (GpuWorkload* gpu = sim.gpu_workload()) gpu->take_trace(r.trace, r.sim_time_ps);
    r.trace.enabled = true;
    r.trace.sim_end_ps = r.sim_time_ps;
  }
  if (const GpuWorkload* gpu = sim.gpu_workload()) {
    gpu->fill(r);  // jobs, their nccl-tests rows and training steps; r.collective = the first
    const node::GpuNet& g = *sim.gpu_net();
    std::vector<NodeResourceLoad> loads(node::kResourceKinds);
    for (uint32_t id = 0; id < g.num_resources(); ++id) {
      const node::FluidServer& fs = g.server(id);
      const int k = static_cast<int>(g.kind_of(id));
      NodeResourceLoad& l = loads[k];
      l.kind = node::resource_name(static_cast<node::ResourceKind>(k));
      ++l.resources;
      l.bytes += fs.bytes;
      const double u = r.sim_time_ps > 0 && fs.rate_bps > 0
                           ? static_cast<double>(fs.bytes) * 8.0 /
                                 (static_cast<double>(fs.rate_bps) * (r.sim_time_ps * 1e-12))
                           : 0.0;
      l.mean_utilization += u;
      l.max_utilization = std::max(l.max_utilization, u);
    }
    for (NodeResourceLoad& l : loads) {
      if (l.bytes == 0) continue;
      l.mean_utilization /= l.resources;
      r.node_resources.push_back(l);
    }
  } else if (work.is_collective()) {
    CollectiveResult& c = r.collective;
    c.present = true;
    c.op = workload::name(sc.workload.op);
    c.algorithm = "ring";
    c.ranks = work.ranks();
    c.size_bytes = sc.workload.size_bytes;
    if (work.collective_done()) {
      c.time_ps = work.collective_end_ps();
      const double n = c.ranks;
      c.algbw_gbytes_per_s = static_cast<double>(c.size_bytes) / (c.time_ps * 1e-12) * 1e-9;
      c.busbw_gbytes_per_s = c.algbw_gbytes_per_s * 2.0 * (n - 1) / n;
    }
  }

  if (const workload::PingPong* pp = work.ping_pong()) r.ping_pong = pp->stats();

  r.captured = std::move(sim.captured());
  r.infiniband = net.infiniband();
  r.uet = resolved.technology == Technology::kUet;
  r.tcp = resolved.technology == Technology::kTcp;
  r.iwarp = resolved.technology == Technology::kIwarp;
  r.service = resolved.roce.service;
  r.operation = resolved.roce.operation;
  r.nic_lid = sim.lid_routes().nic_lid;
  r.fabric_description = describe_fabric(resolved, sim);
  if (r.infiniband) {
    const std::vector<int32_t>& routes = sim.lid_routes().port_routes;
    for (uint32_t s = 0; s < net.num_switches(); ++s) {
      const net::Switch& sw = net.switch_at(s);
      for (uint32_t k = 0; k < sw.num_ports; ++k) {
        const net::Port& far = net.port(net.port(sw.first_port + k).peer);
        PortRoutes pr;
        pr.switch_index = static_cast<int>(s);
        pr.tier = sw.tier;
        pr.port = static_cast<int>(k);
        pr.far_is_nic = far.is_nic;
        pr.far_index = far.is_nic ? far.nic : static_cast<uint32_t>(far.switch_index);
        pr.up = !far.is_nic && net.switch_at(pr.far_index).tier > sw.tier;
        pr.routes = routes[sw.first_port + k];
        r.sm_routes.push_back(pr);
      }
    }
  }

  const transport::TransportCounters& tc = transport.counters();
  const net::NetCounters& nc = net.counters();
  FabricCounters& fc = r.counters;
  fc.data_packets_sent = tc.data_packets_sent;
  fc.data_bytes_sent = tc.data_bytes_sent;
  fc.data_bytes_delivered = tc.data_bytes_delivered;
  fc.dropped_packets = nc.dropped_packets;
  fc.dropped_bytes = nc.dropped_payload_bytes;
  fc.retransmitted_packets = tc.retransmitted_packets;
  fc.timeouts = tc.timeouts;
  fc.qp_errors = tc.qp_errors;
  fc.naks = tc.naks;
  fc.ack_packets = tc.ack_packets;
  fc.lossless_drops = nc.lossless_drops;
  fc.pause_frames = nc.pause_frames;
  fc.watchdog_storms = nc.watchdog_storms;
  fc.trimmed_packets = nc.trimmed_packets;
  fc.watchdog_drops = nc.watchdog_drops;
  fc.ecn_marks = nc.ecn_marks;
  fc.cnps = tc.cnps_sent;
  fc.plb_repaths = tc.plb_repaths;
  fc.link_down_drops = nc.link_down_drops;
  fc.link_loss_drops = nc.link_losses;
  fc.unroutable_drops = nc.unroutable_packets;
  fc.credit_packets = nc.credit_packets;
  fc.credit_waits = nc.credit_waits;
  fc.credit_violations = nc.credit_violations;
  fc.credit_stalls = nc.credit_stalls;
  fc.hoq_discards = nc.hoq_discards;
  fc.first_credit_stall_ps = nc.first_credit_stall_ps;
  fc.out_of_order_packets = tc.out_of_order_packets;
  fc.go_back_n_fallbacks = tc.go_back_n_fallbacks;
  fc.go_back_n_retransmits = tc.go_back_n_retransmits;
  if (const routing::TeController* te = sim.te()) {
    fc.te_flows = static_cast<int64_t>(te->flows().size());
    fc.te_rules_installed = te->rules_installed();
    fc.te_reoptimizations = te->reoptimizations();
    fc.te_flows_moved = te->flows_moved();
  }
  fc.trims = tc.trims_seen;
  fc.credits = tc.credits_sent;
  fc.sack_retransmits = tc.sack_retransmits;
  fc.host_cpu_ps = tc.host_cpu_ps;
  fc.fast_recoveries = tc.fast_recoveries;
  r.failure.link_failed_ps = sim.link_failed_ps();
  if (r.failure.link_failed_ps >= 0 && sc.link_fail.switch_index >= 0) {
    const net::Switch& sw = net.switch_at(static_cast<uint32_t>(sc.link_fail.switch_index));
    r.failure.link = port_label(net, sw.first_port + static_cast<uint32_t>(sc.link_fail.port));
  }
  r.failure.routes_restored_ps = sim.routes_restored_ps();
  r.failure.recovered_ps = transport.failure_recovered_ps();
  r.failure.affected_qps = transport.failure_affected_connections();
  r.failure.unrecovered_qps = transport.failure_unrecovered_connections();
  if (r.infiniband) {
    const routing::LidRoutes& lr = sim.lid_routes();
    static constexpr routing::SmEngine kRequested[] = {
        routing::SmEngine::kMinHop, routing::SmEngine::kUpDown, routing::SmEngine::kFatTree};
    r.sm.present = true;
    r.sm.engine_requested =
        routing::sm_engine_name(kRequested[static_cast<int>(resolved.recovery.engine)]);
    r.sm.engine_used = routing::sm_engine_name(lr.engine_used);
    r.sm.fallback_reason = lr.fallback_reason;
    r.sm.after_failure = r.failure.routes_restored_ps >= 0;
  }
  if (const Telemetry* t = sim.telemetry()) r.telemetry = t->result();
  sim.network().finish_pause_accounting();
  for (uint32_t p = 0; p < net.num_ports(); ++p) {
    const net::PortQueues& q = net.queues(p);
    fc.paused_ps += q.paused_ps;
    if (q.rx_buffer_blocks > 0) {
      fc.peak_vl_buffer_fraction = std::max(
          fc.peak_vl_buffer_fraction, static_cast<double>(q.peak_rx_blocks) / q.rx_buffer_blocks);
    }
    if (net.port(p).is_nic && q.pause_frames_received > 0) ++fc.nic_ports_paused;
  }
  r.link_rows = link_table(net, r.links);  // links.csv (after the pause accounting is closed)
  r.flow_paths = sc.flow_paths;            // flows.csv's path column
  for (uint32_t s = 0; s < net.num_switches(); ++s) {
    fc.max_switch_buffer_bytes = std::max(fc.max_switch_buffer_bytes,
                                          net.switch_at(s).peak_buffer_bytes);
  }

  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  r.run.events = sim.events();
  r.run.wall_seconds = wall;
  r.run.events_per_second = wall > 0 ? sim.events() / wall : 0;
  r.run.data_packet_hops = nc.data_packet_hops;
  r.run.peak_rss_bytes = peak_rss_bytes();
  r.run.sim_time_ps = r.sim_time_ps;
  return r;
}

}  // namespace fabricsim::scenario
