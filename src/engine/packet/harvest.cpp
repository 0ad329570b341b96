// The packet engine's harvest (engine/packet/harvest.h): its components read once, after the
// run, into the engine-neutral RunResult. Per run, never per event.
#include "engine/packet/harvest.h"

#include <algorithm>
#include <string>

#include "core/error.h"
#include "core/rss.h"
#include "core/units.h"
#include "engine/packet/link_load.h"
#include "engine/packet/link_table.h"
#include "net/plane_choice.h"
#include "resolve/cost/bom.h"
#include "resolve/infiniband.h"

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
    if (sc.roce.cc == transport::CongestionControl::kIbCc) d += ", IB congestion control";
    if (sc.roce.cc == transport::CongestionControl::kScheme) d += ", CC " + sc.roce.cc_scheme;
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
    d += !u.cc_scheme.empty() ? "CC " + u.cc_scheme + (u.rccc ? " + RCCC" : "")
         : u.nscc && u.rccc   ? "NSCC + RCCC"
         : u.nscc             ? "NSCC"
         : u.rccc             ? "RCCC"
                              : "fixed window";
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
              : t.cc == transport::TcpCc::kScheme ? "CC " + t.cc_scheme
              : std::string(t.cc == transport::TcpCc::kCubic ? "CUBIC" : "NewReno")) +
         ", lossy (no PFC)";
    return d;
  }
  std::string d = "RoCEv2, " + gbps + ", PFC " + (sc.switch_config.pfc.enabled ? "on" : "off");
  d += sc.roce.cc == transport::CongestionControl::kDcqcn    ? ", DCQCN " + sc.roce.dcqcn_profile
       : sc.roce.cc == transport::CongestionControl::kScheme ? ", CC " + sc.roce.cc_scheme
       : sc.roce.cc == transport::CongestionControl::kTimely ? std::string(", TIMELY")
       : sc.roce.cc == transport::CongestionControl::kHpcc   ? std::string(", HPCC")
       : sc.roce.cc == transport::CongestionControl::kSwift  ? std::string(", Swift")
       : sc.roce.cc == transport::CongestionControl::kDctcp  ? std::string(", DCTCP")
                                                             : std::string(", no congestion control");
  if (sc.roce.plb.enabled) d += ", PLB";
  return d;
}

// The flow table: the records the transport retired during the run are in `flows` already; the
// rest are read now, in id order (engine/packet/flow_recorder.h).
void harvest_flows(const Simulation& sim, bool finished, FlowRecorder& flows, RunResult& r) {
  const transport::Transport& transport = sim.transport();
  for (uint32_t id = flows.next_id(); id < transport.num_messages(); ++id) {
    flows.add(id, transport.message(id));
  }
  flows.finish(finished, r);
}

// The steady window's goodput and the NICs' context caches.
void harvest_steady_and_cache(const Simulation& sim, RunResult& r) {
  const transport::Transport& transport = sim.transport();
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
}

// GPU jobs (collectives, training steps, trace spans, node resource loads) or a pattern's
// collective and ping-pong statistics.
void harvest_workload(Simulation& sim, RunResult& r) {
  const Scenario& sc = sim.scenario();
  const workload::Workload& work = sim.workload();
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
}

// What the fabric is: its technology, description, capture, LIDs and the SM's route counts.
void harvest_fabric(Simulation& sim, RunResult& r) {
  const net::Network& net = sim.network();
  const Scenario& resolved = sim.scenario();
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
}

// The transport's and the network's counters, summed over the fabric.
void harvest_counters(const Simulation& sim, RunResult& r) {
  const net::Network& net = sim.network();
  const transport::Transport& transport = sim.transport();
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
  if (sim.network().sharp_enabled()) {
    r.sharp.present = true;
    for (const net::SharpTreeInfo& t : sim.network().sharp_trees()) {
      // A tree given back unused (a group whose other rail was refused) was never the group's.
      if (!t.active && t.ops_completed == 0) continue;
      r.sharp.trees.push_back({t.id, t.root_switch, static_cast<int64_t>(t.nics.size()),
                               static_cast<int64_t>(t.switches.size()), t.ops_completed,
                               t.result_bytes});
    }
    for (const net::SharpFailure& f : sim.network().sharp_failures()) {
      r.sharp.failures.push_back({f.time_ps, f.reason});
    }
    r.sharp.dropped_packets = nc.sharp_drops;
  }
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
}

// The failure timeline and the Subnet Manager's engine.
void harvest_failure(const Simulation& sim, RunResult& r) {
  const net::Network& net = sim.network();
  const transport::Transport& transport = sim.transport();
  const Scenario& sc = sim.scenario();
  const Scenario& resolved = sc;
  r.failure.link_failed_ps = sim.link_failed_ps();
  if (r.failure.link_failed_ps >= 0 && sc.link_fail.switch_index >= 0) {
    const net::Switch& sw = net.switch_at(static_cast<uint32_t>(sc.link_fail.switch_index));
    r.failure.link = port_label(net, sw.first_port + static_cast<uint32_t>(sc.link_fail.port));
  }
  r.failure.routes_restored_ps = sim.routes_restored_ps();
  r.failure.local_repair_ps = sim.local_repair_ps();
  r.failure.link_up_ps = sim.link_up_ps();
  r.failure.link_downs = sim.link_downs();
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
}

// Telemetry, per-port pause and buffer figures and links.csv (after the pause accounting is
// closed at the end of the run).
void harvest_ports(Simulation& sim, RunResult& r) {
  const net::Network& net = sim.network();
  const Scenario& sc = sim.scenario();
  FabricCounters& fc = r.counters;
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
  r.run.data_packet_hops = net.counters().data_packet_hops;
}


// mode: flow: what the fluid model stands in for on this scenario (docs/modes.md "What flow
// mode cannot show"), so that no mechanism is dropped silently.
void engine_notes(const Scenario& sc, RunResult& r) {
  if (sc.mode == EngineMode::kHybrid) {
    r.engine_mode = "hybrid";
    r.engine_notes.push_back(
        "packets, with groups of QPs in steady state advanced analytically at the rates of their "
        "last hybrid.window_rtts windows: a skipped stretch has no packet-level variation");
    r.engine_notes.push_back(
        "over a skipped stretch links.csv bytes, ECN marks, pause frames and paused time advance "
        "at the rates before it; ACK, CNP and ECN-marked-arrival counts cover simulated packets "
        "only");
    return;
  }
  if (sc.mode != EngineMode::kFlow) return;
  r.engine_mode = "flow";
  auto& n = r.engine_notes;
  n.push_back("every message is one fluid flow at its max-min fair share: no queues, so no "
              "queueing delay, ECN marks, drops or retransmissions");
  const bool lossless = sc.technology == Technology::kInfiniband ||
                        (sc.technology == Technology::kRoce && sc.switch_config.pfc.enabled);
  if (lossless) {
    n.push_back(std::string(sc.technology == Technology::kInfiniband ? "credit-based flow control"
                                                                      : "PFC") +
                " is not simulated: no pauses, credit stalls, head-of-line blocking or storms");
  }
  const bool fluid_dcqcn = sc.flow.dcqcn && sc.technology == Technology::kRoce &&
                           sc.roce.cc == transport::CongestionControl::kDcqcn;
  if (fluid_dcqcn) {
    n.push_back("DCQCN as a fluid (flow.dcqcn): each connection's rate follows its reaction "
                "point, cut by CNPs at the expected rate of RED marks from fluid queues at the "
                "switch ports; no queueing delay is added to the flows");
  } else if (sc.roce.cc != transport::CongestionControl::kNone) {
    const std::string name = sc.roce.cc == transport::CongestionControl::kDcqcn  ? "DCQCN"
                             : sc.roce.cc == transport::CongestionControl::kIbCc ? "InfiniBand CC"
                             : sc.roce.cc == transport::CongestionControl::kTimely ? "TIMELY"
                             : sc.roce.cc == transport::CongestionControl::kHpcc ? "HPCC"
                             : sc.roce.cc == transport::CongestionControl::kSwift ? "Swift"
                             : sc.roce.cc == transport::CongestionControl::kDctcp ? "DCTCP"
                                                                                 : sc.roce.cc_scheme;
    n.push_back(name + " is not simulated: flows take their fair share at once, as congestion "
                "control converged to max-min fairness would");
  }
  if (sc.technology == Technology::kUet) {
    n.push_back("NSCC/RCCC and trimming are not simulated: flows take their fair share at once");
  }
  if (sc.technology == Technology::kTcp || sc.technology == Technology::kIwarp) {
    n.push_back("TCP's slow start and loss recovery are not simulated: flows take their fair "
                "share at once");
  }
}

}  // namespace

RunResult harvest(Simulation& sim, bool finished, FlowRecorder& flows) {
  const Scenario& sc = sim.scenario();
  const net::Network& net = sim.network();
  const topo::BuiltTopology& topo = sim.topology();
  const Scenario& resolved = sc;  // technology defaults applied (IB latency, MTU)
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
  engine_notes(sc, r);
  r.sim_time_ps = sim.scheduler().now_ps;
  r.partial = sim.interrupted();
  r.topology.description = topo.description;
  r.topology.hosts = topo.hosts;
  r.topology.nics = topo.nics;
  r.topology.switches = topo.switches;
  r.topology.links = topo.cables;
  r.topology.tiers = topo.tiers;
  harvest_flows(sim, finished, flows, r);
  harvest_steady_and_cache(sim, r);
  // Link utilization over the span of the traffic (LinkLoads): first flow start to last flow
  // finish (the end of the simulation if some flow never finished), extended to the end of the
  // last frame sent, so that bytes and time cover one interval.
  const FlowSummary& span = r.flow_summary;
  r.links = link_loads(net, span.first_start_ps,
                       r.completed ? span.last_finish_ps : r.sim_time_ps);
  harvest_workload(sim, r);
  harvest_fabric(sim, r);
  harvest_counters(sim, r);
  harvest_failure(sim, r);
  harvest_ports(sim, r);
  if (const SteadySkip* h = sim.hybrid()) {
    RunResult::Hybrid& o = r.hybrid;
    const HybridStats& st = h->stats();
    o.present = true;
    o.epsilon = h->params().epsilon;
    o.window_rtts = h->params().window_rtts;
    o.window_ps = h->params().window_ps;
    o.windows_sampled = st.ticks;
    o.skips = st.skips;
    o.cut_short = st.cut_short;
    o.skipped_packets = st.skipped_packets;
    o.skipped_bytes = st.skipped_bytes;
    o.skipped_group_ps = st.skipped_group_ps;
    const int64_t sent = sim.transport().counters().data_bytes_sent;
    o.skipped_fraction = sent > 0 ? static_cast<double>(st.skipped_bytes) / sent : 0.0;
  }
  r.run.events = sim.events();
  r.run.peak_live_messages = sim.transport().peak_live_messages();
  r.run.partitions = static_cast<int>(sim.partitions());
  r.run.ranks = static_cast<int>(sim.ranks());
  r.run.lookahead_ps = sim.lookahead_ps();
  r.run.partition_note = sim.partition_note();
  r.run.windows = sim.partition_profile().windows;
  r.run.partition_events = sim.partition_profile().events;
  r.run.partition_busy_seconds = sim.partition_profile().busy_seconds;
  r.run.serial_seconds = sim.partition_profile().serial_seconds;
  r.run.sim_time_ps = r.sim_time_ps;
  return r;
}

}  // namespace fabricsim::scenario
