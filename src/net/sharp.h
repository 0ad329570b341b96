// InfiniBand SHARP streaming aggregation (SAT) in the switches, at packet grain.
//
//   NIC0 NIC1   NIC2 NIC3        up:   each tree switch counts the children's packet of a
//     \  /        \  /                 sequence; the last one makes it emit one packet to its
//    leaf0       leaf1                 parent port (the root turns it around)
//        \       /               down: each tree switch copies a result packet to every child
//         spine0 (root)                port; a leaf switch's children are the HCAs
//
// The Aggregation Manager (sharp_am.cpp) builds one tree per set of NICs over the switches'
// up/down links; the data path (sharp.cpp) runs inside net::Network: SHARP packets cross the
// real links with their egress queues, IB credits, VLs, switch latency and serialization.
// docs/infiniband.md "SHARP" lists what is modelled and what is UNVERIFIED.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

namespace fabricsim::net {

struct SharpConfig {
  bool enabled = false;
  // Quantum-2: "multiple SAT operations in parallel by a single Quantum-2 switch. The limit is
  // one active tree per port" (SHARP Rev 3.13.0, General Information). Counted on every port a
  // tree uses, the HCA's port included (so one job per HCA, SHARP 3.8.0's
  // reservation_max_jobs_per_hca default 1, follows from it).
  int max_trees_per_port = 1;
  // Quantum-2: up to 511 streaming-aggregation trees per subnet (same page).
  int max_trees = 511;
  // A NIC streams its vector in chunks; a tree switch keeps reduction state for at most
  // `outstanding_chunks` chunks per tree (SHARP's OST quota per job). UNVERIFIED: no public
  // OST count or buffer size per Quantum-2 tree; 8 is NCCL_STEPS, the slots NCCL's CollNet
  // proxy keeps in flight per channel (nccl@5067397 src/include/device.h), and 8 x 128 KiB
  // covers the bandwidth-delay product of a 3-tier NDR tree (~5 us x 50 GB/s = 250 KB).
  int outstanding_chunks = 8;
  // CollNet's chunk: NCCL caps it at 256 KiB and halves it for small sizes (calcCollChunking);
  // 128 KiB is the midpoint used here. Only the window (outstanding_chunks x chunk) matters to
  // the packet-level run: every chunk is MTU packets.
  int64_t chunk_bytes = 128 << 10;
  int mtu_bytes = 4096;  // payload per SHARP packet: the IB MTU of the fabric
  uint8_t vl = 0;        // the data VL (the fabric's SL mapped by the SL2VL table)
};

// Why the Aggregation Manager refused a tree (results: sharp.failures).
struct SharpFailure {
  int64_t time_ps = 0;
  std::string reason;
};

// Per tree, what was built and carried (results: sharp.trees).
struct SharpTreeInfo {
  int id = -1;
  bool active = false;
  uint32_t root_switch = 0;
  std::vector<uint32_t> nics;
  std::vector<uint32_t> switches;  // the tree's switches, root first
  std::vector<uint32_t> ports;     // every egress port the tree uses, both directions
  int64_t ops_completed = 0;       // aggregation operations completed at member NICs
  int64_t result_bytes = 0;        // result payload delivered to member NICs
};

// A tree's NIC calls the hook when one of its aggregation operations has all its result bytes.
struct SharpHook {
  void* ctx = nullptr;
  void (*done)(void* ctx, uint32_t nic, int tree, uint64_t cookie) = nullptr;
};

// Internal state (sharp.cpp); declared here so that net::Network can own it.
namespace sharp_detail {

// One switch of a tree.
struct TreeSwitch {
  uint32_t sw = 0;
  uint32_t parent_port = 0xFFFFFFFFu;  // egress port towards the parent; none at the root
  uint32_t first_child = 0;            // into Tree::child_ports
  uint32_t num_children = 0;
  uint32_t first_count = 0;            // into Tree::counts: one slot per window sequence
};

// One member NIC of a tree: the operations it posted, in order, and the window.
struct Member {
  struct Op {
    uint32_t end_seq;  // one past the op's last packet sequence
    int64_t bytes;
    uint64_t cookie;
  };
  uint32_t nic = 0;
  uint32_t next_seq = 0;   // next packet to inject
  uint32_t results = 0;    // result packets received (they arrive in sequence order)
  uint32_t assigned = 0;   // packets of every posted op
  int64_t op_sent_bytes = 0;  // payload of the current (injecting) op already injected
  size_t inject_op = 0;       // index into ops of the op being injected
  std::deque<Op> ops;
};

struct Tree {
  int id = -1;
  bool active = false;
  std::vector<int32_t> node_of_switch;  // switch -> index into nodes, -1 if not in the tree
  std::vector<TreeSwitch> nodes;
  std::vector<uint32_t> child_ports;
  std::vector<uint16_t> counts;  // reduction state: children received per (node, slot)
  uint32_t slot_mask = 0;        // window in packets, rounded up to a power of two, less one
  std::vector<Member> members;
};

struct State {
  SharpConfig cfg;
  SharpHook hook;
  uint32_t window_packets = 0;
  std::vector<Tree> trees;
  std::vector<SharpTreeInfo> info;
  std::vector<SharpFailure> failures;
  std::vector<uint16_t> port_trees;             // active trees per port
  std::vector<std::vector<uint32_t>> nic_members;  // NIC -> (tree << 16 | member) it belongs to
  std::vector<uint8_t> nic_turn;                // NIC -> 1: the transport goes first next pull
  std::vector<uint32_t> nic_rr;                 // NIC -> round-robin position among its trees
  int active_trees = 0;
  int64_t drops = 0;
};

}  // namespace sharp_detail
}  // namespace fabricsim::net
