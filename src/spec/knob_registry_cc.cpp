// Registry entries for lossless Ethernet and congestion control: PFC, ECN marking, DCQCN.
// Sources restate the comments on net::PfcConfig, net::NicConfig, scenario::EcnSpec and
// transport::RoceConfig; DCQCN overrides are unset by default, so the named profile decides.
#include <optional>
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

using transport::CongestionControl;
using knob_bind::positive;
using knob_bind::non_negative;
const Condition dcqcn{"fabric.roce.cc", "dcqcn"};
const Condition hpcc{"fabric.roce.cc", "hpcc"};
const Condition pfc_static{"fabric.pfc.threshold", "static"};
const Condition pfc_dynamic{"fabric.pfc.threshold", "dynamic"};
const Condition plb{"fabric.roce.plb.enabled", "true"};

// A DCQCN parameter: meaningful only with fabric.roce.cc: dcqcn; its default is the profile's.
template <typename Access>
Knob dcqcn_knob(const char* path, KnobType type, const char* description, std::optional<Bound> min,
                std::optional<Bound> max, Access access,
                const char* source = "the profile's (transport/dcqcn.cpp cites each)") {
  return knob_bind::bind_when(dcqcn, path, type, description, source, min, max, access);
}

const std::vector<Knob> kCongestionKnobs = {
    bind(
        {.path = "fabric.pfc.enabled",
         .type = KnobType::kBool,
         .description = "Priority flow control (802.1Qbb) on the RoCE data priority: "
                        "the class becomes lossless",
         .source = "off: lossy RoCE unless asked"},
        [](auto& s) -> auto& { return s.switch_config.pfc.enabled; }),
    bind_enum(
        {.path = "fabric.pfc.threshold",
         .description =
             "dynamic: a lossless ingress PG sends XOFF at alpha x free shared pool, then "
             "fills its headroom, reserved out of the switch buffer per port and class; "
             "static: XOFF = switch buffer / ports - headroom",
         .source = "dynamic: the SAI/SONiC shared-buffer model of Broadcom and NVIDIA Spectrum "
                   "switches (saibuffer.h SHARED_DYNAMIC_TH, XON_OFFSET_TH; SONiC "
                   "pg_profile_lookup.ini); static: SPEC §8 per-port split"},
        std::vector<std::pair<std::string, net::PfcThreshold>>{
            {"dynamic", net::PfcThreshold::kDynamic}, {"static", net::PfcThreshold::kStatic}},
        [](auto& s) -> auto& { return s.switch_config.pfc.threshold; }),
    bind(
        {.path = "fabric.pfc.alpha",
         .type = KnobType::kDouble,
         .description = "Dynamic threshold of a lossless PG: XOFF once its shared-pool "
                        "bytes reach alpha x the free shared pool",
         .source = "1 = 2^dynamic_th with dynamic_th 0, SONiC lossless PG profiles on "
                   "NVIDIA SN4600/SN4700 and Broadcom TH2/TH4 (pg_profile_lookup.ini); "
                   "SAI: alpha = 2^SHARED_DYNAMIC_TH",
         .min = positive,
         .only_with = {pfc_dynamic}},
        [](auto& s) -> auto& { return s.switch_config.pfc.alpha; }),
    bind(
        {.path = "fabric.pfc.xon_offset",
         .type = KnobType::kBytes,
         .description = "Dynamic mode: RESUME once the PG's headroom is empty and its "
                        "bytes <= max(xon, threshold - xon_offset)",
         .source = "2288 B: SONiC xon_offset for Broadcom TH4 and NVIDIA SN4600 "
                   "(pg_profile_lookup.ini; TH2 RDMA-CENTRIC: 2496); SAI XON_OFFSET_TH",
         .min = non_negative,
         .only_with = {pfc_dynamic}},
        [](auto& s) -> auto& { return s.switch_config.pfc.xon_offset_bytes; }),
    bind(
        {.path = "fabric.pfc.port_buffer",
         .type = KnobType::kBytes,
         .description = "Static mode: buffer per ingress port and lossless class (XOFF "
                        "+ headroom); 0 = the switch buffer divided by its port count",
         .source = "static partition of the shared buffer",
         .min = non_negative,
         .only_with = {pfc_static}},
        [](auto& s) -> auto& { return s.switch_config.pfc.port_buffer_bytes; }),
    bind(
        {.path = "fabric.pfc.headroom",
         .type = KnobType::kBytes,
         .description = "Headroom above XOFF per port and lossless class; 0 = (301 + "
                        "216 x len_m / 100) x speed_Mbps / 1000 + 272 x MTU / 100, "
                        "integer arithmetic, speed >= 40 Gb/s",
         .source = "Linux mlx5 calculate_xoff(), drivers/net/ethernet/mellanox/mlx5/"
                   "core/en/port_buffer.c (SPEC §8)",
         .min = non_negative},
        [](auto& s) -> auto& { return s.switch_config.pfc.headroom_bytes; }),
    bind(
        {.path = "fabric.pfc.xoff",
         .type = KnobType::kBytes,
         .description = "Static mode: XOFF threshold; 0 = port buffer - headroom",
         .source = "SPEC §8; mlx5 port_buffer.c (xoff_threshold = size - xoff)",
         .min = non_negative,
         .only_with = {pfc_static}},
        [](auto& s) -> auto& { return s.switch_config.pfc.xoff_bytes; }),
    bind(
        {.path = "fabric.pfc.xon",
         .type = KnobType::kBytes,
         .description = "XON threshold; 0 = static: XOFF - MTU, dynamic: 2288 B (SAI "
                        "XON_TH)",
         .source = "static: SPEC §8, mlx5 commit e28408e98bce; dynamic: SONiC xon "
                   "2288 B for Broadcom TH4 / NVIDIA SN4600 (pg_profile_lookup.ini)",
         .min = non_negative},
        [](auto& s) -> auto& { return s.switch_config.pfc.xon_bytes; }),
    bind(
        {.path = "fabric.pfc.pause_quanta",
         .type = KnobType::kInt,
         .description = "Pause time per PAUSE frame in 512-bit-time quanta; refreshed "
                        "at half that period while congested",
         .source = "802.1Qbb field maximum; refresh as ns3-rdma",
         .min = Bound{1},
         .max = Bound{65535}},
        [](auto& s) -> auto& { return s.switch_config.pfc.pause_quanta; }),
    bind(
        {.path = "fabric.pfc.watchdog",
         .type = KnobType::kTime,
         .description = "A switch queue paused this long is declared stormed: it "
                        "ignores PAUSE and drops until pauses stop; 0 = off",
         .source = "off; 100-400 ms is typical (SPEC §8)",
         .min = non_negative},
        [](auto& s) -> auto& { return s.switch_config.pfc.watchdog_ps; }),
    bind(
        {.path = "fabric.nic.rx_buffer",
         .type = KnobType::kBytes,
         .description = "NIC receive buffer, filled only while the NIC is stalled",
         .source = "1 MiB, order of a ConnectX port buffer (UNVERIFIED)",
         .min = positive},
        [](auto& s) -> auto& { return s.nic.rx_buffer_bytes; }),
    bind(
        {.path = "faults.nic_stall.nic",
         .type = KnobType::kInt,
         .description = "A NIC that stops draining its receive buffer (PFC storm "
                        "source); -1 = none",
         .source = "no fault",
         .min = Bound{-1}},
        [](auto& s) -> auto& { return s.nic_stall.nic; }),
    bind(
        {.path = "faults.nic_stall.at",
         .type = KnobType::kTime,
         .description = "When the NIC stops draining",
         .source = "from the start",
         .min = non_negative},
        [](auto& s) -> auto& { return s.nic_stall.at_ps; }),
    bind(
        {.path = "faults.nic_stall.until",
         .type = KnobType::kTime,
         .description = "When it drains again; 0 = never",
         .source = "never",
         .min = non_negative},
        [](auto& s) -> auto& { return s.nic_stall.until_ps; }),
    bind_enum(
        {.path = "fabric.ecn.marking",
         .description = "RED ECN marking of the data class at switch egress; auto = on exactly "
                        "when fabric.roce.cc is dcqcn",
         .source = "DCQCN needs marks; nothing else reads them"},
        std::vector<std::pair<std::string, EcnMode>>{
            {"auto", EcnMode::kAuto}, {"on", EcnMode::kOn}, {"off", EcnMode::kOff}},
        [](auto& s) -> auto& { return s.ecn.marking; }),
    bind(
        {.path = "fabric.ecn.kmin",
         .type = KnobType::kBytes,
         .description = "Queue bytes below which nothing is marked",
         .source = "the DCQCN profile's; without DCQCN 150000B, NVIDIA Spectrum RoCE "
                   "default (Cumulus Linux default_ecn_red_conf min_threshold_bytes; "
                   "Onyx show roce Min 150 KB)",
         .min = non_negative},
        [](auto& s) -> auto& { return s.ecn.kmin_bytes; }),
    bind(
        {.path = "fabric.ecn.kmax",
         .type = KnobType::kBytes,
         .description =
             "Queue bytes above which everything is marked (= kmin: step marking, as DCTCP)",
         .source = "the DCQCN profile's; without DCQCN 1500000B, NVIDIA Spectrum RoCE "
                   "default (Cumulus Linux default_ecn_red_conf max_threshold_bytes; "
                   "Onyx show roce Max 1500 KB)",
         .min = positive},
        [](auto& s) -> auto& { return s.ecn.kmax_bytes; }),
    bind(
        {.path = "fabric.ecn.pmax",
         .type = KnobType::kDouble,
         .description = "Marking probability at Kmax",
         .source = "the DCQCN profile's; without DCQCN 1, NVIDIA Spectrum RoCE default "
                   "(Cumulus Linux default_ecn_red_conf probability 100)",
         .min = positive,
         .max = Bound{1}},
        [](auto& s) -> auto& { return s.ecn.pmax; }),
    bind_enum(
        {.path = "fabric.roce.cc",
         .description = "Sender congestion control: none (line rate), dcqcn, timely (RTT "
                        "gradient, Mittal et al. SIGCOMM 2015), hpcc (INT-driven window and "
                        "rate, Li et al. SIGCOMM 2019), swift (delay-target window, Kumar et "
                        "al. SIGCOMM 2020) or dctcp (ECN-echo rate and window, as the HPCC "
                        "authors' simulator runs DCTCP on RDMA); docs/cc.md",
         .source = "none: the foundation model"},
        std::vector<std::pair<std::string, CongestionControl>>{
            {"none", CongestionControl::kNone},
            {"dcqcn", CongestionControl::kDcqcn},
            {"timely", CongestionControl::kTimely},
            {"hpcc", CongestionControl::kHpcc},
            {"swift", CongestionControl::kSwift},
            {"dctcp", CongestionControl::kDctcp}},
        [](auto& s) -> auto& { return s.roce.cc; }),
    bind(
        {.path = "fabric.roce.cc_scheme",
         .type = KnobType::kString,
         .description = "A congestion-control scheme registered through the interface "
                        "(transport/rate_cc.h, docs/cc.md) by the program that runs the "
                        "scenario; replaces fabric.roce.cc",
         .source = "none: fabric.roce.cc decides"},
        [](auto& s) -> auto& { return s.roce.cc_scheme; }),
    bind_enum(
        {.path = "fabric.roce.dcqcn_profile",
         .description = "Named DCQCN parameter set (SPEC §8); every field can be overridden "
                        "under fabric.roce.dcqcn",
         .source = "nvidia-default: ConnectX firmware defaults (mlxconfig query; isekai ConnectX "
                   "model for B in 64-byte units) with NVIDIA Spectrum switch ECN defaults",
         .only_with = {dcqcn}},
        std::vector<std::pair<std::string, std::string>>{{"nvidia-default", "nvidia-default"},
                                                         {"dcqcn-paper", "dcqcn-paper"},
                                                         {"hpcc-paper", "hpcc-paper"}},
        [](auto& s) -> auto& { return s.roce.dcqcn_profile; }),
    bind(
        {.path = "fabric.roce.plb.enabled",
         .type = KnobType::kBool,
         .description = "Protective Load Balancing: repath (new UDP source port) after "
                        "consecutive congested rounds; needs ECN marking",
         .source = "off (PLB, SIGCOMM 2022)"},
        [](auto& s) -> auto& { return s.roce.plb.enabled; }),
    bind(
        {.path = "fabric.roce.plb.congested_fraction",
         .type = KnobType::kDouble,
         .description = "A round is congested when at least this fraction of its "
                        "packets was CE-marked, or when a CNP arrived in it (DCQCN)",
         .source = "Linux tcp_plb_cong_thresh 128/256; the CNP: issue 22, "
                   "docs/load-balancing.md \"PLB\"",
         .min = positive,
         .max = Bound{1},
         .only_with = {plb}},
        [](auto& s) -> auto& { return s.roce.plb.congested_fraction; }),
    bind(
        {.path = "fabric.roce.plb.rehash_rounds",
         .type = KnobType::kInt,
         .description = "Repath after this many congested rounds in a row",
         .source = "Linux tcp_plb_rehash_rounds 12",
         .min = Bound{1},
         .only_with = {plb}},
        [](auto& s) -> auto& { return s.roce.plb.rehash_rounds; }),
    bind(
        {.path = "fabric.roce.plb.idle_rehash_rounds",
         .type = KnobType::kInt,
         .description = "Or after this many when nothing is in flight",
         .source = "Linux tcp_plb_idle_rehash_rounds 3",
         .min = Bound{1},
         .only_with = {plb}},
        [](auto& s) -> auto& { return s.roce.plb.idle_rehash_rounds; }),
    bind({.path = "fabric.roce.hpcc.eta",
          .type = KnobType::kDouble,
          .description = "HPCC's target utilization eta: the sender aims at eta x line",
          .source = "0.95: HPCC paper; simulator run.py --utgt 95",
          .min = positive,
          .max = Bound{1},
          .only_with = {hpcc}},
         [](auto& s) -> auto& { return s.roce.hpcc.eta; }),
    bind({.path = "fabric.roce.hpcc.max_stage",
          .type = KnobType::kInt,
          .description = "Additive steps allowed while u < eta before a multiplicative one",
          .source = "0: simulator run.py --mi 0 (every update multiplicative)",
          .min = Bound{0},
          .only_with = {hpcc}},
         [](auto& s) -> auto& { return s.roce.hpcc.max_stage; }),
    bind({.path = "fabric.roce.hpcc.rate_ai",
          .type = KnobType::kRate,
          .description = "Additive increase R_AI per update",
          .source = "10 Mb/s x line / 25 Gb/s: simulator run.py, cc hp",
          .min = positive,
          .only_with = {hpcc}},
         [](auto& s) -> auto& { return s.roce.hpcc.rate_ai_bps; }),
    bind({.path = "fabric.roce.hpcc.min_rate",
          .type = KnobType::kRate,
          .description = "Lowest rate HPCC paces a QP at",
          .source = "1 Gb/s: simulator run.py's config template MIN_RATE",
          .min = positive,
          .only_with = {hpcc}},
         [](auto& s) -> auto& { return s.roce.hpcc.min_rate_bps; }),
    bind({.path = "fabric.roce.hpcc.base_rtt",
          .type = KnobType::kTime,
          .description = "T: the base RTT the window W = B x T and the EWMA scale from",
          .source = "the fabric's largest base RTT between hosts (simulator GLOBAL_T 1, "
                    "third.cc: 2 x one-way delay + serialization)",
          .min = positive,
          .only_with = {hpcc}},
         [](auto& s) -> auto& { return s.roce.hpcc.base_rtt_ps; }),
    dcqcn_knob(
        "fabric.roce.dcqcn.min_rate", KnobType::kRate, "Lowest rate a cut reaches", positive,
        std::nullopt, [](auto& s) -> auto& { return s.roce.dcqcn.min_rate_bps; }),
    dcqcn_knob(
        "fabric.roce.dcqcn.g", KnobType::kDouble, "Alpha gain g", positive, Bound{1},
        [](auto& s) -> auto& { return s.roce.dcqcn.g; }),
    dcqcn_knob(
        "fabric.roce.dcqcn.initial_alpha", KnobType::kDouble, "Alpha set by the first CNP",
        non_negative, Bound{1}, [](auto& s) -> auto& { return s.roce.dcqcn.initial_alpha; }),
    dcqcn_knob(
        "fabric.roce.dcqcn.alpha_interval", KnobType::kTime, "Alpha update period", positive,
        std::nullopt, [](auto& s) -> auto& { return s.roce.dcqcn.alpha_interval_ps; }),
    dcqcn_knob(
        "fabric.roce.dcqcn.alpha_update_on_cnp", KnobType::kBool,
        "true: alpha rises at each CNP (paper); false: once per period (ConnectX)", std::nullopt,
        std::nullopt, [](auto& s) -> auto& { return s.roce.dcqcn.alpha_update_on_cnp; }),
    dcqcn_knob(
        "fabric.roce.dcqcn.rate_decrease_interval", KnobType::kTime,
        "Minimum time between cuts; 0 = cut on every CNP", non_negative, std::nullopt,
        [](auto& s) -> auto& { return s.roce.dcqcn.rate_decrease_interval_ps; }),
    dcqcn_knob(
        "fabric.roce.dcqcn.rate_increase_timer", KnobType::kTime,
        "Increase timer T: one increase step per expiry", positive, std::nullopt,
        [](auto& s) -> auto& { return s.roce.dcqcn.rate_increase_timer_ps; }),
    dcqcn_knob(
        "fabric.roce.dcqcn.byte_counter", KnobType::kBytes,
        "Byte counter B: one increase step per B bytes sent; 0 = none", non_negative, std::nullopt,
        [](auto& s) -> auto& { return s.roce.dcqcn.byte_counter_bytes; },
        "the profile's; nvidia-default 32767 x 64 B = 2097088B (rpg_byte_reset in 64-byte "
        "units as Google isekai's ConnectX model counts it; Spirent DCQCN profile 2 MB); "
        "mstflint's 'Given in Bytes' reading is 32767B"),
    dcqcn_knob(
        "fabric.roce.dcqcn.fast_recovery_steps", KnobType::kInt,
        "F: fast-recovery steps before additive increase", non_negative, std::nullopt,
        [](auto& s) -> auto& { return s.roce.dcqcn.fast_recovery_steps; }),
    dcqcn_knob(
        "fabric.roce.dcqcn.stage_counts_current_step", KnobType::kBool,
        "true: the firing stage counter counts the current step before the phase is chosen "
        "(F-1 fast-recovery steps, hyper once both counters reach F); false: F fast-recovery "
        "steps, hyper once both exceed F",
        std::nullopt, std::nullopt,
        [](auto& s) -> auto& { return s.roce.dcqcn.stage_counts_current_step; },
        "the profile's; dcqcn-paper true (NS3RDMA rpr_active_select), the others false "
        "(isekai IncreaseRate, HPCC RateIncEventMlx)"),
    dcqcn_knob(
        "fabric.roce.dcqcn.ai_rate", KnobType::kRate, "Additive increase of the target rate",
        positive, std::nullopt, [](auto& s) -> auto& { return s.roce.dcqcn.ai_rate_bps; }),
    dcqcn_knob(
        "fabric.roce.dcqcn.hai_rate", KnobType::kRate, "Hyper increase of the target rate",
        positive, std::nullopt, [](auto& s) -> auto& { return s.roce.dcqcn.hai_rate_bps; }),
    dcqcn_knob(
        "fabric.roce.dcqcn.min_decrease_factor", KnobType::kDouble,
        "A cut keeps at least this fraction of the rate", non_negative, Bound{1, true},
        [](auto& s) -> auto& { return s.roce.dcqcn.min_decrease_factor; }),
    dcqcn_knob(
        "fabric.roce.dcqcn.hyper_increase_scales", KnobType::kBool,
        "true: the i-th hyper step adds i x HAI (paper); false: HAI each time", std::nullopt,
        std::nullopt, [](auto& s) -> auto& { return s.roce.dcqcn.hyper_increase_scales; }),
    dcqcn_knob(
        "fabric.roce.dcqcn.clamp_target_rate", KnobType::kBool,
        "true: every cut sets the target to the current rate first", std::nullopt, std::nullopt,
        [](auto& s) -> auto& { return s.roce.dcqcn.clamp_target_rate; }),
    dcqcn_knob(
        "fabric.roce.dcqcn.cnp_interval", KnobType::kTime,
        "Receiver sends at most one CNP per QP per interval; 0 = one per marked packet",
        non_negative, std::nullopt, [](auto& s) -> auto& { return s.roce.dcqcn.cnp_interval_ps; },
        "the profile's; nvidia-default 4us (mlxconfig MIN_TIME_BETWEEN_CNPS 4, in "
        "microseconds per mstflint and the mlx5 np_min_time_between_cnps patch)"),
};

}  // namespace

const std::vector<Knob>& congestion_knobs() { return kCongestionKnobs; }

}  // namespace fabricsim::scenario
