// One simulation assembled from a scenario: the fabric, its routes, the transport and the
// workload, with the event loop that drives them. run_scenario() is the usual entry point; tests
// use this class to post their own messages and inspect components.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "core/rank_exchange.h"
#include "core/scheduler.h"
#include "net/network.h"
#include "node/gpu_net.h"
#include "routing/ecmp.h"
#include "routing/plane_subnets.h"
#include "routing/subnet_manager.h"
#include "routing/te_controller.h"
#include "engine/packet/flow_paths.h"
#include "engine/hybrid/steady_skip.h"
#include "engine/flow/flow_transport.h"
#include "engine/packet/flow_recorder.h"
#include "engine/packet/gpu_workload.h"
#include "engine/run_control.h"
#include "results/result.h"
#include "spec/scenario.h"
#include "engine/packet/steady_window.h"
#include "engine/packet/telemetry.h"
#include "engine/engine.h"
#include "resolve/resolve.h"
#include "topo/topology.h"
#include "transport/rc.h"
#include "transport/transport.h"
#include "workload/workload.h"

namespace fabricsim::scenario {

class Simulation final : public Engine {
 public:
  // Builds everything from a resolved scenario (resolve/resolve.h); throws InputError for what
  // only building can find (a switch or port index out of range, an SM that cannot route).
  // `ranks` (core/rank_exchange.h): the processes of an MPI run, over which a partitioned run's
  // partitions are spread (threads x ranks of them); nullptr or one rank: this process alone.
  explicit Simulation(const Resolved& resolved, RankExchange* ranks = nullptr);
  // resolve(sc), then the above: what tests that assemble a Scenario by hand use.
  explicit Simulation(const Scenario& sc);
  Simulation(const Simulation&) = delete;
  Simulation& operator=(const Simulation&) = delete;
  ~Simulation() override;  // partitioned_run.cpp (PartitionState is complete there)

  // Engine (engine/engine.h).
  // Creates the flow recorder; when nothing reads past messages during the run (no steady
  // window, no TE controller) the transport retires them into it as they finish.
  void set_flow_harvest(const FlowHarvest& flows) override;
  void start_workload() override;
  uint32_t post(uint32_t src_nic, uint32_t dst_nic, int64_t size_bytes, uint64_t tag) override {
    return transport_->post(src_nic, dst_nic, size_bytes, tag);
  }
  // Runs until every message is acknowledged and no packet is left in the fabric, or until
  // `stop_time_ps` (0 = no limit), or until `*stop` is nonzero (checked before the first event
  // and then every kCheckEveryEvents events, when `progress` is called too). Returns false if
  // stopped by the time limit or the flag; interrupted() tells which.
  // (Default arguments on an override bind statically; Simulation is final.)
  bool run(int64_t stop_time_ps = 0, const ProgressFn& progress = {},
           const StopFlag* stop = nullptr) override;
  int64_t now_ps() const override { return sched_.now(); }
  // Closes the last telemetry interval, then reads every component (engine/packet/harvest.h).
  RunResult harvest(bool finished) override;
  // The latest run() call ended because its stop flag was set.
  bool interrupted() const override { return interrupted_; }

  const Scenario& scenario() const { return sc_; }
  Scheduler& scheduler() { return sched_; }
  net::Network& network() { return net_; }
  const net::Network& network() const { return net_; }
  const topo::BuiltTopology& topology() const { return topo_; }
  const routing::EcmpRoutes& routes() const { return routes_; }
  // The transport every workload posts through (transport/transport.h).
  transport::Transport& transport() { return *transport_; }
  const transport::Transport& transport() const { return *transport_; }
  // The RoCE/InfiniBand RC engine behind transport(), for RoCE/IB-specific output and tests
  // only (QPs, DCQCN reaction points, LIDs); nullptr when another transport runs.
  transport::RoceTransport* roce() { return roce_; }
  const transport::RoceTransport* roce() const { return roce_; }
  workload::Workload& workload() { return *workload_; }
  const workload::Workload& workload() const { return *workload_; }
  // The GPU layer (node.gpus_per_node > 0), else nullptr: GPUs as ranks over the fabric.
  node::GpuNet* gpu_net() { return gpu_net_.get(); }
  // GPU scenarios: the jobs (collectives, training steps) running on gpu_net(); else nullptr.
  GpuWorkload* gpu_workload() { return gpu_workload_.get(); }
  const GpuWorkload* gpu_workload() const { return gpu_workload_.get(); }
  int64_t events() const override { return events_; }
  // routing.load_balancing: te: the controller, else nullptr.
  const routing::TeController* te() const { return te_.get(); }
  // outputs.steady_window: the per-flow goodput sampler, else nullptr.
  const SteadyWindow* steady_window() const { return steady_.get(); }
  // outputs.timeseries: the time-series samplers, else nullptr. finish_telemetry() closes the
  // last partial interval at the current time (run_scenario calls it after run()).
  const Telemetry* telemetry() const { return telemetry_.get(); }
  void finish_telemetry() {
    if (telemetry_) telemetry_->finish(sched_.now());
  }
  // Frames recorded per Scenario::capture, in transmit order.
  std::vector<CapturedFrame>& captured() { return captured_; }
  // outputs.flows.path: each flow's ports, else nullptr.
  const FlowPaths* flow_paths() const { return flow_paths_.get(); }
  uint64_t delivered_messages() const { return delivered_.load(std::memory_order_relaxed); }
  // A partitioned run (`threads` > 1, engine/packet/partitioned_run.cpp): the partitions the
  // fabric was split into (1 when it runs sequentially), and why not when it could not be.
  uint32_t partitions() const;
  uint32_t ranks() const { return ranks_ != nullptr && part_ ? ranks_->size() : 1; }
  const std::string& partition_note() const { return partition_note_; }
  // A partitioned run's partition of each port (empty when it runs in one).
  const std::vector<uint16_t>& port_partitions() const;
  // A rank of an MPI run: what it gave back of the model once split (net/rank_release.cpp;
  // zeros in one process).
  const net::Network::Released& released() const { return released_; }
  int64_t lookahead_ps() const;
  // The latest partitioned run() call's profile (RunStats' windows, partition_events, ...).
  struct PartitionProfile {
    int64_t windows = 0;
    std::vector<int64_t> events;
    std::vector<double> busy_seconds;
    double serial_seconds = 0;
  };
  const PartitionProfile& partition_profile() const { return partition_profile_; }
  // mode: hybrid: the steady-state skipper, else nullptr.
  const SteadySkip* hybrid() const { return hybrid_.get(); }
  // InfiniBand: the Subnet Manager's latest sweep (empty on RoCE): LIDs, route counts, engine
  // and note; its LFTs and AR groups are released once programmed into the switches. On a
  // multi-plane fabric the planes' merged (routing/plane_subnets.h).
  const routing::LidRoutes& lid_routes() const { return lid_routes_; }
  // InfiniBand: the Subnet Managers, one per plane (nullptr on other fabrics).
  const routing::PlaneSubnets* subnets() const { return sm_.get(); }
  // The failure timeline (-1 when no link failed / routes were not recomputed yet).
  // routing.load_balancing: te: the traffic-engineering controller (else nullptr).
  const routing::TeController* te_controller() const { return te_.get(); }
  int64_t link_failed_ps() const { return link_failed_ps_; }
  // The first route recomputation after the first failure.
  int64_t routes_restored_ps() const { return routes_restored_ps_; }
  // faults.link_down: when its switches first took it out of their groups locally, when it first
  // came back up, and how many times it went down (-1, -1, 0 when nothing happened).
  int64_t local_repair_ps() const { return local_repair_ps_; }
  int64_t link_up_ps() const { return link_up_ps_; }
  int link_downs() const { return link_downs_; }

 private:
  Scenario sc_;
  Scheduler sched_;
  net::Network net_;
  topo::BuiltTopology topo_;
  routing::EcmpRoutes routes_;
  std::unique_ptr<transport::Transport> transport_;
  // mode: flow: the scenario's packet transport, behind transport_ (a FlowTransport).
  std::unique_ptr<transport::Transport> proto_transport_;
  FlowTransport* flow_ = nullptr;  // = transport_ in flow mode
  transport::RoceTransport* roce_ = nullptr;  // = transport_ when it is the RoCE/IB engine
  std::unique_ptr<workload::Workload> workload_;
  std::unique_ptr<node::GpuNet> gpu_net_;
  std::unique_ptr<GpuWorkload> gpu_workload_;  // after gpu_net_: it holds a reference to it
  std::unique_ptr<routing::PlaneSubnets> sm_;
  // Multi-plane InfiniBand: the planes a link event re-sweeps (bit p = plane p): those of
  // faults.link_down's cable and faults.plane_down; the other subnets see no trap.
  uint32_t resweep_planes_ = routing::PlaneSubnets::kAllPlanes;
  bool routes_programmed_ = false;
  std::unique_ptr<SteadyWindow> steady_;
  std::unique_ptr<Telemetry> telemetry_;
  int64_t stop_markers_pending_ = 0;  // kStopMarker events in the queue (the sampler's end test)
  // Load balancing (routing.load_balancing: te): the controller learns of each message posted
  // since te_seen_ after the events that post (per message, never per packet).
  std::unique_ptr<routing::TeController> te_;
  uint32_t te_seen_ = 0;
  void te_learn();
  routing::LidRoutes lid_routes_;
  int64_t link_failed_ps_ = -1;
  int64_t routes_restored_ps_ = -1;
  int64_t local_repair_ps_ = -1;
  int64_t link_up_ps_ = -1;
  int64_t last_link_up_ps_ = -1;
  int link_downs_ = 0;  // kLinkFail events of faults.link_down so far
  uint32_t failed_port_ = 0;  // faults.link_down's port (valid once link_downs_ > 0)
  // Port id of a switch's local port, or throws InputError naming `key`.
  uint32_t switch_port(int switch_index, int port, const char* key) const;
  void program_routes();  // (re)computes and installs the fabric's forwarding
  void install_dragonfly_routes();  // topology.kind: dragonfly (routing/dragonfly.h)
  uint32_t affected_planes() const;  // resweep_planes_ from the scenario's faults
  void dispatch(const Event& ev);
  bool check_in(int64_t stop_time_ps, const ProgressFn& progress, const StopFlag* stop);
  void on_link_fail(uint32_t port);
  void on_route_update();
  // The control plane's reaction to a link changing state: the SM's sweep and programming
  // (InfiniBand) or the routing protocol's convergence (Ethernet).
  int64_t route_update_delay_ps() const;
  void on_local_repair(uint32_t cycle);
  // kLinkUp targets with this bit set: the SM activates the port of a cable that came back.
  static constexpr uint32_t kSmActivateBit = 0x80000000u;
  void on_link_up(uint32_t target);
  static void capture_hook(void* self, int64_t time_ps, uint32_t port, const net::Packet& pkt);
  // The one tap when both capture and path recording are on (the network has one tap).
  static void tap_both(void* self, int64_t time_ps, uint32_t port, const net::Packet& pkt);
  static void path_hook(void* self, int64_t time_ps, uint32_t port, const net::Packet& pkt);
  int64_t events_ = 0;
  int64_t stop_marker_ps_ = -1;  // the time limit of the latest run() call
  bool interrupted_ = false;
  // Counted by whichever partition delivers (a partitioned run's threads): atomic.
  std::atomic<uint64_t> delivered_{0};
  // Partitioned runs (engine/packet/partitioned_run.cpp).
  struct PartitionState;
  struct WindowModel;
  net::Network::Released released_;  // before part_: the constructor may destroy part_ only
  std::unique_ptr<PartitionState> part_;   // where PartitionState is complete
  RankExchange* ranks_ = nullptr;  // set when more than one rank runs this simulation
  std::string partition_note_;
  PartitionProfile partition_profile_;
  // Why this scenario cannot run partitioned ("" if it can).
  std::string partition_refusal() const;
  void plan_partitions();  // after everything is built
  bool run_partitioned(int64_t stop_time_ps, const ProgressFn& progress, const StopFlag* stop);
  // The ranks' share of a partitioned run (engine/packet/rank_merge.cpp): after the windows,
  // rank 0 takes the owned state of every other rank's partitions (it alone writes results).
  // Returns the events run on every rank's partitions, and drop reports accounted, together;
  // `busy_seconds` gets the other ranks' partitions' too.
  int64_t merge_ranks(Partitions& parts, std::vector<double>& busy_seconds, int64_t local_events);
  int64_t progress_total_bytes_ = -1;   // workload_->total_pattern_bytes(), -1 = not asked yet
  std::vector<CapturedFrame> captured_;
  int64_t captured_packets_ = 0;  // captured frames that go to trace.pcap
  std::unique_ptr<FlowPaths> flow_paths_;  // outputs.flows.path
  std::unique_ptr<FlowRecorder> flow_recorder_;  // set_flow_harvest(); else made by harvest()
  bool capturing_ = false;  // the capture budget is not yet spent
  std::unique_ptr<SteadySkip> hybrid_;  // mode: hybrid
};

}  // namespace fabricsim::scenario
