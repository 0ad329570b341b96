// The Subnet Managers of an InfiniBand fabric: one for a single fabric, one per plane of a
// multi-plane fabric (topology.planes > 1, topo/multi_plane.h).
//
// A multi-plane HCA (NVIDIA ConnectX-8 on Quantum-X800 multi-plane fabrics) has one port per
// plane, and every plane is a separate InfiniBand subnet: its own Subnet Manager sweeps its
// switches, gives each HCA port on it a LID from its own LID space (from 1, as every subnet's),
// and programs its switches' LFTs and AR groups with the configured engine on that plane alone.
// The plane selector the topology puts inside each NIC is the HCA itself, part of no subnet
// (routing/subnet_manager.h SweepScope): each plane's SM sees exactly the uniform tree a
// single-plane fabric of that shape is, so ftree accepts it.
//
// A re-sweep after a link event recomputes the planes it is asked for only (the plane whose
// cable failed: the other subnets' SMs receive no trap); their switches keep their tables.
//
// For the reports, routes() merges the planes: LIDs of plane 0 (nic_lid; every plane's are in
// nic_lids()), per-port route counts (each plane counts its own ports), unreachable pairs
// summed, and the first plane whose ftree fell back, named in fallback_reason and note.
#pragma once

#include <cstdint>
#include <vector>

#include "net/network.h"
#include "routing/subnet_manager.h"

namespace fabricsim::routing {

class PlaneSubnets {
 public:
  // `planes`: one scope per subnet (one default scope: a single fabric).
  PlaneSubnets(SmEngine engine, bool adaptive, SmEngine fallback, std::vector<SweepScope> planes);

  // Every plane at once: the first sweep.
  static constexpr uint32_t kAllPlanes = 0xFFFFFFFFu;

  // Sweeps the planes of `plane_mask` (bit p = plane p) and programs their switches. The merged
  // routes() reflect every plane's latest sweep. Keeps no LFT or AR group once installed: the
  // switches hold them (the SM's tables are most of its memory on a large fabric).
  void sweep_and_install(net::Network& net, uint32_t plane_mask);

  // Before something that rewrites every switch's forwarding tables (the ECMP install that
  // Simulation::program_routes runs first): takes the tables of the switches of the planes NOT
  // in `plane_mask`, which restore_tables() puts back. A no-op for a single fabric.
  void stash_tables(net::Network& net, uint32_t plane_mask);
  void restore_tables(net::Network& net);

  uint32_t planes() const { return static_cast<uint32_t>(sms_.size()); }
  // The plane whose subnet switch `sw` belongs to; planes() for none (a selector).
  uint32_t plane_of_switch(uint32_t sw) const;
  const LidRoutes& routes() const { return merged_; }
  // nic_lids()[p * NICs + nic]: NIC `nic`'s LID on plane p (0: not discovered).
  std::vector<uint16_t> nic_lids() const;
  // Plane p's own routes (per-plane LIDs, route counts of its ports, engine used).
  const LidRoutes& plane_routes(uint32_t p) const { return per_plane_[p]; }
  // Sweeps plane p's SM has run (the first one included).
  uint32_t sweeps(uint32_t p) const { return sweeps_[p]; }

 private:
  struct SwitchTables {
    uint32_t sw = 0;
    bool route_by_lid = false;
    uint8_t lb = 0;
    std::vector<uint16_t> group_of_key;
    std::vector<uint32_t> group_offsets;
    std::vector<uint32_t> group_ports;
  };
  void merge(const net::Network& net);

  bool adaptive_;
  std::vector<SubnetManager> sms_;
  std::vector<LidRoutes> per_plane_;
  std::vector<uint32_t> sweeps_;
  LidRoutes merged_;
  std::vector<SwitchTables> stashed_;
};

}  // namespace fabricsim::routing
