// resolve(): every rule between keys and every derived default, in one pass (resolve/resolve.h).
// The pieces used to live in five places (the loader, run_scenario's check, resolve_fabric, the
// Simulation constructor and check_buildable); the engines now receive what this returns.
#include "resolve/resolve.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "core/error.h"
#include "core/units.h"
#include "node/spec.h"
#include "resolve/fabric.h"
#include "resolve/hpcc_setup.h"
#include "resolve/planes.h"
#include "resolve/ranges.h"
#include "resolve/swift_setup.h"
#include "resolve/tcp_setup.h"
#include "resolve/uet_setup.h"
#include "routing/dragonfly.h"
#include "topo/topology.h"
#include "workload/workload.h"

namespace fabricsim::scenario {

namespace {

// The named DCQCN profile with the scenario's per-field overrides.
transport::DcqcnParams resolve_dcqcn(const Scenario& sc) {
  transport::DcqcnParams p;
  try {
    p = transport::dcqcn_profile(sc.roce.dcqcn_profile, sc.link.rate_bps);
  } catch (const std::invalid_argument& e) {
    throw InputError("fabric.roce.dcqcn_profile", e.what());
  }
  const transport::DcqcnOverrides& o = sc.roce.dcqcn;
  override_with(p.min_rate_bps, o.min_rate_bps);
  override_with(p.g, o.g);
  override_with(p.initial_alpha, o.initial_alpha);
  override_with(p.alpha_interval_ps, o.alpha_interval_ps);
  override_with(p.alpha_update_on_cnp, o.alpha_update_on_cnp);
  override_with(p.rate_decrease_interval_ps, o.rate_decrease_interval_ps);
  override_with(p.rate_increase_timer_ps, o.rate_increase_timer_ps);
  override_with(p.byte_counter_bytes, o.byte_counter_bytes);
  override_with(p.fast_recovery_steps, o.fast_recovery_steps);
  override_with(p.stage_counts_current_step, o.stage_counts_current_step);
  override_with(p.ai_rate_bps, o.ai_rate_bps);
  override_with(p.hai_rate_bps, o.hai_rate_bps);
  override_with(p.min_decrease_factor, o.min_decrease_factor);
  override_with(p.hyper_increase_scales, o.hyper_increase_scales);
  override_with(p.clamp_target_rate, o.clamp_target_rate);
  override_with(p.cnp_interval_ps, o.cnp_interval_ps);
  try {
    transport::validate_dcqcn_params(p, sc.link.rate_bps);
  } catch (const transport::DcqcnParamError& e) {
    throw InputError("fabric." + e.field, e.what());  // the key the value came from
  }
  return p;
}

// InfiniBand CC's defaults with the scenario's fabric.ib.cc.* values.
transport::IbCcParams resolve_ib_cc(const Scenario& sc) {
  transport::IbCcParams p = transport::ib_cc_defaults();
  const auto& o = sc.ib.cc;
  override_with(p.threshold_bytes, o.threshold_bytes);
  override_with(p.marking_rate, o.marking_rate);
  override_with(p.ccti_increase, o.ccti_increase);
  override_with(p.ccti_timer_ps, o.ccti_timer_ps);
  override_with(p.ccti_limit, o.ccti_limit);
  override_with(p.ccti_min, o.ccti_min);
  if (o.service_levels) {
    if (o.service_levels->empty()) {
      throw InputError("fabric.ib.cc.service_levels",
                       "names no SL: to run without congestion control set fabric.ib.cc.enabled: "
                       "false");
    }
    p.control_map = 0;
    for (const int sl : *o.service_levels) p.control_map |= static_cast<uint16_t>(1u << sl);
  }
  try {
    transport::validate_ib_cc_params(p);
  } catch (const transport::IbCcParamError& e) {
    throw InputError("fabric." + e.field, e.what());
  }
  return p;
}

// TIMELY's defaults for the link rate with the scenario's fabric.roce.timely.* values.
transport::TimelyParams resolve_timely(const Scenario& sc) {
  transport::TimelyParams p = transport::timely_defaults(sc.link.rate_bps);
  const transport::TimelyOverrides& o = sc.roce.timely;
  override_with(p.delta_bps, o.delta_bps);
  override_with(p.beta, o.beta);
  override_with(p.alpha, o.alpha);
  override_with(p.t_low_ps, o.t_low_ps);
  override_with(p.t_high_ps, o.t_high_ps);
  override_with(p.min_rtt_ps, o.min_rtt_ps);
  override_with(p.hai_n, o.hai_n);
  override_with(p.hai_after, o.hai_after);
  override_with(p.min_rate_bps, o.min_rate_bps);
  try {
    transport::validate_timely_params(p);
  } catch (const transport::TimelyParamError& e) {
    throw InputError("fabric." + e.field, e.what());
  }
  return p;
}

// routing.load_balancing against the fabric (docs/load-balancing.md). Adaptive routing sends a
// flow's packets over several paths, so a RoCE responder must place out of order: a go-back-N
// responder would NAK nearly every packet, hence refused rather than run. Flowlets are allowed
// on RoCE as is: their gap exceeds the paths' delay spread, which is what keeps a flow in order
// (a too-small gap shows up as NAKs and retransmissions). TE moves a flow at most when its
// rules change. UET delivers unordered and needs nothing. InfiniBand has its own AR.
void check_load_balancing(const Scenario& sc) {
  const routing::LoadBalancing lb = sc.ecmp.load_balancing;
  if (lb == routing::LoadBalancing::kEcmp) return;
  if (sc.technology == Technology::kInfiniband) {
    throw InputError("routing.load_balancing",
                     "Ethernet switch load balancing; InfiniBand uses routing.sm.adaptive");
  }
  if (lb == routing::LoadBalancing::kAdaptive && sc.technology == Technology::kRoce &&
      !sc.roce.out_of_order) {
    throw InputError("routing.load_balancing",
                     "adaptive routing reorders a flow's packets: RoCE needs "
                     "fabric.roce.out_of_order");
  }
}

// topology.kind: dragonfly: the routing must suit the technology, and every class a packet can
// move up to (one per global hop, routing/dragonfly.h) must exist and be lossless wherever the
// base class is: PFC and ECN are widened to them here.
void check_dragonfly_classes(Scenario& sc) {
  if (sc.topology.kind != topo::TopologyKind::kDragonfly) return;
  const routing::DragonflyRouting r = sc.ecmp.dragonfly;
  const int n = routing::dragonfly_classes(r);
  if (sc.technology == Technology::kInfiniband) {
    if (r != routing::DragonflyRouting::kMinimal) {
      throw InputError("routing.dragonfly",
                       "InfiniBand forwards by the SM's destination LFTs: minimal (adaptive "
                       "routing among minimal ports with routing.sm.adaptive); Valiant/UGAL "
                       "are Ethernet only");
    }
    const int base = sc.ib.link.sl_to_vl[sc.ib.sl & 15];
    if (base + n > sc.ib.link.data_vls) {
      throw InputError("fabric.ib.data_vls",
                       "a Dragonfly moves packets up one VL per global hop: VLs " +
                           std::to_string(base) + ".." + std::to_string(base + n - 1) +
                           " must be operational, " + std::to_string(sc.ib.link.data_vls) +
                           " data VLs are");
    }
    return;
  }
  const bool uet = sc.technology == Technology::kUet;
  if (r != routing::DragonflyRouting::kMinimal && sc.technology == Technology::kRoce &&
      !sc.roce.out_of_order) {
    throw InputError("routing.dragonfly",
                     "Valiant and UGAL route a flow's packets over different groups: RoCE needs "
                     "fabric.roce.out_of_order");
  }
  net::PfcConfig& pfc = sc.switch_config.pfc;
  if (!pfc.enabled) return;  // lossy: drops break any cycle, no classes needed
  const int base = uet ? sc.uet.data_priority : sc.roce.data_priority;
  if (base + n > 8) {
    throw InputError(uet ? "fabric.uet.data_priority" : "fabric.roce.data_priority",
                     "a lossless Dragonfly moves packets up one class per global hop: classes " +
                         std::to_string(base) + ".." + std::to_string(base + n - 1) +
                         " must exist (at most 7)");
  }
  const int cnp = sc.roce.cnp_priority;
  if (!uet && cnp > base && cnp < base + n) {
    throw InputError("fabric.roce.cnp_priority",
                     "class " + std::to_string(cnp) + " is one the Dragonfly data classes " +
                         std::to_string(base) + ".." + std::to_string(base + n - 1) +
                         " move up to; use another");
  }
  const uint8_t mask = routing::dragonfly_class_mask(r, base);
  pfc.lossless_mask |= mask;
  sc.switch_config.ecn.mask |= mask;
}

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

// faults.link_down's up time and flaps: each cycle is down, then up, then down again.
void check_link_flaps(const LinkFailSpec& f) {
  if (f.switch_index < 0) return;
  if (f.until_ps > 0 && f.until_ps <= f.at_ps) {
    throw InputError("faults.link_down.until", "must be after faults.link_down.at (or 0: stays down)");
  }
  if (f.flaps == 1) return;
  if (f.until_ps == 0) {
    throw InputError("faults.link_down.flaps",
                     "a link that flaps comes back up: set faults.link_down.until");
  }
  if (f.period_ps <= f.until_ps - f.at_ps) {
    throw InputError("faults.link_down.period",
                     "must be longer than until - at (" + format_time_exact(f.until_ps - f.at_ps) +
                         "): the link is up again before it next fails");
  }
  // The last cycle's times stay within the 1,000,000 s any time key may take.
  constexpr double kMaxPs = 1e18;
  if (static_cast<double>(f.flaps - 1) * static_cast<double>(f.period_ps) +
          static_cast<double>(f.until_ps) > kMaxPs) {
    throw InputError("faults.link_down.period",
                     "the last of the flaps would come back up after 1000000s");
  }
}

// The shape, the faults' targets and the workloads against the topology: the rules that need
// nothing derived.
void check_shape_and_workloads(const Scenario& sc) {
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
  check_link_flaps(sc.link_fail);
  const bool gpus = sc.node.gpus_per_node > 0;
  workload::check(sc.workload, nics, gpus);
  for (size_t j = 0; j < sc.jobs.size(); ++j) {
    if (!gpus) throw InputError("jobs", "jobs run on GPUs: set node.gpus_per_node");
    try {
      workload::check(sc.jobs[j].workload, nics, true);
    } catch (const InputError& e) {
      throw InputError("jobs[" + std::to_string(j) + "]." + e.key_path(), e.what());
    }
  }
  if (sc.steady_window && gpus) {
    throw InputError("outputs.steady_window",
                     "measures the flows of a traffic pattern; GPU runs report their "
                     "collectives and steps instead");
  }
  check_scaling(sc);
}

// The switches' PFC and ECN settings the technology and its congestion control imply (ECN
// thresholds from the DCQCN profile or UET's derivation unless the scenario sets them), and the
// TCP/UET fabric settings. Fills r.dcqcn and r.uet_net.
void derive_switch_settings(Resolved& r) {
  Scenario& sc = r.sc;
  const bool uet = sc.technology == Technology::kUet;
  const bool tcp = sc.technology == Technology::kTcp || sc.technology == Technology::kIwarp;
  const bool dcqcn = !uet && !tcp && sc.roce.cc == transport::CongestionControl::kDcqcn;
  const bool dctcp = !uet && !tcp && sc.roce.cc == transport::CongestionControl::kDctcp;
  if (dcqcn) r.dcqcn = resolve_dcqcn(sc);
  // PFC and ECN act on the RoCE (or UET) data class.
  const uint8_t data_class = static_cast<uint8_t>(
      1u << (uet ? sc.uet.data_priority : sc.roce.data_priority));
  net::PfcConfig& pfc = sc.switch_config.pfc;
  if (uet) pfc.enabled = sc.uet.pfc;  // fabric.pfc.enabled is RoCE's (cli/fabric_scope.cpp)
  pfc.mtu_bytes = uet ? sc.uet.mtu_bytes : sc.roce.mtu_bytes;  // the headroom formula's MTU
  pfc.lossless_mask = data_class;
  net::EcnConfig& ecn = sc.switch_config.ecn;
  ecn.enabled = sc.ecn.marking == EcnMode::kOn ||
                (sc.ecn.marking == EcnMode::kAuto && (dcqcn || dctcp || uet));
  ecn.mask = data_class;
  if (dcqcn) {
    ecn.kmin_bytes = r.dcqcn.ecn.kmin_bytes;
    ecn.kmax_bytes = r.dcqcn.ecn.kmax_bytes;
    ecn.pmax = r.dcqcn.ecn.pmax;
  }
  if (dctcp) {
    // DCTCP's step marking at K (Alizadeh et al. SIGCOMM 2010): the HPCC simulator's run.py for
    // `--cc dctcp`, KMIN = KMAX = 30 KB x B / 10 Gb/s, PMAX 1 (300 KB at 100 Gb/s).
    ecn.kmin_bytes = ecn.kmax_bytes =
        static_cast<int64_t>(30'000.0 * static_cast<double>(sc.link.rate_bps) / 1e10);
    ecn.pmax = 1.0;
  }
  if (uet) r.uet_net = configure_uet(sc);  // ECN thresholds and trimming for the UET data class
  if (tcp) {
    // TCP / iWARP (issue 12): lossy, ECN step marking at K when DCTCP, the RNIC's latency.
    ecn.enabled = sc.ecn.marking == EcnMode::kOn ||
                  (sc.ecn.marking == EcnMode::kAuto && sc.tcp.cc == transport::TcpCc::kDctcp);
    configure_tcp(sc);
  }
  override_with(ecn.kmin_bytes, sc.ecn.kmin_bytes);
  override_with(ecn.kmax_bytes, sc.ecn.kmax_bytes);
  override_with(ecn.pmax, sc.ecn.pmax);
  if (sc.roce.plb.enabled && !ecn.enabled) {
    throw InputError("fabric.roce.plb.enabled",
                     "PLB reacts to ECN marks: set fabric.ecn.marking: on (or use DCQCN)");
  }
  // kmax == kmin is step marking (DCTCP, Alizadeh et al. SIGCOMM 2010: every packet that finds
  // the queue above K is marked); below kmin nothing is.
  if (ecn.enabled && ecn.kmax_bytes < ecn.kmin_bytes) {
    throw InputError("fabric.ecn.kmax", "must be at least fabric.ecn.kmin");
  }
  if (!uet && !tcp && sc.roce.cc == transport::CongestionControl::kTimely) {
    sc.roce.timely_params = resolve_timely(sc);  // scaled to the link rate (transport/timely.cpp)
  }
  if (!uet && !tcp && sc.roce.cc == transport::CongestionControl::kSwift) {
    sc.roce.swift_params = resolve_swift(sc);  // base RTT and BDP of the fabric
  }
  if (!uet && !tcp && sc.roce.cc == transport::CongestionControl::kDctcp) {
    sc.roce.dctcp_params = resolve_dctcp_rdma(sc);
  }
  if (sc.roce.cc == transport::CongestionControl::kIbCc) {
    // FECN: step marking of data leaving any VL's egress queue above the threshold (IBA A10
    // switch ports mark "packets headed to a congested port/VL"); the network's ECN marker
    // does it, on the ECT data that an IB CC transport sends.
    r.ib_cc = resolve_ib_cc(sc);
    ecn.enabled = true;
    ecn.mask = 0xFF;
    ecn.kmin_bytes = ecn.kmax_bytes = r.ib_cc.threshold_bytes;
    ecn.pmax = 1;
    ecn.skip_credit_victims = !sc.ib.cc.mark_victims;
    ecn.mark_gap = static_cast<uint16_t>(r.ib_cc.marking_rate);
  }
}

// What a transport cannot do: packet capture synthesizes RoCEv2/InfiniBand frames only, and the
// NIC context cache is modelled for RoCE/IB QPs and iWARP connections.
void check_transport_features(const Scenario& sc) {
  const bool tcp = sc.technology == Technology::kTcp || sc.technology == Technology::kIwarp;
  if (sc.sharp.enabled && sc.technology != Technology::kInfiniband) {
    // SHARP's aggregation units are in NVIDIA's InfiniBand switches (Quantum, Quantum-2).
    throw InputError("fabric.sharp.enabled",
                     std::string("SHARP aggregates in InfiniBand switches; a ") +
                         (tcp ? "tcp/iwarp" : sc.technology == Technology::kUet ? "uet" : "roce") +
                         " fabric has none (use technology: ib)");
  }
  if (sc.sharp.enabled && sc.link.loss_rate > 0) {
    // SHARP's own reliability layer between HCA and switch is not modelled: a lost aggregation
    // packet would leave its reduction unfinished.
    throw InputError("fabric.link.loss_rate",
                     "lossy links with fabric.sharp.enabled: SHARP's retransmission between "
                     "HCA and switch is not modelled; set loss_rate 0 or SHARP off");
  }
  if (sc.sharp.enabled && sc.capture.max_frames > 0) {
    throw InputError("outputs.pcap.frames",
                     "SHARP aggregation packets have no captured form; turn capture or "
                     "fabric.sharp.enabled off");
  }
  if (tcp || sc.technology == Technology::kUet) {
    if (sc.capture.max_frames > 0) {
      throw InputError("outputs.pcap.frames",
                       std::string("packet capture synthesizes RoCEv2/InfiniBand frames; a ") +
                           (tcp ? "tcp/iwarp" : "uet") + " run has none");
    }
  }
  if (!sc.context_cache.enabled) return;
  if (sc.technology == Technology::kTcp) {
    throw InputError("fabric.nic.context_cache.enabled",
                     "kernel TCP keeps its connection state in host memory; the NIC context "
                     "cache applies to iwarp, roce and ib");
  }
  if (sc.technology == Technology::kUet) {
    throw InputError("fabric.nic.context_cache.enabled",
                     "the connection-context cache is modelled for roce and ib QPs, not uet");
  }
}

// mode: flow (docs/modes.md): what a fluid flow has no meaning for is refused here, naming the
// key, rather than run and silently ignored. What the fluid approximates (PFC, credits,
// congestion control: every flow gets its max-min share at once) is stated in the result's
// engine notes (engine/packet/simulation.cpp).
void check_flow_mode(const Scenario& sc) {
  if (sc.mode != EngineMode::kFlow) return;
  const auto refuse = [](const char* key, const std::string& why) {
    throw InputError(key, "mode: flow " + why + " (docs/modes.md); use mode: packet");
  };
  if (sc.capture.max_frames > 0) refuse("outputs.pcap.frames", "moves no frames to capture");
  if (sc.steady_window) {
    refuse("outputs.steady_window", "has no per-packet goodput inside a message to window");
  }
  if (sc.timeseries.interval_ps > 0) {
    refuse("outputs.timeseries", "has no queues, pauses or congestion-control state to sample");
  }
  const bool sprayed = sprays_packets(sc);
  if (sc.flow_paths && sprayed) {
    refuse("outputs.flows.path", "splits a sprayed message over every path, it has no packet "
                                 "paths to list");
  }
  if (sc.ecmp.load_balancing == routing::LoadBalancing::kTe) {
    refuse("routing.load_balancing", "does not run the TE controller");
  }
  if (sc.link.loss_rate > 0) refuse("fabric.link.loss_rate", "loses no packets");
  if (sc.credit_loss.switch_index >= 0) {
    refuse("faults.credit_loss", "has no InfiniBand credits to lose");
  }
  if (sc.nic_stall.nic >= 0) refuse("faults.nic_stall", "has no receive buffers to stall");
  if (sc.sharp.enabled) refuse("fabric.sharp.enabled", "does not run SHARP aggregation trees");
  if (sc.context_cache.enabled) {
    refuse("fabric.nic.context_cache.enabled", "has no per-packet context lookups");
  }
}

// mode: hybrid (engine/hybrid/steady_skip.h): steady state is skipped for RoCE and InfiniBand
// RC QPs whose packets follow one path and whose congestion control's clocks can be moved;
// everything else is refused, naming the key, rather than run with a skip that would be wrong.
void check_hybrid_mode(const Scenario& sc) {
  if (sc.mode != EngineMode::kHybrid) return;
  const auto refuse = [](const char* key, const std::string& why) {
    throw InputError(key, "mode: hybrid " + why + " (docs/modes.md \"Hybrid\"); use mode: packet");
  };
  if (sc.technology != Technology::kRoce && sc.technology != Technology::kInfiniband) {
    refuse("fabric.technology", "skips steady state of RoCE and InfiniBand RC QPs only");
  }
  if (sc.roce.service != transport::Service::kRc) {
    refuse("fabric.transport.service", "carries skipped packets on reliable connections only");
  }
  if (sc.roce.operation == transport::Operation::kRead) {
    refuse("fabric.transport.operation", "skips WRITE and SEND streams, not READ responses");
  }
  if (sc.roce.cc != transport::CongestionControl::kNone &&
      sc.roce.cc != transport::CongestionControl::kDcqcn &&
      sc.roce.cc != transport::CongestionControl::kIbCc) {
    refuse("fabric.roce.cc", "moves the clocks of DCQCN and InfiniBand CC only (a window "
                             "scheme's per-packet RTT stamps are not carried)");
  }
  if (sprays_packets(sc)) refuse("fabric.roce.spray", "needs one path per QP to group QPs");
  if (sc.ecmp.load_balancing != routing::LoadBalancing::kEcmp) {
    refuse("routing.load_balancing", "needs one path per QP (hash ECMP) to group QPs");
  }
  if (sc.technology == Technology::kInfiniband && sc.recovery.adaptive) {
    refuse("routing.sm.adaptive", "needs one path per QP to group QPs");
  }
  if (sc.topology.kind == topo::TopologyKind::kDragonfly) {
    refuse("topology.kind", "needs one path per QP; Dragonfly's Valiant and UGAL choose per packet");
  }
  if (sc.topology.planes > 1) refuse("topology.planes", "needs one path per QP to group QPs");
  if (sc.roce.plb.enabled) refuse("fabric.roce.plb.enabled", "needs one path per QP");
  if (sc.roce.out_of_order) refuse("fabric.roce.out_of_order", "skips in-order streams only");
  if (sc.link_fail.switch_index >= 0) refuse("faults.link_down", "does not re-route skipped groups");
  if (sc.plane_fail.plane >= 0) refuse("faults.plane_down", "does not re-route skipped groups");
  if (sc.nic_stall.nic >= 0) refuse("faults.nic_stall", "does not stall a skipped group");
  if (sc.credit_loss.switch_index >= 0) refuse("faults.credit_loss", "keeps credits whole");
  if (sc.capture.max_frames > 0) refuse("outputs.pcap.frames", "has no frames for skipped packets");
  if (sc.steady_window) refuse("outputs.steady_window", "has no packets inside a skipped stretch");
  if (sc.timeseries.interval_ps > 0) {
    refuse("outputs.timeseries", "has no samples inside a skipped stretch");
  }
  if (sc.sharp.enabled) refuse("fabric.sharp.enabled", "does not skip SHARP streams");
  if (sc.context_cache.enabled) {
    refuse("fabric.nic.context_cache.enabled", "does not carry context-cache state");
  }
}

}  // namespace

net::EcnConfig resolved_roce_ecn(const Scenario& sc) {
  net::EcnConfig ecn = sc.switch_config.ecn;
  const bool dcqcn = sc.technology == Technology::kRoce &&
                     sc.roce.cc == transport::CongestionControl::kDcqcn;
  ecn.enabled = sc.ecn.marking == EcnMode::kOn || (sc.ecn.marking == EcnMode::kAuto && dcqcn);
  if (dcqcn) {
    const transport::DcqcnParams p = resolve_dcqcn(sc);
    ecn.kmin_bytes = p.ecn.kmin_bytes;
    ecn.kmax_bytes = p.ecn.kmax_bytes;
    ecn.pmax = p.ecn.pmax;
  }
  if (sc.ecn.kmin_bytes) ecn.kmin_bytes = *sc.ecn.kmin_bytes;
  if (sc.ecn.kmax_bytes) ecn.kmax_bytes = *sc.ecn.kmax_bytes;
  if (sc.ecn.pmax) ecn.pmax = *sc.ecn.pmax;
  return ecn;
}

Resolved resolve(const Scenario& loaded) {
  check_shape_and_workloads(loaded);
  Resolved r;
  r.sc = loaded;
  Scenario& sc = r.sc;
  resolve_fabric(sc);  // technology: IB link tables and MTU, the NIC profile, verbs checks
  derive_switch_settings(r);
  if (sc.technology == Technology::kRoce && sc.roce.cc == transport::CongestionControl::kHpcc) {
    r.hpcc = resolve_hpcc(sc);
  }
  node::check_spec(sc.node, sc.topology);  // InputError naming the node.* key
  check_load_balancing(sc);
  check_planes(sc);  // resolve/planes.h
  check_dragonfly_classes(sc);  // may widen the lossless and ECN classes (routing/dragonfly.h)
  check_transport_features(sc);
  check_flow_mode(sc);
  check_hybrid_mode(sc);
  if (sc.topology.kind == topo::TopologyKind::kDragonfly && sc.workload.group_nics == 0) {
    const topo::DragonflyShape shape = topo::dragonfly_shape(sc.topology);
    sc.workload.group_nics = shape.p * shape.a;  // group_shift's groups are the Dragonfly's
  }
  check_ranges(sc);  // products of rates, sizes and times stay inside int64 / uint32
  return r;
}

Scenario scaling_point(const Scenario& sc, int nodes) {
  Scenario s = sc;
  s.scaling_nodes.clear();
  // A fabric has at least two hosts; with GPUs the job runs on `nodes` of them (one node: its
  // GPUs talk over NVLink only).
  s.topology.hosts = std::max(nodes, 2);
  if (s.node.gpus_per_node > 0) {
    JobSpec job;
    job.name = "job0";
    job.nodes = nodes;
    job.workload = sc.workload;
    job.training = sc.training;
    s.jobs = {job};
  }
  return s;
}

}  // namespace fabricsim::scenario
