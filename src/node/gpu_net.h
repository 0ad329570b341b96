// GpuNet: the GPU side of the machine over the real fabric (node::RankTransport). GPUs are
// ranks; GPU g lives on node g / G and uses NIC node x nics_per_node + floor(l x nics / G)
// (l = g mod G). NVLink, PCIe and host memory are shared max-min fairly at message grain
// (node/fluid_ps.h): each stage of a message is one fluid flow over every resource it crosses,
// re-shared on each arrival and departure in its node, no per-packet work; the idle-machine
// figures (idle_transfer_ps, path_rate_bytes_per_s) use the tandem formula of node/fluid.h. The
// NIC and the fabric stay packet-level: the cross-node part of a transfer is one
// transport message (transport/transport.h). docs/nodes.md explains the model and its defaults.
#pragma once

#include <cstdint>
#include <vector>

#include "core/flat_map.h"
#include "core/scheduler.h"
#include "node/fluid.h"
#include "node/fluid_ps.h"
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
  // NVLS traffic of a GPU's port (out: what the switch reads for a reduce or the head's
  // multicast store; in: what the switch writes). Logical: capacity NVLink x
  // node.nvls_efficiency, crossed by NVLS flows only, on top of the port they also cross. So
  // NVLS moves at most that fraction of a port however many NVLS flows share it, while unicast
  // traffic on the same port is not slowed (a per-flow cap would let concurrent NVLS flows
  // reach the full port, and busbw 2(N-1)/(N+1) x 370.8 = 577 GB/s instead of the measured 480).
  kNvlsOut,
  kNvlsIn,
  // node.ideal_fabric only (none on the real machine, where the NIC's line is the packet
  // model's): each NIC's line to the fabric and from it at fabric.link.rate, the two ports of
  // the ideal network's big switch (docs/training.md "Ideal network").
  kNicLineOut,
  kNicLineIn,
};
inline constexpr int kResourceKinds = 13;
// "nvlink_out", "pcie_gpu_up", ... (result.json node_resources).
const char* resource_name(ResourceKind kind);

class GpuNet final : public RankTransport {
 public:
  // Transport messages GpuNet posts carry this bit in their tag (the rest is the slot).
  static constexpr uint64_t kTagBit = uint64_t{1} << 63;
  // A kNodeEvent whose target has this bit is a node's fluid completion event (the rest is the
  // node); otherwise the target is a slot.
  static constexpr uint32_t kFluidEventBit = uint32_t{1} << 31;

  // REQUIRES: check_spec(spec, topology spec) passed and spec.gpus_per_node > 0. `routes` gives
  // switch hop counts for idle_transfer_ps and must outlive this object (it may be
  // reprogrammed); `fabric` holds the resolved link, switch and NIC configs.
  GpuNet(const NodeSpec& spec, const topo::BuiltTopology& topology,
         const topo::FabricParams& fabric, const routing::EcmpRoutes& routes,
         transport::Transport& transport, Scheduler& sched);
  GpuNet(const GpuNet&) = delete;
  GpuNet& operator=(const GpuNet&) = delete;

  void send(uint32_t src_gpu, uint32_t dst_gpu, int64_t bytes, uint64_t cookie,
            int64_t delay_ps = 0, uint64_t connection = 0, int32_t weight = 1,
            uint32_t channel = 0, FoldedStream stream = {}) override;
  bool weighted_sends() const override { return true; }
  // Flow mode: folded channels cross nodes too (RankTransport::weighted_net_sends). On the ideal
  // network a folded message is one message in its NIC pair's line, as its channels' messages
  // were one after another (ideal_pairs_): weight 1 there.
  void set_weighted_net_sends(bool on) { weighted_net_ = on; }
  bool weighted_net_sends() const override { return weighted_net_; }
  bool stages_keep_up_with_nic() const override { return stages_keep_up_; }
  void timer(int64_t delay_ps, uint64_t cookie) override;
  int64_t now_ps() const override { return sched_.now(); }
  uint32_t gpus() const override { return gpus_; }
  uint32_t gpus_per_node() const override { return gpn_; }
  int64_t idle_transfer_ps(uint32_t src_gpu, uint32_t dst_gpu, int64_t bytes) const override;
  double path_rate_bytes_per_s(uint32_t src_gpu, uint32_t dst_gpu) const override;
  NcclView nccl_view() const override {
    return node::nccl_view(spec_, fabric_.link.rate_bps, static_cast<int>(nics_per_node_));
  }
  // REQUIRES: nccl_view().nvls; every GPU of the set on head's node, none listed twice.
  void nvls_reduce(const uint32_t* gpus, int n, uint32_t head, int64_t bytes,
                   uint64_t cookie) override;
  void nvls_multicast(uint32_t head, const uint32_t* gpus, int n, int64_t bytes,
                      uint64_t cookie) override;

  // A kNodeEvent with this target fired (a slot, or kFluidEventBit | node).
  void on_event(uint32_t target);
  // Whether a delivered transport message is one of GpuNet's (its tag carries kTagBit).
  bool owns(uint32_t msg) const { return (transport_.message(msg).tag & kTagBit) != 0; }
  // One of GpuNet's transport messages reached its destination NIC's application.
  void on_delivered(uint32_t msg);
  // No transfer or timer pending: the run may end.
  bool idle() const { return active_slots_ == 0; }

  // node.ideal_fabric on an idle machine: from the post to the receiving NIC holding the
  // message. The payload at the NIC's line rate (no headers) plus the fixed latency
  // ideal_latency_ps. Under load the running machine shares each NIC's line among the messages
  // crossing it (kNicLineOut / kNicLineIn), docs/training.md "Ideal network".
  int64_t ideal_fabric_delay_ps(int64_t bytes) const { return wire_ps(bytes) + ideal_latency_ps(); }
  // Two cable propagations (NIC -> switch -> NIC: the shortest path any fabric has; the
  // switch adds nothing).
  int64_t ideal_latency_ps() const { return 2 * fabric_.link.propagation_ps(); }

  // The NIC GPU `gpu` uses (1:1, 1:2, 1:4 ... sharing from hosts.nics_per_host).
  uint32_t nic_of(uint32_t gpu) const;
  uint32_t resource(ResourceKind kind, uint32_t node, uint32_t index) const;
  // Per-resource accounting: rate, bytes carried (whole messages, counted when their stage
  // starts) and busy_ps = time with at least one flow on it, up to now. Under sharing busy time
  // is not bytes / rate: utilization is bytes x 8 / (rate x span). busy_until_ps is unused (0).
  FluidServer server(uint32_t resource_id) const {
    return FluidServer{servers_[resource_id].rate_bps, 0, ps_.bytes(resource_id),
                       ps_.busy_ps(resource_id, sched_.now())};
  }
  // Flows in progress on a node's resources (tests).
  uint32_t active_flows(uint32_t node) const { return ps_.active_flows(node); }
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
  // What a slot's next event does.
  enum class Step : uint8_t {
    kStart, kStagedOut, kPost, kReceive, kStagedIn, kArrive, kTimer,
    kIdealDelivered  // node.ideal_fabric: the message's last byte is at the receiving NIC
  };
  struct Slot {
    uint32_t src = 0, dst = 0;  // NVLS: src = dst = the head
    uint32_t src_nic = 0, dst_nic = 0;
    uint32_t relay = 0;  // the GPU whose NIC sends (src unless PXN relays)
    int64_t bytes = 0;
    uint64_t cookie = 0;
    Step step = Step::kStart;
    // The stage's fluid flow: at its end, `after` runs after_ps later (the path's device
    // latencies, plus the staged CPU time). A flow into the NIC (to_nic) instead records
    // sent_ps = its end + after_ps, when the NIC has every byte.
    bool to_nic = false;
    Step after = Step::kArrive;
    int64_t after_ps = 0;
    int64_t post_ps = -1;       // transport message posted
    int64_t sent_ps = -1;       // last byte in the sending NIC (-1: not yet)
    int64_t delivered_ps = -1;  // transport delivery at the receiving NIC (-1: not yet)
    uint32_t next_in_pair = kNone;  // the next NVLink transfer waiting for this GPU pair
    bool holds_pair = false;        // an NVLink transfer holding its pair's turn
    bool holds_nic_pair = false;    // node.ideal_fabric: a send holding its NIC pair's turn
    int32_t sharp_tree = -1;        // a SHARP operation: the tree its NIC streams into
    uint64_t connection = 0;        // NVLink: the ordering domain (RankTransport::send)
    int32_t weight = 1;             // NVLink: folded connections (RankTransport::send)
    uint32_t channel = 0;           // the NCCL channel: its network connection (post_channel)
    FoldedStream stream;            // a folded P2P stream's stage into the NIC (send)
  };
  static constexpr uint32_t kNone = ~uint32_t{0};
  // NVLink transfers of one connection go in order: one at a time, the next when the previous
  // one's last byte has left (see pair_ and conn_queues_).
  struct PairQueue {
    uint32_t head = kNone, tail = kNone;  // waiting slots
    bool busy = false;
  };
  // `slot` waits at the tail of `q` when q is busy (true); else q becomes busy (false).
  bool wait_in(PairQueue& q, uint32_t slot);
  void start_nvlink(uint32_t slot, bool settle_now = true);
  // node.ideal_fabric: the send stage into the NIC and onto its line, in order per (sending
  // NIC, receiving NIC) as on the real transport's queue pair (ideal_pairs_).
  void ideal_send(uint32_t slot);
  void start_ideal_send(uint32_t slot, bool settle_now);
  void release_nic_pair(uint32_t slot);
  void release_pair(uint32_t slot);
  // The in-order queue of the slot's connection: pair_ for connection 0, else conn_queues_
  // (created at the connection's first transfer, erased when it goes idle).
  struct ConnKey;
  ConnKey conn_key(const Slot& s) const;
  PairQueue& order_queue(const Slot& s);
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
  // The same for a flow started at this instant at rate_bps whose first byte reaches the NIC
  // latency_ps on, when messages of total weight `sharing` are being fed to the NIC and this
  // one has `weight` of them (it gets weight / sharing of the line: a folded message stands
  // for `weight` channels' messages, RankTransport::send).
  int64_t post_time(int64_t latency_ps, double rate_bps, int64_t bytes, int64_t sharing,
                    int32_t weight) const;
  int64_t wire_ps(int64_t bytes) const;  // payload at the NIC's line rate
  // node.ideal_fabric: a send stage into the NIC followed by the relay's NIC line out, and a
  // receive stage from the NIC preceded by the destination's NIC line in (into `out`).
  int ideal_send_hops(const Hop* hops, int n, uint32_t relay, Hop* out) const;
  int ideal_recv_hops(const Hop* hops, int n, uint32_t dst, Hop* out) const;
  int64_t fabric_idle_ps(uint32_t src_nic, uint32_t dst_nic, int64_t bytes) const;
  uint32_t alloc_slot();
  void free_slot(uint32_t slot);
  // The slot's next stage at time_ps. A kNodeEvent belongs to the source GPU's node for the
  // event order (core/event_queue.h): slot numbers are recycled in global order, nodes are not.
  void schedule(uint32_t slot, int64_t time_ps);
  void start(uint32_t slot);
  // Starts the slot's stage over `hops` as one fluid flow. A flow into the NIC (to_nic) learns
  // its rate at the node's fluid event of this instant and then schedules its post.
  // settle_now false: the caller is inside settle(), which schedules the node's event.
  void flow(uint32_t slot, const Hop* hops, int n, Step after, int64_t extra_ps, bool to_nic,
            int64_t head_start_ps = 0, bool settle_now = true, int32_t weight = 1);
  // Starts the NVLS flow over fluid_res_ from a new slot of `head`.
  void nvls_flow(uint32_t head, int64_t bytes, uint64_t cookie);
  // Hands the fluid network's finished flows to their slots and (re)schedules node's event.
  void settle(uint32_t node);
  void flow_done(uint32_t slot);
  // The receive side from the NIC (transport delivered, the NIC has the whole message).
  void receive(uint32_t slot);
  // The far end is done with the slot's message (transport delivery or SHARP result at the NIC).
  void delivered(uint32_t slot);

  // ---- SHARP (node/gpu_net_sharp.cpp): an operation is a slot whose transport part is the
  // NIC's aggregation stream (Slot::sharp_tree >= 0) instead of a transport message.
  struct SharpGroup {
    std::vector<std::pair<uint32_t, int>> tree_of_gpu;  // sorted by GPU
  };
  void on_sharp_done(uint32_t slot);
  static void sharp_done_hook(void* ctx, uint32_t nic, int tree, uint64_t cookie);
  net::Network* sharp_net_ = nullptr;
  std::vector<SharpGroup> sharp_groups_;

  NodeSpec spec_;
  topo::FabricParams fabric_;
  const routing::EcmpRoutes& routes_;
  transport::Transport& transport_;
  Scheduler& sched_;
  uint32_t gpn_ = 0, gpus_ = 0, nics_per_node_ = 0, switches_per_node_ = 0;
  uint32_t per_node_resources_ = 0;
  uint32_t kind_base_[kResourceKinds] = {};  // first resource of each kind inside a node
  std::vector<FluidServer> servers_;  // rates for the idle formula; accounting is in ps_
  PsNetwork ps_;
  std::vector<uint32_t> fluid_res_;  // an NVLS flow's resources (reused)
  // Per (source GPU, destination's local index): the transfers of the pair's default
  // connection (connection 0) are served in order; NCCL moves one connection's steps in order,
  // by one CTA. Different pairs and different connections share fairly.
  std::vector<PairQueue> pair_;
  // Named connections' queues, keyed by (connection, pair index); an entry lives while its
  // connection has a transfer on NVLink (erased when it goes idle), so the map holds what is in
  // flight, not every connection ever used.
  struct ConnKey {
    uint64_t connection = 0;
    uint64_t pair = 0;
    bool operator==(const ConnKey&) const = default;
  };
  struct IdentityHash {
    size_t operator()(uint64_t k) const { return static_cast<size_t>(k); }
  };
  struct ConnKeyHash {
    size_t operator()(const ConnKey& k) const {
      return static_cast<size_t>(k.connection * 0x9E3779B97F4A7C15ull ^ k.pair);
    }
  };
  FlatMap<ConnKey, PairQueue, ConnKeyHash> conn_queues_;
  // node.ideal_fabric: per (sending NIC x NICs + receiving NIC) with a send on the line, the
  // sends waiting behind it; erased when the pair goes idle. Every NCCL channel's messages
  // between the pair wait in one line, though the real transport gives each channel its own
  // queue pair: sent one after another, a message's per-step latency overlaps the next one's
  // bytes, the best schedule the NIC could follow, so the ideal step stays a bound.
  FlatMap<uint64_t, PairQueue, IdentityHash> ideal_pairs_;
  std::vector<Slot> slots_;
  std::vector<uint32_t> free_slots_;
  uint32_t active_slots_ = 0;
  bool weighted_net_ = false;
  bool stages_keep_up_ = false;  // stages_keep_up_with_nic, from the constructor
};

}  // namespace fabricsim::node
