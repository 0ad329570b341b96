// The registry: the area tables (spec/knob_tables.h) concatenated in the order the key reference
// lists them, with the unit types' ranges applied. Descriptions and sources in the tables restate
// the comments on the struct members they fill (src/net/config.h, src/topo/topology_spec.h,
// src/routing/config.h, src/transport/config.h, src/workload/workload_spec.h,
// src/spec/scenario.h); defaults are read from those members, never written there.
#include <vector>

#include "core/checked.h"
#include "spec/knob_tables.h"
#include "spec/knobs.h"

namespace fabricsim::scenario {
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
  // The order is the key reference's (docs/scenario-keys.md); a new area goes where its keys
  // should be listed, which for most is at the end.
  const std::vector<Knob>* const tables[] = {
      &scenario_knobs(),
      &fabric_knobs(),
      &trim_knobs(),
      &nic_knobs(),
      &ctxcache_knobs(),
      &roce_knobs(),
      &topology_kind_knobs(),
      &topo_file_knobs(),
      &dragonfly_knobs(),
      &topology_size_knobs(),
      &ecmp_knobs(),
      &workload_knobs(),
      &ping_pong_knobs(),
      &run_knobs(),
      &output_knobs(),
      &trace_knobs(),
      &report_knobs(),
      &congestion_knobs(),
      &timely_knobs(),
      &swift_knobs(),
      &spray_knobs(),
      &qps_per_pair_knobs(),
      &infiniband_knobs(),
      &load_balancing_knobs(),
      &uet_knobs(),
      &tcp_knobs(),
      &node_knobs(),
      &training_knobs(),
      &collective_knobs(),
      &cost_knobs(),
      &planes_knobs(),
      &fat_tree_knobs(),
      &dragonfly_routing_knobs(),
      &flow_output_knobs(),
      &telemetry_knobs(),
      &sharp_knobs(),
  };
  std::vector<Knob> k;
  for (const std::vector<Knob>* table : tables) k.insert(k.end(), table->begin(), table->end());
  bound_unit_keys(k);
  return k;
}

}  // namespace fabricsim::scenario
