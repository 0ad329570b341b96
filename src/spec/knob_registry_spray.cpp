// Registry entries for RoCE per-packet spraying, out-of-order placement and the responder's
// reorder buffer. Sources restate the comments on transport::RoceConfig (transport/config.h).
#include <cstdint>
#include <vector>

#include "spec/knob_bind.h"
#include "spec/knob_tables.h"
#include "spec/knobs.h"

namespace fabricsim::scenario {

using knob_bind::bind;

namespace {

const Condition spray{"fabric.roce.spray", "true"};

// 1, 2, 4, ... max_value.
std::vector<int64_t> powers_of_two_up_to(int64_t max_value) {
  std::vector<int64_t> powers;
  for (int64_t p = 1; p <= max_value; p *= 2) powers.push_back(p);
  return powers;
}

const std::vector<Knob> kSprayKnobs = {
    bind(
        {.path = "fabric.roce.spray",
         .type = KnobType::kBool,
         .description = "Per-packet spraying: every WRITE/SEND data packet of a QP takes a new UDP "
                        "source port, so ECMP spreads one QP over all equal-cost paths (switches "
                        "unchanged). Reordered packets need fabric.roce.out_of_order, else every "
                        "PSN gap is a go-back-N",
         .source = "off: RoCE NICs keep one source port per QP (Linux rxe; shared/reference/"
                   "rocev2.md §3)"},
        [](auto& s) -> auto& { return s.roce.spray; }),
    bind(
        {.path = "fabric.roce.spray_paths",
         .type = KnobType::kInt,
         .description = "How many source ports a sprayed QP cycles through, each once per round "
                        "in an order redrawn every round (oblivious spraying)",
         .source = "64: uet-htsim's -paths default and its UecMpOblivious rule (docs/reference/"
                   "uet-sim.md §3); no RoCE NIC documents a spraying sequence (UNVERIFIED for "
                   "RoCE); at most the 2^14 ports of RoCEv2's 0xC000 source-port range",
         .one_of = powers_of_two_up_to(16384),
         .only_with = {spray}},
        [](auto& s) -> auto& { return s.roce.spray_paths; }),
    bind(
        {.path = "fabric.roce.out_of_order",
         .type = KnobType::kBool,
         .description = "The responder places packets that arrive ahead of the expected PSN "
                        "(within fabric.roce.reorder_buffer) instead of NAKing the gap; a lost "
                        "packet is then recovered by a full buffer's go-back-N or the timeout. "
                        "InfiniBand turns it on with routing.sm.adaptive",
         .source = "off: go-back-N responder (Linux rxe check_psn); ConnectX-5 and later offer "
                   "out-of-order data placement for RC (MLNX_OFED \"Out-of-Order (OOO) Data "
                   "Placement\"; shared/reference/rocev2.md §6)"},
        [](auto& s) -> auto& { return s.roce.out_of_order; }),
    bind(
        {.path = "fabric.roce.reorder_buffer",
         .type = KnobType::kInt,
         .description = "Packets ahead of the expected PSN an out-of-order responder can hold; an "
                        "arrival beyond it makes the responder NAK the expected PSN and discard "
                        "what it held (go-back-N fallback, counted)",
         .source = "4096 packets (16 MiB at a 4 KiB MTU, a 512-byte bitmap per QP): ConnectX's "
                   "limit is not public (UNVERIFIED); below 2^23, half the 24-bit PSN space",
         .min = Bound{1},
         .max = Bound{(1 << 23) - 1}},
        [](auto& s) -> auto& { return s.roce.reorder_buffer_packets; }),
};

}  // namespace

const std::vector<Knob>& spray_knobs() { return kSprayKnobs; }

}  // namespace fabricsim::scenario
