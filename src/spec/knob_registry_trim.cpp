// Registry entries of switch packet trimming and the per-port queue cap (issue 11):
// fabric.switch.port_queue, fabric.trim.header, fabric.trim.victim. They restate net/config.h
// SwitchConfig::port_queue_bytes and TrimConfig. Trimming itself is switched on by the UET
// transport's fabric.uet.trimming, which sets the class mask and the header priority.
#include <string>
#include <utility>
#include <vector>

#include "core/units.h"
#include "spec/knob_bind.h"
#include "spec/knob_tables.h"
#include "spec/knobs.h"

namespace fabricsim::scenario {

using knob_bind::bind;
using knob_bind::bind_enum;

namespace {

// fabric.trim.header fills a uint16_t, which knob_bind does not bind, so it sets and reads the
// field itself.
Knob trim_header_knob() {
  Knob header{.path = "fabric.trim.header",
              .type = KnobType::kBytes,
              .description =
                  "Size a trimmed packet is cut to (frame bytes); it travels in the trim "
                  "class, strict priority above data. A UET run with fabric.uet.header_bytes "
                  "> 0 trims to that header size instead",
              .source =
                  "64 B: uet-htsim -trimsize (main_uec.cpp, minimum 64; uet-sim.md §4); SONiC "
                  "example 256 B (sonic-utilities PR #3920); UEC spec value UNVERIFIED; max 1024 B "
                  "is a sanity bound (a trim must be far below a data frame)",
              .min = Bound{64, false},
              .max = Bound{1024, false}};
  header.set = [](Scenario& s, const KnobValue& v) {
    s.switch_config.trim.header_bytes = static_cast<uint16_t>(std::get<int64_t>(v));
  };
  header.get = [](const Scenario& s) {
    return format_bytes_exact(s.switch_config.trim.header_bytes);
  };
  return header;
}

const std::vector<Knob> kTrimKnobs = {
    bind(
        {.path = "fabric.switch.port_queue",
         .type = KnobType::kBytes,
         .description = "Per-port cap on the bytes one lossy class may queue, on top of the shared "
                        "buffer's dynamic threshold (the trimmed-header class may hold 2x); 0 = no "
                        "cap, the shared buffer alone",
         .source = "0: a shared-buffer MMU (Spectrum/Tomahawk) has no per-port queue; uet-htsim "
                   "uses 1 x BDP per port with trimming, 5 x BDP without (main_uec.cpp "
                   "DEFAULT_TRIMMING_QUEUESIZE_FACTOR; docs/reference/uet-sim.md §0)",
         .min = Bound{0, false}},
        [](auto& s) -> auto& { return s.switch_config.port_queue_bytes; }),
    trim_header_knob(),
    bind_enum(
        {.path = "fabric.trim.victim",
         .description = "Which packet a full data queue trims: arrival (the packet that would be "
                        "dropped) or htsim (half the time the newest queued data packet instead, "
                        "the arrival then taking its place)",
         .source = "arrival: NVIDIA Spectrum-4 packet trimming (Cumulus Linux 5.14 docs, 'trims "
                   "packets that are about to be discarded'); htsim: uet-htsim "
                   "CompositeQueue::receivePacket (uet-sim.md §4)"},
        std::vector<std::pair<std::string, net::TrimVictim>>{
            {"arrival", net::TrimVictim::kArrival}, {"htsim", net::TrimVictim::kArrivalOrNewest}},
        [](auto& s) -> auto& { return s.switch_config.trim.victim; }),
};

}  // namespace

const std::vector<Knob>& trim_knobs() { return kTrimKnobs; }

}  // namespace fabricsim::scenario
