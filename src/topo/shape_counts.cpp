// The closed-form counts of what the builders create (topo/topology.h shape_counts): the tiers'
// sizes come from the functions the builders build from (tree_sizes, rail_sizes,
// dragonfly_shape); what is added here is how those tiers are cabled, which the builders do by
// connecting them rather than by counting.
#include <algorithm>
#include <cmath>
#include <vector>

#include "core/error.h"
#include "topo/file_topology.h"
#include "topo/topology.h"

namespace fabricsim::topo {
namespace {

[[noreturn]] void too_large() {
  throw InputError("hosts.count", "the topology's counts do not fit 64-bit arithmetic");
}

int64_t mul(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) too_large();
  return r;
}

int64_t add(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) too_large();
  return r;
}

// topology.kind: file: the counts of the file itself (topo/file_topology.h), read, not built.
ShapeCounts file_counts(const TopologySpec& spec) {
  const TopologyFile f = read_topology_file(spec.file, "topology.file");
  ShapeCounts s;
  s.nics = f.nics();
  s.switches = f.switches();
  s.cables = static_cast<int64_t>(f.links.size());
  std::vector<int64_t> degree(f.nodes.size(), 0);
  std::vector<char> leaf(f.nodes.size(), 0);
  for (const FileLink& l : f.links) {
    ++degree[l.a];
    ++degree[l.b];
    if (!f.nodes[l.a].is_switch) leaf[l.b] = 1;
    if (!f.nodes[l.b].is_switch) leaf[l.a] = 1;
  }
  for (size_t n = 0; n < f.nodes.size(); ++n) {
    if (f.nodes[n].is_switch) s.radix = std::max(s.radix, degree[n]);
    s.leaves += leaf[n];
  }
  s.up = s.radix;
  return s;
}

// dragonfly.cpp: a·g switches (every one a leaf), p·a·g NICs, g·a·(a-1)/2 local and g·a·h/2
// global cables, radix p + a - 1 + h.
ShapeCounts dragonfly_counts(const TopologySpec& spec) {
  const DragonflyShape d = dragonfly_shape(spec);
  ShapeCounts s;
  s.nics = d.nics();
  s.switches = d.switches();
  s.leaves = s.switches;
  s.cables = int64_t{s.nics} + d.local_links() + d.global_links();
  s.radix = d.p + d.a - 1 + d.h;
  s.up = d.a - 1 + d.h;
  return s;
}

// One plane of a fat-tree, leaf-spine or rail fabric.
ShapeCounts tree_counts(const TopologySpec& spec) {
  ShapeCounts s;
  s.radix = spec.radix;
  if (spec.kind == TopologyKind::kRail) {
    // Every leaf's `up` uplinks cabled, up / spines parallel cables to each spine.
    const detail::RailSizes r = detail::rail_sizes(spec);
    s.nics = mul(spec.hosts, spec.nics_per_host);
    s.up = r.ports.up;
    s.leaves = r.leaves;
    s.switches = add(r.leaves, r.spines);
    s.cables = add(s.nics, mul(r.leaves, s.up));
    return s;
  }
  const detail::TreeSizes z = detail::tree_sizes(spec);
  s.nics = z.nics;
  s.up = z.ports.up;
  s.leaves = z.leaves;
  if (spec.tiers == 2) {
    // Every leaf's `up` uplinks cabled, up / spines parallel cables to each spine.
    s.switches = add(z.leaves, z.top);
    s.cables = add(s.nics, mul(z.leaves, s.up));
  } else {
    // `up` aggs per pod, each with k/2 uplinks spread over its group of C cores.
    const int64_t half = spec.radix / 2;
    const int64_t aggs = mul(z.pods, s.up);
    s.switches = add(add(z.leaves, aggs), mul(s.up, z.top));
    s.cables = add(add(s.nics, mul(z.leaves, s.up)), mul(aggs, half));
  }
  return s;
}

}  // namespace

detail::LeafPorts detail::split_leaf_ports(const TopologySpec& spec) {
  LeafPorts p;
  p.down = static_cast<int>(
      std::lround(spec.radix * spec.oversubscription / (spec.oversubscription + 1.0)));
  p.up = spec.radix - p.down;
  return p;
}

detail::TreeSizes detail::tree_sizes(const TopologySpec& spec) {
  TreeSizes z;
  z.ports = split_leaf_ports(spec);
  const int64_t down = z.ports.down;
  z.nics = mul(spec.hosts, spec.nics_per_host);
  z.leaves = (z.nics + down - 1) / down;
  if (spec.tiers == 2) {
    z.top = spec.upper_tiers == UpperTiers::kFull
                ? z.ports.up
                : fewest_top_switches(z.leaves, z.ports.up, spec.radix);
  } else {
    const int half = spec.radix / 2;
    const int64_t per_pod = half * down;
    z.pods = (z.nics + per_pod - 1) / per_pod;
    z.top = spec.upper_tiers == UpperTiers::kFull ? half
                                                  : fewest_top_switches(z.pods, half, spec.radix);
  }
  return z;
}

detail::RailSizes detail::rail_sizes(const TopologySpec& spec) {
  RailSizes r;
  r.ports = split_leaf_ports(spec);
  r.rails = spec.nics_per_host;
  r.leaves_per_rail = (int64_t{spec.hosts} + r.ports.down - 1) / r.ports.down;
  r.leaves = mul(r.rails, r.leaves_per_rail);
  r.spines = spec.upper_tiers == UpperTiers::kFull
                 ? r.ports.up
                 : fewest_top_switches(r.leaves, r.ports.up, spec.radix);
  return r;
}

ShapeCounts shape_counts(const TopologySpec& spec) {
  if (spec.kind == TopologyKind::kFile) return file_counts(spec);
  if (spec.kind == TopologyKind::kDragonfly) return dragonfly_counts(spec);
  ShapeCounts s = tree_counts(spec);
  if (spec.planes > 1) {
    // topo/multi_plane.h: a plane selector per NIC (one cable to it) and P copies of the fabric.
    s.switches = add(s.nics, mul(spec.planes, s.switches));
    s.cables = add(s.nics, mul(spec.planes, s.cables));
  }
  return s;
}

}  // namespace fabricsim::topo
