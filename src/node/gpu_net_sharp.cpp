// GpuNet's InfiniBand SHARP operations (node::RankTransport::sharp_group / sharp_allreduce).
// An operation is a send whose far end is the switches: GPU memory -> PCIe -> NIC, the NIC's
// aggregation stream through the tree (net/sharp.cpp, packet-level), then NIC -> PCIe -> GPU
// memory for the result, staged through host memory when GPUDirect is off, exactly as
// GpuNet::send's two ends (node/gpu_net.cpp plan()).
#include <algorithm>
#include <map>
#include <stdexcept>
#include <string>

#include "net/network.h"
#include "node/gpu_net.h"

namespace fabricsim::node {

void GpuNet::attach_sharp(net::Network& net) {
  sharp_net_ = &net;
  net.set_sharp_hook(net::SharpHook{this, &GpuNet::sharp_done_hook});
}

int GpuNet::sharp_group(const uint32_t* gpus, int n) {
  if (sharp_net_ == nullptr || !sharp_net_->sharp_enabled()) return -1;
  if (n <= 0) return -1;
  // One tree per rail: the NICs with the same index within their node (NCCL's CollNet uses one
  // SAT flow per HCA rail, HPC-X 2.26 "NCCL-RDMA-SHARP Plugins").
  std::map<uint32_t, std::vector<uint32_t>> nics_of_rail;  // ordered: trees built rail by rail
  std::map<uint32_t, uint32_t> gpu_of_nic;
  for (int i = 0; i < n; ++i) {
    if (gpus[i] >= gpus_) throw std::logic_error("GpuNet::sharp_group: GPU out of range");
    const uint32_t nic = nic_of(gpus[i]);
    if (const auto it = gpu_of_nic.find(nic); it != gpu_of_nic.end()) {
      sharp_net_->sharp_record_failure(
          "GPUs " + std::to_string(it->second) + " and " + std::to_string(gpus[i]) +
          " share NIC " + std::to_string(nic) + ": a SHARP tree has one leaf per NIC");
      return -1;
    }
    gpu_of_nic[nic] = gpus[i];
    nics_of_rail[nic % nics_per_node_].push_back(nic);
  }
  std::map<uint32_t, int> tree_of_rail;
  for (const auto& [rail, nics] : nics_of_rail) {
    const int tree = sharp_net_->sharp_build_tree(nics.data(), static_cast<int>(nics.size()));
    if (tree < 0) {  // the Aggregation Manager recorded why; give back what this group took
      for (const auto& [r, t] : tree_of_rail) sharp_net_->sharp_release_tree(t);
      return -1;
    }
    tree_of_rail[rail] = tree;
  }
  SharpGroup g;
  for (int i = 0; i < n; ++i) {
    g.tree_of_gpu.emplace_back(gpus[i], tree_of_rail[nic_of(gpus[i]) % nics_per_node_]);
  }
  std::sort(g.tree_of_gpu.begin(), g.tree_of_gpu.end());
  sharp_groups_.push_back(std::move(g));
  return static_cast<int>(sharp_groups_.size() - 1);
}

int GpuNet::sharp_tree_of(int group, uint32_t gpu) const {
  if (group < 0 || static_cast<size_t>(group) >= sharp_groups_.size()) return -1;
  const auto& v = sharp_groups_[group].tree_of_gpu;
  const auto it = std::lower_bound(v.begin(), v.end(), std::pair<uint32_t, int>{gpu, -1});
  return it != v.end() && it->first == gpu ? it->second : -1;
}

void GpuNet::sharp_allreduce(int group, uint32_t gpu, int64_t bytes, uint64_t cookie) {
  const int tree = sharp_tree_of(group, gpu);
  if (tree < 0 || bytes < 0) {
    throw std::logic_error("GpuNet::sharp_allreduce: GPU not in the group, or negative size");
  }
  // A send whose far end is the switches: GPU memory -> PCIe -> its own NIC (no PXN relay), the
  // NIC's aggregation stream, and the result NIC -> PCIe -> GPU memory, each PCIe stage a fair
  // share of what it crosses (start() / receive()).
  const uint32_t slot = alloc_slot();
  Slot& s = slots_[slot];
  s = Slot{};
  s.src = s.dst = s.relay = gpu;
  s.src_nic = s.dst_nic = nic_of(gpu);
  s.bytes = bytes;
  s.cookie = cookie;
  s.sharp_tree = tree;
  const Plan p = plan(gpu, gpu);
  if (spec_.gpudirect) {
    flow(slot, p.send1, p.n_send1, Step::kPost, 0, true);
  } else {
    flow(slot, p.send1, p.n_send1, Step::kStagedOut, spec_.staged_cpu_ps, false);
  }
}

void GpuNet::sharp_done_hook(void* ctx, uint32_t /*nic*/, int /*tree*/, uint64_t cookie) {
  static_cast<GpuNet*>(ctx)->on_sharp_done(static_cast<uint32_t>(cookie));
}

void GpuNet::on_sharp_done(uint32_t slot) {
  // The NIC wrote the result as it arrived: the receive side runs as for a delivered message.
  delivered(slot);
}

}  // namespace fabricsim::node
