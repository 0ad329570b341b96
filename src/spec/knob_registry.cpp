// The registry's entries: one per scenario key. Descriptions and sources restate the comments on
// the struct members they fill (src/net/config.h, src/topo/topology_spec.h, src/routing/config.h,
// src/transport/config.h, src/workload/workload_spec.h, src/spec/scenario.h); defaults are read from
// those members, never written here.
#include <string>
#include <utility>
#include <vector>

#include "core/checked.h"
#include "spec/knob_bind.h"
#include "spec/knobs.h"

namespace fabricsim::scenario {

// The transformer generator's keys, training.* (knob_registry_training.cpp).
void add_training_knobs(std::vector<Knob>& k);

using knob_bind::bind;
using knob_bind::bind_enum;

// The NCCL collective engine's entries, collective.* (knob_registry_collective.cpp).
void add_collective_knobs(std::vector<Knob>& k);
void add_cost_knobs(std::vector<Knob>& k);

namespace {

// Every time, size and rate key gets the ranges of core/checked.h unless its entry is tighter,
// so a key added later is bounded too: whatever the simulator multiplies them by stays in int64
// (the products a whole scenario implies are checked by resolve/ranges.h).
void bound_unit_keys(std::vector<Knob>& k) {
  for (Knob& knob : k) {
    double max = 0;
    if (knob.type == KnobType::kTime) max = static_cast<double>(kSimHorizonPs);
    if (knob.type == KnobType::kBytes) max = static_cast<double>(kMaxSizeBytes);
    if (knob.type == KnobType::kRate) max = static_cast<double>(kMaxRateBps);
    if (max > 0 && knob.one_of.empty() && (!knob.max || knob.max->value > max)) {
      knob.max = Bound{max};
    }
  }
}

}  // namespace

std::vector<Knob> build_knob_registry() {
  using net::Forwarding;
  using routing::EcmpHash;
  using routing::EcmpSeedMode;
  using workload::CollAlgorithm;
  using workload::CollOp;
  using workload::Protocol;
  using workload::PatternKind;
  using workload::WorkloadKind;
  const Condition collective{"workload.kind", "collective"};
  const Condition pattern{"workload.kind", "pattern"};
  const Condition incast{"workload.pattern", "incast"};
  const Condition poisson{"workload.pattern", "poisson"};
  const Bound positive{0, true};
  const Bound non_negative{0, false};

  std::vector<Knob> k;
  k.push_back(bind(
      {.path = "name",
       .type = KnobType::kString,
       .description = "Scenario name, shown in the summary and result.json",
       .source = "placeholder"},
      [](auto& s) -> auto& { return s.name; }));
  k.push_back(bind(
      {.path = "seed",
       .type = KnobType::kUint,
       .description = "Seed from which every random stream of the run is derived",
       .source = "any fixed value keeps runs reproducible"},
      [](auto& s) -> auto& { return s.seed; }));
  k.push_back(bind_enum(
      {.path = "fabric.technology",
       .description = "Fabric and transport: RoCEv2 on Ethernet, native InfiniBand, Ultra "
                      "Ethernet (UET, transport/uet.h), kernel TCP sockets (tcp) or iWARP, TCP "
                      "offloaded in the NIC (iwarp; both transport/tcp.h)",
       .source = "RoCEv2: the articles' mainstream fabric"},
      std::vector<std::pair<std::string, Technology>>{{"roce", Technology::kRoce},
                                                      {"ib", Technology::kInfiniband},
                                                      {"uet", Technology::kUet},
                                                      {"tcp", Technology::kTcp},
                                                      {"iwarp", Technology::kIwarp}},
      [](auto& s) -> auto& { return s.technology; }));
  k.push_back(bind(
      {.path = "fabric.link.rate",
       .type = KnobType::kRate,
       .description = "Line rate of every link",
       .source = "SPEC §5 example: 400 Gb/s (NDR-class Ethernet port); range: core/checked.h "
                 "(>= 1 Mb/s keeps the longest PAUSE and frame times inside int64 ps)",
       .min = Bound{static_cast<double>(kMinLinkRateBps)},
       .max = Bound{static_cast<double>(kMaxRateBps)}},
      [](auto& s) -> auto& { return s.link.rate_bps; }));
  k.push_back(bind(
      {.path = "fabric.link.cable",
       .type = KnobType::kLength,
       .description = "Cable length of every link; propagation is 5 ns per metre",
       .source = "SPEC §5 example: 3 m in-rack / adjacent-rack cable; at most 20000 km, half "
                 "the Earth's circumference: no cable is longer, and its 0.1 s of propagation "
                 "keeps BDPs and PFC headroom far inside int64",
       .min = non_negative,
       .max = Bound{20'000'000}},
      [](auto& s) -> auto& { return s.link.cable_m; }));
  k.push_back(bind(
      {.path = "fabric.link.loss_rate",
       .type = KnobType::kDouble,
       .description = "Probability that a data frame is lost on each link crossing (bit errors)",
       .source = "0: healthy links",
       .min = non_negative,
       .max = Bound{1, true}},
      [](auto& s) -> auto& { return s.link.loss_rate; }));
  k.push_back(bind(
      {.path = "fabric.switch.latency",
       .type = KnobType::kTime,
       .description = "Switch port-to-port latency",
       .source = "SPEC §8: Ethernet cut-through adds ~400-600 ns; SPEC §5 example; at most 1 s "
                 "(core/checked.h kMaxDeviceLatencyPs)",
       .min = non_negative,
       .max = Bound{static_cast<double>(kMaxDeviceLatencyPs)}},
      [](auto& s) -> auto& { return s.switch_config.latency_ps; }));
  k.push_back(bind(
      {.path = "fabric.switch.buffer",
       .type = KnobType::kBytes,
       .description = "Shared packet buffer per switch",
       .source = "NVIDIA Spectrum-3/4 class (SPEC §5 example)",
       .min = positive},
      [](auto& s) -> auto& { return s.switch_config.buffer_bytes; }));
  k.push_back(bind(
      {.path = "fabric.switch.dt_alpha",
       .type = KnobType::kDouble,
       .description = "Dynamic threshold: a queue may grow while below alpha x free "
                      "shared buffer",
       .source = "Choudhury & Hahne, IEEE/ACM ToN 1998; common Broadcom default",
       .min = positive},
      [](auto& s) -> auto& { return s.switch_config.dt_alpha; }));
  k.push_back(bind_enum(
      {.path = "fabric.switch.forwarding",
       .description = "cut_through forwards once the header arrives (only when all of a switch's "
                      "ports run at one rate)",
       .source = "SPEC §8: Ethernet switches are cut-through"},
      std::vector<std::pair<std::string, Forwarding>>{
          {"cut_through", Forwarding::kCutThrough},
          {"store_and_forward", Forwarding::kStoreAndForward}},
      [](auto& s) -> auto& { return s.switch_config.forwarding; }));
  add_trim_knobs(k);
  add_nic_knobs(k);
  add_ctxcache_knobs(k);  // fabric.nic.context_cache.*
  k.push_back(bind(
      {.path = "fabric.roce.mtu",
       .type = KnobType::kBytes,
       .description = "RDMA payload bytes per packet (path MTU). Real RoCE/IB path MTUs are "
                      "256, 512, 1024, 2048 or 4096; other sizes in that range model a payload "
                      "size, e.g. the 4000-byte MTU of htsim's benchmarks",
       .source = "largest RoCE/IB MTU (SPEC §8)",
       .min = Bound{256},
       .max = Bound{4096}},
      [](auto& s) -> auto& { return s.roce.mtu_bytes; }));
  k.push_back(bind(
      {.path = "fabric.roce.ack_timeout_exponent",
       .type = KnobType::kInt,
       .description = "Local ACK Timeout = 4.096 us x 2^exponent (InfiniBand RC too); "
                      "perftest uses 14 (~67 ms)",
       .source = "NCCL's NCCL_IB_TIMEOUT default 20 (4.29 s): NVIDIA/nccl "
                 "src/transport/net_ib/connect.cc (NCCL 2.30); perftest DEF_QP_TIME 14",
       .min = Bound{0},
       .max = Bound{31}},
      [](auto& s) -> auto& { return s.roce.ack_timeout_exponent; }));
  k.push_back(bind(
      {.path = "fabric.roce.retry_count",
       .type = KnobType::kInt,
       .description = "Consecutive retransmit timeouts before the QP enters the error state "
                      "and its unfinished messages fail",
       .source = "IBTA 3-bit retry_cnt; 7: NCCL_IB_RETRY_CNT default (NVIDIA/nccl "
                 "net_ib/connect.cc), perftest",
       .min = Bound{0},
       .max = Bound{7}},
      [](auto& s) -> auto& { return s.roce.retry_count; }));
  k.push_back(bind(
      {.path = "fabric.roce.vlan",
       .type = KnobType::kBool,
       .description = "Frames carry an 802.1Q tag (+4 bytes)",
       .source = "DSCP-based priority (NVIDIA RoCE configuration guides)"},
      [](auto& s) -> auto& { return s.roce.vlan_tag; }));
  k.push_back(bind(
      {.path = "fabric.roce.data_priority",
       .type = KnobType::kInt,
       .description = "Priority (traffic class) of RoCE data and ACKs",
       .source = "NVIDIA default",
       .min = Bound{0},
       .max = Bound{7}},
      [](auto& s) -> auto& { return s.roce.data_priority; }));
  k.push_back(bind(
      {.path = "fabric.roce.cnp_priority",
       .type = KnobType::kInt,
       .description = "Priority (traffic class) of CNPs",
       .source = "NVIDIA default",
       .min = Bound{0},
       .max = Bound{7}},
      [](auto& s) -> auto& { return s.roce.cnp_priority; }));
  Knob kind = bind_enum(
      {.path = "topology.kind",
       .description = "Topology family; leaf_spine = fat_tree with tiers 2; rail = 2-tier "
                      "rail-optimized (NIC k of every host on rail k's leaves, spines joining "
                      "the rails; hosts.nics_per_host rails); file = the explicit graph in "
                      "topology.file (native form or HPCC/ns-3 topology.txt); dragonfly = "
                      "groups of all-to-all switches joined by global links "
                      "(topology.dragonfly.*)",
       .source = "fat_tree: Al-Fares et al., SIGCOMM 2008; rail: NVIDIA DGX SuperPOD "
                 "reference architectures (B200 RA component table, H100 RA-11333-001), see "
                 "docs/topologies.md; file: docs/topologies.md \"Topology files\", HPCC "
                 "topology.txt as alibaba-edu/High-Precision-Congestion-Control "
                 "simulation/scratch/third.cc reads it; dragonfly: Kim, Dally, Scott, "
                 "Abts, ISCA 2008"},
      std::vector<std::pair<std::string, topo::TopologyKind>>{
          {"fat_tree", topo::TopologyKind::kFatTree},
          {"leaf_spine", topo::TopologyKind::kFatTree},
          {"rail", topo::TopologyKind::kRail},
          {"file", topo::TopologyKind::kFile},
          {"dragonfly", topo::TopologyKind::kDragonfly}},
      [](auto& s) -> auto& { return s.topology.kind; });
  // Knobs are applied in registry order, so an explicit `tiers` (below) overrides this and the
  // loader reports the contradiction.
  kind.set = [base = kind.set](Scenario& s, const KnobValue& v) {
    base(s, v);
    const std::string& name = std::get<std::string>(v);
    if (name == "leaf_spine" || name == "rail") s.topology.tiers = 2;
  };
  k.push_back(std::move(kind));
  add_topo_file_knobs(k);
  add_dragonfly_knobs(k);
  k.push_back(bind(
      {.path = "topology.tiers",
       .type = KnobType::kInt,
       .description = "Switch tiers: 2 = leaf-spine, 3 = k-ary fat-tree",
       .source = "Al-Fares et al., SIGCOMM 2008",
       .one_of = {2, 3}},
      [](auto& s) -> auto& { return s.topology.tiers; }));
  k.push_back(bind(
      {.path = "topology.radix",
       .type = KnobType::kInt,
       .description = "Ports per switch",
       .source = "SPEC §5 example; at most 1024 = twice the largest switch ASIC radix shipping "
                 "(Broadcom Tomahawk 6, 512 x 200GbE), which keeps k^3/4 NICs within int32",
       .min = Bound{4},
       .max = Bound{1024},
       .multiple_of = 2},
      [](auto& s) -> auto& { return s.topology.radix; }));
  k.push_back(bind(
      {.path = "topology.oversubscription",
       .type = KnobType::kDouble,
       .description = "Leaf downlinks : uplinks (1 = non-blocking)",
       .source = "SPEC §5 example",
       .min = Bound{1}},
      [](auto& s) -> auto& { return s.topology.oversubscription; }));
  k.push_back(bind(
      {.path = "hosts.count",
       .type = KnobType::kInt,
       .description = "Number of hosts",
       .source = "SPEC §5 example; at most 2^24 (16.7 M), ~80x the largest AI cluster built "
                 "(~200k GPUs), so hosts x NICs per host fits int32",
       .min = Bound{2},
       .max = Bound{16'777'216}},
      [](auto& s) -> auto& { return s.topology.hosts; }));
  k.push_back(bind(
      {.path = "hosts.nics_per_host",
       .type = KnobType::kInt,
       .description = "NICs per host; without GPUs every NIC is a rank/endpoint; with "
                      "topology.kind: rail, the number of rails (NIC k of every host is on rail "
                      "k). With node.gpus_per_node set and this key not, it is gpus_per_node "
                      "(one NIC per GPU)",
       .source = "one NIC per host; with GPUs one per GPU as DGX H100's 8 ConnectX-7 for 8 "
                 "GPUs (DGX BasePOD RA, docs/reference/gpu-node.md §1.3); at most 64",
       .min = Bound{1},
       .max = Bound{64}},
      [](auto& s) -> auto& { return s.topology.nics_per_host; }));
  k.push_back(bind_enum(
      {.path = "routing.ecmp.hash",
       .description = "ECMP hash over the 5-tuple",
       .source = "CRC32, as switch ASICs offer"},
      std::vector<std::pair<std::string, EcmpHash>>{{"crc32", EcmpHash::kCrc32},
                                                    {"xor_fold", EcmpHash::kXorFold}},
      [](auto& s) -> auto& { return s.ecmp.hash; }));
  k.push_back(bind_enum(
      {.path = "routing.ecmp.seed",
       .description = "per_switch seeds avoid hash polarization; same "
                      "reproduces it",
       .source = "Cisco CEF tech note 116376; mlxsw seeds from the base MAC"},
      std::vector<std::pair<std::string, EcmpSeedMode>>{{"per_switch", EcmpSeedMode::kPerSwitch},
                                                        {"same", EcmpSeedMode::kSame}},
      [](auto& s) -> auto& { return s.ecmp.seed_mode; }));
  k.push_back(bind(
      {.path = "routing.ecmp.base_seed",
       .type = KnobType::kUint,
       .description = "The shared seed with seed: same; mixed into every switch's "
                      "seed with per_switch",
       .source = "any fixed value",
       .max = Bound{4294967295.0}},
      [](auto& s) -> auto& { return s.ecmp.seed; }));
  k.push_back(bind_enum(
      {.path = "workload.kind",
       .description = "Traffic: an NCCL-style collective (or an nccl-tests size sweep), a flow "
                      "pattern, or a training step (training.*)",
       .source = "SPEC §5 example"},
      std::vector<std::pair<std::string, WorkloadKind>>{{"collective", WorkloadKind::kCollective},
                                                        {"pattern", WorkloadKind::kPattern},
                                                        {"training", WorkloadKind::kTraining}},
      [](auto& s) -> auto& { return s.workload.kind; }));
  k.push_back(bind_enum(
      {.path = "workload.op",
       .description = "Collective operation (every op but all_reduce needs GPUs: "
                      "node.gpus_per_node > 0)",
       .source = "NCCL's collectives and nccl-tests' binaries (docs/reference/nccl.md §1.1)",
       .only_with = {collective}},
      std::vector<std::pair<std::string, CollOp>>{{"all_reduce", CollOp::kAllReduce},
                                                  {"all_gather", CollOp::kAllGather},
                                                  {"reduce_scatter", CollOp::kReduceScatter},
                                                  {"all_to_all", CollOp::kAllToAll},
                                                  {"broadcast", CollOp::kBroadcast},
                                                  {"reduce", CollOp::kReduce},
                                                  {"send_recv", CollOp::kSendRecv}},
      [](auto& s) -> auto& { return s.workload.op; }));
  k.push_back(bind_enum(
      {.path = "workload.algorithm",
       .description = "Collective algorithm; auto = NCCL's choice by its cost model (without "
                      "GPUs only ring runs)",
       .source = "NCCL NCCL_ALGO (tuning.cc selection, docs/reference/nccl.md §2.3)",
       .only_with = {collective}},
      std::vector<std::pair<std::string, CollAlgorithm>>{
          {"auto", CollAlgorithm::kAuto},
          {"ring", CollAlgorithm::kRing},
          {"tree", CollAlgorithm::kTree},
          {"halving_doubling", CollAlgorithm::kHalvingDoubling},
          {"hierarchical", CollAlgorithm::kHierarchical},
          {"direct", CollAlgorithm::kDirect}},
      [](auto& s) -> auto& { return s.workload.algorithm; }));
  k.push_back(bind_enum(
      {.path = "workload.protocol",
       .description = "NCCL protocol: auto (NCCL's choice), simple, ll128, ll (needs GPUs)",
       .source = "NCCL NCCL_PROTO (docs/reference/nccl.md §2)",
       .only_with = {collective}},
      std::vector<std::pair<std::string, Protocol>>{{"auto", Protocol::kAuto},
                                                    {"simple", Protocol::kSimple},
                                                    {"ll128", Protocol::kLL128},
                                                    {"ll", Protocol::kLL}},
      [](auto& s) -> auto& { return s.workload.protocol; }));
  k.push_back(bind(
      {.path = "workload.channels",
       .type = KnobType::kInt,
       .description = "Channels (independent rings/trees) the buffer is split over; 0 = "
                      "collective.channels (needs GPUs)",
       .source = "NCCL NCCL_MIN_NCHANNELS / NCCL_MAX_NCHANNELS (MAXCHANNELS 64)",
       .min = Bound{0},
       .max = Bound{64},
       .only_with = {collective}},
      [](auto& s) -> auto& { return s.workload.channels; }));
  k.push_back(bind(
      {.path = "workload.root",
       .type = KnobType::kInt,
       .description = "Broadcast / reduce: the root rank",
       .source = "nccl-tests -r default 0",
       .min = Bound{0},
       .only_with = {collective}},
      [](auto& s) -> auto& { return s.workload.root; }));
  k.push_back(bind(
      {.path = "workload.size",
       .type = KnobType::kBytes,
       .description = "nccl-tests \"size\": the per-rank buffer (all_reduce, broadcast, reduce, "
                      "send_recv), the total gathered / scattered buffer (all_gather, "
                      "reduce_scatter), the per-rank send buffer (all_to_all); with max_size the "
                      "smallest size of the sweep (nccl-tests -b)",
       .source = "nccl-tests src/*.cu GetBw (docs/reference/nccl.md §1.1)",
       .min = positive,
       .only_with = {collective}},
      [](auto& s) -> auto& { return s.workload.size_bytes; }));
  k.push_back(bind(
      {.path = "workload.max_size",
       .type = KnobType::kBytes,
       .description = "nccl-tests -e: the largest size of a sweep (0 = one size only)",
       .source = "nccl-tests common.cu (-b/-e/-f)",
       .min = Bound{0},
       .only_with = {collective}},
      [](auto& s) -> auto& { return s.workload.max_size_bytes; }));
  k.push_back(bind(
      {.path = "workload.step_factor",
       .type = KnobType::kInt,
       .description = "nccl-tests -f: each size of a sweep is the previous x this factor",
       .source = "nccl-tests common.cu (-f default 2 in its README examples)",
       .min = Bound{2},
       .max = Bound{1024},
       .only_with = {collective}},
      [](auto& s) -> auto& { return s.workload.step_factor; }));
  k.push_back(bind_enum(
      {.path = "workload.data_type",
       .description = "nccl-tests -d: element type, for the count column (count = size / "
                      "element bytes)",
       .source = "nccl-tests default float",
       .only_with = {collective}},
      std::vector<std::pair<std::string, std::string>>{{"float", "float"},
                                                       {"half", "half"},
                                                       {"bfloat16", "bfloat16"},
                                                       {"double", "double"},
                                                       {"int8", "int8"},
                                                       {"int32", "int32"}},
      [](auto& s) -> auto& { return s.workload.data_type; }));
  k.push_back(bind(
      {.path = "scaling.nodes",
       .type = KnobType::kIntList,
       .description = "Run once per node count (hosts.count = each, ascending; the largest at "
                      "most hosts.count) and report step or collective time and the "
                      "acceleration ratio against the first count (scaling.csv); [] = one run",
       .source = "seed 002's acceleration ratio (throughput at N nodes / N x one node's)",
       .min = Bound{1}},
      [](auto& s) -> auto& { return s.scaling_nodes; }));
  k.push_back(bind(
      {.path = "workload.slice",
       .type = KnobType::kBytes,
       .description = "Ring step chunks are cut into slices of at most this size, "
                      "one RDMA WRITE each",
       .source = "NCCL ring: 8 slices per 4 MiB buffer (NCCL_BUFFSIZE default)",
       .min = positive,
       .only_with = {collective}},
      [](auto& s) -> auto& { return s.workload.slice_bytes; }));
  k.push_back(bind_enum(
      {.path = "workload.pattern",
       .description = "Traffic pattern; group_shift: NIC j of group i sends to NIC j of group "
                      "i + 1 (groups of workload.group_size NICs, a Dragonfly's by default)",
       .source = "the simplest pattern",
       .only_with = {pattern}},
      std::vector<std::pair<std::string, PatternKind>>{{"permutation", PatternKind::kPermutation},
                                                       {"incast", PatternKind::kIncast},
                                                       {"all_to_all", PatternKind::kAllToAll},
                                                       {"poisson", PatternKind::kPoisson},
                                                       {"flows", PatternKind::kFlows},
                                                       {"ping_pong", PatternKind::kPingPong},
                                                       {"group_shift", PatternKind::kGroupShift}},
      [](auto& s) -> auto& { return s.workload.pattern; }));
  k.push_back(bind(
      {.path = "workload.flow_size",
       .type = KnobType::kBytes,
       .description = "Bytes per flow (poisson: when size_cdf is not given)",
       .source = "placeholder",
       .min = positive,
       .only_with = {pattern}},
      [](auto& s) -> auto& { return s.workload.flow_size_bytes; }));
  k.push_back(bind(
      {.path = "workload.senders",
       .type = KnobType::kInt,
       .description = "Incast: number of senders into the one receiver",
       .source = "placeholder",
       .min = Bound{1},
       .only_with = {pattern, incast}},
      [](auto& s) -> auto& { return s.workload.incast_senders; }));
  k.push_back(bind(
      {.path = "workload.receiver",
       .type = KnobType::kInt,
       .description = "Incast: index of the receiving NIC",
       .source = "the first NIC",
       .min = non_negative,
       .only_with = {pattern, incast}},
      [](auto& s) -> auto& { return s.workload.incast_receiver; }));
  k.push_back(bind(
      {.path = "workload.load",
       .type = KnobType::kDouble,
       .description = "Poisson: offered load as a fraction of NIC line rate",
       .source = "placeholder",
       .min = positive,
       .max = Bound{1},
       .only_with = {pattern, poisson}},
      [](auto& s) -> auto& { return s.workload.load; }));
  k.push_back(bind(
      {.path = "workload.duration",
       .type = KnobType::kTime,
       .description = "Poisson: flows arrive in [0, duration); required",
       .source = "none: must be given",
       .min = positive,
       .only_with = {pattern, poisson}},
      [](auto& s) -> auto& { return s.workload.duration_ps; }));
  k.push_back(bind(
      {.path = "workload.size_cdf",
       .type = KnobType::kSizeCdf,
       .description = "Poisson: flow sizes as [[size, cumulative probability], ...], "
                      "sizes increasing, last probability 1",
       .source = "empty: every flow is flow_size",
       .only_with = {pattern, poisson}},
      [](auto& s) -> auto& { return s.workload.size_cdf; }));
  k.push_back(bind(
      {.path = "workload.flows",
       .type = KnobType::kFlowList,
       .description = "Flows: an explicit list [[src NIC, dst NIC, size, start], ...], each "
                      "one RDMA WRITE posted at its start time",
       .source = "empty: must be given",
       .only_with = {pattern, Condition{"workload.pattern", "flows"}}},
      [](auto& s) -> auto& { return s.workload.flows; }));
  add_ping_pong_knobs(k);
  k.push_back(bind(
      {.path = "jobs_alone",
       .type = KnobType::kBool,
       .description = "With jobs: also run each job alone on the same nodes and report its "
                      "time alone and its slowdown beside the others (one more run per job)",
       .source = "off: the baseline costs a run per job"},
      [](auto& s) -> auto& { return s.jobs_alone; }));
  k.push_back(bind(
      {.path = "stop_time",
       .type = KnobType::kTime,
       .description = "Simulated-time limit; 0 = until every flow completes",
       .source = "run to completion",
       .min = non_negative},
      [](auto& s) -> auto& { return s.stop_time_ps; }));
  k.push_back(bind(
      {.path = "outputs.dir",
       .type = KnobType::kString,
       .description = "Directory for result files, relative to the working directory; "
                      "--out overrides it; empty = none",
       .source = "no files unless asked"},
      [](auto& s) -> auto& { return s.output_dir; }));
  k.push_back(bind(
      {.path = "outputs.steady_window",
       .type = KnobType::kBool,
       .description = "Report each flow's goodput over a steady window in which every flow is "
                      "active (from the last start plus half the time to the first completion, "
                      "to the first completion): mean and minimum in % of line rate",
       .source = "how multipath transport papers report permutation throughput (MPTCP NSDI "
                 "2011, NDP SIGCOMM 2017); off: it samples every flow"},
      [](auto& s) -> auto& { return s.steady_window; }));
  k.push_back(bind(
      {.path = "outputs.pcap.frames",
       .type = KnobType::kInt,
       .description = "Write the first N frames in transmit order to trace.pcap (byte-exact "
                      "RoCEv2 and PFC frames, or InfiniBand packets as ERF records with the "
                      "credit packets of that span in credits.csv; nanosecond timestamps); "
                      "0 = no capture",
       .source = "off: capture costs memory per frame",
       .min = non_negative},
      [](auto& s) -> auto& { return s.capture.max_frames; }));
  k.push_back(bind_enum(
      {.path = "outputs.pcap.point",
       .description = "nics = frames sent or received by NICs (tcpdump on every host); all = "
                      "every link, so a packet appears once per hop",
       .source = "what a host-side capture shows"},
      std::vector<std::pair<std::string, CapturePoint>>{{"nics", CapturePoint::kNics},
                                                        {"all", CapturePoint::kAll}},
      [](auto& s) -> auto& { return s.capture.point; }));
  add_trace_knobs(k);  // outputs.trace.* (knob_registry_trace.cpp)
  add_report_knobs(k);  // outputs.report (issue 13)
  add_congestion_knobs(k);
  add_spray_knobs(k);
  add_qps_per_pair_knob(k);  // fabric.roce.qps_per_pair (knob_registry_ctxcache.cpp)
  add_infiniband_knobs(k);
  add_load_balancing_knobs(k);
  add_uet_knobs(k);
  add_tcp_knobs(k);
  add_node_knobs(k);
  add_training_knobs(k);
  add_collective_knobs(k);
  add_cost_knobs(k);
  add_planes_knobs(k);
  add_fat_tree_knobs(k);  // topology.upper_tiers
  add_dragonfly_routing_knobs(k);
  add_flow_output_knobs(k);  // outputs.flows.path (knob_registry_outputs.cpp)
  add_telemetry_knobs(k);  // outputs.timeseries.* (knob_registry_telemetry.cpp)
  bound_unit_keys(k);
  return k;
}

}  // namespace fabricsim::scenario
