// The registry's tables, one per area, each defined in the file named beside it. knobs()
// (knob_registry.cpp) concatenates them in the order listed here, which is the order of
// `fabricsim keys` and docs/scenario-keys.md. Internal to the spec layer: callers use knobs().
//
// Each table is a namespace-scope constant of its file, built during static initialization, so
// knobs() must not be called from another file's static initializer (nothing does: every caller
// runs from main or a test).
#pragma once

#include <vector>

#include "spec/knobs.h"

namespace fabricsim::scenario {

const std::vector<Knob>& scenario_knobs();  // name, seed (knob_registry_fabric.cpp)
// fabric.technology, fabric.link.*, fabric.switch.* (knob_registry_fabric.cpp)
const std::vector<Knob>& fabric_knobs();
// Switch packet trimming and the per-port queue cap (knob_registry_trim.cpp).
const std::vector<Knob>& trim_knobs();
// The NIC/host latency profile, its overrides and ACK coalescing (knob_registry_nic.cpp).
const std::vector<Knob>& nic_knobs();
// The NIC connection-context cache, fabric.nic.context_cache.* (knob_registry_ctxcache.cpp).
const std::vector<Knob>& ctxcache_knobs();
// InfiniBand SHARP streaming aggregation, fabric.sharp.* (knob_registry_sharp.cpp).
const std::vector<Knob>& sharp_knobs();
// fabric.roce.mtu, ack timeout, retries, VLAN, priorities (knob_registry_fabric.cpp).
const std::vector<Knob>& roce_knobs();
const std::vector<Knob>& topology_kind_knobs();  // topology.kind (knob_registry_topology.cpp)
const std::vector<Knob>& topo_file_knobs();      // topology.file (knob_registry_topo_file.cpp)
// topology.dragonfly.* (knob_registry_dragonfly.cpp).
const std::vector<Knob>& dragonfly_knobs();
// topology.tiers, radix, oversubscription, hosts.* (knob_registry_topology.cpp).
const std::vector<Knob>& topology_size_knobs();
const std::vector<Knob>& ecmp_knobs();  // routing.ecmp.* (knob_registry_lb.cpp)
// workload.* and scaling.nodes (knob_registry_workload.cpp).
const std::vector<Knob>& workload_knobs();
const std::vector<Knob>& ping_pong_knobs();  // knob_registry_pingpong.cpp
const std::vector<Knob>& run_knobs();        // jobs_alone, stop_time (knob_registry_outputs.cpp)
// outputs.dir, outputs.steady_window, outputs.pcap.* (knob_registry_outputs.cpp).
const std::vector<Knob>& output_knobs();
const std::vector<Knob>& trace_knobs();   // outputs.trace.* (knob_registry_trace.cpp)
const std::vector<Knob>& report_knobs();  // outputs.report (knob_registry_report.cpp)
// The PFC, ECN and congestion-control entries (knob_registry_cc.cpp).
const std::vector<Knob>& congestion_knobs();
// fabric.roce.timely.* (knob_registry_timely.cpp).
const std::vector<Knob>& timely_knobs();
// fabric.roce.swift.* (knob_registry_swift.cpp).
const std::vector<Knob>& swift_knobs();
// RoCE spraying, out-of-order placement and the reorder buffer (knob_registry_spray.cpp).
const std::vector<Knob>& spray_knobs();
// fabric.roce.qps_per_pair (knob_registry_ctxcache.cpp).
const std::vector<Knob>& qps_per_pair_knobs();
// InfiniBand, transport service/operation, Subnet Manager, recovery and link faults
// (knob_registry_ib.cpp).
const std::vector<Knob>& infiniband_knobs();
// routing.load_balancing, routing.flowlet_gap, routing.te.* (knob_registry_lb.cpp).
const std::vector<Knob>& load_balancing_knobs();
const std::vector<Knob>& uet_knobs();  // fabric.uet.* (knob_registry_uet.cpp)
const std::vector<Knob>& tcp_knobs();  // fabric.tcp.*, TCP and iWARP (knob_registry_tcp.cpp)
// The GPU node model: GPUs per node, NVLink, PCIe, host memory, GPUDirect, PXN
// (knob_registry_node.cpp).
const std::vector<Knob>& node_knobs();
const std::vector<Knob>& training_knobs();    // training.* (knob_registry_training.cpp)
const std::vector<Knob>& collective_knobs();  // collective.* (knob_registry_collective.cpp)
const std::vector<Knob>& cost_knobs();        // cost.* (knob_registry_cost.cpp)
// topology.planes, topology.plane_rate, fabric.planes.split, faults.plane_down.*
// (knob_registry_planes.cpp).
const std::vector<Knob>& planes_knobs();
const std::vector<Knob>& fat_tree_knobs();  // topology.upper_tiers (knob_registry_fattree.cpp)
// routing.dragonfly (knob_registry_dragonfly.cpp).
const std::vector<Knob>& dragonfly_routing_knobs();
const std::vector<Knob>& flow_output_knobs();  // outputs.flows.path (knob_registry_outputs.cpp)
// outputs.timeseries.* (knob_registry_telemetry.cpp).
const std::vector<Knob>& telemetry_knobs();

}  // namespace fabricsim::scenario
