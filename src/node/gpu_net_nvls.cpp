// GpuNet's NVLS (NVLink SHARP) operations: RankTransport::nvls_reduce / nvls_multicast as fluid
// flows over the NVSwitch ports of a node (node/gpu_net.h; docs/reference/nccl-at-scale.md §4).
#include <stdexcept>

#include "node/gpu_net.h"

namespace fabricsim::node {

// ---- NVLS: the NVSwitch reads every GPU of the set and writes one reduced copy to the head,
// or takes one copy from the head and writes it to every GPU (docs/reference/nccl-at-scale.md
// §4). One flow over all the ports involved and their NVLS shares (kNvlsOut / kNvlsIn: NVLink x
// node.nvls_efficiency), so alone it runs at that fraction of a port.

void GpuNet::nvls_reduce(const uint32_t* gpus, int n, uint32_t head, int64_t bytes,
                         uint64_t cookie) {
  if (!spec_.nvls || n <= 0 || head >= gpus_ || bytes < 0) {
    throw std::logic_error("GpuNet::nvls_reduce: NVLS off, empty set or bad head");
  }
  const uint32_t node = head / gpn_;
  fluid_res_.clear();
  for (int i = 0; i < n; ++i) {
    if (gpus[i] >= gpus_ || gpus[i] / gpn_ != node) {
      throw std::logic_error("GpuNet::nvls_reduce: a GPU of the set is not on the head's node");
    }
    fluid_res_.push_back(resource(ResourceKind::kNvlinkOut, node, gpus[i] % gpn_));
    fluid_res_.push_back(resource(ResourceKind::kNvlsOut, node, gpus[i] % gpn_));
  }
  fluid_res_.push_back(resource(ResourceKind::kNvlinkIn, node, head % gpn_));
  fluid_res_.push_back(resource(ResourceKind::kNvlsIn, node, head % gpn_));
  nvls_flow(head, bytes, cookie);
}

void GpuNet::nvls_multicast(uint32_t head, const uint32_t* gpus, int n, int64_t bytes,
                            uint64_t cookie) {
  if (!spec_.nvls || n <= 0 || head >= gpus_ || bytes < 0) {
    throw std::logic_error("GpuNet::nvls_multicast: NVLS off, empty set or bad head");
  }
  const uint32_t node = head / gpn_;
  fluid_res_.clear();
  fluid_res_.push_back(resource(ResourceKind::kNvlinkOut, node, head % gpn_));
  fluid_res_.push_back(resource(ResourceKind::kNvlsOut, node, head % gpn_));
  for (int i = 0; i < n; ++i) {
    if (gpus[i] >= gpus_ || gpus[i] / gpn_ != node) {
      throw std::logic_error("GpuNet::nvls_multicast: a GPU of the set is not on the head's node");
    }
    fluid_res_.push_back(resource(ResourceKind::kNvlinkIn, node, gpus[i] % gpn_));
    fluid_res_.push_back(resource(ResourceKind::kNvlsIn, node, gpus[i] % gpn_));
  }
  nvls_flow(head, bytes, cookie);
}

void GpuNet::nvls_flow(uint32_t head, int64_t bytes, uint64_t cookie) {
  // A GPU listed twice would cross its port twice; the set is a set.
  for (size_t i = 0; i < fluid_res_.size(); ++i) {
    for (size_t j = i + 1; j < fluid_res_.size(); ++j) {
      if (fluid_res_[i] == fluid_res_[j]) throw std::logic_error("GpuNet: NVLS set repeats a GPU");
    }
  }
  const uint32_t slot = alloc_slot();
  Slot& s = slots_[slot];
  s = Slot{};
  s.src = s.dst = s.relay = head;
  s.bytes = bytes;
  s.cookie = cookie;
  s.after = Step::kArrive;
  s.after_ps = spec_.nvlink_latency_ps;  // through the switch once, as a unicast
  s.to_nic = false;
  ps_.start(fluid_res_.data(), static_cast<int>(fluid_res_.size()), s.bytes, 0.0, slot,
            sched_.now());
  settle(slots_[slot].src / gpn_);
}

}  // namespace fabricsim::node
