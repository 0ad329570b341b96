// GpuNet: the GPU side of the machine over the real fabric (node::RankTransport). GPUs are
// ranks; GPU g lives on node g / G and uses NIC node x nics_per_node + floor(l x nics / G)
// (l = g mod G). NVLink and PCIe are fluid FIFO servers at message grain (node/fluid.h): one
// O(path) computation and one scheduled event per stage of a message, no per-packet work. The
// NIC and the fabric stay packet-level: the cross-node part of a transfer is one
// transport message (transport/transport.h). docs/nodes.md explains the model and its defaults.
#pragma once

#include <cstdint>
#include <vector>

#include "core/scheduler.h"
#include "node/fluid.h"
#include "node/rank_transport.h"
#include "node/spec.h"
#include "routing/ecmp.h"
#include "topo/topology.h"
#include "transport/transport.h"

namespace fabricsim::net {
class Network;  // SHARP (node/gpu_net_sharp.cpp)
}  // namespace fabricsim::net

namespace fabricsim::node {

// Kinds of a node's fluid resources (each one direction of one link, or a socket's DRAM).
enum class ResourceKind : uint8_t {
  kNvlinkOut,    // GPU -> NVSwitch (per GPU)
  kNvlinkIn,     // NVSwitch -> GPU (per GPU)
  kGpuPcieUp,    // GPU -> its PCIe switch
  kGpuPcieDown,  // PCIe switch -> GPU
  kNicPcieIn,    // PCIe switch -> NIC (what the NIC reads to send)
  kNicPcieOut,   // NIC -> PCIe switch (what the NIC writes on receive)
  kUplinkUp,     // PCIe switch -> root complex
  kUplinkDown,   // root complex -> PCIe switch
  kHostMemory,   // a socket's DRAM (writes and reads share it)
};
inline constexpr int kResourceKinds = 9;
// "nvlink_out", "pcie_gpu_up", ... (result.json node_resources).
const char* resource_name(ResourceKind kind);

class GpuNet final : public RankTransport {
 public:
  // Transport messages GpuNet posts carry this bit in their tag (the rest is the slot).
  static constexpr uint64_t kTagBit = uint64_t{1} << 63;

  // REQUIRES: check_spec(spec, topology spec) passed and spec.gpus_per_node > 0. `routes` gives
  // switch hop counts for idle_transfer_ps and must outlive this object (it may be
  // reprogrammed); `fabric` holds the resolved link, switch and NIC configs.
  GpuNet(const NodeSpec& spec, const topo::BuiltTopology& topology,
         const topo::FabricParams& fabric, const routing::EcmpRoutes& routes,
         transport::Transport& transport, Scheduler& sched);
  GpuNet(const GpuNet&) = delete;
  GpuNet& operator=(const GpuNet&) = delete;

  void send(uint32_t src_gpu, uint32_t dst_gpu, int64_t bytes, uint64_t cookie,
            int64_t delay_ps = 0) override;
  void timer(int64_t delay_ps, uint64_t cookie) override;
  int64_t now_ps() const override { return sched_.now_ps; }
  uint32_t gpus() const override { return gpus_; }
  uint32_t gpus_per_node() const override { return gpn_; }
  int64_t idle_transfer_ps(uint32_t src_gpu, uint32_t dst_gpu, int64_t bytes) const override;
  double path_rate_bytes_per_s(uint32_t src_gpu, uint32_t dst_gpu) const override;
  NcclView nccl_view() const override {
    return node::nccl_view(spec_, fabric_.link.rate_bps, static_cast<int>(nics_per_node_));
  }

  // A kNodeEvent for `slot` fired.
  void on_event(uint32_t slot);
  // Whether a delivered transport message is one of GpuNet's (its tag carries kTagBit).
  bool owns(uint32_t msg) const { return (transport_.message(msg).tag & kTagBit) != 0; }
  // One of GpuNet's transport messages reached its destination NIC's application.
  void on_delivered(uint32_t msg);
  // No transfer or timer pending: the run may end.
  bool idle() const { return active_slots_ == 0 && sharp_active_ == 0; }

  // The NIC GPU `gpu` uses (1:1, 1:2, 1:4 ... sharing from hosts.nics_per_host).
  uint32_t nic_of(uint32_t gpu) const;
  // Per-resource accounting: bytes carried and time held (busy_ps / a span = utilization).
  uint32_t resource(ResourceKind kind, uint32_t node, uint32_t index) const;
  const FluidServer& server(uint32_t resource_id) const { return servers_[resource_id]; }
  uint32_t num_resources() const { return static_cast<uint32_t>(servers_.size()); }
  // What a resource is (resource ids are laid out node by node, kind by kind).
  ResourceKind kind_of(uint32_t resource_id) const {
    const uint32_t local = resource_id % per_node_resources_;
    int k = kResourceKinds - 1;
    while (k > 0 && local < kind_base_[k]) --k;
    return static_cast<ResourceKind>(k);
  }
  // Slots ever allocated (the free list reuses them): stays bounded by the peak in flight.
  uint32_t slots_allocated() const { return static_cast<uint32_t>(slots_.size()); }

  // ---- InfiniBand SHARP (node/gpu_net_sharp.cpp) ----
  // The fabric whose switches aggregate (Simulation calls it when fabric.sharp.enabled).
  void attach_sharp(net::Network& net);
  int sharp_group(const uint32_t* gpus, int n) override;
  void sharp_allreduce(int group, uint32_t gpu, int64_t bytes, uint64_t cookie) override;
  // The tree group `group` uses on GPU `gpu`'s rail, or -1.
  int sharp_tree_of(int group, uint32_t gpu) const;

 private:
  enum class Step : uint8_t { kStart, kStagedOut, kPost, kStagedIn, kArrive, kTimer };
  struct Slot {
    uint32_t src = 0, dst = 0;
    uint32_t src_nic = 0, dst_nic = 0;
    uint32_t relay = 0;  // the GPU whose NIC sends (src unless PXN relays)
    int64_t bytes = 0;
    uint64_t cookie = 0;
    Step step = Step::kStart;
  };
  // The send-side stages of a cross-node transfer up to the NIC, and the receive side from it.
  struct Plan {
    Hop send1[kMaxHops];
    int n_send1 = 0;
    Hop send2[kMaxHops];  // staged: host memory -> NIC
    int n_send2 = 0;
    Hop recv1[kMaxHops];
    int n_recv1 = 0;
    Hop recv2[kMaxHops];  // staged: host memory -> GPU
    int n_recv2 = 0;
    uint32_t src_nic = 0, dst_nic = 0, relay = 0;
  };
  Plan plan(uint32_t src, uint32_t dst) const;
  // Where a GPU sits: its node, local index, NIC, PCIe switch, its NIC's switch, and the host
  // memory of each switch's socket.
  struct Place {
    uint32_t node = 0, local = 0, nic = 0, gpu_switch = 0, nic_switch = 0;
    uint32_t gpu_memory = 0, nic_memory = 0;  // resource ids
  };
  Place place(uint32_t gpu) const;
  // Hops from GPU `gpu`'s memory to its NIC's PCIe link (GDR) or to host memory (staged).
  int gpu_to_nic(uint32_t gpu, Hop* out) const;
  int gpu_to_host(uint32_t gpu, Hop* out) const;
  int host_to_nic(uint32_t gpu, Hop* out) const;
  int nic_to_gpu(uint32_t gpu, Hop* out) const;
  int nic_to_host(uint32_t gpu, Hop* out) const;
  int host_to_gpu(uint32_t gpu, Hop* out) const;
  // When a message whose bytes reach the NIC over [first, last] may be posted: when the first
  // byte is there, but not so early that the NIC's line rate would outrun PCIe.
  int64_t post_time(const FluidResult& r, int64_t bytes) const;
  int64_t wire_ps(int64_t bytes) const;  // payload at the NIC's line rate
  int64_t fabric_idle_ps(uint32_t src_nic, uint32_t dst_nic, int64_t bytes) const;
  uint32_t alloc_slot();
  void free_slot(uint32_t slot);
  // The slot's next stage at time_ps. A kNodeEvent belongs to the source GPU's node for the
  // event order (core/event_queue.h): slot numbers are recycled in global order, nodes are not.
  void schedule(uint32_t slot, int64_t time_ps);
  void start(uint32_t slot);
  void post(uint32_t slot);
  FluidResult run(const Hop* hops, int n, int64_t first_ps, int64_t last_ps, int64_t bytes);

  // ---- SHARP (node/gpu_net_sharp.cpp): operations are slots of their own; their kNodeEvent
  // targets carry kSharpBit.
  static constexpr uint32_t kSharpBit = 1u << 31;
  enum class SharpStep : uint8_t { kStagedOut, kPost, kStagedIn, kArrive };
  struct SharpOp {
    uint32_t gpu = 0, nic = 0;
    int tree = -1;
    int64_t bytes = 0;
    int64_t post_ps = 0;
    uint64_t cookie = 0;
    SharpStep step = SharpStep::kPost;
  };
  struct SharpGroup {
    std::vector<std::pair<uint32_t, int>> tree_of_gpu;  // sorted by GPU
  };
  void on_sharp_event(uint32_t op);
  void on_sharp_done(uint32_t op);
  static void sharp_done_hook(void* ctx, uint32_t nic, int tree, uint64_t cookie);
  net::Network* sharp_net_ = nullptr;
  std::vector<SharpGroup> sharp_groups_;
  std::vector<SharpOp> sharp_ops_;
  std::vector<uint32_t> sharp_free_;
  uint32_t sharp_active_ = 0;

  NodeSpec spec_;
  topo::FabricParams fabric_;
  const routing::EcmpRoutes& routes_;
  transport::Transport& transport_;
  Scheduler& sched_;
  uint32_t gpn_ = 0, gpus_ = 0, nics_per_node_ = 0, switches_per_node_ = 0;
  uint32_t per_node_resources_ = 0;
  uint32_t kind_base_[kResourceKinds] = {};  // first resource of each kind inside a node
  std::vector<FluidServer> servers_;
  std::vector<Slot> slots_;
  std::vector<uint32_t> free_slots_;
  uint32_t active_slots_ = 0;
};

}  // namespace fabricsim::node
