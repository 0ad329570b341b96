// What a run produced. Everything under RunResult except `run` is simulated and therefore
// byte-identical for the same scenario and seed; `run` holds the host's own statistics.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "net/packet.h"
#include "results/flow_summary.h"
#include "results/flows_csv.h"
#include "spec/telemetry_types.h"
#include "transport/config.h"
#include "workload/ping_pong.h"
#include "workload/trace_recorder.h"

namespace fabricsim::scenario {

// outputs.steady_window: per-flow goodput over the window in which every flow is active
// (engine/packet/steady_window.h measures it).
struct SteadyWindowResult {
  bool measured = false;   // false: the window was empty (e.g. no flow completed, or a flow
                           // started after the first one finished)
  std::string why_not;     // when not measured, the reason (shown in the summary)
  int64_t start_ps = 0;
  int64_t end_ps = 0;
  int flows = 0;
  double mean_goodput_bps = 0;
  double min_goodput_bps = 0;
  double max_goodput_bps = 0;
  double mean_fraction = 0;  // of the line rate
  double min_fraction = 0;
};

struct FlowRecord {
  uint32_t id = 0;
  uint32_t src_nic = 0;
  uint32_t dst_nic = 0;
  int64_t size_bytes = 0;
  int64_t start_ps = 0;
  int64_t finish_ps = -1;   // last byte delivered in order at the receiver; -1 = unfinished
  int64_t ideal_fct_ps = 0; // same flow alone on the empty network
  // Conservation: payload bytes the sender put on the wire (retransmissions included)
  // = bytes that reached the receiving NIC + bytes dropped in the fabric.
  int64_t sent_bytes = 0;
  int64_t delivered_bytes = 0;
  int64_t dropped_bytes = 0;
  int64_t retransmitted_packets = 0;
  // The flow's class: the IB service level on InfiniBand, else the 802.1p priority its data
  // packets carry; and the connection it used (RoCE/IB QP, UET PDC, TCP connection number).
  int traffic_class = 0;
  uint32_t qp = 0;
  // outputs.flows.path: the ports its data packets crossed (engine/packet/flow_paths.h format).
  std::string path{};
  int64_t fct_ps() const { return finish_ps < 0 ? -1 : finish_ps - start_ps; }
  double slowdown() const {
    return finish_ps < 0 || ideal_fct_ps <= 0 ? 0.0
                                              : static_cast<double>(fct_ps()) / ideal_fct_ps;
  }
};

struct CollectiveResult {
  bool present = false;
  std::string op;         // "all_reduce"
  std::string algorithm;  // "ring"
  int ranks = 0;
  int64_t size_bytes = 0;
  int64_t time_ps = -1;  // -1 = did not finish (stop time, interruption, QP errors)
  double algbw_gbytes_per_s = 0;  // nccl-tests: S / t
  double busbw_gbytes_per_s = 0;  // nccl-tests: algbw x 2(n-1)/n for all-reduce
};

// One row of the nccl-tests table (docs/reference/nccl.md §1.3): one size of a GPU collective
// or of a sweep, with time, algbw and busbw exactly as nccl-tests computes them.
struct CollectiveRow {
  std::string op;         // "all_reduce"
  std::string algorithm;  // what ran (auto resolved): "ring", "tree", ...
  std::string protocol;   // "simple", "ll128", "ll"
  int channels = 0;
  int ranks = 0;
  int64_t size_bytes = 0;  // nccl-tests "size"
  int64_t count = 0;       // elements: size / element bytes
  std::string type;        // element type ("float")
  std::string redop;       // "sum" for reductions, "none" otherwise (nccl-tests prints both)
  int root = -1;           // broadcast / reduce; -1 otherwise
  int64_t time_ps = -1;    // -1 = did not finish
  double algbw_gbytes_per_s = 0;
  double busbw_gbytes_per_s = 0;
};

// Time of one kind of communication in a training step (training engine, per Phase).
struct PhaseComm {
  std::string phase;  // "data_parallel", "tensor_parallel", ...
  int64_t collectives = 0;
  int64_t bytes = 0;    // sum of the collectives' nccl-tests sizes
  int64_t time_ps = 0;  // sum of their durations (they may overlap each other and compute)
};

// Exposed communication of a step breakdown: one (parallelism, training phase) cell.
struct CommPart {
  std::string parallelism;  // the collective's phase: "tensor_parallel", "data_parallel", ...
  std::string phase;        // the training phase it delayed: "forward", "backward", "optimizer"
  int64_t time_ps = 0;
};

// One rank's step, split so that step_ps = compute + bubble + skew + the comm parts, exactly
// (workload/step_breakdown.h defines each term; docs/training.md "Step breakdown").
struct StepBreakdownResult {
  int stage = -1;  // -1: the critical rank (the job); else the pipeline stage
  int rank = 0;    // job-local rank
  int64_t step_ps = 0;
  int64_t compute_ps = 0;
  int64_t bubble_ps = 0;  // waiting for compute on other pipeline stages
  int64_t skew_ps = 0;    // waiting for compute on other ranks of its own stage
  int64_t exposed_comm_ps = 0;  // the sum of `comm`
  std::vector<CommPart> comm;   // non-zero cells, parallelism then phase in enum order
};

// The collectives of a training step grouped by (parallelism, op, ranks, size): measured
// against NCCL's tuning model for the same collective (the nccl-tests expectation on an
// uncontended fabric), for the report's per-collective busbw chart.
struct StepCollective {
  std::string parallelism;  // the op's phase: "tensor_parallel", "data_parallel", ...
  std::string op;           // "all_reduce", ...
  int ranks = 0;
  int64_t size_bytes = 0;       // nccl-tests size
  int64_t count = 0;            // collectives of the group in the run (every step)
  int64_t mean_time_ps = 0;     // over the group's finished collectives
  double busbw_gbytes_per_s = 0;           // from mean_time_ps (nccl-tests busbw factor)
  double expected_busbw_gbytes_per_s = 0;  // from NCCL's model; 0 = no model (point-to-point)
};

// One op on one rank of a pipeline stage (the stage's breakdown rank), for step_timeline.csv.
struct StageSpan {
  int stage = 0;
  int rank = 0;           // job-local
  int64_t start_ps = 0;   // since the job started
  int64_t end_ps = 0;
  std::string kind;       // "compute" or the collective's parallelism ("tensor_parallel", ...)
  std::string label;      // compute: its phase ("forward", ...); collective: its op
};

// One training step (workload.kind: training).
struct TrainingResult {
  bool present = false;
  std::string source;  // "transformer" (the generator), "astra-sim: FILE" or "chakra: PREFIX"
  int gpus = 0;
  int64_t step_time_ps = -1;  // -1 = did not finish
  // The critical rank: the one with the most compute. step = compute + exposed_comm_ps, where
  // exposed_comm_ps is the rank's idle time (kept as before: bubble, skew and communication
  // together; `breakdown` splits it).
  int64_t compute_ps = 0;
  int64_t exposed_comm_ps = 0;
  bool has_breakdown = false;
  StepBreakdownResult breakdown;            // the critical rank
  std::vector<StepBreakdownResult> stages;  // per pipeline stage (its rank of most compute)
  // training.ideal_network: the same step on the ideal network (-1 = not run or unfinished),
  // and network-attributable time = step - ideal step.
  int64_t ideal_step_ps = -1;
  int64_t network_ps = 0;
  double ideal_efficiency = 0;  // ideal step / step: the fraction of the ideal network's speed
  bool has_ideal_breakdown = false;
  StepBreakdownResult ideal_breakdown;  // the critical rank's, on the ideal network
  double tflops_per_gpu = 0;  // model FLOPs / step time / GPUs (generator only; 0 otherwise)
  double samples_per_step = 0;  // the global batch (generator); 0 = not known (imported)
  std::vector<PhaseComm> comm;
  std::vector<StepCollective> collectives;  // finished step only; largest total time first
  // One rank per pipeline stage (stage order, then start time), at most kStageTimelineSpans
  // spans per rank: the first ones by start (step_timeline.csv; the report's step timeline).
  static constexpr size_t kStageTimelineSpans = 10000;
  std::vector<StageSpan> stage_timeline;
  int64_t stage_timeline_dropped = 0;  // spans of those ranks beyond the bound
  // Not finished (interrupted, or stopped by stop_time): step_time_ps stays -1 and compute_ps,
  // exposed_comm_ps and comm cover what was done until elapsed_ps: the ops that finished (an op
  // still running is not counted).
  bool finished() const { return step_time_ps >= 0; }
  int64_t ops_finished = 0;  // DAG ops (x steps) done
  int64_t ops_total = 0;
  int64_t elapsed_ps = 0;    // simulated time since the job started, to its end or the stop
};

// Step time against node count (training.scaling_nodes): acceleration ratio = how close N nodes
// come to N x one node's throughput = step(1 node) / step(N nodes) for a fixed per-GPU batch.
struct ScalingPoint {
  int nodes = 0;
  int gpus = 0;
  int64_t step_time_ps = -1;
  double acceleration_ratio = 0;
  // training.ideal_network: the step on the ideal network (-1 = not run), and ideal / step.
  int64_t ideal_step_time_ps = -1;
  double ideal_efficiency = 0;
  // A collective workload: what the first collective resolved to and its nccl-tests busbw
  // (empty / 0 for training).
  std::string algorithm;
  std::string protocol;
  int channels = 0;
  double busbw_gbytes_per_s = 0;
};

// One kind of GPU-node resource (node/gpu_net.h) over the run: NVLink ports, PCIe links, host
// memory. Utilization = bytes x 8 / (rate x the run's simulated time), so contention on a shared
// NIC link or PCIe uplink shows as a high max.
struct NodeResourceLoad {
  std::string kind;  // "nvlink_out", "pcie_nic_in", ...
  int resources = 0;
  int64_t bytes = 0;
  double mean_utilization = 0;
  double max_utilization = 0;
};

// One job of a run: its GPUs and what it ran. A run without `jobs:` has one job.
struct JobResult {
  std::string name;
  std::string placement;  // "contiguous" or "scattered"
  std::vector<uint32_t> gpus;
  std::vector<CollectiveRow> collectives;  // workload.kind: collective (one row per size)
  TrainingResult training;                 // workload.kind: training
  int64_t start_ps = 0;
  int64_t end_ps = -1;  // when its last op finished; -1 = unfinished
  // jobs_alone: the same job alone on the same nodes (-1 = not run or unfinished), and
  // end / alone (0 when either is missing).
  int64_t alone_end_ps = -1;
  double slowdown = 0;
};

struct TopologySummary {
  std::string description;
  int hosts = 0;
  int nics = 0;
  int switches = 0;
  int links = 0;  // bidirectional cables
  int tiers = 0;
};

struct FabricCounters {
  int64_t data_packets_sent = 0;   // by NICs, retransmissions included
  int64_t data_bytes_sent = 0;     // payload
  int64_t data_bytes_delivered = 0;
  int64_t dropped_packets = 0;
  int64_t dropped_bytes = 0;       // payload bytes of dropped data packets
  int64_t retransmitted_packets = 0;
  int64_t timeouts = 0;
  int64_t qp_errors = 0;  // QPs that exhausted their retries (their flows stay unfinished)
  int64_t naks = 0;
  int64_t ack_packets = 0;
  int64_t max_switch_buffer_bytes = 0;  // peak occupancy of any switch's shared buffer
  // Lossless Ethernet and congestion control.
  int64_t lossless_drops = 0;        // packets of the PFC class dropped (headroom overflow)
  int64_t pause_frames = 0;          // PAUSE and RESUME frames sent, by switches and NICs
  int64_t paused_ps = 0;             // summed over ports: time a port had a class paused
  int64_t nic_ports_paused = 0;      // NIC ports that were paused at least once
  int64_t watchdog_storms = 0;       // queues the PFC watchdog declared stormed
  int64_t watchdog_drops = 0;
  // UEC packet trimming (net/trim.cpp): data packets switches cut to their header.
  int64_t trimmed_packets = 0;
  int64_t ecn_marks = 0;             // CE marks set by switches
  int64_t cnps = 0;                  // CNPs sent by receivers
  int64_t plb_repaths = 0;           // PLB source-port changes
  int64_t link_down_drops = 0;       // packets lost on or queued for a failed link
  int64_t link_loss_drops = 0;       // data frames lost to fabric.link.loss_rate
  int64_t unroutable_drops = 0;      // packets a switch had no route for (e.g. after a failure)
  // InfiniBand link layer. paused_ps above is then the time VLs waited for credits.
  int64_t credit_packets = 0;        // flow-control packets sent
  int64_t credit_waits = 0;          // times a VL's head packet had to wait for credits
  int64_t credit_violations = 0;     // packets beyond a receiver's VL buffer (must stay 0)
  int64_t credit_stalls = 0;         // VLs stalled past the head-of-queue lifetime
  int64_t hoq_discards = 0;          // packets a stalled VL discarded
  int64_t first_credit_stall_ps = -1;
  double peak_vl_buffer_fraction = 0;  // fullest VL receive buffer, as a fraction (<= 1)
  int64_t out_of_order_packets = 0;  // placed out of PSN order (adaptive routing)
  int64_t go_back_n_fallbacks = 0;    // go-back-N recoveries (PSN gap or full reorder buffer)
  int64_t go_back_n_retransmits = 0;  // packets resent because of them
  // UET (transport/uet.h)
  int64_t trims = 0;                 // trimmed data headers NACKed by receivers
  int64_t credits = 0;               // RCCC credit grants
  int64_t sack_retransmits = 0;      // resent because later packets were acknowledged
  // routing.load_balancing: te (routing/te_controller.h)
  int64_t te_flows = 0;              // large flows the controller learned of and placed
  int64_t te_rules_installed = 0;    // per-flow rules written into switches
  int64_t te_reoptimizations = 0;    // periodic re-placements run
  int64_t te_flows_moved = 0;        // flows a re-placement moved to another path
  // TCP / iWARP (transport/tcp.h)
  int64_t host_cpu_ps = 0;           // host CPU time in the kernel stack (0 for iWARP / RDMA)
  int64_t fast_recoveries = 0;       // SACK loss recoveries entered (window halved once each)
};

// One switch port's share of the Subnet Manager's routes (InfiniBand): how many CA LIDs the
// switch's LFT sends out of it. `up`: the far end is a switch of a higher tier.
struct PortRoutes {
  int switch_index = 0;
  int tier = 0;
  int port = 0;  // local to the switch
  bool up = false;
  bool far_is_nic = false;
  uint32_t far_index = 0;  // NIC or switch index
  int32_t routes = 0;
};

// A link failure during the run and the control plane's reaction (-1 = did not happen).
struct FailureTimeline {
  int64_t link_failed_ps = -1;
  // faults.link_down: the failed cable, as the port named in the scenario (port_label, e.g.
  // "sw0:3->sw3"; links.csv marks both directions down). Empty for a plane failure.
  std::string link;
  int64_t routes_restored_ps = -1;  // new SM LFTs / converged ECMP groups in effect (the first)
  // faults.link_down: when the cable's own switches took it out of their groups (routing.ecmp.
  // local_repair; InfiniBand adaptive routing: at the failure), -1 if they never did; when it
  // first came back up (-1: never); how many times it went down (faults.link_down.flaps).
  int64_t local_repair_ps = -1;
  int64_t link_up_ps = -1;
  int64_t link_downs = 0;
  // Affected QPs: QPs that lost at least one packet on or queued for the failed link, of any
  // kind and in either direction (data, READ request or response, ACK, NAK, CNP). A QP that
  // lost only ACKs counts: its requester times out and resends.
  int64_t affected_qps = 0;
  // When the last loss of a reliable QP was recovered: lost data delivered in order again, a
  // lost ACK/NAK/READ packet's PSN acknowledged at the requester. -1 when some loss was never
  // recovered (unrecovered_qps > 0) or none needed recovering (only CNPs, duplicates lost).
  int64_t recovered_ps = -1;
  int64_t unrecovered_qps = 0;  // affected QPs with a loss still unrecovered at the end
};

// The InfiniBand Subnet Manager's routing engine: the one the scenario asked for
// (routing.sm.engine) and the one its last sweep used. They differ when OpenSM's ftree engine
// refused the subnet (not a uniform fat-tree, e.g. after a cable failed) and routing fell back
// to up/down; `fallback_reason` then says why (empty otherwise).
struct SmRouting {
  bool present = false;  // false on Ethernet (ECMP)
  std::string engine_requested;
  std::string engine_used;
  std::string fallback_reason;
  bool after_failure = false;  // the last sweep was the re-sweep after the link failure
};

// A frame recorded for trace.pcap: when it started on the wire, the nodes at both ends of the
// link (net::Network node ids, in the order the topology builder added NICs and switches) and its
// header fields.
struct CapturedFrame {
  int64_t time_ps = 0;
  uint32_t from_node = 0;
  uint32_t to_node = 0;
  bool from_is_nic = false;
  bool to_is_nic = false;
  net::Packet pkt;
};

// Utilization of one group of links over the run: every port that sends from tier `tier` up to
// tier + 1 (`up`), or from tier + 1 down to tier `tier` (`down`). Tiers count from the hosts:
// 0 = NIC, 1 = leaf/edge, 2 = spine/agg, 3 = core; so {0, up} are the host links NIC -> leaf.
// A port's utilization = wire bytes it sent (every frame: data, ACKs, PFC, preamble and IFG
// included) x 8 / (its rate x LinkLoads::span_ps).
enum class LinkDirection : uint8_t { kUp, kDown };

struct LinkGroupLoad {
  int tier = 0;
  LinkDirection direction = LinkDirection::kUp;
  int ports = 0;       // ports (one per cable) in the group
  int idle_ports = 0;  // ports that sent no frame at all during the run
  double mean_utilization = 0;  // fraction of line rate, mean over the group's ports
  double max_utilization = 0;   // the busiest port's
  // max / mean: 1 = perfectly even; k = the load sits on 1/k of the ports. 0 when the group
  // carried nothing (mean 0).
  double imbalance = 0;
};

struct LinkLoads {
  // The interval T every port's bytes are counted over, the same for bytes and time: from the
  // first flow's post (nothing is on the wire before it) to the end of the run's traffic, the
  // later of the last flow's finish (the end of the simulation when some flow never finished)
  // and the end of the last frame any port serialized (retransmissions and ACKs after the last
  // delivery, e.g. when a failure destroyed ACKs, belong to the run too). Every byte counted
  // is on the wire inside T, so no utilization exceeds 1. 0 (and no groups) with no traffic.
  int64_t start_ps = 0;
  int64_t end_ps = 0;
  int64_t span_ps = 0;  // end_ps - start_ps
  // Uplinks tier by tier from the hosts up, then downlinks from the top back down to the hosts.
  std::vector<LinkGroupLoad> groups;
};

// One port (one direction of a cable) over the run: a row of links.csv (engine/packet/link_table.h).
// Counters are totals since the start; utilization = tx_bytes x 8 / (rate x LinkLoads::span_ps).
struct LinkRow {
  uint32_t port = 0;       // net::Network port index
  std::string link;        // port_label(): "sw3:5->sw17"
  std::string from, to;    // node_label() of the sending and the receiving node
  int from_tier = 0, to_tier = 0;  // 0 = NIC, 1 = leaf, 2 = spine, 3 = core
  std::string direction;   // "up" (to a higher tier), "down", or "same"
  int64_t rate_bps = 0;
  int64_t tx_bytes = 0;    // wire bytes sent: every frame + preamble/SFD + IFG (Ethernet)
  double utilization = 0;
  int64_t peak_queue_bytes = 0;  // the most frame bytes any one class queue of the port held
  int64_t drops = 0;             // packets dropped at this port (every reason)
  int64_t pause_frames_sent = 0;      // PFC frames this port sent to its peer (it receives)
  int64_t pause_frames_received = 0;  // PFC frames this port received (it was paused)
  int64_t paused_ps = 0;         // time some class of it was paused (IB: a VL waited for credits)
  int64_t ecn_marks = 0;         // CE marks set as packets left this port
  int64_t credit_waits = 0;      // IB: times a VL's head waited for credits here
  int64_t trimmed = 0;           // data packets trimmed to their header at this port
  bool down = false;             // the cable failed during the run
};

struct RunStats {
  int64_t events = 0;
  double wall_seconds = 0;
  double events_per_second = 0;
  int64_t data_packet_hops = 0;  // data packets crossing one link
  int64_t peak_rss_bytes = 0;
  int64_t sim_time_ps = 0;
  // The most transport message records held at once (transports retire finished messages:
  // issue 24 item 1); deterministic, but a fact about the simulator's memory, not the fabric.
  int64_t peak_live_messages = 0;
  // Wall seconds from the resolved scenario to a simulation ready to run (the fabric, routes,
  // transport and workload built, the workload's start posted), included in wall_seconds.
  double build_seconds = 0;
  // `threads` > 1 (engine/packet/partitioned_run.cpp): the partitions one simulation ran in, its
  // lookahead, and why it ran in one when it could not be split. Facts about the run, not the
  // fabric: run.json only.
  int partitions = 1;
  int64_t lookahead_ps = 0;
  std::string partition_note;
  // An MPI run (mpirun -np R, core/rank_run.h): the ranks its partitions were spread over (1:
  // one process); rank r ran partitions [r x partitions / ranks, (r + 1) x partitions / ranks).
  int ranks = 1;
  // An MPI run: every rank's build_seconds and peak RSS (rank r at index r), gathered after the
  // run, since a rank's memory is what limits how big a run fits on its machine.
  std::vector<double> rank_build_seconds;
  std::vector<int64_t> rank_peak_rss_bytes;
  // Where a partitioned run's wall time went (docs/parallel.md "What limits the speed-up"):
  // the barriers (serial phases) it went through, the events each partition ran and the
  // seconds its thread spent on them, and the serial phases' seconds.
  int64_t windows = 0;
  std::vector<int64_t> partition_events;
  std::vector<double> partition_busy_seconds;
  double serial_seconds = 0;
};

// The fabric's bill of materials (resolve/cost/bom.h), as compare and result.json show it.
struct CostResult {
  bool priced = false;
  std::string why_not;       // when not priced: the reason (e.g. a cable beyond every optic)
  std::string switch_model;  // cost.switch.model in effect
  double price_usd = 0;      // the whole fabric: switches, NICs, cables and transceivers
  double power_w = 0;        // typical
  int64_t units = 0;         // GPUs, or NICs when the hosts have no GPUs
  bool per_gpu = false;
};

// The NICs' connection-context caches (net/nic_context_cache.h), when enabled.
struct ContextCacheResult {
  bool present = false;
  int64_t entries = 0;             // contexts each NIC caches
  int64_t context_bytes = 0;       // one context
  int64_t miss_latency_ps = 0;
  int64_t hits = 0;                // totals over every NIC
  int64_t misses = 0;
  int64_t miss_stall_ps = 0;       // sum over misses of the wait for the context
  int64_t max_nic_misses = 0;      // the NIC with the most misses
  int64_t max_connections_per_nic = 0;  // contexts on the NIC with the most
  int64_t total_connections = 0;   // contexts on all NICs (a connection has one at each end)
  // The NIC memory the connections would need on chip: max_connections_per_nic x context_bytes.
  int64_t max_nic_context_bytes = 0;
};

// fabric.sharp.enabled (net/sharp.h): the trees the Aggregation Manager built and what it
// refused (a refused group falls back to non-SHARP collectives; the refusal is never silent).
struct SharpResult {
  bool present = false;
  struct Tree {
    int id = -1;
    uint32_t root_switch = 0;
    int64_t nics = 0;
    int64_t switches = 0;
    int64_t ops_completed = 0;
    int64_t result_bytes = 0;
  };
  struct Failure {
    int64_t time_ps = 0;
    std::string reason;
  };
  std::vector<Tree> trees;
  std::vector<Failure> failures;
  int64_t dropped_packets = 0;  // SHARP packets lost (failed links): their operations never end
};

struct RunResult {
  std::string scenario_name;
  uint64_t seed = 0;
  int64_t sim_time_ps = 0;   // time of the last event
  bool completed = true;     // every flow finished before the stop time
  // Interrupted (SIGINT/SIGTERM) before the end: every figure covers simulated time 0 to
  // sim_time_ps only; flows not finished by then count as unfinished (finish_ps -1) and
  // `completed` is false.
  bool partial = false;
  TopologySummary topology;
  CollectiveResult collective;  // the (first) collective, also for GPU runs
  std::vector<JobResult> jobs;   // GPU runs (node.gpus_per_node > 0): one per job
  std::vector<ScalingPoint> scaling;
  std::vector<NodeResourceLoad> node_resources;  // GPU runs: per resource kind that carried bytes
  FabricCounters counters;
  // Every flow's record, in id order: only when the caller asked to keep them
  // (FlowHarvest::keep_records, engine/run.h; the library's default). `fabricsim` keeps none
  // (issue 24 item 1): it reads flow_summary and the flows.csv written during the harvest.
  std::vector<FlowRecord> flows;
  FlowSummary flow_summary;  // every flow's statistics, whether or not the records are kept
  std::shared_ptr<const FlowsCsvFile> flows_csv;  // flows.csv, when FlowHarvest::csv_dir was set
  // outputs.trace.enabled (pattern runs): the flows trace.json draws, every k-th by id
  // (output/chrome_trace.h flow_sample); outputs.pcap: every message's size, by id.
  std::vector<FlowRecord> trace_flows;
  int64_t trace_flow_stride = 1;  // trace_flows holds the flows whose id is a multiple of it
  std::vector<int64_t> message_bytes;
  std::vector<workload::PingPongStats> ping_pong;  // pattern: ping_pong, one per pair
  double aggregate_throughput_gbps = 0;  // delivered payload bits / (last finish - first start)
  CostResult cost;                       // the fabric's bill of materials (cost.*)
  bool steady_window_asked = false;      // outputs.steady_window
  SteadyWindowResult steady_window;
  ContextCacheResult context_cache;      // fabric.nic.context_cache.enabled
  SharpResult sharp;                     // fabric.sharp.enabled
  LinkLoads links;                       // utilization per tier and direction
  std::vector<LinkRow> link_rows;        // links.csv: every port, in port order
  bool flow_paths = false;               // outputs.flows.path: FlowRecord::path filled
  std::vector<PortRoutes> sm_routes;     // InfiniBand: per switch port, as last programmed
  FailureTimeline failure;
  SmRouting sm;                          // InfiniBand: the SM engine asked for and used
  std::vector<CapturedFrame> captured;   // empty unless Scenario::capture asks for frames
  workload::TraceLog trace;              // outputs.trace.enabled: trace.json's spans (docs/trace.md)
  // How the captured packets were framed on the wire, for trace.pcap (output/pcap/pcap.h): the link
  // layer, the transport service and verb (they pick the BTH opcodes and extension headers), and
  // on InfiniBand the LID the Subnet Manager gave each NIC (the SLID; index = NIC).
  bool infiniband = false;
  bool uet = false;  // fabric.technology uet (transport/uet.h)
  bool tcp = false;    // fabric.technology tcp (transport/tcp.h, kernel stack)
  bool iwarp = false;  // fabric.technology iwarp (transport/tcp.h, offloaded)
  // mode (docs/modes.md): "packet" or "flow", and for flow what the fluid model approximates
  // or does not show on this scenario (the summary and result.json print them).
  std::string engine_mode = "packet";
  std::vector<std::string> engine_notes;
  // mode: hybrid (engine/hybrid/steady_skip.h): what was skipped. skipped_fraction is the
  // skipped payload over all payload sent.
  struct Hybrid {
    bool present = false;
    double epsilon = 0;
    int window_rtts = 0;
    int64_t window_ps = 0;
    int64_t windows_sampled = 0;
    int64_t skips = 0;
    int64_t cut_short = 0;
    int64_t skipped_packets = 0;
    int64_t skipped_bytes = 0;
    int64_t skipped_group_ps = 0;
    double skipped_fraction = 0;
  } hybrid;
  std::string fabric_description;  // "InfiniBand NDR 4x (...), 400 Gb/s, 1 data VL(s), SM ftree..."
  transport::Service service = transport::Service::kRc;
  transport::Operation operation = transport::Operation::kWrite;
  std::vector<uint16_t> nic_lid;
  RunStats run;
  TelemetryResult telemetry;  // outputs.timeseries: the sampled series (engine/packet/telemetry.h)
};

}  // namespace fabricsim::scenario
