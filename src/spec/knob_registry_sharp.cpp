// Registry entries of InfiniBand SHARP streaming aggregation (fabric.sharp.*). Descriptions and
// sources restate net/sharp.h SharpConfig and docs/infiniband.md "SHARP".
#include <vector>

#include "spec/knob_bind.h"
#include "spec/knob_tables.h"
#include "spec/knobs.h"

namespace fabricsim::scenario {

using knob_bind::bind;

namespace {

const Condition on{"fabric.sharp.enabled", "true"};

const std::vector<Knob> kSharpKnobs = {
    bind(
        {.path = "fabric.sharp.enabled",
         .type = KnobType::kBool,
         .description = "InfiniBand SHARP: switches reduce streaming-aggregation (SAT) traffic "
                        "of GPU groups in a tree and multicast the result back (ib only; GPU "
                        "scenarios reach it through the node layer's sharp_group)",
         .source = "off: NCCL needs NCCL_COLLNET_ENABLE=1 and the SHARP plugin (HPC-X 2.26 "
                   "NCCL-RDMA-SHARP Plugins)"},
        [](auto& s) -> auto& { return s.sharp.enabled; }),
    bind(
        {.path = "fabric.sharp.max_trees_per_port",
         .type = KnobType::kInt,
         .description = "Active streaming-aggregation trees a port may carry (HCA ports "
                        "included); a tree needing a full port is refused",
         .source = "1: Quantum-2 'one active tree per port' (SHARP Rev 3.13.0, General "
                   "Information)",
         .min = Bound{1},
         .max = Bound{1024},
         .only_with = {on}},
        [](auto& s) -> auto& { return s.sharp.max_trees_per_port; }),
    bind(
        {.path = "fabric.sharp.max_trees",
         .type = KnobType::kInt,
         .description = "Streaming-aggregation trees per subnet",
         .source = "511: Quantum-2, 511 SAT + 511 low-latency trees (SHARP Rev 3.13.0, General "
                   "Information)",
         .min = Bound{1},
         .max = Bound{65535},
         .only_with = {on}},
        [](auto& s) -> auto& { return s.sharp.max_trees; }),
    bind(
        {.path = "fabric.sharp.outstanding_chunks",
         .type = KnobType::kInt,
         .description = "Chunks a member NIC may have in the tree without their result (the "
                        "switches' per-tree reduction state, SHARP's OST quota)",
         .source = "8: UNVERIFIED, no public OST count; NCCL_STEPS, the slots NCCL's CollNet "
                   "keeps in flight per channel (nccl@5067397 src/include/device.h)",
         .min = Bound{1},
         .max = Bound{1024},
         .only_with = {on}},
        [](auto& s) -> auto& { return s.sharp.outstanding_chunks; }),
    bind(
        {.path = "fabric.sharp.chunk",
         .type = KnobType::kBytes,
         .description = "Chunk a member NIC streams; outstanding_chunks x chunk is the window",
         .source = "128 KiB: NCCL CollNet chunks are at most 256 KiB, halved for small sizes "
                   "(nccl@5067397 enqueue.cc calcCollChunking)",
         .min = Bound{256},
         .max = Bound{64 << 20},
         .only_with = {on}},
        [](auto& s) -> auto& { return s.sharp.chunk_bytes; }),
};

}  // namespace

const std::vector<Knob>& sharp_knobs() { return kSharpKnobs; }

}  // namespace fabricsim::scenario
