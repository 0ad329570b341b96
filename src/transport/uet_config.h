// Ultra Ethernet transport (UEC 1.0 PDS + congestion management) configuration: fabric.uet.*.
// Facts and their sources: docs/reference/uet-sim.md (uet-htsim, the UEC reference simulator;
// uet-ref-prov; Wireshark's UET dissector). Defaults are filled in by the UET transport's
// builders (transport/uet.cpp) and each names its source there and in the knob registry.
#pragma once

#include <cstdint>
#include <string>
#include <optional>

namespace fabricsim::transport {

// PDS delivery mode: reliable unordered (RUD, what collectives' RDMA-write-like traffic uses)
// or reliable ordered (ROD: the receiver accepts only the next PSN and NACKs a gap).
enum class UetDelivery : uint8_t { kRud, kRod };

// How the sender picks each packet's entropy value (EV), which switches hash like a UDP
// source port (uet-sim.md §3, §6).
//   kSinglePath: one EV per connection (ECMP-like; htsim `-paths 1`)
//   kOblivious:  a fresh EV per packet, each round of `paths` packets visiting every EV once
//   kReps:       recycled entropies (REPS): reuse EVs whose ACKs came back unmarked
enum class UetLoadBalancing : uint8_t { kSinglePath, kOblivious, kReps };

// Per-field overrides of NSCC's derived constants (transport/uet_nscc.h); unset = derived.
struct NsccOverrides {
  std::optional<int64_t> target_delay_ps;
  std::optional<int64_t> max_cwnd_bytes;
};

struct UetConfig {
  UetDelivery delivery = UetDelivery::kRud;
  UetLoadBalancing load_balancing = UetLoadBalancing::kReps;
  int paths = 64;  // EVs a connection sprays over (htsim `-paths` default 64; power of 2)
  bool nscc = true;   // sender-based congestion control (window from ECN and delay)
  bool rccc = false;  // receiver-granted credits
  // A window rule registered through transport/uet_window_cc.h, replacing NSCC
  // (fabric.uet.cc_scheme; resolve turns nscc off when it is set). Empty: nscc decides.
  std::string cc_scheme;
  bool pfc = false;   // the data class lossless with PFC (fabric.uet.pfc); else lossy
  int mtu_bytes = 4096;  // payload bytes per packet
  int data_priority = 3;     // traffic class of data
  int control_priority = 7;  // ACK/NACK/credit class (and the switches' trimmed headers)
  int64_t ack_every_bytes = 16384;  // ACK coalescing (ACK_GEN_TRIGGER; uet-sim.md §5)
  int64_t rto_ps = 0;               // 0 = derived (see transport/uet.cpp)
  // SACK-inferred loss (RACK-like, transport/uet.cpp on_ack). uet-htsim has none by default
  // (its SLEEK recovery is off unless -sleek; uet-sim.md §5): false reproduces its runs, where
  // only trims (NACK) and the RTO recover losses.
  bool sack_loss = true;
  NsccOverrides nscc_overrides;
  // NSCC's window ceiling at a new minimum RTT (transport/uet_nscc.h NsccParams::rescale_max_cwnd):
  // false keeps maxwnd = 1.5 x BDP of the network RTT; true re-derives it from the minimum, as
  // the UEC 1.0 pseudocode (§3.6.13.6 update_base_rtt) and uet-htsim (uec.cpp update_base_rtt) do.
  bool nscc_rescale_max_window = false;
  // Added by the UET engine (issue 11): switch packet trimming for the data class
  // (fabric.uet.trimming: sets SwitchConfig::trim) and a per-packet header override
  // (fabric.uet.header_bytes; 0 = the real Ethernet/IPv4/UDP/PDS/SES headers, transport/uet.h;
  // htsim's 64 B for calibration: every frame is then payload + header_bytes, control packets
  // header_bytes).
  bool trimming = true;
  int header_bytes = 0;
};

}  // namespace fabricsim::transport
