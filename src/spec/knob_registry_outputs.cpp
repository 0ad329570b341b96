// Registry entries of per-flow output options: outputs.flows.path (flows.csv's path column,
// engine/packet/flow_paths.h).
#include <vector>

#include "spec/knob_bind.h"
#include "spec/knobs.h"

namespace fabricsim::scenario {

using knob_bind::bind;

void add_flow_output_knobs(std::vector<Knob>& k) {
  k.push_back(bind(
      {.path = "outputs.flows.path",
       .type = KnobType::kBool,
       .description = "Add a path column to flows.csv: the ports (links.csv names) the flow's "
                      "data packets crossed, in hop order, separated by ';'; a flow whose "
                      "packets took several distinct paths (spraying, adaptive routing, "
                      "repaths) lists up to 8 in the order first seen, then counts the rest "
                      "(format: docs/outputs.md)",
       .source = "off: it observes every data-packet hop (a net::Tap) and keeps per-flow path "
                 "lists; issue 13 item 1 asks for it on request"},
      [](auto& s) -> auto& { return s.flow_paths; }));
}

}  // namespace fabricsim::scenario
