#include "cli/describe.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "core/units.h"
#include "output/usd.h"

namespace fabricsim::cli {
namespace {

using output::format_usd;


std::string watts(double w) {
  if (w >= 1e6) return format_fixed(w / 1e6, 3) + " MW";
  if (w >= 1e3) return format_fixed(w / 1e3, 2) + " kW";
  return format_fixed(w, 1) + " W";
}

std::string pad(std::string s, size_t width, bool right = false) {
  if (s.size() >= width) return s;
  return right ? std::string(width - s.size(), ' ') + s : s + std::string(width - s.size(), ' ');
}

std::string per_unit(const scenario::Bom& b) { return b.per_gpu ? "GPU" : "NIC"; }

void block(std::ostringstream& out, const Described& d) {
  const scenario::Bom& b = d.bom;
  if (!d.name.empty()) out << "== " << d.name << "\n";
  out << "topology: " << b.topology << "\n";
  int64_t switches = 0;
  std::string tiers;
  for (size_t t = 0; t < b.switches_per_tier.size(); ++t) {
    switches += b.switches_per_tier[t];
    tiers += (tiers.empty() ? "" : ", ") + std::string("tier ") + std::to_string(t + 1) + ": " +
             std::to_string(b.switches_per_tier[t]);
  }
  out << "  " << b.nics << " NICs" << (b.per_gpu ? ", " + std::to_string(b.gpus) + " GPUs" : "")
      << ", " << switches << " switches (" << tiers << "), " << b.cables << " cables\n";
  out << "  switch model " << b.switch_model << ": " << b.switch_ports_needed
      << " ports used of " << b.switch_ports_available << " at the fabric's link rate\n";
  out << "bill of materials (confidence: H vendor doc, M two sources, L one source, G guess, "
         "set = cost.* in the scenario):\n";
  size_t w_item = 4, w_part = 4;
  for (const scenario::BomRow& r : b.rows) {
    w_item = std::max(w_item, r.item.size());
    w_part = std::max(w_part, r.part.size());
  }
  out << "  " << pad("item", w_item) << "  " << pad("part", w_part) << "  " << pad("count", 7, true)
      << "  " << pad("unit", 9, true) << "  " << pad("total", 11, true) << "  "
      << pad("unit W", 7, true) << "  " << pad("total W", 10, true) << "  " << pad("conf $", 6)
      << "  conf W\n";
  for (const scenario::BomRow& r : b.rows) {
    out << "  " << pad(r.item, w_item) << "  " << pad(r.part, w_part) << "  "
        << pad(std::to_string(r.count), 7, true) << "  " << pad(format_usd(r.unit_price_usd), 9, true)
        << "  " << pad(format_usd(r.price_usd()), 11, true) << "  "
        << pad(format_fixed(r.unit_power_w, 1), 7, true) << "  " << pad(watts(r.power_w()), 10, true)
        << "  " << pad(r.price_confidence, 6) << "  " << r.power_confidence << "\n";
  }
  const double gpus = static_cast<double>(std::max<int64_t>(1, b.gpus));
  out << "  total " << format_usd(b.total_price_usd()) << ", " << watts(b.total_power_w())
      << "; per " << per_unit(b) << " " << format_usd(b.total_price_usd() / gpus) << ", "
      << watts(b.total_power_w() / gpus) << "\n";
  for (const std::string& note : b.notes) out << "  note: " << note << "\n";
  out << "simulation: estimated peak memory " << format_bytes(d.estimate.peak_bytes()) << " ("
      << scenario::describe_parts(d.estimate) << ")\n";
  const scenario::RuntimeEstimate& rt = d.runtime;
  if (rt.estimated && rt.flow) {
    out << "  estimated run time " << format_fixed(rt.fastest_s, rt.fastest_s < 10 ? 2 : 0) << "-"
        << format_fixed(rt.slowest_s, rt.slowest_s < 10 ? 2 : 0) << " s: " << format_count(rt.events)
        << " events (flow mode: the transport's messages, the transfers inside nodes and the "
           "DAG's ops) at "
        << format_fixed(scenario::kFlowSlowestEventsPerSecond / 1e6, 1) << "-"
        << format_fixed(scenario::kFlowFastestEventsPerSecond / 1e6, 1)
        << " M events/s (docs/performance.md)\n";
  } else if (rt.estimated && rt.gpu) {
    out << "  estimated run time " << format_fixed(rt.fastest_s, rt.fastest_s < 10 ? 2 : 0) << "-"
        << format_fixed(rt.slowest_s, rt.slowest_s < 10 ? 2 : 0) << " s: " << format_count(rt.events)
        << " events (" << format_count(rt.packet_hops)
        << " data packet-hops, the DAG's ops and the transport's messages) at "
        << format_fixed(scenario::kGpuSlowestEventsPerSecond / 1e6, 1) << "-"
        << format_fixed(scenario::kGpuFastestEventsPerSecond / 1e6, 1)
        << " M events/s (docs/performance.md)\n";
  } else if (rt.estimated) {
    out << "  estimated run time " << format_fixed(rt.fastest_s, rt.fastest_s < 10 ? 2 : 0) << "-"
        << format_fixed(rt.slowest_s, rt.slowest_s < 10 ? 2 : 0) << " s: " << format_count(rt.packet_hops)
        << " data packet-hops (" << format_fixed(rt.mean_links, 2)
        << " links per packet to a random destination) at "
        << format_fixed(scenario::kSlowestHopsPerSecond / 1e6, 2) << "-"
        << format_fixed(scenario::kFastestHopsPerSecond / 1e6, 1) << " M/s (docs/performance.md)\n";
  } else {
    out << "  run time: " << rt.why_not << "\n";
  }
}

}  // namespace

std::string format_describe(const std::vector<Described>& all) {
  std::ostringstream out;
  for (size_t i = 0; i < all.size(); ++i) {
    if (i) out << "\n";
    block(out, all[i]);
  }
  if (all.size() > 1) {
    out << "\n" << pad("", 22);
    for (const Described& d : all) out << pad(d.name, 14, true);
    out << "\n";
    auto row = [&](const std::string& label, auto cell) {
      out << pad(label, 22);
      for (const Described& d : all) out << pad(cell(d.bom), 14, true);
      out << "\n";
    };
    row("switches", [](const scenario::Bom& b) {
      int64_t n = 0;
      for (int64_t s : b.switches_per_tier) n += s;
      return std::to_string(n);
    });
    row("fabric cost", [](const scenario::Bom& b) { return format_usd(b.total_price_usd()); });
    row("network power", [](const scenario::Bom& b) { return watts(b.total_power_w()); });
    row("cost per GPU", [](const scenario::Bom& b) {
      return format_usd(b.total_price_usd() / static_cast<double>(std::max<int64_t>(1, b.gpus)));
    });
    row("power per GPU", [](const scenario::Bom& b) {
      return watts(b.total_power_w() / static_cast<double>(std::max<int64_t>(1, b.gpus)));
    });
    if (std::any_of(all.begin(), all.end(), [](const Described& d) { return !d.bom.per_gpu; })) {
      out << "(per GPU = per NIC where the hosts have no GPUs)\n";
    }
  }
  return out.str();
}

}  // namespace fabricsim::cli
