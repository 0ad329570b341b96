// Leaf-spine (2-tier) and k-ary fat-tree (3-tier) builders, the leaf port split every kind
// shares, and the dispatch of check_shape/build by kind (rail-optimized: rail.cpp).
//
// 2-tier, radix R, oversubscription o (leaf down:up = o:1):
//     spine0 ... spine(u-1)            u = R / (o+1) spines, one cable to every leaf
//      |  \  /  |
//     leaf0 ... leaf(L-1)              d = R - u NIC ports per leaf, L = ceil(NICs / d) <= R
//
// 3-tier k-ary fat-tree (Al-Fares, Loukissas, Vahdat, SIGCOMM 2008), radix k:
//   (k/2) x u cores; pod p's aggregation switch j cables to cores j*(k/2) .. j*(k/2)+k/2-1;
//   each pod has k/2 edges and u aggs, every edge cabled to every agg; an edge has d NIC ports.
//   With o = 1, d = u = k/2 and the tree holds k^3/4 NICs in k pods.
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
};

Shape shape_of(const TopologySpec& spec) {
  if (spec.tiers != 2 && spec.tiers != 3) {
    throw InputError("topology.tiers", "must be 2 (leaf-spine) or 3 (fat-tree), got " +
                                           std::to_string(spec.tiers));
  }
  const detail::LeafPorts ports = detail::leaf_ports(spec);
  Shape s;
  s.down = ports.down;
  s.up = ports.up;
  s.nics = spec.hosts * spec.nics_per_host;
  const int half = spec.radix / 2;
  if (spec.tiers == 2) {
    const int leaves = (s.nics + s.down - 1) / s.down;
    if (leaves > spec.radix) {
      throw InputError("hosts.count",
                       std::to_string(s.nics) + " NICs need " + std::to_string(leaves) +
                           " leaves but a radix-" + std::to_string(spec.radix) +
                           " leaf-spine holds at most " + std::to_string(spec.radix) +
                           " leaves (" + std::to_string(spec.radix * s.down) +
                           " NICs); use topology.tiers: 3 or a larger radix");
    }
  } else {
    if (s.up > half) {
      throw InputError("topology.oversubscription",
                       "a 3-tier fat-tree needs oversubscription >= 1 (edge uplinks <= k/2)");
    }
    const int per_pod = half * s.down;
    const int pods = (s.nics + per_pod - 1) / per_pod;
    if (pods > spec.radix) {
      throw InputError("hosts.count",
                       std::to_string(s.nics) + " NICs need " + std::to_string(pods) +
                           " pods but a k=" + std::to_string(spec.radix) +
                           " fat-tree holds at most " + std::to_string(spec.radix) + " pods (" +
                           std::to_string(spec.radix * per_pod) + " NICs)");
    }
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
  LeafPorts p;
  const double down = spec.radix * spec.oversubscription / (spec.oversubscription + 1.0);
  p.down = static_cast<int>(std::lround(down));
  p.up = spec.radix - p.down;
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
    const int leaves = (s.nics + s.down - 1) / s.down;
    std::vector<uint32_t> spines;
    for (int i = 0; i < leaves; ++i) edges.push_back(net.add_switch(swc, 1));
    for (int i = 0; i < s.up; ++i) spines.push_back(net.add_switch(swc, 2));
    attach_nics(s, edges, params, net, out, spec.nics_per_host, endpoints);
    for (uint32_t leaf : edges) {
      for (uint32_t spine : spines) {
        net.connect(net.switch_node(leaf), net.switch_node(spine), link);
      }
    }
    out.description = "2-tier leaf-spine, radix " + std::to_string(spec.radix) + ", " +
                      std::to_string(leaves) + " leaves x " + std::to_string(s.up) + " spines";
  } else {
    const int half = spec.radix / 2;
    const int per_pod = half * s.down;
    const int pods = (s.nics + per_pod - 1) / per_pod;
    const int total_edges = (s.nics + s.down - 1) / s.down;
    for (int i = 0; i < total_edges; ++i) edges.push_back(net.add_switch(swc, 1));
    std::vector<uint32_t> aggs;  // pod-major: aggs[p * up + j]
    for (int i = 0; i < pods * s.up; ++i) aggs.push_back(net.add_switch(swc, 2));
    std::vector<uint32_t> cores;  // cores[j * half + c]: group j serves agg j of every pod
    for (int i = 0; i < s.up * half; ++i) cores.push_back(net.add_switch(swc, 3));
    attach_nics(s, edges, params, net, out, spec.nics_per_host, endpoints);
    for (int e = 0; e < total_edges; ++e) {
      const int pod = e / half;
      for (int j = 0; j < s.up; ++j) {
        net.connect(net.switch_node(edges[e]), net.switch_node(aggs[pod * s.up + j]), link);
      }
    }
    for (int p = 0; p < pods; ++p) {
      for (int j = 0; j < s.up; ++j) {
        for (int c = 0; c < half; ++c) {
          net.connect(net.switch_node(aggs[p * s.up + j]), net.switch_node(cores[j * half + c]),
                      link);
        }
      }
    }
    out.description = "3-tier fat-tree, k=" + std::to_string(spec.radix) + ", " +
                      std::to_string(pods) + " pods, " + std::to_string(total_edges) +
                      " edges, " + std::to_string(aggs.size()) + " aggs, " +
                      std::to_string(cores.size()) + " cores";
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
