// The graphs NCCL's topology search (src/graph/search.cc ncclTopoCompute at nccl@5067397)
// finds for a communicator, restated as their outcome, not as the search: channel count and
// per-channel speed of the ring, tree and NVLS graphs. They are the inputs of NCCL's tuning
// model (workload/nccl_model.h), kept apart from the channel count the kernels run with
// (ncclTopoPostset doubles it). docs/reference/nccl-at-scale.md §1.2 derives each rule;
// docs/collectives.md shows what they make `auto` choose.
#pragma once

#include "node/nccl_view.h"

namespace fabricsim::workload {

struct NcclGraph {
  int channels = 0;
  double bw_intra_gbps = 0;  // per channel, inside a node (GB/s)
  double bw_inter_gbps = 0;  // per channel, across nodes
};

struct NcclGraphs {
  NcclGraph ring;
  NcclGraph tree;
  NcclGraph nvls;  // channels = NVLS heads
};

// `nodes` nodes with `local_ranks` ranks on the most populated one, on a machine NCCL reads as
// `view`. Hopper (sm90) speed tables.
NcclGraphs nccl_graphs(const node::NcclView& view, int nodes, int local_ranks, int gpus_per_node);

}  // namespace fabricsim::workload
