// Registry entry of explicit topology files (issue 12 item 6): topology.file, read when
// topology.kind is file. The formats and checks are topo/file_topology.h's.
#include <vector>

#include "spec/knob_bind.h"
#include "spec/knob_tables.h"
#include "spec/knobs.h"

namespace fabricsim::scenario {

using knob_bind::bind;

namespace {

const std::vector<Knob> kTopologyFileKnobs = {
    bind(
        {.path = "topology.file",
         .type = KnobType::kString,
         .description = "kind file: the topology file, relative to the scenario file. Native form "
                        "(nic/switch/link lines) or an HPCC/ns-3 RDMA simulator topology.txt "
                        "(first token a number); hosts.count follows from its NICs / "
                        "hosts.nics_per_host. Links without a rate or length take fabric.link.*",
         .source = "HPCC topology.txt: alibaba-edu/High-Precision-Congestion-Control "
                   "simulation/scratch/third.cc (9f4be2a) lines 693-771 and simulation/mix/"
                   "topology.txt; native form: docs/topologies.md \"Topology files\"",
         .only_with = {{"topology.kind", "file"}}},
        [](auto& s) -> auto& { return s.topology.file; }),
};

}  // namespace

const std::vector<Knob>& topo_file_knobs() { return kTopologyFileKnobs; }

}  // namespace fabricsim::scenario
