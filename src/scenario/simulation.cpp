#include "scenario/simulation.h"

#include <algorithm>
#include <stdexcept>

#include "core/error.h"
#include "net/load_balance.h"
#include "net/wire.h"
#include "routing/dragonfly.h"
#include "routing/lid_install.h"
#include "scenario/planes.h"
#include "scenario/infiniband.h"
#include "scenario/tcp_setup.h"
#include "scenario/uet_setup.h"
#include "transport/tcp.h"
#include "transport/uet.h"

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

}  // namespace

Simulation::Simulation(const Scenario& sc) : sc_(sc), net_(sched_, sc.seed) {
  resolve_fabric(sc_);
  const bool uet = sc_.technology == Technology::kUet;
  const bool tcp = sc_.technology == Technology::kTcp || sc_.technology == Technology::kIwarp;
  const bool dcqcn = !uet && !tcp && sc_.roce.cc == transport::CongestionControl::kDcqcn;
  const transport::DcqcnParams dcqcn_params = dcqcn ? resolve_dcqcn(sc_) : transport::DcqcnParams{};
  // PFC and ECN act on the RoCE (or UET) data class; ECN thresholds come from the DCQCN profile
  // (or UET's derivation) unless the scenario sets them.
  const uint8_t data_class = static_cast<uint8_t>(
      1u << (uet ? sc_.uet.data_priority : sc_.roce.data_priority));
  net::PfcConfig& pfc = sc_.switch_config.pfc;
  if (uet) pfc.enabled = sc_.uet.pfc;  // fabric.pfc.enabled is RoCE's (cli/fabric_scope.cpp)
  pfc.mtu_bytes = uet ? sc_.uet.mtu_bytes : sc_.roce.mtu_bytes;  // the headroom formula's MTU
  pfc.lossless_mask = data_class;
  net::EcnConfig& ecn = sc_.switch_config.ecn;
  ecn.enabled = sc_.ecn.marking == EcnMode::kOn ||
                (sc_.ecn.marking == EcnMode::kAuto && (dcqcn || uet));
  ecn.mask = data_class;
  if (dcqcn) {
    ecn.kmin_bytes = dcqcn_params.ecn.kmin_bytes;
    ecn.kmax_bytes = dcqcn_params.ecn.kmax_bytes;
    ecn.pmax = dcqcn_params.ecn.pmax;
  }
  transport::UetNetwork uet_net;
  if (uet) uet_net = configure_uet(sc_);  // ECN thresholds and trimming for the UET data class
  if (tcp) {
    // TCP / iWARP (issue 12): lossy, ECN step marking at K when DCTCP, the RNIC's latency.
    ecn.enabled = sc_.ecn.marking == EcnMode::kOn ||
                  (sc_.ecn.marking == EcnMode::kAuto && sc_.tcp.cc == transport::TcpCc::kDctcp);
    configure_tcp(sc_);
  }
  override_with(ecn.kmin_bytes, sc_.ecn.kmin_bytes);
  override_with(ecn.kmax_bytes, sc_.ecn.kmax_bytes);
  override_with(ecn.pmax, sc_.ecn.pmax);
  if (sc_.roce.plb.enabled && !ecn.enabled) {
    throw InputError("fabric.roce.plb.enabled",
                     "PLB reacts to ECN marks: set fabric.ecn.marking: on (or use DCQCN)");
  }
  // kmax == kmin is step marking (DCTCP, Alizadeh et al. SIGCOMM 2010: every packet that finds
  // the queue above K is marked); below kmin nothing is.
  if (ecn.enabled && ecn.kmax_bytes < ecn.kmin_bytes) {
    throw InputError("fabric.ecn.kmax", "must be at least fabric.ecn.kmin");
  }
  node::check_spec(sc_.node, sc_.topology);  // InputError naming the node.* key
  check_load_balancing(sc_);
  check_planes(sc_);  // scenario/planes.h
  check_dragonfly_classes(sc_);  // may widen the lossless and ECN classes (routing/dragonfly.h)
  const bool ib = sc_.technology == Technology::kInfiniband;
  if (ib) net_.set_ib(sc_.ib.link);
  topo_ = topo::build(sc_.topology, topo::FabricParams{sc_.link, sc_.switch_config, sc_.nic}, net_);
  if (ib) {
    static constexpr routing::SmEngine kEngines[] = {
        routing::SmEngine::kMinHop, routing::SmEngine::kUpDown, routing::SmEngine::kFatTree};
    sm_ = std::make_unique<routing::SubnetManager>(
        kEngines[static_cast<int>(sc_.recovery.engine)], sc_.recovery.adaptive,
        kEngines[static_cast<int>(sc_.recovery.fallback)]);
  }
  program_routes();
  if (sc_.credit_loss.switch_index >= 0) {
    net_.break_credit_return(
        switch_port(sc_.credit_loss.switch_index, sc_.credit_loss.port, "faults.credit_loss"));
  }
  if (sc_.link_fail.switch_index >= 0) {
    switch_port(sc_.link_fail.switch_index, sc_.link_fail.port, "faults.link_down");  // checks
  }
  if (tcp) {
    if (sc_.capture.max_frames > 0) {
      throw InputError("outputs.pcap.frames",
                       "packet capture synthesizes RoCEv2/InfiniBand frames; a tcp/iwarp run has "
                       "none");
    }
    auto t = std::make_unique<transport::TcpTransport>(sc_.tcp, net_, sc_.seed);
    if (sc_.context_cache.enabled) {
      if (sc_.technology == Technology::kTcp) {
        throw InputError("fabric.nic.context_cache.enabled",
                         "kernel TCP keeps its connection state in host memory; the NIC context "
                         "cache applies to iwarp, roce and ib");
      }
      // iWARP: the RNIC's TCB + QP contexts; a miss is a PCIe read (the profile's dma_read).
      t->set_context_cache(sc_.context_cache,
                           sc_.context_cache.miss_latency_ps.value_or(sc_.nic.dma_read_ps));
    }
    transport_ = std::move(t);
  } else if (uet) {
    if (sc_.capture.max_frames > 0) {
      throw InputError("outputs.pcap.frames",
                       "packet capture synthesizes RoCEv2/InfiniBand frames; a uet run has none");
    }
    if (sc_.context_cache.enabled) {
      throw InputError("fabric.nic.context_cache.enabled",
                       "the connection-context cache is modelled for roce and ib QPs, not uet");
    }
    transport_ = std::make_unique<transport::UetTransport>(sc_.uet, net_, sc_.seed, uet_net);
  } else {
    auto roce = std::make_unique<transport::RoceTransport>(sc_.roce, net_, sc_.seed, dcqcn_params);
    if (ib) roce->set_infiniband(lid_routes_.nic_lid, sc_.ib.link.sl_to_vl);
    if (sc_.context_cache.enabled) {  // a miss is a PCIe read: by default the profile's dma_read
      roce->set_context_cache(sc_.context_cache,
                              sc_.context_cache.miss_latency_ps.value_or(sc_.nic.dma_read_ps));
    }
    roce_ = roce.get();
    transport_ = std::move(roce);
  }
  if (sc_.topology.kind == topo::TopologyKind::kDragonfly && sc_.workload.group_nics == 0) {
    const topo::DragonflyShape shape = topo::dragonfly_shape(sc_.topology);
    sc_.workload.group_nics = shape.p * shape.a;  // group_shift's groups are the Dragonfly's
  }
  workload_ = std::make_unique<workload::Workload>(sc_.workload, topo_.nics, sc_.link.rate_bps,
                                                   sc_.seed, *transport_, sched_);
  if (sc_.node.gpus_per_node > 0) {
    gpu_net_ = std::make_unique<node::GpuNet>(
        sc_.node, topo_, topo::FabricParams{sc_.link, sc_.switch_config, sc_.nic}, routes_,
        *transport_, sched_);
    // The leaf switch of each node's first NIC, for jobs placed one node per leaf.
    std::vector<uint32_t> leaf_of_node(static_cast<size_t>(topo_.hosts));
    for (int n = 0; n < topo_.hosts; ++n) {
      leaf_of_node[n] = net_.leaf_slot_of_nic(static_cast<uint32_t>(n * sc_.topology.nics_per_host));
    }
    gpu_workload_ = std::make_unique<GpuWorkload>(sc_, *gpu_net_, leaf_of_node);
  } else if (!sc_.jobs.empty()) {
    throw InputError("jobs", "jobs run on GPUs: set node.gpus_per_node");
  }
  if (sc_.steady_window) {
    if (gpu_net_) {
      throw InputError("outputs.steady_window",
                       "measures the flows of a traffic pattern; GPU runs report their "
                       "collectives and steps instead");
    }
    steady_ = std::make_unique<SteadyWindow>(*transport_, sched_, sc_.link.rate_bps,
                                             workload_->total_messages());
  }
  if (sc_.timeseries.interval_ps > 0) {  // off: no sampler, no event, no memory
    telemetry_ = std::make_unique<Telemetry>(sc_.timeseries, net_, *transport_, sched_);
  }
  if (sc_.ecmp.load_balancing == routing::LoadBalancing::kTe) {
    te_ = std::make_unique<routing::TeController>(
        net_, sched_, sc_.ecmp.te,
        [this](uint32_t msg) { return transport_->message(msg).delivered_bytes; });
  }
  transport_->on_delivered = [this](uint32_t msg) {
    ++delivered_;
    if (steady_) steady_->on_completion();
    if (te_) te_->on_delivered(msg);
    // GPU transfers' transport messages belong to the node layer, whatever else is running.
    if (gpu_net_ && gpu_net_->owns(msg)) {
      gpu_net_->on_delivered(msg);
    } else {
      workload_->on_delivered(msg);
    }
    if (te_) te_learn();  // a delivery may post the next messages (collectives)
  };
  // Observers of every transmitted frame (net::Tap): pcap capture and/or flow paths. With
  // neither, no tap is installed and the per-hop path is unchanged.
  capturing_ = sc_.capture.max_frames > 0;
  if (sc_.flow_paths) flow_paths_ = std::make_unique<FlowPaths>(net_);
  if (capturing_ && flow_paths_) {
    net_.set_tap(net::Tap{this, &Simulation::tap_both});
  } else if (capturing_) {
    net_.set_tap(net::Tap{this, &Simulation::capture_hook});
  } else if (flow_paths_) {
    net_.set_tap(net::Tap{this, &Simulation::path_hook});
  }
}

uint32_t Simulation::switch_port(int switch_index, int port, const char* key) const {
  const std::string k(key);
  if (switch_index >= static_cast<int>(net_.num_switches())) {
    throw InputError(k + ".switch", "must be a switch index below " + std::to_string(net_.num_switches()));
  }
  const net::Switch& sw = net_.switch_at(static_cast<uint32_t>(switch_index));
  if (port >= static_cast<int>(sw.num_ports)) {
    throw InputError(k + ".port", "switch " + std::to_string(switch_index) + " has " +
                                      std::to_string(sw.num_ports) + " ports");
  }
  return sw.first_port + static_cast<uint32_t>(port);
}

void Simulation::program_routes() {
  // ECMP tables always: their shortest-path distances also give each flow's ideal hop count.
  routes_.install(net_, sc_.ecmp, sc_.seed);
  if (sc_.ecmp.load_balancing == routing::LoadBalancing::kFlowlet && sc_.ecmp.flowlet_gap_ps == 0) {
    // routing.flowlet_gap: auto, from this fabric's RTT (routing/ecmp.h), fixed for the run.
    const uint32_t frame =
        (sc_.technology == Technology::kUet
             ? transport::uet_data_frame_bytes(sc_.uet, static_cast<uint32_t>(sc_.uet.mtu_bytes))
         : sc_.technology == Technology::kTcp || sc_.technology == Technology::kIwarp
             ? transport::tcp_data_frame_bytes(sc_.tcp, transport::tcp_payload_per_segment(sc_.tcp))
             : net::roce_data_frame_bytes(static_cast<uint32_t>(sc_.roce.mtu_bytes), false,
                                          false)) +
        net::kWireOnlyBytes;
    sc_.ecmp.flowlet_gap_ps =
        routing::auto_flowlet_gap_ps(net_, routes_.diameter_switch_hops(), frame);
    for (uint32_t sw = 0; sw < net_.num_switches(); ++sw) {
      net::enable_flowlets(net_.switch_at(sw), sc_.ecmp.flowlet_gap_ps);
    }
  }
  if (!sm_) {
    install_dragonfly_routes();
    return;
  }
  lid_routes_ = sm_->sweep(net_);
  if (lid_routes_.unreachable_pairs > 0 && link_failed_ps_ < 0) {
    throw InputError("topology", "the Subnet Manager found " +
                                     std::to_string(lid_routes_.unreachable_pairs) +
                                     " unreachable (switch, LID) pairs: the subnet does not connect");
  }
  routing::install_lid_routes(net_, lid_routes_, sc_.recovery.adaptive);
  install_dragonfly_routes();
  // The switches now hold the tables; keep only what reports need (LIDs, route counts). The
  // per-switch LFTs and AR groups are the bulk of the SM's memory (tens of MiB at k=24).
  std::vector<std::vector<uint32_t>>().swap(lid_routes_.lft);
  std::vector<std::vector<uint32_t>>().swap(lid_routes_.ar_offsets);
  std::vector<std::vector<uint32_t>>().swap(lid_routes_.ar_ports);
}

void Simulation::install_dragonfly_routes() {
  if (sc_.topology.kind != topo::TopologyKind::kDragonfly) return;
  const bool ib = sc_.technology == Technology::kInfiniband;
  const bool uet = sc_.technology == Technology::kUet;
  routing::DragonflyInstall cfg;
  cfg.routing = sc_.ecmp.dragonfly;
  cfg.base_class = ib    ? sc_.ib.link.sl_to_vl[sc_.ib.sl & 15]
                   : uet ? sc_.uet.data_priority
                         : sc_.roce.data_priority;
  cfg.lossless = ib || sc_.switch_config.pfc.enabled;
  cfg.seed = sc_.seed;
  routing::install_dragonfly(net_, topo::dragonfly_shape(sc_.topology), cfg, lid_routes_.nic_lid);
  if (ib) {
    // routes.csv counts CA LIDs per LFT port: recount them from the Dragonfly LFT entries.
    lid_routes_.port_routes.assign(net_.num_ports(), 0);
    for (uint32_t s = 0; s < net_.num_switches(); ++s) {
      const net::Switch& sw = net_.switch_at(s);
      for (const uint16_t lid : lid_routes_.nic_lid) {
        if (lid == 0 || lid >= sw.group_of_key.size() || sw.group_of_key[lid] == net::kNoRoute) {
          continue;
        }
        ++lid_routes_.port_routes[sw.group_ports[sw.group_offsets[sw.group_of_key[lid]]]];
      }
    }
  }
}

void Simulation::on_link_fail(uint32_t port) {
  if (port & kPlaneFailBit) {  // faults.plane_down: every cable of the plane (scenario/planes.h)
    fail_plane(net_, sc_.topology, static_cast<int>(port & ~kPlaneFailBit),
               sc_.plane_fail.uplinks_only);
  } else {
    net_.fail_link(port);
  }
  link_failed_ps_ = sched_.now_ps;
  // The control plane reacts later: the SM after its trap-triggered sweep and the programming
  // of new LFTs; RoCE once the routing protocol has converged.
  const int64_t delay = sm_ ? sc_.recovery.sm_sweep_delay_ps + sc_.recovery.sm_reprogram_ps
                            : sc_.recovery.ecmp_convergence_ps;
  sched_.at(sched_.now_ps + delay, kRouteUpdate, 0);
}

void Simulation::on_route_update() {
  program_routes();
  routes_restored_ps_ = sched_.now_ps;
}

void Simulation::capture_hook(void* self, int64_t time_ps, uint32_t port, const net::Packet& pkt) {
  auto* sim = static_cast<Simulation*>(self);
  net::Network& net = sim->net_;
  const net::Port& from = net.port(port);
  const net::Port& to = net.port(from.peer);
  if (sim->sc_.capture.point == CapturePoint::kNics && !from.is_nic && !to.is_nic) return;
  CapturedFrame f;
  f.time_ps = time_ps;
  f.from_node = net.port_node(port);
  f.to_node = net.port_node(from.peer);
  f.from_is_nic = from.is_nic;
  f.to_is_nic = to.is_nic;
  f.pkt = pkt;
  sim->captured_.push_back(f);
  // IB flow-control packets go to credits.csv, not trace.pcap: they do not use up the budget.
  if (pkt.type != net::PacketType::kCredit) ++sim->captured_packets_;
  if (sim->captured_packets_ >= sim->sc_.capture.max_frames) {
    sim->capturing_ = false;  // enough: stop capturing (and observing, unless paths are on)
    if (!sim->flow_paths_) net.set_tap(net::Tap{});
  }
}

void Simulation::path_hook(void* self, int64_t /*time_ps*/, uint32_t port,
                           const net::Packet& pkt) {
  static_cast<Simulation*>(self)->flow_paths_->on_transmit(port, pkt);
}

void Simulation::tap_both(void* self, int64_t time_ps, uint32_t port, const net::Packet& pkt) {
  auto* sim = static_cast<Simulation*>(self);
  sim->flow_paths_->on_transmit(port, pkt);
  if (sim->capturing_) capture_hook(self, time_ps, port, pkt);
}

void Simulation::start_workload() {
  const NicStallSpec& stall = sc_.nic_stall;
  if (stall.nic >= 0) {
    sched_.at(stall.at_ps, kNicStall, static_cast<uint32_t>(stall.nic));
    if (stall.until_ps > 0) sched_.at(stall.until_ps, kNicResume, static_cast<uint32_t>(stall.nic));
  }
  if (sc_.link_fail.switch_index >= 0) {
    sched_.at(sc_.link_fail.at_ps, kLinkFail,
              switch_port(sc_.link_fail.switch_index, sc_.link_fail.port, "faults.link_down"));
  }
  if (sc_.plane_fail.plane >= 0) {
    sched_.at(sc_.plane_fail.at_ps, kLinkFail,
              kPlaneFailBit | static_cast<uint32_t>(sc_.plane_fail.plane));
  }
  if (gpu_workload_) {
    gpu_workload_->start();
  } else {
    workload_->start();
  }
  if (steady_) steady_->start();
  if (telemetry_) telemetry_->start();
  if (te_) {
    te_learn();
    te_->start();
  }
}

void Simulation::te_learn() {
  for (const uint32_t n = transport_->num_messages(); te_seen_ < n; ++te_seen_) {
    const transport::MessageRecord& m = transport_->message(te_seen_);
    te_->on_posted(te_seen_, m.src_nic, m.dst_nic, m.size_bytes);
  }
}

bool Simulation::run(int64_t stop_time_ps, const ProgressFn& progress, const StopFlag* stop) {
  const double total = std::max<double>(1.0, static_cast<double>(workload_->total_messages()));
  interrupted_ = false;
  if (stop && *stop) {
    interrupted_ = true;
    return false;
  }
  // Pending retransmit timers alone do not keep a run going: they would find nothing
  // outstanding. Waiting for the fabric to empty makes per-flow conservation exact.
  // The time limit is an event of its own: peeking at the next event instead would let the
  // event list move its floor past `now`, and the caller could not post anything afterwards.
  if (stop_time_ps > 0 && stop_time_ps >= sched_.now_ps) {
    sched_.at(stop_time_ps, kStopMarker, 0);
    ++stop_markers_pending_;
    stop_marker_ps_ = stop_time_ps;
  }
  while (!sched_.queue.empty()) {
    const Event ev = sched_.queue.pop();
    if (ev.kind == kTelemetrySample) [[unlikely]] {
      // The sampler only reads: it is no event of the model (events() and the progress checks
      // do not count it) and it never keeps a run alive. With nothing but time limits left to
      // happen it stops, before the clock moves; finish_telemetry() closes the last interval.
      if (sched_.queue.size() <= static_cast<size_t>(stop_markers_pending_)) continue;
      sched_.now_ps = ev.time_ps;
      telemetry_->on_sample();
      continue;  // nothing changed, so the end test below (false after the last event) holds
    }
    if (ev.kind == kStopMarker) {
      --stop_markers_pending_;
      if (ev.time_ps != stop_marker_ps_ || stop_time_ps <= 0) continue;  // an earlier call's
      sched_.now_ps = ev.time_ps;
      return false;
    }
    sched_.now_ps = ev.time_ps;
    ++events_;
    // Most events are port events; fetching the next one's port overlaps its cache miss with
    // this event's work.
    if (const Event* next = sched_.queue.peek_ready(); next && next->kind <= kLinkArrive) {
      net_.prefetch_port(next->target);
    }
    switch (ev.kind) {
      case kPortTxDone:
        net_.on_tx_done(ev.target);
        break;
      case kLinkArrive:
        net_.on_link_arrive(ev.target);
        break;
      case kCtrlArrive:
        net_.on_ctrl_arrive(ev.target);
        break;
      case kPauseExpire:
        net_.on_pause_expire(ev.target);
        break;
      case kPfcRefresh:
        net_.on_pfc_refresh(ev.target);
        break;
      case kPfcWatchdog:
        net_.on_pfc_watchdog(ev.target);
        break;
      case kNicStall:
        net_.on_nic_stall(ev.target);
        break;
      case kNicResume:
        net_.on_nic_resume(ev.target);
        break;
      case kCreditWatchdog:
        net_.on_credit_watchdog(ev.target);
        break;
      case kLinkFail:
        on_link_fail(ev.target);
        break;
      case kRouteUpdate:
        on_route_update();
        break;
      case kQpTimer:  // the transport's own events (Transport::is_event)
      case kCcTimer:
      case kNicWake:
      case kMsgComplete:
      case kCtxRx:
        transport_->on_event(ev.kind, ev.target);
        break;
      case kFlowStart:
        workload_->on_flow_start();
        if (te_) te_learn();
        break;
      case kNodeEvent:
        gpu_net_->on_event(ev.target);
        if (te_) te_learn();
        break;
      case kTeInstall:
        te_->on_install();
        break;
      case kTeTick:
        te_->on_tick();
        break;
      case kWindowSample:
        steady_->on_sample();
        break;
    }
    // GPU stages on NVLink/PCIe and timers are node events: the run goes on while any is due.
    if (transport_->unacked_messages() == 0 &&
        (gpu_workload_ ? gpu_workload_->done() : workload_->all_posted()) &&
        net_.packets_in_flight() == 0 && (!gpu_net_ || gpu_net_->idle())) {
      break;
    }
    if ((events_ & (kCheckEveryEvents - 1)) == 0) {
      if (stop && *stop) {
        interrupted_ = true;
        return false;
      }
      if (progress) {
        double fraction = gpu_workload_ ? static_cast<double>(gpu_workload_->finished_units()) /
                                              std::max<double>(1.0, gpu_workload_->total_units())
                                        : static_cast<double>(delivered_) / total;
        if (stop_time_ps > 0) {
          fraction = std::max(fraction, static_cast<double>(sched_.now_ps) / stop_time_ps);
        }
        progress(ProgressSample{std::min(fraction, 1.0), sched_.now_ps, events_});
      }
    }
  }
  return true;
}

}  // namespace fabricsim::scenario
