// Registry entries of the NIC connection-context cache (fabric.nic.context_cache.*) and of the
// number of QPs per NIC pair (fabric.roce.qps_per_pair). Descriptions and sources restate
// net/nic_context_cache.h and docs/nic.md "Connection-context cache".
#include <vector>

#include "core/checked.h"
#include "spec/knob_bind.h"
#include "spec/knob_tables.h"
#include "spec/knobs.h"

namespace fabricsim::scenario {

using knob_bind::bind;

namespace {

const Condition on{"fabric.nic.context_cache.enabled", "true"};

const std::vector<Knob> kContextCacheKnobs = {
    bind(
        {.path = "fabric.nic.context_cache.enabled",
         .type = KnobType::kBool,
         .description = "Model the NIC's on-chip cache of connection contexts (RoCE/IB: QP "
                        "contexts): a packet of a connection whose context is not cached waits "
                        "for a PCIe read of it from host memory. Off: every context is on chip",
         .source = "off, so results without it are unchanged; the effect: Kalia et al. ATC 2016 "
                   "and OSDI 2016 (FaSST), Chen et al. EuroSys 2019 (ScaleRPC), Wang et al. NSDI "
                   "2023 (SRNIC) (docs/nic.md)"},
        [](auto& s) -> auto& { return s.context_cache.enabled; }),
    bind(
        {.path = "fabric.nic.context_cache.entries",
         .type = KnobType::kInt,
         .description = "Connection contexts each NIC caches on chip (least recently used "
                        "replaced)",
         .source = "1024: UNVERIFIED, no vendor publishes it; published throughput cliffs lie "
                   "between a few hundred QPs (ConnectX-3, FaSST OSDI 2016) and a few thousand "
                   "connections (commercial RNIC -47%, Zhang et al. ISCAS 2023 'ScalaRNIC')",
         .min = Bound{1},
         .max = Bound{1 << 24},
         .only_with = {on}},
        [](auto& s) -> auto& { return s.context_cache.entries; }),
    bind(
        {.path = "fabric.nic.context_cache.miss_latency",
         .type = KnobType::kTime,
         .description = "What a miss costs: the PCIe read round trip that fetches the context "
                        "from host memory before the packet proceeds (unset: fabric.nic.dma_read, "
                        "the same round trip; connectx-7 500 ns)",
         .source = "Neugebauer et al. SIGCOMM 2018: a small DMA read round trip is ~500-900 ns "
                   "depending on the host (the NIC profile's dma_read); at most 1 s "
                   "(core/checked.h kMaxDeviceLatencyPs)",
         .min = Bound{0},
         .max = Bound{static_cast<double>(kMaxDeviceLatencyPs)},
         .only_with = {on}},
        [](auto& s) -> auto& { return s.context_cache.miss_latency_ps; }),
    bind(
        {.path = "fabric.nic.context_cache.outstanding_misses",
         .type = KnobType::kInt,
         .description = "Context reads a NIC keeps in flight; a miss beyond them waits for the "
                        "oldest to complete. With every access missing, a NIC processes at most "
                        "this many packets per miss_latency",
         .source = "8: UNVERIFIED, not published for any RNIC; it sets the message rate once "
                   "contexts thrash (docs/nic.md derives it)",
         .min = Bound{1},
         .max = Bound{4096},
         .only_with = {on}},
        [](auto& s) -> auto& { return s.context_cache.outstanding_misses; }),
    bind(
        {.path = "fabric.nic.context_cache.context_bytes",
         .type = KnobType::kBytes,
         .description = "Bytes of one connection's context, for the NIC memory the connections "
                        "would need (connections per NIC x this) in the results",
         .source = "232 B: the mlx5 QP context, struct mlx5_ifc_qpc_bits = 0x740 bits (Linux "
                   "include/linux/mlx5/mlx5_ifc.h); memory-translation entries not included",
         .min = Bound{1},
         .only_with = {on}},
        [](auto& s) -> auto& { return s.context_cache.context_bytes; }),
};

const std::vector<Knob> kQpsPerPairKnobs = {
    bind(
        {.path = "fabric.roce.qps_per_pair",
         .type = KnobType::kInt,
         .description = "QPs between each pair of NICs (and service level); successive messages "
                        "of the pair take them in turn. Many QPs per NIC is what the context "
                        "cache scenarios need",
         .source = "1: NCCL_IB_QPS_PER_CONNECTION default 1 (NVIDIA/nccl src/transport/net_ib)",
         .min = Bound{1},
         .max = Bound{1 << 16}},
        [](auto& s) -> auto& { return s.roce.qps_per_pair; }),
};

}  // namespace

const std::vector<Knob>& ctxcache_knobs() { return kContextCacheKnobs; }
const std::vector<Knob>& qps_per_pair_knobs() { return kQpsPerPairKnobs; }

}  // namespace fabricsim::scenario
