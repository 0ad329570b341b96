#include "engine/packet/link_load.h"

#include <algorithm>

namespace fabricsim::scenario {

std::string node_label(const net::Network& net, uint32_t node) {
  const net::Node& n = net.node(node);
  return (n.kind == net::NodeKind::kNic ? "nic" : "sw") + std::to_string(n.index);
}

std::string port_label(const net::Network& net, uint32_t port) {
  const uint32_t from = net.port_node(port), to = net.port_node(net.port(port).peer);
  return node_label(net, from) + ":" + std::to_string(port - net.node_first_port(from)) + "->" +
         node_label(net, to);
}

int port_tier(const net::Network& net, uint32_t port) {
  const net::Port& p = net.port(port);
  return p.is_nic ? 0 : net.switch_at(static_cast<uint32_t>(p.switch_index)).tier;
}

double port_utilization(const net::Network& net, uint32_t port, int64_t span_ps) {
  const double bits = static_cast<double>(net.port_tx_bytes(port)) * 8.0;
  return bits /
         (static_cast<double>(net.port(port).rate_bps) * (static_cast<double>(span_ps) * 1e-12));
}

std::vector<LinkGroupLoad> link_group_loads(const net::Network& net, int64_t span_ps) {
  std::vector<LinkGroupLoad> out;
  if (span_ps <= 0) return out;
  int top = 0;
  for (uint32_t p = 0; p < net.num_ports(); ++p) top = std::max(top, port_tier(net, p));
  // [tier][direction]: sums and maxima over one pass of the ports. When every port of a group
  // runs at one rate (the usual case), mean and imbalance come from integer byte counts, so
  // evenly loaded links give an imbalance of exactly 1 rather than 1 - rounding.
  struct Acc {
    int ports = 0, idle = 0;
    double sum = 0, max = 0;
    int64_t sum_bytes = 0, max_bytes = 0, rate_bps = -1;
    bool one_rate = true;
  };
  std::vector<Acc> up(static_cast<size_t>(top) + 1), down(static_cast<size_t>(top) + 1);
  for (uint32_t p = 0; p < net.num_ports(); ++p) {
    const int from = port_tier(net, p), to = port_tier(net, net.port(p).peer);
    Acc* acc = to == from + 1 ? &up[from] : from == to + 1 ? &down[to] : nullptr;
    if (acc == nullptr) continue;
    const int64_t bytes = net.port_tx_bytes(p);
    const double u = port_utilization(net, p, span_ps);
    ++acc->ports;
    acc->idle += bytes == 0;
    acc->sum += u;
    acc->max = std::max(acc->max, u);
    acc->sum_bytes += bytes;
    acc->max_bytes = std::max(acc->max_bytes, bytes);
    if (acc->rate_bps >= 0 && acc->rate_bps != net.port(p).rate_bps) acc->one_rate = false;
    acc->rate_bps = net.port(p).rate_bps;
  }
  auto emit = [&](int tier, LinkDirection dir, const Acc& a) {
    if (a.ports == 0) return;
    LinkGroupLoad g;
    g.tier = tier;
    g.direction = dir;
    g.ports = a.ports;
    g.idle_ports = a.idle;
    g.max_utilization = a.max;
    if (a.one_rate) {
      g.mean_utilization =
          static_cast<double>(a.sum_bytes) * 8.0 /
          (static_cast<double>(a.rate_bps) * (static_cast<double>(span_ps) * 1e-12)) / a.ports;
      g.imbalance = a.sum_bytes > 0 ? static_cast<double>(a.max_bytes) * a.ports /
                                          static_cast<double>(a.sum_bytes)
                                    : 0;
    } else {
      g.mean_utilization = a.sum / a.ports;
      g.imbalance = g.mean_utilization > 0 ? g.max_utilization / g.mean_utilization : 0;
    }
    out.push_back(g);
  };
  for (int t = 0; t <= top; ++t) emit(t, LinkDirection::kUp, up[t]);
  for (int t = top; t >= 0; --t) emit(t, LinkDirection::kDown, down[t]);
  return out;
}

int64_t last_frame_end_ps(const net::Network& net) {
  // busy_until_ps is the end of the port's latest serialization: frames go out back to back and
  // in time order, so the latest of these is when the last counted byte left its port.
  int64_t end = 0;
  for (uint32_t p = 0; p < net.num_ports(); ++p) {
    if (net.port_tx_bytes(p) > 0) end = std::max(end, net.port(p).busy_until_ps);
  }
  return end;
}

LinkLoads link_loads(const net::Network& net, int64_t first_post_ps, int64_t traffic_end_ps) {
  LinkLoads l;
  if (first_post_ps < 0) return l;
  // The counters hold every frame since the start, and nothing is sent before the first post;
  // the end must cover the last frame, or bytes after it would be divided by too short a span
  // (a failure that destroyed ACKs: the requesters resend after the last flow has finished).
  l.start_ps = first_post_ps;
  l.end_ps = std::max({traffic_end_ps, last_frame_end_ps(net), first_post_ps});
  l.span_ps = l.end_ps - l.start_ps;
  l.groups = link_group_loads(net, l.span_ps);
  return l;
}

}  // namespace fabricsim::scenario
