// Builds topologies into a net::Network and says what was built.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "net/config.h"
#include "net/network.h"
#include "topo/topology_spec.h"

namespace fabricsim::topo {

struct BuiltTopology {
  std::string description;  // e.g. "2-tier leaf-spine, radix 16, 16 leaves x 8 spines"
  int tiers = 0;
  int hosts = 0;
  int nics = 0;
  int switches = 0;
  int cables = 0;
  std::vector<int> host_of_nic;  // NIC index -> host index
};

struct FabricParams {
  net::LinkConfig link;
  net::SwitchConfig switch_config;
  net::NicConfig nic;
};

// Chooses the builder by spec.kind (fat_tree.cpp, rail.cpp). For every kind, NIC index =
// host x nics_per_host + k and host_of_nic[i] = i / nics_per_host; switches are numbered from
// the bottom tier up and carry their tier (leaves 1).

// Checks that the shape is possible without building it. Throws InputError naming the
// topology.* or hosts.* key at fault and the reason.
void check_shape(const TopologySpec& spec);

// Builds the shape into `net` (which must be empty) and finalizes it. Throws InputError like
// check_shape.
BuiltTopology build(const TopologySpec& spec, const FabricParams& params, net::Network& net);

// What build() creates for `spec`, counted in closed form without building it (shape_counts.cpp),
// for every kind: the memory pre-flight (preflight/resources.cpp) multiplies these by the
// simulator's type sizes. tests/topo/shape_counts_test.cpp checks them against built fabrics.
struct ShapeCounts {
  int64_t nics = 0;
  int64_t switches = 0;  // multi-plane: the NICs' plane selectors included
  int64_t cables = 0;
  int64_t leaves = 0;  // switches with NICs cabled to them
  int64_t up = 0;      // uplinks of a leaf (fat-tree, rail); a Dragonfly switch's local + global
  int64_t radix = 0;   // the largest switch's port count
};
// REQUIRES: check_shape(spec) passed, except that any int inputs are counted without wrapping
// (64-bit arithmetic; InputError naming hosts.count if even that overflows), so the pre-flight can
// refuse an unchecked scenario by the bytes it needs. Reads the file for kind file; Dragonfly
// throws like check_shape.
ShapeCounts shape_counts(const TopologySpec& spec);

// ---- Shared by the builders; not an interface for other layers. ----
namespace detail {

// A leaf's ports split into `down` NIC ports and `up` uplinks, down:up = oversubscription:1.
struct LeafPorts {
  int down = 0;
  int up = 0;
};

// Checks radix, oversubscription, hosts.count and hosts.nics_per_host, which every kind shares,
// and splits the leaf's ports (fat_tree.cpp). Throws InputError naming the key.
LeafPorts leaf_ports(const TopologySpec& spec);
// The same split without the checks: down = round(radix x o / (o + 1)), up = radix - down.
LeafPorts split_leaf_ports(const TopologySpec& spec);

// The sizes of a fat-tree's or leaf-spine's tiers (fat_tree.cpp), in 64-bit arithmetic and
// without checks: build_fat_tree builds them once check_shape passed, shape_counts counts them.
struct TreeSizes {
  LeafPorts ports;
  int64_t nics = 0;
  int64_t leaves = 0;  // leaves (2 tiers) or edges (3 tiers): ceil(nics / down)
  int64_t pods = 0;    // 3 tiers: ceil(nics / (k/2 x down))
  int64_t top = 0;     // 2 tiers: spines; 3 tiers: cores per group (C)
};
TreeSizes tree_sizes(const TopologySpec& spec);

// The same for a rail-optimized fabric (rail.cpp): nics_per_host rails of ceil(hosts / down)
// leaves each, and the spines joining them.
struct RailSizes {
  LeafPorts ports;
  int64_t rails = 0;
  int64_t leaves_per_rail = 0;
  int64_t leaves = 0;
  int64_t spines = 0;
};
RailSizes rail_sizes(const TopologySpec& spec);

// The switches one tier up when `below` switches each spread `uplinks` cables evenly over all
// of them, radix `radix`: the smallest divisor S of `uplinks` with below x uplinks / S <= radix,
// so each pair gets uplinks / S parallel cables and no port is left over at the lower tier
// (fat_tree.cpp's comment has the sources). `uplinks` when even that does not fit (a shape the
// caller refuses).
int fewest_top_switches(int64_t below, int uplinks, int radix);

void check_rail(const TopologySpec& spec);  // rail.cpp
// `endpoints` (multi-plane, topo/multi_plane.cpp): one plane, cabled to these nodes (per NIC
// index, the NIC's plane selector) instead of new NICs, and the network left unfinalized.
BuiltTopology build_rail(const TopologySpec& spec, const FabricParams& params, net::Network& net,
                         const std::vector<uint32_t>* endpoints = nullptr);
BuiltTopology build_fat_tree(const TopologySpec& spec, const FabricParams& params,
                             net::Network& net, const std::vector<uint32_t>* endpoints = nullptr);

void check_dragonfly(const TopologySpec& spec);  // dragonfly.cpp
BuiltTopology build_dragonfly(const TopologySpec& spec, const FabricParams& params,
                              net::Network& net);

}  // namespace detail

// A Dragonfly's resolved shape (a = h = 0 and groups 0 filled in). Throws InputError naming the
// topology.dragonfly.* key when the combination is impossible.
struct DragonflyShape {
  int p = 0, a = 0, h = 0, groups = 0;
  int switches() const { return a * groups; }
  int nics() const { return p * a * groups; }
  int local_links() const { return groups * a * (a - 1) / 2; }
  int global_links() const { return groups * a * h / 2; }
};
DragonflyShape dragonfly_shape(const TopologySpec& spec);

}  // namespace fabricsim::topo
