#include "engine/packet/flow_paths.h"

#include <algorithm>

#include "engine/packet/link_load.h"

namespace fabricsim::scenario {

void FlowPaths::on_transmit(uint32_t port, const net::Packet& pkt) {
  if (pkt.type != net::PacketType::kData) return;
  const uint64_t key = (static_cast<uint64_t>(pkt.msg) << 32) | pkt.psn;
  const net::Port& p = net_.port(port);
  std::vector<uint32_t>* hops = nullptr;
  if (p.is_nic) {  // the first hop (or a retransmission): a new path
    hops = &open_[key];
    hops->clear();
  } else {
    auto it = open_.find(key);
    if (it == open_.end()) return;  // not seen leaving its NIC: nothing to attach it to
    hops = &it->second;
  }
  hops->push_back(port);
  if (p.far_is_nic) {  // the last hop: the path is complete
    auto it = open_.find(key);
    std::vector<uint32_t> done = std::move(it->second);
    open_.erase(it);
    complete(pkt.msg, std::move(done));
  }
}

void FlowPaths::complete(uint32_t msg, std::vector<uint32_t>&& hops) {
  if (msg >= msgs_.size()) msgs_.resize(static_cast<size_t>(msg) + 1);
  PerMsg& m = msgs_[msg];
  if (std::find(m.paths.begin(), m.paths.end(), hops) != m.paths.end()) return;
  if (m.paths.size() < kMaxFlowPaths) {
    m.paths.push_back(std::move(hops));
    return;
  }
  // FNV-1a over the port ids: only to count distinct paths past the cap.
  uint64_t h = 1469598103934665603ull;
  for (const uint32_t port : hops) h = (h ^ port) * 1099511628211ull;
  m.beyond.insert(h);
}

const std::vector<std::vector<uint32_t>>& FlowPaths::paths(uint32_t msg) const {
  static const std::vector<std::vector<uint32_t>> kNone;
  return msg < msgs_.size() ? msgs_[msg].paths : kNone;
}

int64_t FlowPaths::more_paths(uint32_t msg) const {
  return msg < msgs_.size() ? static_cast<int64_t>(msgs_[msg].beyond.size()) : 0;
}

std::string FlowPaths::text(uint32_t msg) const {
  std::string out;
  for (const std::vector<uint32_t>& path : paths(msg)) {
    if (!out.empty()) out += " | ";
    for (size_t i = 0; i < path.size(); ++i) {
      if (i > 0) out += ";";
      out += port_label(net_, path[i]);
    }
  }
  const int64_t more = more_paths(msg);
  if (more > 0) out += " | +" + std::to_string(more) + " more";
  return out;
}

}  // namespace fabricsim::scenario
