// Leaf-spine (2-tier) and k-ary fat-tree (3-tier) builders, the leaf port split every kind
// shares, and the dispatch of check_shape/build by kind (rail-optimized: rail.cpp).
//
// 2-tier, radix R, oversubscription o (leaf down:up = o:1):
//     spine0 ... spine(S-1)            every leaf cabled to every spine, c = u/S cables per pair
//      |  \  /  |
//     leaf0 ... leaf(L-1)              d = R - u NIC ports per leaf, u = R / (o+1) uplinks,
//                                      L = ceil(NICs / d) <= R
//   S = the smallest divisor of u that is >= ceil(L·u / R): every spine then uses L·c <= R
//   ports. A full tree (L = R) has S = u, one cable per pair; a partial one is built as a
//   buyer builds it, with fewer, fuller spines and parallel cables -- the rule rail.cpp uses,
//   which reproduces every row of NVIDIA's DGX SuperPOD B200/B300 component tables
//   (docs/reference/gpu-node.md §4; 128 nodes x 8 NICs on 64-port switches: 32 leaves,
//   16 spines, 2 cables per leaf-spine pair). Non-blocking stays non-blocking: every leaf keeps
//   all u uplinks (its uplink capacity u x rate = its downlink capacity when o = 1), and every
//   spine reaches every leaf with the same c cables.
//
// 3-tier k-ary fat-tree (Al-Fares, Loukissas, Vahdat, SIGCOMM 2008), radix k, h = k/2:
//   P pods, each with h edges (the last pod may have fewer) and u aggs, every edge cabled to
//   every agg of its pod; an edge has d NIC ports. Agg j of every pod joins core group j, C
//   cores, with h/C parallel cables to each: C = the smallest divisor of h that is >=
//   ceil(P·h / k) (the same rule one tier up: a core uses P·h/C <= k ports). The full tree
//   (P = k) has C = h, one cable per pair, u·h cores (with o = 1: k^3/4 NICs, 5k^2/4 switches);
//   a partial non-blocking tree of P full pods has 5N/k switches for N NICs when P/2 divides
//   k/2. NVIDIA's B200 SuperPOD RA (larger-SuperPOD table, docs/reference/gpu-node.md §4)
//   builds 16 SUs (4,096 NICs, 64-port switches) as 128 leaves, 128 spines and 64 cores with
//   4,096 cables per tier: here 4 pods of 32 edges and 32 aggs, C = 2 cores in each of the 32
//   groups (64), 16 cables per agg-core pair -- the same counts.
//   (One pod alone needs no core; it still gets C = 1 core per group, half its ports used, so
//   `tiers: 3` always builds three tiers; describe's note flags the half-used cores.)
// topology.upper_tiers: full keeps the full tree's upper tiers instead (u spines; u x k/2
// cores), one cable per pair, spare ports waiting for the leaves/pods a full tree adds.
#include <cmath>
#include <string>

#include "core/error.h"
#include "topo/file_topology.h"
#include "topo/multi_plane.h"
#include "topo/topology.h"

namespace fabricsim::topo {
namespace {

struct Shape {
  int down = 0;  // NIC ports per leaf/edge
  int up = 0;    // uplinks per leaf/edge
  int nics = 0;
  int leaves = 0;  // leaves (2 tiers) or edges (3 tiers)
  int pods = 0;    // 3 tiers
  int top = 0;     // 2 tiers: spines; 3 tiers: cores per group (C)
  int cables_per_pair = 1;  // leaf-spine (2 tiers) or agg-core (3 tiers)
};

Shape shape_of(const TopologySpec& spec) {
  if (spec.tiers != 2 && spec.tiers != 3) {
    throw InputError("topology.tiers", "must be 2 (leaf-spine) or 3 (fat-tree), got " +
                                           std::to_string(spec.tiers));
  }
  const detail::LeafPorts ports = detail::leaf_ports(spec);
  // The tiers' sizes are tree_sizes' (shape_counts.cpp counts the same fabric from them); what
  // follows refuses the shapes they cannot be built as.
  const detail::TreeSizes z = detail::tree_sizes(spec);
  Shape s;
  s.down = ports.down;
  s.up = ports.up;
  s.nics = static_cast<int>(z.nics);
  const int half = spec.radix / 2;
  if (spec.tiers == 2) {
    const int64_t leaves = z.leaves;
    if (leaves > spec.radix) {
      throw InputError("hosts.count",
                       std::to_string(s.nics) + " NICs need " + std::to_string(leaves) +
                           " leaves but a radix-" + std::to_string(spec.radix) +
                           " leaf-spine holds at most " + std::to_string(spec.radix) +
                           " leaves (" + std::to_string(spec.radix * s.down) +
                           " NICs); use topology.tiers: 3 or a larger radix");
    }
    s.leaves = static_cast<int>(leaves);
    s.top = static_cast<int>(z.top);
    s.cables_per_pair = s.up / s.top;
  } else {
    if (s.up > half) {
      throw InputError("topology.oversubscription",
                       "a 3-tier fat-tree needs oversubscription >= 1 (edge uplinks <= k/2)");
    }
    const int per_pod = half * s.down;
    const int64_t pods = z.pods;
    if (pods > spec.radix) {
      throw InputError("hosts.count",
                       std::to_string(s.nics) + " NICs need " + std::to_string(pods) +
                           " pods but a k=" + std::to_string(spec.radix) +
                           " fat-tree holds at most " + std::to_string(spec.radix) + " pods (" +
                           std::to_string(spec.radix * per_pod) + " NICs)");
    }
    s.leaves = static_cast<int>(z.leaves);
    s.pods = static_cast<int>(pods);
    s.top = static_cast<int>(z.top);
    s.cables_per_pair = half / s.top;
  }
  return s;
}

// Adds the NICs and cables them, `down` per edge switch, in order. With `endpoints` (one plane
// of a multi-plane fabric) the given nodes are cabled instead and no NIC is added.
void attach_nics(const Shape& s, const std::vector<uint32_t>& edges, const FabricParams& params,
                 net::Network& net, BuiltTopology& out, int nics_per_host,
                 const std::vector<uint32_t>* endpoints) {
  for (int i = 0; i < s.nics; ++i) {
    const uint32_t node = endpoints ? (*endpoints)[i] : net.nic_node(net.add_nic(params.nic));
    net.connect(node, net.switch_node(edges[i / s.down]), params.link);
    out.host_of_nic.push_back(i / nics_per_host);
  }
}

}  // namespace

int detail::fewest_top_switches(int64_t below, int uplinks, int radix) {
  int64_t top = (below * uplinks + radix - 1) / radix;
  if (top < 1) top = 1;
  while (top < uplinks && uplinks % top != 0) ++top;  // ends at `uplinks` at the latest
  return static_cast<int>(top);
}

detail::LeafPorts detail::leaf_ports(const TopologySpec& spec) {
  if (spec.radix < 4 || spec.radix % 2 != 0) {
    throw InputError("topology.radix", "must be an even number >= 4, got " +
                                           std::to_string(spec.radix));
  }
  if (!(spec.oversubscription >= 1.0)) {
    throw InputError("topology.oversubscription",
                     "must be >= 1 (downlinks:uplinks at the leaf)");
  }
  if (spec.hosts < 2) throw InputError("hosts.count", "must be >= 2");
  if (spec.nics_per_host < 1) throw InputError("hosts.nics_per_host", "must be >= 1");
  const LeafPorts p = split_leaf_ports(spec);
  const double down = spec.radix * spec.oversubscription / (spec.oversubscription + 1.0);
  if (std::fabs(down - p.down) > 1e-9 || p.up < 1) {
    throw InputError("topology.oversubscription",
                     "radix " + std::to_string(spec.radix) + " cannot be split into down:up = " +
                         std::to_string(spec.oversubscription) + ":1 whole ports");
  }
  return p;
}

void check_shape(const TopologySpec& spec) {
  if (spec.planes != 1) {
    check_multi_plane(spec);  // refuses kind file; checks one plane's shape
  } else if (spec.kind == TopologyKind::kFile) {
    const TopologyFile f = read_topology_file(spec.file, "topology.file");
    if (spec.nics_per_host < 1 || f.nics() % spec.nics_per_host != 0) {
      throw InputError("hosts.nics_per_host", "must divide the " + std::to_string(f.nics()) +
                                                  " NICs of " + spec.file);
    }
  } else if (spec.kind == TopologyKind::kRail) {
    detail::check_rail(spec);
  } else if (spec.kind == TopologyKind::kDragonfly) {
    detail::check_dragonfly(spec);
  } else {
    shape_of(spec);
  }
}

BuiltTopology build(const TopologySpec& spec, const FabricParams& params, net::Network& net) {
  if (spec.planes != 1 && spec.kind != TopologyKind::kFile) {
    return build_multi_plane(spec, params, net);
  }
  if (spec.kind == TopologyKind::kRail) return detail::build_rail(spec, params, net);
  if (spec.kind == TopologyKind::kDragonfly) return detail::build_dragonfly(spec, params, net);
  if (spec.kind == TopologyKind::kFile) {
    return build_file(read_topology_file(spec.file, "topology.file"), params, spec.nics_per_host,
                      net);
  }
  return detail::build_fat_tree(spec, params, net);
}

BuiltTopology detail::build_fat_tree(const TopologySpec& spec, const FabricParams& params,
                                     net::Network& net, const std::vector<uint32_t>* endpoints) {
  const Shape s = shape_of(spec);
  BuiltTopology out;
  out.tiers = spec.tiers;
  out.hosts = spec.hosts;
  out.nics = s.nics;
  const auto& link = params.link;
  const auto& swc = params.switch_config;
  std::vector<uint32_t> edges;
  if (spec.tiers == 2) {
    std::vector<uint32_t> spines;
    for (int i = 0; i < s.leaves; ++i) edges.push_back(net.add_switch(swc, 1));
    for (int i = 0; i < s.top; ++i) spines.push_back(net.add_switch(swc, 2));
    attach_nics(s, edges, params, net, out, spec.nics_per_host, endpoints);
    for (uint32_t leaf : edges) {
      for (uint32_t spine : spines) {
        for (int c = 0; c < s.cables_per_pair; ++c) {
          net.connect(net.switch_node(leaf), net.switch_node(spine), link);
        }
      }
    }
    out.description = "2-tier leaf-spine, radix " + std::to_string(spec.radix) + ", " +
                      std::to_string(s.leaves) + " leaves x " + std::to_string(s.top) + " spines";
    if (s.cables_per_pair > 1) {
      out.description += ", " + std::to_string(s.cables_per_pair) + " cables per leaf-spine";
    }
  } else {
    const int half = spec.radix / 2;
    const int pods = s.pods;
    const int total_edges = s.leaves;
    for (int i = 0; i < total_edges; ++i) edges.push_back(net.add_switch(swc, 1));
    std::vector<uint32_t> aggs;  // pod-major: aggs[p * up + j]
    for (int i = 0; i < pods * s.up; ++i) aggs.push_back(net.add_switch(swc, 2));
    std::vector<uint32_t> cores;  // cores[j * C + c]: group j serves agg j of every pod
    for (int i = 0; i < s.up * s.top; ++i) cores.push_back(net.add_switch(swc, 3));
    attach_nics(s, edges, params, net, out, spec.nics_per_host, endpoints);
    for (int e = 0; e < total_edges; ++e) {
      const int pod = e / half;
      for (int j = 0; j < s.up; ++j) {
        net.connect(net.switch_node(edges[e]), net.switch_node(aggs[pod * s.up + j]), link);
      }
    }
    for (int p = 0; p < pods; ++p) {
      for (int j = 0; j < s.up; ++j) {
        for (int c = 0; c < s.top; ++c) {
          for (int n = 0; n < s.cables_per_pair; ++n) {
            net.connect(net.switch_node(aggs[p * s.up + j]), net.switch_node(cores[j * s.top + c]),
                        link);
          }
        }
      }
    }
    out.description = "3-tier fat-tree, k=" + std::to_string(spec.radix) + ", " +
                      std::to_string(pods) + " pods, " + std::to_string(total_edges) +
                      " edges, " + std::to_string(aggs.size()) + " aggs, " +
                      std::to_string(cores.size()) + " cores";
    if (s.cables_per_pair > 1) {
      out.description += ", " + std::to_string(s.cables_per_pair) + " cables per agg-core";
    }
  }
  if (spec.oversubscription != 1.0) {
    out.description += ", " + std::to_string(s.down) + ":" + std::to_string(s.up) +
                       " oversubscribed";
  }
  if (endpoints) return out;  // one plane: the multi-plane builder finalizes and counts
  net.finalize();
  out.switches = static_cast<int>(net.num_switches());
  out.cables = static_cast<int>(net.num_cables());
  return out;
}

}  // namespace fabricsim::topo
