// Registry entries for the Ultra Ethernet transport (fabric.uet.*, technology uet). Sources restate
// the comments on transport::UetConfig and transport/uet*.h; the facts are in
// docs/reference/uet-sim.md (uet-htsim, uet-ref-prov, Wireshark's UET dissector).
#include <string>
#include <utility>
#include <vector>

#include "spec/knob_bind.h"
#include "spec/knob_tables.h"
#include "spec/knobs.h"

namespace fabricsim::scenario {

using knob_bind::bind;
using knob_bind::bind_enum;

namespace {

using transport::UetDelivery;
using transport::UetLoadBalancing;
using knob_bind::positive;
using knob_bind::non_negative;

const std::vector<Knob> kUetKnobs = {
    bind_enum(
        {.path = "fabric.uet.delivery",
         .description = "PDS delivery mode: rud = reliable unordered (any order, SACK), rod = "
                        "reliable ordered (only the next PSN is accepted, a gap is NACKed "
                        "ROD_OOO and the sender goes back to it)",
         .source = "rud: what uet-htsim models and collectives use (uet-sim.md §5); ROD per the "
                   "UEC NACK code ROD_OOO 0x0D (uet-ref-prov, Wireshark packet-uet.c)"},
        std::vector<std::pair<std::string, UetDelivery>>{{"rud", UetDelivery::kRud},
                                                         {"rod", UetDelivery::kRod}},
        [](auto& s) -> auto& { return s.uet.delivery; }),
    bind_enum(
        {.path = "fabric.uet.load_balancing",
         .description = "Entropy (EV) per packet: single_path = one EV per connection (ECMP); "
                        "oblivious = every EV once per round of `paths` packets; reps = reuse EVs "
                        "whose ACKs came back unmarked (ring of 8), random otherwise, frozen 10 ms "
                        "after a timeout",
         .source =
             "uet-htsim uec_mp.cpp UecMpOblivious, UecMpReps and buffer_reps.cpp "
             "(uet-sim.md §3); htsim's default is `mixed` (bitmap + REPS-legacy), not modelled"},
        std::vector<std::pair<std::string, UetLoadBalancing>>{
            {"single_path", UetLoadBalancing::kSinglePath},
            {"oblivious", UetLoadBalancing::kOblivious},
            {"reps", UetLoadBalancing::kReps}},
        [](auto& s) -> auto& { return s.uet.load_balancing; }),
    bind(
        {.path = "fabric.uet.paths",
         .type = KnobType::kInt,
         .description = "EVs a connection sprays over (a power of two)",
         .source = "64: uet-htsim main_uec.cpp `-paths` default (uet-sim.md §3)",
         .one_of = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768,
                    65536}},
        [](auto& s) -> auto& { return s.uet.paths; }),
    bind(
        {.path = "fabric.uet.nscc",
         .type = KnobType::kBool,
         .description = "NSCC sender congestion control (window from ECN and delay); "
                        "with nscc and rccc off the window is fixed at maxwnd",
         .source = "on: uet-htsim's sender CC (uet-sim.md §1)"},
        [](auto& s) -> auto& { return s.uet.nscc; }),
    bind(
        {.path = "fabric.uet.cc_scheme",
         .type = KnobType::kString,
         .description = "A UET window rule registered through the interface "
                        "(transport/uet_window_cc.h, docs/cc.md) by the program that runs the "
                        "scenario; replaces NSCC (fabric.uet.nscc is then ignored)",
         .source = "none: fabric.uet.nscc decides"},
        [](auto& s) -> auto& { return s.uet.cc_scheme; }),
    bind(
        {.path = "fabric.uet.rccc",
         .type = KnobType::kBool,
         .description = "RCCC receiver credit: a pacer per receiver NIC at 0.99 x line "
                        "rate grants 16 KiB credits round-robin; senders start with "
                        "maxwnd of speculative credit",
         .source = "off: uet-htsim runs it only when asked (`-receiver_cc_only`, "
                   "uet-sim.md §2)"},
        [](auto& s) -> auto& { return s.uet.rccc; }),
    bind(
        {.path = "fabric.uet.trimming",
         .type = KnobType::kBool,
         .description = "Switches trim a data packet that finds its queue full to a "
                        "header forwarded in fabric.uet.control_priority; the "
                        "receiver NACKs it and the sender resends at once",
         .source = "on: uet-htsim's default (`-disable_trim` turns it off; "
                   "uet-sim.md §4)"},
        [](auto& s) -> auto& { return s.uet.trimming; }),
    bind(
        {.path = "fabric.uet.pfc",
         .type = KnobType::kBool,
         .description = "Run UET's data class lossless with PFC (fabric.pfc.* thresholds "
                        "and headroom); off = lossy Ethernet. fabric.pfc.enabled is "
                        "RoCE's switch and does not apply to UET",
         .source = "off: UET is designed for lossy Ethernet (UEC 1.0 overview: "
                   "\"does not require a lossless network\"; uet-htsim runs lossy); "
                   "PFC optional (issue 11)"},
        [](auto& s) -> auto& { return s.uet.pfc; }),
    bind(
        {.path = "fabric.uet.mtu",
         .type = KnobType::kBytes,
         .description = "UET payload bytes per packet",
         .source = "4096: as the RoCE default; htsim's 4150-B MTU carries 4086 B of "
                   "payload (set 4086 with header_bytes 64 to match it, uet-sim.md §0)",
         .min = Bound{64},
         .max = Bound{9000}},
        [](auto& s) -> auto& { return s.uet.mtu_bytes; }),
    bind(
        {.path = "fabric.uet.header_bytes",
         .type = KnobType::kBytes,
         .description = "Per-packet header bytes on the wire (data frame = payload + "
                        "this; ACK, NACK and credit packets = this); 0 = the real "
                        "Ethernet/IPv4/UDP/PDS/SES headers (102 B per data frame, 78 B "
                        "ACK, 64 B NACK)",
         .source = "0: Wireshark packet-uet.c header lengths (PDS 12/16, ACK_CC 32, "
                   "SES standard 44); 64 = uet-htsim's _hdr_size/ACKSIZE",
         .min = non_negative,
         .max = Bound{1024}},
        [](auto& s) -> auto& { return s.uet.header_bytes; }),
    bind(
        {.path = "fabric.uet.data_priority",
         .type = KnobType::kInt,
         .description = "Traffic class of UET data (ECN-marked, trimmed, PFC-protected "
                        "if fabric.pfc.enabled)",
         .source = "3: the class RoCE data uses here",
         .min = Bound{0},
         .max = Bound{7}},
        [](auto& s) -> auto& { return s.uet.data_priority; }),
    bind(
        {.path = "fabric.uet.control_priority",
         .type = KnobType::kInt,
         .description = "Traffic class of ACKs, NACKs, credits and trimmed headers",
         .source = "7: above data, as htsim's CompositeQueue high class "
                   "(uet-sim.md §4)",
         .min = Bound{0},
         .max = Bound{7}},
        [](auto& s) -> auto& { return s.uet.control_priority; }),
    bind(
        {.path = "fabric.uet.ack_every",
         .type = KnobType::kBytes,
         .description = "ACK coalescing: the receiver ACKs once this many payload bytes "
                        "arrived (and at once on CE, duplicates and a message's last "
                        "packet)",
         .source = "16 KiB: UEC ACK_GEN_TRIGGER (xdp2 config.h) = htsim "
                   "`-sack_threshold` 16384 (uet-sim.md §5)",
         .min = positive,
         .max = Bound{1 << 20}},
        [](auto& s) -> auto& { return s.uet.ack_every_bytes; }),
    bind(
        {.path = "fabric.uet.rto",
         .type = KnobType::kTime,
         .description = "Retransmission timeout (fixed, from the oldest packet in "
                        "flight); 0 = 15 us + diameter x one port queue's drain time",
         .source = "uet-htsim main_uec.cpp _min_rto (100.66 us at its defaults, "
                   "uet-sim.md §5); spec RTO_INIT_TIMER 1 ms per xdp2 (UNVERIFIED)",
         .min = non_negative,
         .max = Bound{1e12}},
        [](auto& s) -> auto& { return s.uet.rto_ps; }),
    bind(
        {.path = "fabric.uet.nscc_target_delay",
         .type = KnobType::kTime,
         .description = "NSCC target queueing delay; unset = 0.75 x network RTT with "
                        "trimming, 1.0 x without",
         .source = "uet-htsim uec.cpp initNsccParams (uet-sim.md §1a)",
         .min = positive,
         .max = Bound{1e12}},
        [](auto& s) -> auto& { return s.uet.nscc_overrides.target_delay_ps; }),
    bind(
        {.path = "fabric.uet.max_window",
         .type = KnobType::kBytes,
         .description = "maxwnd: NSCC's initial and largest window, the fixed window "
                        "with CC off and RCCC's speculative credit; unset = 1.5 x BDP "
                        "of the network RTT",
         .source = "uet-htsim uec.cpp _configured_maxwnd (uet-sim.md §1a)",
         .min = positive},
        [](auto& s) -> auto& { return s.uet.nscc_overrides.max_cwnd_bytes; }),
    bind(
        {.path = "fabric.uet.nscc_rescale_max_window",
         .type = KnobType::kBool,
         .description = "At each new minimum RTT, re-derive NSCC's largest window as "
                        "1.5 x line rate x that RTT; false: it stays at max_window (1.5 x "
                        "BDP of the network RTT) while the minimum still sets the base RTT "
                        "the queueing delay is measured from",
         .source = "true: UEC 1.0 §3.6.13.6 update_base_rtt and uet-htsim uec.cpp "
                   "update_base_rtt; false (fabricsim): on a cut-through fabric at a "
                   "small BDP the rescaled ceiling leaves no room for one queued "
                   "packet per hop and a sprayed permutation reaches ~53% of line rate "
                   "at 10 Gb/s (docs/transports.md \"NSCC\")"},
        [](auto& s) -> auto& { return s.uet.nscc_rescale_max_window; }),
    bind(
        {.path = "fabric.uet.sack_loss",
         .type = KnobType::kBool,
         .description = "Presume a packet lost when packets sent after it were SACKed "
                        "and it is two network RTTs later than their RTT (RACK-like); "
                        "false: only trims (NACK) and the RTO recover losses",
         .source = "true: fabricsim's choice (RFC 8985 RACK); false reproduces "
                   "uet-htsim, whose SLEEK recovery is off by default (uet-sim.md "
                   "§5). With spraying over 1 x BDP queues the path-delay spread can "
                   "exceed the allowance: 300 spurious resends in htsim's 16-host "
                   "permutation (docs/calibration.md)"},
        [](auto& s) -> auto& { return s.uet.sack_loss; }),
};

}  // namespace

const std::vector<Knob>& uet_knobs() { return kUetKnobs; }

}  // namespace fabricsim::scenario
