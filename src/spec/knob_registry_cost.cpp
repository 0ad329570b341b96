// Registry entries of the bill of materials (cost.*, issue 13 item 6): the switch model to price,
// how switch-to-switch links are cabled, and an override for every price and wattage of the
// sourced table (resolve/cost/cost_table.cpp, ../shared/reference/cost-power.md). Nothing a run
// simulates depends on them; `fabricsim describe` and compare's cost rows read them.
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

constexpr double kMaxPriceUsd = 1e9;  // per part: beyond any switch chassis
constexpr double kMaxPowerW = 1e6;    // per part

Knob price_knob(const std::string& path, const std::string& what, const std::string& source) {
  return {.path = path,
          .type = KnobType::kDouble,
          .description = "USD per " + what + "; unset = the table's value for the fabric",
          .source = source,
          .min = Bound{0},
          .max = Bound{kMaxPriceUsd}};
}

Knob power_knob(const std::string& path, const std::string& what, const std::string& source) {
  return {.path = path,
          .type = KnobType::kDouble,
          .description = "Watts per " + what + " (typical); unset = the table's value",
          .source = source,
          .min = Bound{0},
          .max = Bound{kMaxPowerW}};
}

const std::string sheet = "../shared/reference/cost-power.md (docs/cost.md lists each row)";

const std::vector<Knob> kCostKnobs = {
    bind_enum(
        {.path = "cost.switch.model",
         .description = "Switch priced for every tier. auto: QM9700 on InfiniBand, a Tomahawk 5 "
                        "white box on Ethernet (RoCE, UET), so RoCE and UET differ by their NIC",
         .source = "cost-power.md s1 and its UEC note (\"TH5/TH6-class switch\", \"RoCE merchant "
                   "+ 0-20% NIC premium\")"},
        std::vector<std::pair<std::string, SwitchModel>>{{"auto", SwitchModel::kAuto},
                                                         {"qm9700", SwitchModel::kQm9700},
                                                         {"sn5600", SwitchModel::kSn5600},
                                                         {"tomahawk5", SwitchModel::kTomahawk5}},
        [](auto& s) -> auto& { return s.cost.switch_model; }),
    bind(
        price_knob("cost.switch.price_usd", "switch", sheet),
        [](auto& s) -> auto& { return s.cost.switch_price_usd; }),
    bind(
        power_knob("cost.switch.power_w", "switch, without optics", sheet),
        [](auto& s) -> auto& { return s.cost.switch_power_w; }),
    bind(
        price_knob("cost.nic.price_usd", "NIC", sheet),
        [](auto& s) -> auto& { return s.cost.nic_price_usd; }),
    bind(
        power_knob("cost.nic.power_w", "NIC, without its module", sheet),
        [](auto& s) -> auto& { return s.cost.nic_power_w; }),
    bind(
        {.path = "cost.dac.reach",
         .type = KnobType::kLength,
         .description = "Longest cable priced as a passive DAC; longer ones get a "
                        "transceiver at each end",
         .source = "3 m: NVIDIA MCP4Y10 / MCP7Y00 passive DAC specs (cost-power.md "
                   "s3: 0.5-2 m switch-switch, <= 3 m splitter to NIC)",
         .min = Bound{0, true},
         .max = Bound{100}},
        [](auto& s) -> auto& { return s.cost.dac_reach_m; }),
    bind(
        price_knob("cost.dac.price_usd", "DAC cable", sheet),
        [](auto& s) -> auto& { return s.cost.dac_price_usd; }),
    bind(
        power_knob("cost.dac.power_w", "DAC cable", sheet),
        [](auto& s) -> auto& { return s.cost.dac_power_w; }),
    bind(
        price_knob("cost.optic.price_usd", "transceiver (every reach class)", sheet),
        [](auto& s) -> auto& { return s.cost.optic_price_usd; }),
    bind(
        power_knob("cost.optic.power_w", "transceiver (every reach class)", sheet),
        [](auto& s) -> auto& { return s.cost.optic_power_w; }),
    bind_enum(
        {.path = "cost.switch_links",
         .description = "optical: every switch-to-switch cable is optical (two transceivers); "
                        "by_length: a DAC within cost.dac.reach, like host links",
         .source = "cost-power.md s3 count rules: \"Switch<->switch tiers: optical\" (NVIDIA "
                   "SuperPOD, Vitex)"},
        std::vector<std::pair<std::string, SwitchLinks>>{{"optical", SwitchLinks::kOptical},
                                                         {"by_length", SwitchLinks::kByLength}},
        [](auto& s) -> auto& { return s.cost.switch_links; }),
};

}  // namespace

const std::vector<Knob>& cost_knobs() { return kCostKnobs; }

}  // namespace fabricsim::scenario
