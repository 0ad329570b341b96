// A validated scenario: plain structs, frozen before the run (STYLE §7).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "net/config.h"
#include "net/sharp.h"
#include "net/nic_context_cache.h"
#include "node/spec.h"
#include "routing/config.h"
#include "spec/cost_spec.h"
#include "spec/telemetry_types.h"
#include "spec/variants.h"
#include "topo/topology_spec.h"
#include "transport/config.h"
#include "transport/tcp_config.h"
#include "transport/uet_config.h"
#include "workload/collective_config.h"
#include "workload/workload_spec.h"
#include "workload/trace_recorder.h"
#include "workload/training_spec.h"

namespace fabricsim::scenario {

// kTcp: kernel TCP sockets; kIwarp: TCP offloaded in an RNIC (transport/tcp.h, issue 12).
enum class Technology : uint8_t { kRoce, kInfiniband, kUet, kTcp, kIwarp };

// A profile's field replaced by the scenario's per-field override, when one was given.
template <typename T>
void override_with(T& field, const std::optional<T>& value) {
  if (value) field = *value;
}

// InfiniBand link generations (SPEC §8): per-lane signalling rate and the 4x port's data rate
// after encoding (EDR 64b/66b; HDR onwards PAM4 with 256b/257b transcoding and RS(544,514) FEC,
// e.g. 53.125 x 514/544 x 256/257 = 50.0 Gb/s per lane).
enum class IbGeneration : uint8_t { kNone, kEdr, kHdr, kNdr, kXdr };
struct IbGenerationInfo {
  const char* name;
  const char* lane;     // signalling per lane, as datasheets quote it
  int64_t data_rate_bps;  // 4x port
};
IbGenerationInfo ib_generation_info(IbGeneration g);

// InfiniBand fabric settings used when technology is ib (fabric.ib.*).
struct IbSpec {
  net::IbLinkConfig link;  // credits, VLs, arbitration; `enabled` follows the technology
  // OpenSM syntax (reference §2): sl2vl "0,1,...,15" (16 VLs), vlarb "VL:weight,..."; "" = the
  // OpenSM defaults folded onto data_vls.
  std::string sl2vl;
  std::string vlarb_high;
  std::string vlarb_low;
  int mtu_bytes = 4096;  // IB MTU 256-4096 (SPEC §8); 4096 is what NCCL-class HCAs use
  // InfiniBand switch port-to-port latency: SPEC §8 "roughly 130-300 ns"; 130 ns is the NVIDIA
  // Quantum-class figure at the low end of that range.
  int64_t switch_latency_ps = 130 * kPsPerNs;
  int sl = 0;  // service level of the workload's traffic
  // Sets the link rate of an ib run to that generation's 4x data rate; none = fabric.link.rate.
  IbGeneration generation = IbGeneration::kNone;
  // InfiniBand congestion control (IBA Annex A10; transport/ib_cc.h): off as OpenSM ships it
  // (osm_subnet.c congestion_control FALSE). Unset fields take ib_cc_defaults().
  struct Cc {
    bool enabled = false;
    bool mark_victims = false;  // OpenSM cc_sw_cong_setting_victim_mask: all zero by default
    std::optional<int64_t> threshold_bytes;
    std::optional<int> marking_rate;
    std::optional<int> ccti_increase;
    std::optional<int64_t> ccti_timer_ps;
    std::optional<int> ccti_limit;
    std::optional<int> ccti_min;
    // The SLs whose QPs react to BECNs (CACongestionSetting Control_Map); unset: every SL.
    std::optional<std::vector<int>> service_levels;
  } cc;
};

// fabric.nic.*: the NIC/host latency profile and per-parameter overrides (net/nic_profile.h);
// resolve_fabric turns them into Scenario::nic. Unset = the profile's value.
struct NicSpec {
  std::string profile = "connectx-7";  // ConnectX-7: the NDR / 400GbE class of the 400G defaults
  std::optional<int64_t> tx_latency_ps;
  std::optional<int64_t> rx_latency_ps;
  std::optional<int64_t> host_post_ps;
  std::optional<int64_t> doorbell_ps;
  std::optional<int64_t> dma_read_ps;
  std::optional<int64_t> inline_max_bytes;
  std::optional<int64_t> mem_write_ps;
  std::optional<int64_t> host_poll_ps;
};

enum class SmEngineChoice : uint8_t { kMinHop, kUpDown, kFatTree };

// The Subnet Manager (InfiniBand) and route recovery after a failure (both fabrics).
struct RoutingRecovery {
  SmEngineChoice engine = SmEngineChoice::kFatTree;
  // The engine that routes when ftree refuses the subnet (kUpDown or kMinHop): OpenSM tries the
  // next engine of its routing_engine list, then its default min-hop (osm_ucast_mgr.c).
  SmEngineChoice fallback = SmEngineChoice::kUpDown;
  bool adaptive = false;  // InfiniBand adaptive routing (SM-provided AR groups)
  // From a link failure to the SM's new tables being computed: trap 128 forces an immediate
  // heavy sweep (reference §3); the sweep's duration on a small fabric is UNVERIFIED (Mellanox
  // quotes up to 10-20 s on very large ones). 100 ms and 10 ms to program the LFTs are
  // placeholders for a mid-size subnet; set them from a measured OpenSM log.
  int64_t sm_sweep_delay_ps = 100'000'000'000;
  int64_t sm_reprogram_ps = 10'000'000'000;
  // RoCE: from a link failure to every switch's ECMP groups excluding the link: BFD detection
  // (3 x 50 ms, a common RFC 5880 deployment) plus BGP withdrawal; UNVERIFIED, set per network.
  int64_t ecmp_convergence_ps = 150'000'000'000;
  // Ethernet local repair: the two switches at the ends of a failed cable take its port out of
  // their ECMP groups on their own, long before routing converges (FBOSS's "ECMP shrink" from
  // its link-scan thread; SONiC's "ECMP acceleration for physical i/f down events",
  // sonic-swss PR #351). The delay is link-down detection plus the group rewrite: 1 ms from a
  // SONiC switch's log (sonic-swss PR #3180: Broadcom SAI link-down callback 02:21:24.817707,
  // orchagent's oper-down 0.88 ms later, which then removes the next-hop members); the
  // end-to-end time to the ASIC's table is UNVERIFIED. Link debounce would add to it, but is
  // off by default (Dell N-series "physical interfaces do not have debounce enabled by
  // default"; Cisco NX-OS `link debounce` is configurable 0-5000 ms). A port comes back into
  // the groups only when routing reconverges after the link is up again (ecmp_convergence):
  // hardware can drop a dead next hop by itself, but adding one needs the BGP session over the
  // link and its routes. InfiniBand has no such step: adaptive routing skips a port that is not
  // Active in hardware at once (SHIELD's FLFR, reference §4), static LFTs wait for the SM.
  bool local_repair = true;
  int64_t local_repair_delay_ps = 1'000'000'000;
};

// A link that fails during the run: the cable at `port` of switch `switch_index`.
// With until_ps > 0 the cable comes back up then, and with flaps > 1 the down/up cycle repeats
// every period_ps: down at at + i x period, up at until + i x period, i = 0 .. flaps - 1.
struct LinkFailSpec {
  int switch_index = -1;  // -1 = no failure
  int port = 0;
  int64_t at_ps = 0;
  int64_t until_ps = 0;  // 0 = stays down
  int flaps = 1;
  int64_t period_ps = 0;
};

// A whole plane of a multi-plane fabric that fails (faults.plane_down; topo/multi_plane.h).
struct PlaneFailSpec {
  int plane = -1;  // -1 = none
  int64_t at_ps = 0;
  bool uplinks_only = false;  // only the cables above the plane's leaves (its spine tier)
};

// A receiving switch port that never returns credits (InfiniBand fault injection).
struct CreditLossSpec {
  int switch_index = -1;  // -1 = none
  int port = 0;
};

// ECN marking at switches. Kmin/Kmax/Pmax default to the DCQCN profile's when DCQCN is on,
// else to SPEC §5's example (net::EcnConfig).
enum class EcnMode : uint8_t { kAuto, kOn, kOff };  // auto = on exactly when cc is dcqcn
struct EcnSpec {
  EcnMode marking = EcnMode::kAuto;
  std::optional<int64_t> kmin_bytes;
  std::optional<int64_t> kmax_bytes;
  std::optional<double> pmax;
};

// A NIC that stops draining what it receives (a stuck receiver: SPEC §8 "PFC storm").
struct NicStallSpec {
  int nic = -1;               // -1 = no stall
  int64_t at_ps = 0;
  int64_t until_ps = 0;       // 0 = never resumes
};

// Which frames a run records for trace.pcap.
enum class CapturePoint : uint8_t {
  kNics,  // frames NICs send and frames sent to NICs (what tcpdump on every host would see)
  kAll,   // every frame on every link (a packet appears once per hop)
};

struct CaptureSpec {
  int64_t max_frames = 0;  // 0 = no capture; else the first N frames in time order
  CapturePoint point = CapturePoint::kNics;
};

// outputs.report (issue 13): whether run and compare write report.html (output/report/report.h).
enum class ReportFormat : uint8_t { kNone, kHtml };

// Where a job's nodes sit: a contiguous block of nodes (sharing leaves), or spread over the
// leaves one node at a time (its traffic then crosses the spines: the placement a busy
// scheduler often produces).
enum class Placement : uint8_t { kContiguous, kScattered };

// One job of `jobs:` (several jobs on one fabric). Its workload runs on its own nodes' GPUs.
struct JobSpec {
  std::string name;
  int nodes = 0;  // whole nodes; the jobs together may not ask for more than hosts.count
  Placement placement = Placement::kContiguous;
  workload::WorkloadSpec workload;
  workload::TrainingSpec training;  // with workload.kind: training
  // Set by run_scenario for the jobs_alone baseline: the nodes the job had beside the others
  // (empty = placed by `placement`).
  std::vector<int> fixed_nodes;
};

// mode (docs/modes.md).
enum class EngineMode : uint8_t { kPacket, kFlow, kHybrid };

// mode: hybrid (engine/hybrid/steady_skip.h, docs/modes.md): a group of QPs is steady when each
// acknowledged the same number of packets in each of its last window_rtts base RTTs, within
// epsilon of their mean (one packet of quantization allowed).
struct HybridSpec {
  double epsilon = 0.05;
  int window_rtts = 4;
};

// mode: flow (engine/flow/, docs/modes.md): dcqcn = each RoCE connection's rate follows its DCQCN
// reaction point, cut by CNPs from fluid queues at the switch ports (engine/flow/fluid_dcqcn.h);
// false = every flow takes its max-min share at once (converged congestion control).
struct FlowSpec {
  bool dcqcn = true;
};

struct Scenario {
  std::string name = "unnamed";
  uint64_t seed = 1;
  // mode: which engine runs the scenario (engine/engine.h, docs/modes.md): every byte as
  // packets, or every message as a max-min fair fluid flow on its packet-mode path.
  EngineMode mode = EngineMode::kPacket;
  HybridSpec hybrid;
  FlowSpec flow;
  Technology technology = Technology::kRoce;
  net::LinkConfig link;
  net::SwitchConfig switch_config;  // switch_config.ecn is resolved from `ecn` at build time
  EcnSpec ecn;
  NicSpec nic_spec;    // fabric.nic.profile and overrides
  net::NicConfig nic;  // resolved from nic_spec by resolve_fabric (rx_buffer is its own key)
  net::ContextCacheConfig context_cache;  // fabric.nic.context_cache.* (net/nic_context_cache.h)
  net::SharpConfig sharp;  // fabric.sharp.* (net/sharp.h); InfiniBand only
  transport::RoceConfig roce;
  transport::UetConfig uet;  // fabric.uet.* (technology uet)
  transport::TcpConfig tcp;  // fabric.tcp.* (technology tcp and iwarp)
  IbSpec ib;
  RoutingRecovery recovery;
  topo::TopologySpec topology;
  routing::EcmpConfig ecmp;
  workload::WorkloadSpec workload;
  node::NodeSpec node;  // node.*: GPUs per node and the node model (0 GPUs = none)
  workload::TrainingSpec training;  // training.*: the transformer generator (docs/training.md)
  // Several jobs (GPU scenarios only); empty = one job running `workload` on every GPU.
  std::vector<JobSpec> jobs;
  bool jobs_alone = false;  // also run each job alone on its nodes: its slowdown (jobs_alone)
  // Run the scenario once per node count (hosts.count = each) and report the step time and the
  // acceleration ratio against the first (engine/run.h run_scenario); empty = one run.
  std::vector<int> scaling_nodes;
  workload::CollectiveConfig collective;  // the NCCL-style collective engine (collective.*)
  // Named runs for `fabricsim compare` (spec/variants.h); `run` simulates the file without them
  // and notes it on stderr (cli/commands.cpp).
  std::vector<VariantSpec> variants;
  // Prices and power for the bill of materials (cost.*; resolve/cost/bom.h). Nothing in a run
  // depends on it.
  CostSpec cost;
  // Simulated-time limit; 0 = run until every message completes. A run that hits the limit
  // reports unfinished flows rather than pretending they completed.
  int64_t stop_time_ps = 0;
  // Cores the run may use (`threads`, `run --threads`): a packet-mode pattern run is split into
  // this many partitions (engine/packet/partitioned_run.cpp); a run made of independent
  // simulations (training.ideal_network's twin on the ideal network, the node counts of
  // scaling) runs up to this many of them side by side (engine/run.cpp); the results are the
  // same at any count.
  int threads = 1;
  std::string output_dir;  // where result files go ("" = none unless --out given)
  bool steady_window = false;  // outputs.steady_window: per-flow goodput over a steady window
  workload::TraceSpec trace;   // outputs.trace.*: trace.json (docs/trace.md)
  TimeseriesSpec timeseries;   // outputs.timeseries.*: time-series samplers (engine/packet/telemetry.h)
  CaptureSpec capture;
  ReportFormat report = ReportFormat::kNone;  // outputs.report (knob_registry_report.cpp)
  bool flow_paths = false;  // outputs.flows.path: flows.csv gains each flow's path (flow_paths.h)
  NicStallSpec nic_stall;
  LinkFailSpec link_fail;
  CreditLossSpec credit_loss;
  PlaneFailSpec plane_fail;
};

// Whether every data packet may take another path (fabric.roce.spray on RoCE, UET's oblivious
// and REPS load balancing): the flow engine splits such a message over every path.
inline bool sprays_packets(const Scenario& sc) {
  return (sc.technology == Technology::kRoce && sc.roce.spray) ||
         (sc.technology == Technology::kUet &&
          sc.uet.load_balancing != transport::UetLoadBalancing::kSinglePath);
}

}  // namespace fabricsim::scenario
