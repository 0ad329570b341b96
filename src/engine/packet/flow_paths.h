// outputs.flows.path: the ports each flow's data packets crossed, for flows.csv's path column.
//
// Recorded by a net::Tap (net/network.h), which the network calls only when one is installed:
// with the option off nothing on the per-hop path changes. Each data packet (a RoCE/IB data or
// READ-response packet, a UET or TCP data segment, a trimmed header) is followed from the NIC
// port that sends it, hop by hop, to the port whose far end is a NIC; the finished sequence of
// ports is one path of its flow (Packet::msg). A packet is identified by (msg, psn); a
// retransmission starts its path afresh at the NIC. A packet dropped on the way leaves no path.
//
// Format (docs/outputs.md): port labels (engine/packet/link_load.h port_label) in hop order joined
// by ';', e.g. "nic0:0->sw0;sw0:4->sw2;sw2:1->sw1;sw1:0->nic2". A flow whose packets took
// several distinct paths (packet spraying, adaptive routing, PLB repaths, a failure reroute)
// lists them in the order first seen, joined by " | ", at most kMaxFlowPaths; beyond those,
// " | +N more" counts the further distinct paths. Empty: no data packet arrived.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "net/network.h"

namespace fabricsim::scenario {

inline constexpr size_t kMaxFlowPaths = 8;

class FlowPaths {
 public:
  explicit FlowPaths(const net::Network& net) : net_(net) {}

  // Every frame a port starts to transmit (the tap's callback); other than data it is ignored.
  void on_transmit(uint32_t port, const net::Packet& pkt);
  // mode: flow (engine/flow/flow_transport.h): message `msg` took the ports `hops`, NIC port
  // first, as a whole path (the flow engine moves no packets to follow).
  void add_path(uint32_t msg, std::vector<uint32_t> hops) { complete(msg, std::move(hops)); }

  // The distinct complete paths of message `msg` as port ids, first seen first (at most
  // kMaxFlowPaths), and how many more distinct paths there were.
  const std::vector<std::vector<uint32_t>>& paths(uint32_t msg) const;
  int64_t more_paths(uint32_t msg) const;
  // The formatted path column (see the header comment).
  std::string text(uint32_t msg) const;

 private:
  struct PerMsg {
    std::vector<std::vector<uint32_t>> paths;
    std::unordered_set<uint64_t> beyond;  // hashes of distinct paths past kMaxFlowPaths
  };
  void complete(uint32_t msg, std::vector<uint32_t>&& hops);

  const net::Network& net_;
  std::unordered_map<uint64_t, std::vector<uint32_t>> open_;  // (msg << 32 | psn) -> hops
  std::vector<PerMsg> msgs_;
};

}  // namespace fabricsim::scenario
