// GpuNet's paths and its idle machine (node/gpu_net.h): which of a node's resources each stage
// of a transfer crosses, and the tandem formula's time and rate for a transfer alone.
#include <algorithm>
#include <utility>

#include "core/time.h"
#include "node/gpu_net.h"

namespace fabricsim::node {

// ---- paths: which resources a stage crosses. Each entry after the first crosses one device
// (PCIe switch or root complex) and pays its latency.

GpuNet::Place GpuNet::place(uint32_t gpu) const {
  Place p;
  p.node = gpu / gpn_;
  p.local = gpu % gpn_;
  p.nic = p.local * nics_per_node_ / gpn_;
  p.gpu_switch = p.local / static_cast<uint32_t>(spec_.gpus_per_pcie_switch);
  p.nic_switch = p.nic * switches_per_node_ / nics_per_node_;
  const auto sockets = static_cast<uint32_t>(spec_.sockets);
  p.gpu_memory =
      resource(ResourceKind::kHostMemory, p.node, p.gpu_switch * sockets / switches_per_node_);
  p.nic_memory =
      resource(ResourceKind::kHostMemory, p.node, p.nic_switch * sockets / switches_per_node_);
  return p;
}

int GpuNet::gpu_to_nic(uint32_t gpu, Hop* out) const {
  const Place p = place(gpu);
  const int64_t lat = spec_.pcie_switch_latency_ps;
  int n = 0;
  out[n++] = {resource(ResourceKind::kGpuPcieUp, p.node, p.local), 0};
  // A NIC on another switch than its GPU is reached through the root complex.
  if (p.gpu_switch != p.nic_switch) {
    out[n++] = {resource(ResourceKind::kUplinkUp, p.node, p.gpu_switch), lat};
    out[n++] = {resource(ResourceKind::kUplinkDown, p.node, p.nic_switch), lat};
  }
  out[n++] = {resource(ResourceKind::kNicPcieIn, p.node, p.nic), lat};
  return n;
}

int GpuNet::gpu_to_host(uint32_t gpu, Hop* out) const {
  const Place p = place(gpu);
  const int64_t lat = spec_.pcie_switch_latency_ps;
  out[0] = {resource(ResourceKind::kGpuPcieUp, p.node, p.local), 0};
  out[1] = {resource(ResourceKind::kUplinkUp, p.node, p.gpu_switch), lat};
  out[2] = {p.gpu_memory, lat};
  return 3;
}

int GpuNet::host_to_nic(uint32_t gpu, Hop* out) const {
  const Place p = place(gpu);
  const int64_t lat = spec_.pcie_switch_latency_ps;
  out[0] = {p.nic_memory, 0};
  out[1] = {resource(ResourceKind::kUplinkDown, p.node, p.nic_switch), lat};
  out[2] = {resource(ResourceKind::kNicPcieIn, p.node, p.nic), lat};
  return 3;
}

int GpuNet::nic_to_gpu(uint32_t gpu, Hop* out) const {
  const Place p = place(gpu);
  const int64_t lat = spec_.pcie_switch_latency_ps;
  int n = 0;
  out[n++] = {resource(ResourceKind::kNicPcieOut, p.node, p.nic), 0};
  if (p.gpu_switch != p.nic_switch) {
    out[n++] = {resource(ResourceKind::kUplinkUp, p.node, p.nic_switch), lat};
    out[n++] = {resource(ResourceKind::kUplinkDown, p.node, p.gpu_switch), lat};
  }
  out[n++] = {resource(ResourceKind::kGpuPcieDown, p.node, p.local), lat};
  return n;
}

int GpuNet::nic_to_host(uint32_t gpu, Hop* out) const {
  const Place p = place(gpu);
  const int64_t lat = spec_.pcie_switch_latency_ps;
  out[0] = {resource(ResourceKind::kNicPcieOut, p.node, p.nic), 0};
  out[1] = {resource(ResourceKind::kUplinkUp, p.node, p.nic_switch), lat};
  out[2] = {p.nic_memory, lat};
  return 3;
}

int GpuNet::host_to_gpu(uint32_t gpu, Hop* out) const {
  const Place p = place(gpu);
  const int64_t lat = spec_.pcie_switch_latency_ps;
  out[0] = {p.gpu_memory, 0};
  out[1] = {resource(ResourceKind::kUplinkDown, p.node, p.gpu_switch), lat};
  out[2] = {resource(ResourceKind::kGpuPcieDown, p.node, p.local), lat};
  return 3;
}

GpuNet::Plan GpuNet::plan(uint32_t src, uint32_t dst) const {
  Plan p;
  const uint32_t ls = src % gpn_, ld = dst % gpn_;
  p.relay = src;
  // PXN: leave from the NIC on the destination's rail, reached over NVLink through the local
  // GPU that uses it (NCCL PATH_PXN); without it the flow crosses rails in the fabric.
  if (spec_.pxn && ls * nics_per_node_ / gpn_ != ld * nics_per_node_ / gpn_) {
    p.relay = (src / gpn_) * gpn_ + ld;
    p.send1[p.n_send1++] = {resource(ResourceKind::kNvlinkOut, src / gpn_, ls), 0};
    p.send1[p.n_send1++] = {resource(ResourceKind::kNvlinkIn, src / gpn_, ld),
                            spec_.nvlink_latency_ps};
  }
  if (spec_.gpudirect) {
    p.n_send1 += gpu_to_nic(p.relay, p.send1 + p.n_send1);
    p.n_recv1 = nic_to_gpu(dst, p.recv1);
  } else {
    p.n_send1 += gpu_to_host(p.relay, p.send1 + p.n_send1);
    p.n_send2 = host_to_nic(p.relay, p.send2);
    p.n_recv1 = nic_to_host(dst, p.recv1);
    p.n_recv2 = host_to_gpu(dst, p.recv2);
  }
  p.src_nic = nic_of(p.relay);
  p.dst_nic = nic_of(dst);
  return p;
}

int64_t GpuNet::wire_ps(int64_t bytes) const {
  return serialization_ps(bytes, fabric_.link.rate_bps);
}

int64_t GpuNet::post_time(const FluidResult& r, int64_t bytes) const {
  return std::max(r.first_ps, r.last_ps - wire_ps(bytes));
}

int64_t GpuNet::fabric_idle_ps(uint32_t src_nic, uint32_t dst_nic, int64_t bytes) const {
  return transport_.ideal_fct_ps(bytes, routes_.switch_hops(src_nic, dst_nic),
                                 routes_.path_link(src_nic, dst_nic, fabric_.link),
                                 fabric_.switch_config, fabric_.nic);
}

// ---- the idle machine

int64_t GpuNet::idle_transfer_ps(uint32_t src, uint32_t dst, int64_t bytes) const {
  const FluidServer* s = servers_.data();
  if (src / gpn_ == dst / gpn_) {
    const Hop hops[2] = {
        {resource(ResourceKind::kNvlinkOut, src / gpn_, src % gpn_), 0},
        {resource(ResourceKind::kNvlinkIn, dst / gpn_, dst % gpn_), spec_.nvlink_latency_ps}};
    return fluid_path(s, hops, 2, 0, 0, bytes, true, nullptr, nullptr).last_ps;
  }
  const Plan p = plan(src, dst);
  FluidResult r = fluid_path(s, p.send1, p.n_send1, 0, 0, bytes, true, nullptr, nullptr);
  if (!spec_.gpudirect) {
    const int64_t t = r.last_ps + spec_.staged_cpu_ps;
    r = fluid_path(s, p.send2, p.n_send2, t, t, bytes, true, nullptr, nullptr);
  }
  const int64_t posted = post_time(r, bytes);
  // The ideal network's crossing is the idle one too (the collective layer's latency model
  // subtracts this figure: on the ideal machine it must be the ideal machine's).
  const int64_t delivered = posted + (spec_.ideal_fabric
                                          ? ideal_fabric_delay_ps(bytes)
                                          : fabric_idle_ps(p.src_nic, p.dst_nic, bytes));
  r = fluid_path(s, p.recv1, p.n_recv1, std::max(posted, delivered - wire_ps(bytes)), delivered,
                 bytes, true, nullptr, nullptr);
  if (!spec_.gpudirect) {
    const int64_t t = r.last_ps + spec_.staged_cpu_ps;
    r = fluid_path(s, p.recv2, p.n_recv2, t, t, bytes, true, nullptr, nullptr);
  }
  return r.last_ps;
}

double GpuNet::path_rate_bytes_per_s(uint32_t src, uint32_t dst) const {
  Hop all[4 * kMaxHops];
  int n = 0;
  double rate_bps = 0;
  if (src / gpn_ == dst / gpn_) {
    all[n++] = {resource(ResourceKind::kNvlinkOut, src / gpn_, src % gpn_), 0};
    all[n++] = {resource(ResourceKind::kNvlinkIn, dst / gpn_, dst % gpn_), 0};
  } else {
    const Plan p = plan(src, dst);
    for (const auto& [hops, count] :
         {std::pair{p.send1, p.n_send1}, std::pair{p.send2, p.n_send2},
          std::pair{p.recv1, p.n_recv1}, std::pair{p.recv2, p.n_recv2}}) {
      for (int i = 0; i < count; ++i) all[n++] = hops[i];
    }
    // The NIC's payload rate: the line rate less the transport's per-packet overheads.
    rate_bps = spec_.ideal_fabric ? static_cast<double>(fabric_.link.rate_bps)
                                  : transport_.payload_rate_bps(fabric_.link.rate_bps);
  }
  // A resource crossed twice (host memory: written, then read) gives each crossing half.
  for (int i = 0; i < n; ++i) {
    int uses = 0;
    for (int j = 0; j < n; ++j) uses += all[j].resource == all[i].resource;
    const double r = static_cast<double>(servers_[all[i].resource].rate_bps) / uses;
    if (rate_bps == 0 || r < rate_bps) rate_bps = r;
  }
  return rate_bps / 8.0;
}

}  // namespace fabricsim::node
