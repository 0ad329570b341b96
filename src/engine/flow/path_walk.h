// The links a message of the flow engine (mode: flow) crosses: the path packet mode would give
// its packets, found by asking the switches' own forwarding (net::Network::forward_port) with the
// header fields its first data packet would carry (the same QP, UDP source port or entropy
// value, the same DLID, the same class).
//
// - Hashed ECMP, InfiniBand LFTs, Dragonfly's minimal/Valiant/UGAL choice, a multi-plane NIC's
//   plane and port selectors: exactly the port forwarding picks (adaptive choices read the
//   switch's queues, which the flow engine leaves empty: they pick their tie member).
// - Spraying (fabric.roce.spray, UET oblivious and REPS): the message's fluid splits evenly over
//   every member of each group on the way, so a port carries the share of the bytes an
//   infinite sequence of uniformly sprayed packets would put on it.
// - Adaptive routing (routing.load_balancing adaptive, flowlet; InfiniBand AR): at each group
//   the member that the fewest flows cross when the message starts (ties to the member
//   forwarding picks): a load-dependent choice made once per message.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/flow/fluid_fabric.h"
#include "net/network.h"
#include "net/packet.h"

namespace fabricsim::scenario {

enum class PathChoice : uint8_t { kForward, kSpray, kLeastLoaded };

class PathWalker {
 public:
  explicit PathWalker(const net::Network& net) : net_(net) {}

  // The crossings of a message from pkt.src_nic to pkt.dst_nic (port ids, weights summing to 1
  // per hop), the NIC's own port first. `load(port)` is the number of flows on a port (for
  // kLeastLoaded). Returns false when some packet would find no route (a switch without an
  // entry for the destination).
  template <typename Load>
  bool walk(net::Packet pkt, PathChoice choice, const Load& load,
            std::vector<FluidFabric::Crossing>& out);

 private:
  const net::Network& net_;
  // The ports of the current and the next hop, with the packet as it reaches each.
  std::vector<FluidFabric::Crossing> layer_;
  std::vector<net::Packet> layer_pkts_;
  std::vector<FluidFabric::Crossing> next_;
  std::vector<net::Packet> next_pkts_;
  static void merge(std::vector<FluidFabric::Crossing>& v, uint32_t port, double w);
  // Into next_ (merged by port: the first packet state to reach a port is kept).
  void add_next(uint32_t port, double w, const net::Packet& pkt);
};

template <typename Load>
bool PathWalker::walk(net::Packet pkt, PathChoice choice, const Load& load,
                      std::vector<FluidFabric::Crossing>& out) {
  out.clear();
  layer_.clear();
  layer_pkts_.clear();
  layer_.push_back({net_.nic_port(pkt.src_nic), 1.0});
  layer_pkts_.push_back(pkt);
  // Paths are loop-free and at most a few dozen hops; the bound only stops a broken table.
  for (int hop = 0; hop < 256 && !layer_.empty(); ++hop) {
    next_.clear();
    next_pkts_.clear();
    for (size_t i = 0; i < layer_.size(); ++i) {
      const FluidFabric::Crossing c = layer_[i];
      merge(out, c.link, c.weight);
      const net::Port& p = net_.port(c.link);
      if (p.far_is_nic) {
        if (p.far_index != pkt.dst_nic) return false;
        continue;
      }
      const uint32_t sw = p.far_index;
      const auto in_local = static_cast<uint32_t>(p.peer - net_.switch_at(sw).first_port);
      // The packet as this switch forwards it: a Dragonfly switch may set its Valiant bit or
      // move its class, and the next switches see that.
      net::Packet k = layer_pkts_[i];
      const uint32_t fwd = net_.forward_port(sw, in_local, k);
      if (fwd == net::kNoPort) return false;
      const uint32_t* members = nullptr;
      const uint32_t n = choice == PathChoice::kForward ? 1 : net_.egress_members(sw, k, &members);
      if (n <= 1) {
        add_next(fwd, c.weight, k);
      } else if (choice == PathChoice::kSpray) {
        for (uint32_t m = 0; m < n; ++m) add_next(members[m], c.weight / n, k);
      } else {
        uint32_t best = fwd;
        auto best_load = load(fwd);
        for (uint32_t m = 0; m < n; ++m) {
          const auto l = load(members[m]);
          if (l < best_load) {
            best = members[m];
            best_load = l;
          }
        }
        add_next(best, c.weight, k);
      }
    }
    layer_.swap(next_);
    layer_pkts_.swap(next_pkts_);
  }
  return layer_.empty();
}

}  // namespace fabricsim::scenario
