// The sourced prices and wattages a bill of materials starts from (issue 13 item 6). Every value
// comes from ../shared/reference/cost-power.md with its confidence: H vendor document, M two
// secondary sources agree, L one secondary source, G a guess anchored on rows that exist (the
// sheet's own "suggested defaults"). Every one can be overridden in the scenario (cost.*).
#pragma once

#include <cstdint>
#include <string_view>

#include "spec/cost_spec.h"

namespace fabricsim::scenario {

// A priced part: USD each and watts each (typical, without pluggable optics for switches and
// NICs), each with its confidence and source.
struct PricedPart {
  const char* name;
  double price_usd;
  const char* price_confidence;
  double power_w;
  const char* power_confidence;
  const char* source;
};

struct SwitchModelInfo {
  const char* key;  // cost.switch_model value
  PricedPart part;
  int64_t capacity_bps;  // switching capacity, one direction
  int max_ports;         // the most ports it breaks out to
  // Ports available at `rate_bps`: capacity / rate, at most max_ports.
  int ports_at(int64_t rate_bps) const;
};

const SwitchModelInfo& switch_model_info(SwitchModel model);

// Is the technology InfiniBand / UET (prices differ); anything else is priced as Ethernet RoCE.
enum class PricedFabric { kInfiniband, kEthernet, kUet };
SwitchModel default_switch_model(PricedFabric fabric);
const PricedPart& nic_part(PricedFabric fabric);
const PricedPart& dac_part();

// Optical reach classes (one transceiver per cable end), longest reach in metres.
enum class OpticClass { kSr, kDr, kFr };
double optic_reach_m(OpticClass c);
std::string_view optic_class_name(OpticClass c);
// The shortest-reach class that covers `length_m`; false when none does (beyond 2 km).
bool optic_class_for(double length_m, OpticClass& out);
// A transceiver of class `c` at `rate_bps`: 400G and 800G are the sheet's rows; other rates are
// scaled linearly from 400G (price and power per Gb/s; confidence G).
PricedPart optic_part(OpticClass c, int64_t rate_bps);

}  // namespace fabricsim::scenario
