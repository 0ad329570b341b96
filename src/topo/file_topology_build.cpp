// Builds a parsed topology file into net::Network (nodes and cables in file order, so port
// numbering follows the file), derives missing switch tiers, and exports a built network in
// the native form (the inverse: write_native then build_file gives the same Network).
#include <algorithm>
#include <charconv>
#include <ostream>
#include <string>

#include "core/error.h"
#include "core/units.h"
#include "topo/file_topology.h"

namespace fabricsim::topo {
namespace {

// Tier of every switch without one in the file: 1 + hops to the nearest NIC's switch, by a
// breadth-first search from all NICs at once (NICs at 0, so leaves are 1, as the builders
// number them).
std::vector<int> derived_tiers(const TopologyFile& f) {
  std::vector<std::vector<uint32_t>> adj(f.nodes.size());
  for (const FileLink& l : f.links) {
    adj[l.a].push_back(l.b);
    adj[l.b].push_back(l.a);
  }
  std::vector<int> dist(f.nodes.size(), -1);
  std::vector<uint32_t> frontier;
  for (uint32_t n = 0; n < f.nodes.size(); ++n) {
    if (!f.nodes[n].is_switch) {
      dist[n] = 0;
      frontier.push_back(n);
    }
  }
  for (size_t head = 0; head < frontier.size(); ++head) {
    const uint32_t n = frontier[head];
    for (uint32_t m : adj[n]) {
      if (dist[m] < 0) {
        dist[m] = dist[n] + 1;
        frontier.push_back(m);
      }
    }
  }
  std::vector<int> tier(f.nodes.size(), 0);
  for (size_t n = 0; n < f.nodes.size(); ++n) {
    if (f.nodes[n].is_switch) tier[n] = f.nodes[n].tier > 0 ? f.nodes[n].tier : dist[n];
  }
  return tier;
}

}  // namespace

BuiltTopology build_file(const TopologyFile& f, const FabricParams& params, int nics_per_host,
                         net::Network& net) {
  const int nics = f.nics();
  if (nics_per_host < 1 || nics % nics_per_host != 0) {
    throw InputError("hosts.nics_per_host",
                     "must divide the " + std::to_string(nics) + " NICs of " + f.path);
  }
  const std::vector<int> tier = derived_tiers(f);
  std::vector<uint32_t> node_id(f.nodes.size());
  BuiltTopology out;
  for (size_t n = 0; n < f.nodes.size(); ++n) {
    if (f.nodes[n].is_switch) {
      node_id[n] = net.switch_node(net.add_switch(params.switch_config, tier[n]));
      out.tiers = std::max(out.tiers, tier[n]);
    } else {
      const uint32_t nic = net.add_nic(params.nic);
      node_id[n] = net.nic_node(nic);
      out.host_of_nic.push_back(static_cast<int>(nic) / nics_per_host);
    }
  }
  for (const FileLink& l : f.links) {
    net::LinkConfig link = params.link;
    if (l.rate_bps >= 0) link.rate_bps = l.rate_bps;
    if (l.cable_m >= 0) link.cable_m = l.cable_m;
    if (l.loss_rate >= 0) link.loss_rate = l.loss_rate;
    net.connect(node_id[l.a], node_id[l.b], link);
  }
  net.finalize();
  out.nics = nics;
  out.hosts = nics / nics_per_host;
  out.switches = static_cast<int>(net.num_switches());
  out.cables = static_cast<int>(net.num_cables());
  out.description = "file " + f.path + " (" + (f.format == "hpcc" ? "HPCC topology.txt" : "native") +
                    "), " + std::to_string(out.tiers) + " switch tiers";
  return out;
}

void write_native(const net::Network& net, std::ostream& out) {
  out << "# fabricsim native topology (docs/topologies.md): " << net.num_nics() << " NICs, "
      << net.num_switches() << " switches, " << net.num_cables() << " cables\n";
  auto name = [&](uint32_t node) {
    const net::Node& n = net.node(node);
    return (n.kind == net::NodeKind::kNic ? "n" : "s") + std::to_string(n.index);
  };
  for (uint32_t id = 0; id < net.num_nodes(); ++id) {
    const net::Node& n = net.node(id);
    if (n.kind == net::NodeKind::kNic) {
      out << "nic " << name(id) << "\n";
    } else {
      out << "switch " << name(id) << " tier=" << net.switch_at(n.index).tier << "\n";
    }
  }
  for (uint32_t c = 0; c < net.num_cables(); ++c) {
    const net::LinkConfig& link = net.cable_link(c);
    out << "link " << name(net.cable_node_a(c)) << " " << name(net.cable_node_b(c))
        << " rate=" << format_rate_exact(link.rate_bps)
        << " cable=" << format_length_exact(link.cable_m);
    if (link.loss_rate > 0) {
      char buf[32];  // shortest form that reads back to the same double
      const auto res = std::to_chars(buf, buf + sizeof buf, link.loss_rate);
      out << " loss=" << std::string(buf, res.ptr);
    }
    out << "\n";
  }
}

}  // namespace fabricsim::topo
