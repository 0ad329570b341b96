// Registry entries of the workload (workload.*: the collective, the nccl-tests sweep, the flow
// patterns) and of scaling.nodes. Descriptions and sources restate src/workload/workload_spec.h
// and src/spec/scenario.h; defaults are read from their members.
#include <string>
#include <utility>
#include <vector>

#include "core/checked.h"
#include "spec/knob_bind.h"
#include "spec/knob_tables.h"
#include "spec/knobs.h"

namespace fabricsim::scenario {

using knob_bind::bind;
using knob_bind::bind_enum;

namespace {

using workload::CollAlgorithm;
using workload::CollOp;
using workload::PatternKind;
using workload::Protocol;
using workload::WorkloadKind;
const Condition collective{"workload.kind", "collective"};
using knob_bind::pattern;
const Condition incast{"workload.pattern", "incast"};
const Condition poisson{"workload.pattern", "poisson"};
using knob_bind::positive;
using knob_bind::non_negative;

const std::vector<Knob> kWorkloadKnobs = {
    bind_enum(
        {.path = "workload.kind",
         .description = "Traffic: an NCCL-style collective (or an nccl-tests size sweep), a flow "
                        "pattern, or a training step (training.*)",
         .source = "SPEC §5 example"},
        std::vector<std::pair<std::string, WorkloadKind>>{{"collective", WorkloadKind::kCollective},
                                                          {"pattern", WorkloadKind::kPattern},
                                                          {"training", WorkloadKind::kTraining}},
        [](auto& s) -> auto& { return s.workload.kind; }),
    bind_enum(
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
        [](auto& s) -> auto& { return s.workload.op; }),
    bind_enum(
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
            {"direct", CollAlgorithm::kDirect},
            {"nvls", CollAlgorithm::kNvls},
            {"nvls_tree", CollAlgorithm::kNvlsTree},
            {"collnet", CollAlgorithm::kCollnet}},
        [](auto& s) -> auto& { return s.workload.algorithm; }),
    bind_enum(
        {.path = "workload.protocol",
         .description = "NCCL protocol: auto (NCCL's choice), simple, ll128, ll (needs GPUs)",
         .source = "NCCL NCCL_PROTO (docs/reference/nccl.md §2)",
         .only_with = {collective}},
        std::vector<std::pair<std::string, Protocol>>{{"auto", Protocol::kAuto},
                                                      {"simple", Protocol::kSimple},
                                                      {"ll128", Protocol::kLL128},
                                                      {"ll", Protocol::kLL}},
        [](auto& s) -> auto& { return s.workload.protocol; }),
    bind(
        {.path = "workload.channels",
         .type = KnobType::kInt,
         .description = "Channels (independent rings/trees) the buffer is split over; 0 = "
                        "collective.channels (needs GPUs)",
         .source = "NCCL NCCL_MIN_NCHANNELS / NCCL_MAX_NCHANNELS (MAXCHANNELS 64)",
         .min = Bound{0},
         .max = Bound{64},
         .only_with = {collective}},
        [](auto& s) -> auto& { return s.workload.channels; }),
    bind(
        {.path = "workload.root",
         .type = KnobType::kInt,
         .description = "Broadcast / reduce: the root rank",
         .source = "nccl-tests -r default 0",
         .min = Bound{0},
         .only_with = {collective}},
        [](auto& s) -> auto& { return s.workload.root; }),
    bind(
        {.path = "workload.size",
         .type = KnobType::kBytes,
         .description = "nccl-tests \"size\": the per-rank buffer (all_reduce, broadcast, reduce, "
                        "send_recv), the total gathered / scattered buffer (all_gather, "
                        "reduce_scatter), the per-rank send buffer (all_to_all); with max_size the "
                        "smallest size of the sweep (nccl-tests -b)",
         .source = "nccl-tests src/*.cu GetBw (docs/reference/nccl.md §1.1)",
         .min = positive,
         .only_with = {collective}},
        [](auto& s) -> auto& { return s.workload.size_bytes; }),
    bind(
        {.path = "workload.max_size",
         .type = KnobType::kBytes,
         .description = "nccl-tests -e: the largest size of a sweep (0 = one size only)",
         .source = "nccl-tests common.cu (-b/-e/-f)",
         .min = Bound{0},
         .only_with = {collective}},
        [](auto& s) -> auto& { return s.workload.max_size_bytes; }),
    bind(
        {.path = "workload.step_factor",
         .type = KnobType::kInt,
         .description = "nccl-tests -f: each size of a sweep is the previous x this factor",
         .source = "nccl-tests common.cu (-f default 2 in its README examples)",
         .min = Bound{2},
         .max = Bound{1024},
         .only_with = {collective}},
        [](auto& s) -> auto& { return s.workload.step_factor; }),
    bind_enum(
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
        [](auto& s) -> auto& { return s.workload.data_type; }),
    bind(
        {.path = "scaling.nodes",
         .type = KnobType::kIntList,
         .description = "Run once per node count (hosts.count = each, ascending; the largest at "
                        "most hosts.count) and report step or collective time and the "
                        "acceleration ratio against the first count (scaling.csv); [] = one run",
         .source = "seed 002's acceleration ratio (throughput at N nodes / N x one node's)",
         .min = Bound{1}},
        [](auto& s) -> auto& { return s.scaling_nodes; }),
    bind(
        {.path = "workload.slice",
         .type = KnobType::kBytes,
         .description = "Ring step chunks are cut into slices of at most this size, "
                        "one RDMA WRITE each",
         .source = "NCCL ring: 8 slices per 4 MiB buffer (NCCL_BUFFSIZE default)",
         .min = positive,
         .only_with = {collective}},
        [](auto& s) -> auto& { return s.workload.slice_bytes; }),
    bind_enum(
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
        [](auto& s) -> auto& { return s.workload.pattern; }),
    bind(
        {.path = "workload.flow_size",
         .type = KnobType::kBytes,
         .description = "Bytes per flow (poisson: when size_cdf is not given)",
         .source = "placeholder",
         .min = positive,
         .only_with = {pattern}},
        [](auto& s) -> auto& { return s.workload.flow_size_bytes; }),
    bind(
        {.path = "workload.senders",
         .type = KnobType::kInt,
         .description = "Incast: number of senders into the one receiver",
         .source = "placeholder",
         .min = Bound{1},
         .only_with = {pattern, incast}},
        [](auto& s) -> auto& { return s.workload.incast_senders; }),
    bind(
        {.path = "workload.receiver",
         .type = KnobType::kInt,
         .description = "Incast: index of the receiving NIC",
         .source = "the first NIC",
         .min = non_negative,
         .only_with = {pattern, incast}},
        [](auto& s) -> auto& { return s.workload.incast_receiver; }),
    bind(
        {.path = "workload.load",
         .type = KnobType::kDouble,
         .description = "Poisson: offered load as a fraction of fabric.link.rate (a topology "
                        "file's NIC cables must run at it)",
         .source = "placeholder",
         .min = positive,
         .max = Bound{1},
         .only_with = {pattern, poisson}},
        [](auto& s) -> auto& { return s.workload.load; }),
    bind(
        {.path = "workload.duration",
         .type = KnobType::kTime,
         .description = "Poisson: flows arrive in [0, duration); required",
         .source = "none: must be given",
         .min = positive,
         .only_with = {pattern, poisson}},
        [](auto& s) -> auto& { return s.workload.duration_ps; }),
    bind(
        {.path = "workload.size_cdf",
         .type = KnobType::kSizeCdf,
         .description = "Poisson: flow sizes as [[size, cumulative probability], ...], "
                        "sizes increasing, last probability 1",
         .source = "empty: every flow is flow_size",
         .only_with = {pattern, poisson}},
        [](auto& s) -> auto& { return s.workload.size_cdf; }),
    bind_enum(
        {.path = "workload.size_distribution",
         .description = "Poisson: a published flow-size table by name instead of size_cdf: "
                        "web_search (DCTCP), fb_hadoop (Facebook Hadoop), ali_storage (Alibaba "
                        "storage 2019); custom = size_cdf or flow_size",
         .source = "HPCC's traffic_gen tables (alibaba-edu/High-Precision-Congestion-Control "
                   "@9f4be2a; Li et al. SIGCOMM 2019 §5.1; docs/traffic-patterns.md)",
         .only_with = {pattern, poisson}},
        std::vector<std::pair<std::string, workload::SizeDistribution>>{
            {"custom", workload::SizeDistribution::kCustom},
            {"web_search", workload::SizeDistribution::kWebSearch},
            {"fb_hadoop", workload::SizeDistribution::kFbHadoop},
            {"ali_storage", workload::SizeDistribution::kAliStorage}},
        [](auto& s) -> auto& { return s.workload.size_distribution; }),
    bind(
        {.path = "workload.flows",
         .type = KnobType::kFlowList,
         .description = "Flows: an explicit list [[src NIC, dst NIC, size, start], ...], each "
                        "one RDMA WRITE posted at its start time",
         .source = "empty: must be given",
         .only_with = {pattern, Condition{"workload.pattern", "flows"}}},
        [](auto& s) -> auto& { return s.workload.flows; }),
};

}  // namespace

const std::vector<Knob>& workload_knobs() { return kWorkloadKnobs; }

}  // namespace fabricsim::scenario
