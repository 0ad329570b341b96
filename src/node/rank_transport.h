// What the collective and training layers see of the machine: GPUs ("ranks") that move bytes
// from one GPU's memory into another's. Inside a node a transfer crosses NVLink/NVSwitch; across
// nodes it crosses PCIe to a NIC (GPUDirect RDMA, or staged through host memory), the packet-level
// fabric, and PCIe again (node/gpu_net.h implements it over the real fabric; tests may implement
// it with a closed-form model).
//
// Called once per message (a collective slice, a send/recv step), never per packet: a virtual
// call here is off the per-packet-hop path (STYLE §6).
#pragma once

#include <cstdint>
#include <functional>
#include <stdexcept>

#include "node/nccl_view.h"

namespace fabricsim::node {

// A P2P stream whose chunks one send() moves as one transfer (collective.fold_p2p).
struct FoldedStream {
  // > 0: the bytes enter the NIC no faster than this, what the chunks' credit loop allows.
  double rate_cap_bps = 0;
  // > 0: the chunks in the stage into the NIC at once (the FIFO window, or fewer chunks): the
  // folded stage counts as that many flows there, as the chunks' own stages did. The fabric
  // still sees one message (`weight`).
  int32_t chunks_in_flight = 0;
};

class RankTransport {
 public:
  virtual ~RankTransport() = default;

  // Starts moving `bytes` (bytes on the links: the collective layer has already applied its
  // protocol's wire efficiency) from `src_gpu`'s memory to `dst_gpu`'s, `delay_ps` from now (the
  // sender's software overhead before the first byte moves). When the last byte is in
  // dst_gpu's memory, on_arrived(cookie) is called. src_gpu != dst_gpu.
  // `connection` names the NCCL connection (channel) the transfer belongs to: one connection's
  // transfers over NVLink move in order, one at a time (one CTA works its steps in turn), while
  // different connections between the same GPUs share the links. 0 = the pair's one default
  // connection.
  // `weight` > 1 (only where weighted_sends(); across nodes only where weighted_net_sends(),
  // then it carries channels channel .. channel + weight - 1): the transfer stands for
  // `weight` identical transfers of bytes / weight each on as many connections moving in
  // lockstep (a collective's channels folded into one, workload/collective_plan.h); it gets
  // their combined share of every link, so it ends when each of them would have.
  // `channel`: the NCCL channel; across nodes each channel has its own network
  // connection (Transport::post_channel), so channels do not wait behind each other's messages.
  // `stream` (across nodes only where weighted_net_sends()): the transfer is a stream of chunks
  // folded into one (collective.fold_p2p, workload/collective_p2p.cpp), see FoldedStream.
  virtual void send(uint32_t src_gpu, uint32_t dst_gpu, int64_t bytes, uint64_t cookie,
                    int64_t delay_ps = 0, uint64_t connection = 0, int32_t weight = 1,
                    uint32_t channel = 0, FoldedStream stream = {}) = 0;
  // Whether send() takes weight > 1 for transfers inside a node (the fluid NVLink model does;
  // closed-form machines in tests do not, so nothing is folded on them).
  virtual bool weighted_sends() const { return false; }
  // Whether send() also takes weight > 1 across nodes: the fabric then moves the transfer as one
  // transport message of all `weight` channels' bytes (flow mode, whose fabric keeps one
  // connection per NIC pair: engine/flow/flow_transport.h).
  virtual bool weighted_net_sends() const { return false; }
  // Whether every GPU's stages into and out of its NIC run at least at the NIC's payload rate
  // on the idle machine (PCIe, host memory when staged): a message of any size then moves
  // through them as one cut-through fluid, however large (collective.fold_p2p folds a P2P
  // stream's chunks into one message only then).
  virtual bool stages_keep_up_with_nic() const { return false; }

  // Calls on_timer(cookie) `delay_ps` from now (compute phases, software latencies).
  virtual void timer(int64_t delay_ps, uint64_t cookie) = 0;

  virtual int64_t now_ps() const = 0;
  virtual uint32_t gpus() const = 0;
  virtual uint32_t gpus_per_node() const = 0;
  uint32_t node_of(uint32_t gpu) const { return gpu / gpus_per_node(); }
  uint32_t local_of(uint32_t gpu) const { return gpu % gpus_per_node(); }

  // The time a `bytes` transfer from src to dst takes on the idle machine (no other traffic):
  // latency plus serialization at the path's bottleneck. Used for NCCL's per-step latency model
  // (the collective layer charges only what the model does not already simulate) and by tests.
  virtual int64_t idle_transfer_ps(uint32_t src_gpu, uint32_t dst_gpu, int64_t bytes) const = 0;
  // Bytes per second the path from src to dst sustains alone (its bottleneck).
  virtual double path_rate_bytes_per_s(uint32_t src_gpu, uint32_t dst_gpu) const = 0;
  // What NCCL's topology detection would read of this machine (node/nccl_view.h). The default,
  // for closed-form machines in tests, takes the path rates and one NIC per GPU.
  virtual NcclView nccl_view() const {
    NcclView v;
    const uint32_t gpn = gpus_per_node();
    if (gpn > 1) v.nvlink_gbps = path_rate_bytes_per_s(0, 1) / 1e9;
    if (gpus() > gpn) v.nic_gbps = v.pcie_gbps = path_rate_bytes_per_s(0, gpn) / 1e9;
    v.nics_per_node = static_cast<int>(gpn);
    return v;
  }

  // ---- In-network reduction: InfiniBand SHARP (fabric.sharp.*, docs/infiniband.md "SHARP") ----
  // A group of GPUs whose sums the switches compute. The group owns one aggregation tree per
  // rail (NIC index within the node) its GPUs' NICs use; each GPU must have its NIC to itself
  // within the group. Returns the group id (>= 0), or -1 when SHARP is off or unavailable here
  // or a tree was refused (a port already at fabric.sharp.max_trees_per_port, the subnet at
  // max_trees, a Dragonfly, two group GPUs on one NIC); every refusal is recorded in the run's
  // result (sharp.failures), and the caller falls back to its non-SHARP algorithm. Once per
  // communicator, not per message. REQUIRES: gpus distinct and < gpus().
  virtual int sharp_group(const uint32_t* gpus, int n) { return -1; }
  // GPU `gpu` of `group` contributes `bytes` from its memory (PCIe to its NIC as a send does);
  // on_arrived(cookie) fires at `gpu` when the reduced `bytes` are in its memory. The sum is
  // over the group's GPUs on `gpu`'s rail (CollNet's heads: the collective layer reduces inside
  // the node first). Every member of the group calls it with the same bytes in the same order
  // (the k-th call of each member is one reduction). REQUIRES: a group this transport returned.
  virtual void sharp_allreduce(int group, uint32_t gpu, int64_t bytes, uint64_t cookie) {
    throw std::logic_error("RankTransport::sharp_allreduce: SHARP is not available here");
  }

  // NVLS (NVLink SHARP, H100 NVSwitch multimem; docs/reference/nccl-at-scale.md §4, docs/nodes.md).
  // Whether the node's NVSwitch can reduce and multicast: nccl_view().nvls (node.nvls).
  // The switch reads `bytes` from every GPU of gpus[0..n) and writes one reduced copy of `bytes`
  // into `head` (multimem.ld_reduce); on_arrived(cookie) when it is there. All GPUs on one node;
  // head may be in the set. The default is a closed-form stand-in for transports without NVLS
  // (test machines): one ordinary transfer of `bytes` into head from another GPU of the set.
  virtual void nvls_reduce(const uint32_t* gpus, int n, uint32_t head, int64_t bytes,
                           uint64_t cookie) {
    send(other_than(head, gpus, n), head, bytes, cookie);
  }
  // `head` writes `bytes` once and the switch writes them into every GPU of gpus[0..n)
  // (multimem.st); on_arrived(cookie) when all have them. Default: one transfer, as above.
  virtual void nvls_multicast(uint32_t head, const uint32_t* gpus, int n, int64_t bytes,
                              uint64_t cookie) {
    send(head, other_than(head, gpus, n), bytes, cookie);
  }

  // Set by the user of the transport (the collective engine).
  std::function<void(uint64_t cookie)> on_arrived;
  std::function<void(uint64_t cookie)> on_timer;

 private:
  static uint32_t other_than(uint32_t head, const uint32_t* gpus, int n) {
    for (int i = 0; i < n; ++i) {
      if (gpus[i] != head) return gpus[i];
    }
    throw std::logic_error("RankTransport: an NVLS set needs a GPU other than the head");
  }
};

}  // namespace fabricsim::node
