#include "engine/packet/simulation.h"
#include "engine/packet/simulation_dispatch.h"
#include "engine/packet/partition_state.h"

#include <algorithm>
#include <stdexcept>

#include "core/checked.h"
#include "core/error.h"
#include "net/load_balance.h"
#include "net/plane_choice.h"
#include "net/wire.h"
#include "routing/dragonfly.h"
#include "resolve/planes.h"
#include "engine/flow/flow_headers.h"
#include "engine/flow/flow_transport.h"
#include "engine/packet/harvest.h"
#include "resolve/resolve.h"
#include "topo/multi_plane.h"
#include "transport/tcp.h"
#include "transport/uet.h"

namespace fabricsim::scenario {

namespace {

}  // namespace

Simulation::Simulation(const Scenario& sc) : Simulation(resolve(sc)) {}

Simulation::Simulation(const Resolved& resolved, RankExchange* ranks)
    : sc_(resolved.sc), net_(sched_, resolved.sc.seed) {
  if (ranks != nullptr && ranks->size() > 1) ranks_ = ranks;
  const bool uet = sc_.technology == Technology::kUet;
  const bool tcp = sc_.technology == Technology::kTcp || sc_.technology == Technology::kIwarp;
  const bool ib = sc_.technology == Technology::kInfiniband;
  if (ib) net_.set_ib(sc_.ib.link);
  topo_ = topo::build(sc_.topology, topo::FabricParams{sc_.link, sc_.switch_config, sc_.nic}, net_);
  if (ib) {
    static constexpr routing::SmEngine kEngines[] = {
        routing::SmEngine::kMinHop, routing::SmEngine::kUpDown, routing::SmEngine::kFatTree};
    // One subnet, or one per plane whose HCA ports are the NICs' selectors (resolve/planes.h).
    std::vector<routing::SweepScope> subnets;
    for (int p = 0; sc_.topology.planes > 1 && p < sc_.topology.planes; ++p) {
      const topo::PlaneSwitches ps = topo::plane_switches(net_, sc_.topology, p);
      subnets.push_back({ps.first, ps.count, net_.num_nics()});
    }
    if (!subnets.empty()) {
      for (uint32_t nic = 0; nic < net_.num_nics(); ++nic) net::make_hca_ports(net_.switch_at(nic));
    }
    sm_ = std::make_unique<routing::PlaneSubnets>(
        kEngines[static_cast<int>(sc_.recovery.engine)], sc_.recovery.adaptive,
        kEngines[static_cast<int>(sc_.recovery.fallback)], std::move(subnets));
  }
  program_routes();
  if (sc_.credit_loss.switch_index >= 0) {
    net_.break_credit_return(
        switch_port(sc_.credit_loss.switch_index, sc_.credit_loss.port, "faults.credit_loss"));
  }
  if (sc_.link_fail.switch_index >= 0) {  // checks the indices
    failed_port_ = switch_port(sc_.link_fail.switch_index, sc_.link_fail.port, "faults.link_down");
  }
  if (sm_ && sm_->planes() > 1) resweep_planes_ = affected_planes();
  if (tcp) {
    auto t = std::make_unique<transport::TcpTransport>(sc_.tcp, net_, sc_.seed);
    if (sc_.context_cache.enabled) {  // iwarp only (resolve/resolve.cpp refuses kernel TCP)
      // iWARP: the RNIC's TCB + QP contexts; a miss is a PCIe read (the profile's dma_read).
      t->set_context_cache(sc_.context_cache,
                           sc_.context_cache.miss_latency_ps.value_or(sc_.nic.dma_read_ps));
    }
    transport_ = std::move(t);
  } else if (uet) {
    transport_ =
        std::make_unique<transport::UetTransport>(sc_.uet, net_, sc_.seed, resolved.uet_net);
  } else {
    auto roce = std::make_unique<transport::RoceTransport>(sc_.roce, net_, sc_.seed, resolved.dcqcn,
                                                          resolved.ib_cc, resolved.hpcc);
    if (ib) roce->set_infiniband(sm_->nic_lids(), sc_.ib.link.sl_to_vl, sm_->planes());
    // Swift's target grows with the switch hops of a QP's path (its shortest-path length).
    roce->set_path_hops(
        [this](uint32_t src, uint32_t dst) { return routes_.switch_hops(src, dst); });
    if (sc_.context_cache.enabled) {  // a miss is a PCIe read: by default the profile's dma_read
      roce->set_context_cache(sc_.context_cache,
                              sc_.context_cache.miss_latency_ps.value_or(sc_.nic.dma_read_ps));
    }
    roce_ = roce.get();
    transport_ = std::move(roce);
  }
  if (sc_.mode == EngineMode::kFlow) {
    // The flow engine (engine/flow/flow_transport.h) stands where the packet transport stood;
    // the packet transport stays as the source of header fields and idle-path timing.
    proto_transport_ = std::move(transport_);
    auto flow = std::make_unique<FlowTransport>(net_, sched_, routes_, sc_.link,
                                                sc_.switch_config, *proto_transport_,
                                                flow_headers(sc_, *proto_transport_));
    flow->set_channel_entropy(flow_channel_entropy(sc_, *proto_transport_));
    if (sc_.flow.dcqcn && roce_ != nullptr &&
        roce_->config().cc == transport::CongestionControl::kDcqcn) {
      flow->enable_dcqcn(roce_->dcqcn_params(), sc_.roce.mtu_bytes);
    }
    flow_ = flow.get();
    transport_ = std::move(flow);
    roce_ = nullptr;
  }
  if (ib && sc_.sharp.enabled) {  // resolve() refuses it on every other fabric
    net::SharpConfig sharp = sc_.sharp;
    sharp.mtu_bytes = sc_.ib.mtu_bytes;
    sharp.vl = sc_.ib.link.sl_to_vl[sc_.ib.sl & 15];
    net_.enable_sharp(sharp);
  }
  workload_ = std::make_unique<workload::Workload>(sc_.workload, topo_.nics, sc_.link.rate_bps,
                                                   sc_.seed, *transport_, sched_);
  if (sc_.node.gpus_per_node > 0) {
    gpu_net_ = std::make_unique<node::GpuNet>(
        sc_.node, topo_, topo::FabricParams{sc_.link, sc_.switch_config, sc_.nic}, routes_,
        *transport_, sched_);
    // Flow mode's fabric keeps one connection per NIC pair, so a ring's folded channels may
    // cross nodes as one message (collective.fold_channels, docs/collectives.md).
    gpu_net_->set_weighted_net_sends(sc_.mode == EngineMode::kFlow);
    // The leaf switch of each node's first NIC, for jobs placed one node per leaf.
    std::vector<uint32_t> leaf_of_node(static_cast<size_t>(topo_.hosts));
    for (int n = 0; n < topo_.hosts; ++n) {
      leaf_of_node[n] = net_.leaf_slot_of_nic(static_cast<uint32_t>(n * sc_.topology.nics_per_host));
    }
    // The ideal network has no switches to aggregate in (node::NodeSpec::ideal_fabric).
    if (net_.sharp_enabled() && !sc_.node.ideal_fabric) gpu_net_->attach_sharp(net_);
    gpu_workload_ = std::make_unique<GpuWorkload>(sc_, *gpu_net_, leaf_of_node);
  }
  if (sc_.steady_window) {  // pattern runs only (resolve/resolve.cpp)
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
  if (flow_ && flow_paths_) {
    flow_->on_path = [this](uint32_t msg, const std::vector<uint32_t>& ports) {
      flow_paths_->add_path(msg, ports);
    };
  }
  if (capturing_ && flow_paths_) {
    net_.set_tap(net::Tap{this, &Simulation::tap_both});
  } else if (capturing_) {
    net_.set_tap(net::Tap{this, &Simulation::capture_hook});
  } else if (flow_paths_) {
    net_.set_tap(net::Tap{this, &Simulation::path_hook});
  }
  if (sc_.mode == EngineMode::kHybrid) {  // RoCE or InfiniBand RC (resolve/resolve.cpp)
    HybridParams hp;
    hp.epsilon = sc_.hybrid.epsilon;
    hp.window_rtts = sc_.hybrid.window_rtts;
    hp.window_ps = SteadySkip::base_rtt_ps(net_, routes_.diameter_switch_hops(),
                                           roce_->config().mtu_bytes);
    hybrid_ = std::make_unique<SteadySkip>(sched_, net_, *roce_, hp);
  }
  if (sc_.threads > 1 || ranks_ != nullptr) plan_partitions();
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
  // InfiniBand: the first sweep covers every plane; a re-sweep only the planes a link event hit
  // (the other subnets' switches get back the tables the ECMP install below replaces).
  const uint32_t planes = routes_programmed_ ? resweep_planes_ : routing::PlaneSubnets::kAllPlanes;
  routes_programmed_ = true;
  if (sm_) sm_->stash_tables(net_, planes);
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
  sm_->sweep_and_install(net_, planes);
  sm_->restore_tables(net_);
  lid_routes_ = sm_->routes();
  if (lid_routes_.unreachable_pairs > 0 && link_failed_ps_ < 0) {
    throw InputError("topology", "the Subnet Manager found " +
                                     std::to_string(lid_routes_.unreachable_pairs) +
                                     " unreachable (switch, LID) pairs: the subnet does not connect");
  }
  install_dragonfly_routes();
}

uint32_t Simulation::affected_planes() const {
  // A cable of plane p's switches, or a selector's port 1 + p (its cable to plane p's leaf).
  uint32_t mask = 0;
  if (sc_.link_fail.switch_index >= 0) {
    const auto sw = static_cast<uint32_t>(net_.port(failed_port_).switch_index);
    const uint32_t p = sm_->plane_of_switch(sw);
    const uint32_t local = failed_port_ - net_.switch_at(sw).first_port;
    if (p < sm_->planes()) {
      mask |= 1u << p;
    } else if (local > 0) {  // a selector's plane port; its port 0 faces the NIC, in no subnet
      mask |= 1u << (local - 1);
    }
  }
  if (sc_.plane_fail.plane >= 0) mask |= 1u << sc_.plane_fail.plane;
  return mask;
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

int64_t Simulation::route_update_delay_ps() const {
  return sm_ ? sc_.recovery.sm_sweep_delay_ps + sc_.recovery.sm_reprogram_ps
             : sc_.recovery.ecmp_convergence_ps;
}

void Simulation::on_link_fail(uint32_t port) {
  if (port & kPlaneFailBit) {  // faults.plane_down: every cable of the plane (resolve/planes.h)
    fail_plane(net_, sc_.topology, static_cast<int>(port & ~kPlaneFailBit),
               sc_.plane_fail.uplinks_only);
  } else {
    net_.fail_link(port);
    const uint32_t cycle = static_cast<uint32_t>(link_downs_++);
    // Local repair at the cable's two switches (routing.ecmp.local_repair). InfiniBand adaptive
    // routing skips a port that left the Active state in hardware at once (SHIELD's FLFR,
    // net/load_balance.cpp least_queued); its groups lose the port at the same instant. Static
    // InfiniBand LFTs have no alternative port to repair to: they wait for the SM.
    if (sm_ ? sc_.recovery.adaptive : sc_.recovery.local_repair) {
      const int64_t delay = sm_ ? 0 : sc_.recovery.local_repair_delay_ps;
      if (delay == 0) {
        on_local_repair(cycle);
      } else {
        sched_.at(sched_.now() + delay, kLocalRepair, cycle);
      }
    }
  }
  if (flow_) flow_->on_links_changed(false);
  if (link_failed_ps_ < 0) link_failed_ps_ = sched_.now();
  // The control plane reacts later: the SM after its trap-triggered sweep and the programming
  // of new LFTs; RoCE once the routing protocol has converged.
  sched_.at(sched_.now() + route_update_delay_ps(), kRouteUpdate, 0);
}

void Simulation::on_local_repair(uint32_t cycle) {
  // A repair scheduled for an earlier failure of a flapping cable, or a cable that came back
  // before its failure was detected (a flap shorter than the detection delay): nothing to do.
  if (static_cast<int>(cycle) != link_downs_ - 1 || net_.port(failed_port_).up) return;
  int changed = 0;
  for (const uint32_t id : {failed_port_, net_.port(failed_port_).peer}) {
    const net::Port& p = net_.port(id);
    if (p.switch_index >= 0) {
      changed += net_.remove_from_groups(static_cast<uint32_t>(p.switch_index), id);
    }
  }
  // Nothing to take out when routing already converged without the cable (a convergence
  // shorter than the detection delay) or when no group had an alternative: no local repair.
  if (changed > 0 && local_repair_ps_ < 0) local_repair_ps_ = sched_.now();
  if (flow_ && changed > 0) flow_->on_links_changed(false);
}

void Simulation::on_link_up(uint32_t target) {
  const bool activate = (target & kSmActivateBit) != 0;
  const uint32_t cycle = target & ~kSmActivateBit;
  if (static_cast<int>(cycle) != link_downs_ - 1) return;  // failed again before activation
  // Arrivals scheduled before the failure must have fired first (net::Network::link_quiet_ps):
  // nanoseconds to microseconds after it, against flaps of microseconds and more.
  const int64_t quiet_ps = net_.link_quiet_ps(failed_port_);
  if (quiet_ps > sched_.now()) {
    sched_.at(quiet_ps, kLinkUp, target);
    return;
  }
  if (!activate) {
    if (link_up_ps_ < 0) link_up_ps_ = sched_.now();
    last_link_up_ps_ = sched_.now();
  }
  if (sm_ && !activate) {
    // InfiniBand: the trained port waits in the Init state, where switches forward no data
    // through it, until the SM's sweep (trap 128) moves it to Active and programs LFTs over it.
    sched_.at(sched_.now() + route_update_delay_ps(), kLinkUp, cycle | kSmActivateBit);
    return;
  }
  net_.restore_link(failed_port_);
  if (flow_) flow_->on_links_changed(false);
  if (activate) {
    on_route_update();
    return;
  }
  // Ethernet: the cable forwards at once (what still hashes onto it), but its port rejoins the
  // groups only once the routing protocol has reconverged over it.
  sched_.at(sched_.now() + route_update_delay_ps(), kRouteUpdate, 0);
}

void Simulation::on_route_update() {
  // A cable that came back up less than a convergence ago is not in the routes yet (its BGP
  // session / the SM's activation of its ports is still under way): the routing computes as
  // if it were down.
  const bool hide = link_up_ps_ >= 0 && net_.port(failed_port_).up &&
                    sched_.now() < last_link_up_ps_ + route_update_delay_ps();
  const uint32_t ends[2] = {failed_port_, net_.port(failed_port_).peer};
  if (hide) {
    for (const uint32_t id : ends) net_.port(id).up = false;
  }
  program_routes();
  if (hide) {
    for (const uint32_t id : ends) net_.port(id).up = true;
  }
  if (routes_restored_ps_ < 0) routes_restored_ps_ = sched_.now();
  if (flow_) flow_->on_links_changed(true);
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
    const LinkFailSpec& f = sc_.link_fail;
    for (int i = 0; i < f.flaps; ++i) {  // resolve checked that each cycle ends before the next
      sched_.at(f.at_ps + i * f.period_ps, kLinkFail, failed_port_);
      if (f.until_ps > 0) sched_.at(f.until_ps + i * f.period_ps, kLinkUp, static_cast<uint32_t>(i));
    }
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

// One event of the model to its owner (core/scheduler.h kinds). Called once per event from
// run(), in this file, so the compiler inlines it: no call per packet-hop beyond the owner's.

// Every kCheckEveryEvents events: the stop flag (false: stop now) and the progress report.
bool Simulation::check_in(int64_t stop_time_ps, const ProgressFn& progress, const StopFlag* stop) {
  if (stop && *stop) {
    interrupted_ = true;
    return false;
  }
  if (progress) {
    // The work done against the work known up front (cli/progress.h): a GPU run's ops and
    // collective bytes, a flow pattern's bytes delivered, a NIC collective's messages. The share
    // of stop_time elapsed counts only when the user set one (the run surely ends there);
    // simulated time is otherwise no measure of work (a step's last all-reduce can take most of
    // the wall time in a sliver of simulated time).
    double fraction = 0;
    if (gpu_workload_) {
      fraction = gpu_workload_->progress_fraction();
    } else {
      // A flow pattern: the payload that reached its receivers, packet by packet (the
      // transport's counter; a retransmitted duplicate counts again, hence the cap at 1), so a
      // permutation of equal flows, which all complete at the end, moves from the start.
      if (progress_total_bytes_ < 0) progress_total_bytes_ = workload_->total_pattern_bytes();
      fraction = progress_total_bytes_ > 0
                     ? static_cast<double>(transport_->delivered_bytes_so_far()) /
                           static_cast<double>(progress_total_bytes_)
                     : static_cast<double>(delivered_messages()) /
                           std::max<double>(1.0, static_cast<double>(workload_->total_messages()));
    }
    if (stop_time_ps > 0 && stop_time_ps < kSimHorizonPs) {
      fraction = std::max(fraction, static_cast<double>(sched_.now()) / stop_time_ps);
    }
    progress(ProgressSample{std::min(fraction, 1.0), sched_.now(), events_});
  }
  return true;
}

bool Simulation::run(int64_t stop_time_ps, const ProgressFn& progress, const StopFlag* stop) {
  interrupted_ = false;
  if (stop && *stop) {
    interrupted_ = true;
    return false;
  }
  if (part_) return run_partitioned(stop_time_ps, progress, stop);
  // Pending retransmit timers alone do not keep a run going: they would find nothing
  // outstanding. Waiting for the fabric to empty makes per-flow conservation exact.
  // The time limit is an event of its own: peeking at the next event instead would let the
  // event list move its floor past `now`, and the caller could not post anything afterwards.
  if (stop_time_ps > 0 && stop_time_ps >= sched_.now()) {
    sched_.at(stop_time_ps, kStopMarker, 0);
    ++stop_markers_pending_;
    stop_marker_ps_ = stop_time_ps;
  }
  while (!sched_.queue.empty()) {
    const Event ev = sched_.queue.pop();
    if (ev.kind() == kTelemetrySample) [[unlikely]] {
      // The sampler only reads: it is no event of the model (events() and the progress checks
      // do not count it) and it never keeps a run alive. With nothing but time limits left to
      // happen it stops, before the clock moves; finish_telemetry() closes the last interval.
      if (sched_.queue.size() <= static_cast<size_t>(stop_markers_pending_)) continue;
      sched_.now_ps = ev.time_ps;
      telemetry_->on_sample();
      continue;  // nothing changed, so the end test below (false after the last event) holds
    }
    if (ev.kind() == kStopMarker) {
      --stop_markers_pending_;
      if (ev.time_ps != stop_marker_ps_ || stop_time_ps <= 0) continue;  // an earlier call's
      sched_.now_ps = ev.time_ps;
      return false;
    }
    sched_.now_ps = ev.time_ps;
    ++events_;
    // Most events are port events; fetching the next one's port overlaps its cache miss with
    // this event's work.
    if (const Event* next = sched_.queue.peek_ready(); next && next->kind() <= kLinkArrive) {
      net_.prefetch_port(next->target);
    }
    dispatch(ev);
    // GPU stages on NVLink/PCIe and timers are node events: the run goes on while any is due.
    if (transport_->unacked_messages() == 0 &&
        (gpu_workload_ ? gpu_workload_->done() : workload_->all_posted()) &&
        net_.packets_in_flight() == 0 && (!gpu_net_ || gpu_net_->idle())) {
      break;
    }
    if ((events_ & (kCheckEveryEvents - 1)) == 0 && !check_in(stop_time_ps, progress, stop)) {
      return false;
    }
  }
  return true;
}

void Simulation::set_flow_harvest(const FlowHarvest& flows) {
  flow_recorder_ = std::make_unique<FlowRecorder>(*this, flows);
  // The steady window reads every message's bytes at its snapshots and the TE controller the
  // active flows' delivered bytes: with either, every record stays.
  if (steady_ || te_ || part_) return;  // partitioned: retired at the end (partitioned_run.cpp)
  transport_->retire_messages([rec = flow_recorder_.get()](uint32_t id,
                                                           const transport::MessageRecord& m) {
    rec->add(id, m);
  });
}

RunResult Simulation::harvest(bool finished) {
  finish_telemetry();  // the last, partial interval ends where the run did
  if (!flow_recorder_) flow_recorder_ = std::make_unique<FlowRecorder>(*this, FlowHarvest{});
  if (hybrid_) hybrid_->settle();  // a skip still running ends now: counters as of now
  return scenario::harvest(*this, finished, *flow_recorder_);
}

}  // namespace fabricsim::scenario
