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
  uint32_t op;
  if (!sharp_free_.empty()) {
    op = sharp_free_.back();
    sharp_free_.pop_back();
  } else {
    op = static_cast<uint32_t>(sharp_ops_.size());
    sharp_ops_.emplace_back();
  }
  ++sharp_active_;
  SharpOp& o = sharp_ops_[op];
  o = SharpOp{gpu, nic_of(gpu), tree, bytes, 0, cookie, SharpStep::kPost};
  // GPU memory -> NIC, as the send side of a transfer (plan(g, g): no PXN relay, own NIC).
  const Plan p = plan(gpu, gpu);
  const int64_t now = sched_.now_ps;
  const FluidResult r = run(p.send1, p.n_send1, now, now, bytes);
  const int64_t at = spec_.gpudirect ? post_time(r, bytes) : r.last_ps + spec_.staged_cpu_ps;
  o.step = spec_.gpudirect ? SharpStep::kPost : SharpStep::kStagedOut;
  sched_.at(at, kNodeEvent, op | kSharpBit, gpu / gpn_);
}

void GpuNet::on_sharp_event(uint32_t op) {
  SharpOp& o = sharp_ops_[op];
  const int64_t now = sched_.now_ps;
  switch (o.step) {
    case SharpStep::kStagedOut: {
      const Plan p = plan(o.gpu, o.gpu);
      const FluidResult r = run(p.send2, p.n_send2, now, now, o.bytes);
      o.step = SharpStep::kPost;
      sched_.at(post_time(r, o.bytes), kNodeEvent, op | kSharpBit, o.gpu / gpn_);
      return;
    }
    case SharpStep::kPost:
      o.post_ps = now;
      if (!sharp_net_->sharp_post(o.tree, o.nic, o.bytes, op)) {
        throw std::logic_error("GpuNet: the fabric refused a SHARP post on tree " +
                               std::to_string(o.tree));
      }
      return;  // the fabric calls sharp_done_hook when the result is back at the NIC
    case SharpStep::kStagedIn: {
      const Plan p = plan(o.gpu, o.gpu);
      const FluidResult r = run(p.recv2, p.n_recv2, now, now, o.bytes);
      o.step = SharpStep::kArrive;
      sched_.at(r.last_ps, kNodeEvent, op | kSharpBit, o.gpu / gpn_);
      return;
    }
    case SharpStep::kArrive: {
      const uint64_t cookie = o.cookie;
      sharp_free_.push_back(op);
      --sharp_active_;
      if (on_arrived) on_arrived(cookie);
      return;
    }
  }
}

void GpuNet::sharp_done_hook(void* ctx, uint32_t /*nic*/, int /*tree*/, uint64_t cookie) {
  static_cast<GpuNet*>(ctx)->on_sharp_done(static_cast<uint32_t>(cookie));
}

void GpuNet::on_sharp_done(uint32_t op) {
  SharpOp& o = sharp_ops_[op];
  const int64_t now = sched_.now_ps;
  // The NIC wrote the result as it arrived, over about one line-rate time of the operation:
  // the receive-side PCIe starts then (cut-through at message grain, as on_delivered does).
  const int64_t first = std::max(o.post_ps, now - wire_ps(o.bytes));
  const Plan p = plan(o.gpu, o.gpu);
  const FluidResult r = run(p.recv1, p.n_recv1, first, now, o.bytes);
  o.step = spec_.gpudirect ? SharpStep::kArrive : SharpStep::kStagedIn;
  sched_.at(spec_.gpudirect ? r.last_ps : r.last_ps + spec_.staged_cpu_ps, kNodeEvent,
            op | kSharpBit, o.gpu / gpn_);
}

}  // namespace fabricsim::node
