// 2-tier rail-optimized fabric: NIC k of every node on rail k's leaves, spines joining the rails.
//
// N nodes with K NICs each (K rails), switches of radix R, leaf down:up = o:1 (o = 1 non-blocking):
//
//     spine0   spine1   ...   spine(S-1)         tier 2; every leaf cabled to every spine
//      |  \ \  / /  \ \         / / |             (c parallel cables per leaf-spine pair)
//     [rail 0 leaves]  [rail 1 leaves] ... [rail K-1 leaves]     tier 1, rail-major
//      NIC 0 of nodes   NIC 1 of nodes       NIC K-1 of nodes
//
//   down = R·o/(o+1) NIC ports per leaf, up = R - down uplinks
//   leaves per rail P = ceil(N / down); NIC k of node n -> leaf k·P + n / down
//   leaves L = K·P <= R (each spine needs a port for every leaf: a 2-tier fabric)
//   spines S = the smallest divisor of `up` that is >= ceil(L·up / R): every leaf then has
//   c = up/S parallel cables to every spine, and every spine uses L·c <= R ports (S <= up since
//   L <= R, and S = up always qualifies)
//
// Source: NVIDIA DGX SuperPOD reference architectures (docs/reference/gpu-node.md §4).
//   B200 RA (NDR; 32 nodes per rail leaf, so radix 64: 32 down / 32 up) component table:
//   64 nodes x 8 rails have 16 leaves, 8 spines, 512 node-leaf and 512 leaf-spine cables;
//   128 nodes 32 / 16 / 1,024 / 1,024; 256 nodes 64 / 32 / 2,048 / 2,048 (4, 2, 1 cables per
//   pair). From 512 nodes the RA adds a core tier; a 3-tier rail fabric is not built here and
//   such shapes are refused.
//   B300 XDR RA (72 nodes per SU, hence 144-port leaves, 72 down / 72 up): 288 nodes have 32
//   leaves and 18 spines, not the 16 that ceil(L·up/R) gives -- 72 uplinks do not split evenly
//   over 16 spines, they do over 18 (4 each). The divisor rule reproduces every row of both.
//
// Routing sees an ordinary two-tier tree with parallel cables: ECMP groups hold every parallel
// port; OpenSM's ftree groups the parallel ports per neighbour and accepts the tree (every leaf
// alike, every spine alike); with a cable down it refuses and up/down routes.
#include <cstdint>
#include <string>
#include <vector>

#include "core/error.h"
#include "topo/topology.h"

namespace fabricsim::topo::detail {
namespace {

struct RailShape {
  LeafPorts ports;
  int rails = 0;
  int leaves_per_rail = 0;
  int leaves = 0;
  int spines = 0;
};

RailShape rail_shape(const TopologySpec& spec) {
  if (spec.tiers != 2) {
    throw InputError("topology.tiers",
                     "a rail-optimized fabric is built with 2 tiers (leaves, spines), got " +
                         std::to_string(spec.tiers) + "; a 3-tier rail fabric is not implemented");
  }
  RailShape s;
  s.ports = leaf_ports(spec);
  // The sizes are rail_sizes' (shape_counts.cpp counts the same fabric from them); what follows
  // refuses the shapes they cannot be built as.
  const RailSizes z = rail_sizes(spec);
  s.rails = spec.nics_per_host;
  const int radix = spec.radix;
  if (s.rails > radix) {
    throw InputError(
        "hosts.nics_per_host",
        std::to_string(s.rails) + " rails need at least one leaf each, more than the " +
            std::to_string(radix) + " leaves a spine of radix " + std::to_string(radix) +
            " can join; use fewer NICs per host or a larger topology.radix");
  }
  s.leaves_per_rail = static_cast<int>(z.leaves_per_rail);
  const int64_t leaves = z.leaves;
  if (leaves > radix) {
    const int max_nodes = radix / s.rails * s.ports.down;
    throw InputError("hosts.count",
                     std::to_string(spec.hosts) + " nodes x " + std::to_string(s.rails) +
                         " rails need " + std::to_string(leaves) + " leaves (" +
                         std::to_string(s.ports.down) + " NICs each) but every spine of radix " +
                         std::to_string(radix) + " joins at most " + std::to_string(radix) +
                         " leaves, so a 2-tier rail fabric holds at most " +
                         std::to_string(max_nodes) +
                         " nodes; use fewer nodes or a larger topology.radix (a 3-tier rail "
                         "fabric is not implemented)");
  }
  s.leaves = static_cast<int>(leaves);
  s.spines = static_cast<int>(z.spines);
  return s;
}

}  // namespace

void check_rail(const TopologySpec& spec) { rail_shape(spec); }

BuiltTopology build_rail(const TopologySpec& spec, const FabricParams& params, net::Network& net,
                         const std::vector<uint32_t>* endpoints) {
  const RailShape s = rail_shape(spec);
  BuiltTopology out;
  out.tiers = 2;
  out.hosts = spec.hosts;
  out.nics = spec.hosts * s.rails;
  std::vector<uint32_t> leaves, spines;
  for (int i = 0; i < s.leaves; ++i) leaves.push_back(net.add_switch(params.switch_config, 1));
  for (int i = 0; i < s.spines; ++i) spines.push_back(net.add_switch(params.switch_config, 2));
  out.host_of_nic.reserve(static_cast<size_t>(out.nics));
  for (int node = 0; node < spec.hosts; ++node) {
    for (int rail = 0; rail < s.rails; ++rail) {
      const int index = node * s.rails + rail;
      // NIC index = node x rails + rail; one plane of a multi-plane fabric cables the NIC's
      // plane selector instead.
      const uint32_t from = endpoints ? (*endpoints)[index] : net.nic_node(net.add_nic(params.nic));
      const int leaf = rail * s.leaves_per_rail + node / s.ports.down;
      net.connect(from, net.switch_node(leaves[leaf]), params.link);
      out.host_of_nic.push_back(node);
    }
  }
  const int cables_per_pair = s.ports.up / s.spines;
  for (uint32_t leaf : leaves) {
    for (uint32_t spine : spines) {
      for (int c = 0; c < cables_per_pair; ++c) {
        net.connect(net.switch_node(leaf), net.switch_node(spine), params.link);
      }
    }
  }
  out.description = "rail-optimized, " + std::to_string(s.rails) + " rails, radix " +
                    std::to_string(spec.radix) + ", " + std::to_string(s.leaves) + " leaves x " +
                    std::to_string(s.spines) + " spines";
  if (cables_per_pair > 1) {
    out.description += ", " + std::to_string(cables_per_pair) + " cables per leaf-spine";
  }
  if (spec.oversubscription != 1.0) {
    out.description +=
        ", " + std::to_string(s.ports.down) + ":" + std::to_string(s.ports.up) + " oversubscribed";
  }
  if (endpoints) return out;  // one plane: the multi-plane builder finalizes and counts
  net.finalize();
  out.switches = static_cast<int>(net.num_switches());
  out.cables = static_cast<int>(net.num_cables());
  return out;
}

}  // namespace fabricsim::topo::detail
