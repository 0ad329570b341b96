// Registry entries of the NIC model (fabric.nic.*): the latency profile, per-parameter overrides
// and ACK coalescing. Descriptions and sources restate net/config.h NicConfig, net/nic_profile.cpp
// and transport/config.h RoceConfig::ack_every.
#include <string>
#include <utility>
#include <vector>

#include "core/checked.h"
#include "net/nic_profile.h"
#include "spec/knob_bind.h"
#include "spec/knob_tables.h"
#include "spec/knobs.h"

namespace fabricsim::scenario {

using knob_bind::bind;
using knob_bind::bind_enum;

namespace {

using knob_bind::non_negative;
// The profile names as enum choices (net/nic_profile.cpp lists them).
std::vector<std::pair<std::string, std::string>> profile_choices() {
  std::vector<std::pair<std::string, std::string>> profiles;
  for (const net::NicProfile& p : net::nic_profiles()) profiles.emplace_back(p.name, p.name);
  return profiles;
}

// One latency part of the profile a key overrides.
struct TimePart {
  const char* key;
  const char* description;
  const char* source;
  std::optional<int64_t> NicSpec::*field;
};

const TimePart parts[] = {
    {"fabric.nic.tx_latency",
     "Per packet: NIC send pipeline, transport engine to wire (connectx-7: 180 ns)",
     "profile; ConnectX-6 VPI brief 'sub 0.6 us' adapter latency (UNVERIFIED split)",
     &NicSpec::tx_latency_ps},
    {"fabric.nic.rx_latency",
     "Per packet: NIC receive pipeline, wire to transport engine (connectx-7: 180 ns)",
     "profile; as tx_latency", &NicSpec::rx_latency_ps},
    {"fabric.nic.host_post",
     "Per message: software post of the WQE, ibv_post_send (connectx-7: 50 ns)",
     "profile; ~100-200 CPU cycles (UNVERIFIED)", &NicSpec::host_post_ps},
    {"fabric.nic.doorbell",
     "Per message: the doorbell / BlueFlame MMIO write crossing PCIe to the NIC "
     "(connectx-7: 150 ns)",
     "profile; Neugebauer et al. SIGCOMM 2018 PCIe latencies (UNVERIFIED split)",
     &NicSpec::doorbell_ps},
    {"fabric.nic.dma_read",
     "Per message larger than inline_max: PCIe read round trip for the WQE and first "
     "payload (connectx-7: 500 ns)",
     "profile; Neugebauer et al. SIGCOMM 2018 (~500 ns DMA read)", &NicSpec::dma_read_ps},
    {"fabric.nic.mem_write",
     "Per message: the payload's (and CQE's) posted PCIe write into host memory "
     "(connectx-7: 200 ns)",
     "profile; as doorbell (UNVERIFIED split)", &NicSpec::mem_write_ps},
    {"fabric.nic.host_poll",
     "Per message: the polling host noticing the completion (connectx-7: 50 ns)",
     "profile; one cache-line miss (UNVERIFIED)", &NicSpec::host_poll_ps},
};

// fabric.nic.<part>: one time key per entry of `parts`, each unset (the profile's) by default.
std::vector<Knob> time_part_knobs() {
  std::vector<Knob> k;
  for (const TimePart& part : parts) {
    k.push_back(bind(
        {.path = part.key,
         .type = KnobType::kTime,
         .description = part.description,
         .source = std::string(part.source) + "; at most 1 s (core/checked.h kMaxDeviceLatencyPs)",
         .min = non_negative,
         .max = Bound{static_cast<double>(kMaxDeviceLatencyPs)}},
        [field = part.field](auto& s) -> auto& { return s.nic_spec.*field; }));
  }
  return k;
}

const std::vector<Knob> kNicKnobs = knob_bind::concat({
    {bind_enum(
        {.path = "fabric.nic.profile",
         .description =
             "NIC/host latency profile: connectx-7 (NDR/400GbE, PCIe Gen5), connectx-6 "
             "(HDR/200GbE, PCIe Gen4), connectx-3 (FDR/10-40GbE, PCIe Gen3: the 2011-2014 "
             "generation of seed 002's latency figures), zero (no NIC or host latency: "
             "the pure wire model); the fabric.nic.* times below override single parts",
         .source = "sums calibrated to published perftest ib_write_lat 2 B figures "
                   "(docs/calibration.md); per-part split UNVERIFIED"},
        profile_choices(), [](auto& s) -> auto& { return s.nic_spec.profile; })},
    time_part_knobs(),
    {bind(
         {.path = "fabric.nic.inline_max",
          .type = KnobType::kBytes,
          .description = "Messages up to this size travel inline in the doorbell "
                         "write, no DMA read (connectx-7: 220 B)",
          .source = "profile; perftest DEF_INLINE_WRITE 220",
          .min = non_negative},
         [](auto& s) -> auto& { return s.nic_spec.inline_max_bytes; }),
     bind(
         {.path = "fabric.nic.ack_every",
          .type = KnobType::kInt,
          .description =
              "ACK coalescing of the RC engine, both fabrics: the requester sets AckReq "
              "on every Nth packet and each message's last, and the responder ACKs those",
          .source = "ConnectX qpc.log_ack_req_freq 0 (mlx5_ifc.h; upstream mlx5 leaves it 0, "
                    "UNVERIFIED); NVSHMEM IBGDA 'Ack every packet'; HPCC L2_ACK_INTERVAL 1",
          .min = Bound{1}},
         [](auto& s) -> auto& { return s.roce.ack_every; })},
});

}  // namespace

const std::vector<Knob>& nic_knobs() { return kNicKnobs; }

std::string retired_key_hint(std::string_view path) {
  static const std::pair<std::string_view, std::string_view> kRetired[] = {
      {"fabric.roce.ack_every",
       "moved to fabric.nic.ack_every (ACK coalescing is the NIC's, the same on both fabrics)"},
      {"fabric.ib.ack_every",
       "moved to fabric.nic.ack_every (ACK coalescing is the NIC's, the same on both fabrics)"},
      {"fabric.nic.latency",
       "replaced by fabric.nic.tx_latency and fabric.nic.rx_latency (set both to the old value; "
       "fabric.nic.profile zero removes every other NIC/host latency)"},
  };
  for (const auto& [key, hint] : kRetired) {
    if (path == key) return std::string(hint);
  }
  return "";
}

}  // namespace fabricsim::scenario
