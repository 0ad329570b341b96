#include "routing/te_clos.h"

#include <algorithm>
#include <map>
#include <utility>

namespace fabricsim::routing {

namespace {

// Proper edge colouring of a bipartite multigraph with `colors` colours by Kempe-chain swaps.
// Vertices are dense ids; edges (left, right). Returns false if a vertex has no free colour.
bool color_edges(uint32_t vertices, uint32_t colors,
                 const std::vector<std::pair<uint32_t, uint32_t>>& edges,
                 std::vector<int32_t>& color) {
  std::vector<int32_t> at(static_cast<size_t>(vertices) * colors, -1);  // (vertex, colour) -> edge
  auto slot = [&](uint32_t v, uint32_t c) -> int32_t& { return at[static_cast<size_t>(v) * colors + c]; };
  auto other = [&](int32_t e, uint32_t v) {
    return edges[e].first == v ? edges[e].second : edges[e].first;
  };
  auto free_at = [&](uint32_t v) -> int32_t {
    for (uint32_t c = 0; c < colors; ++c) {
      if (slot(v, c) < 0) return static_cast<int32_t>(c);
    }
    return -1;
  };
  color.assign(edges.size(), -1);
  std::vector<int32_t> chain;
  for (size_t e = 0; e < edges.size(); ++e) {
    const auto [u, v] = edges[e];
    const int32_t a = free_at(u), b = free_at(v);
    if (a < 0 || b < 0) return false;
    if (slot(v, a) >= 0) {
      // Swap colours a and b along the alternating path from v that starts with a: afterwards a
      // is free at v, and the path cannot end at u (u has no a-edge, and the path reaches
      // u's side of the graph only through a-edges).
      chain.clear();
      uint32_t w = v;
      uint32_t c = static_cast<uint32_t>(a);
      while (slot(w, c) >= 0) {
        const int32_t f = slot(w, c);
        chain.push_back(f);
        w = other(f, w);
        c = c == static_cast<uint32_t>(a) ? static_cast<uint32_t>(b) : static_cast<uint32_t>(a);
      }
      for (int32_t f : chain) {
        slot(edges[f].first, color[f]) = -1;
        slot(edges[f].second, color[f]) = -1;
      }
      for (int32_t f : chain) {
        color[f] = color[f] == a ? b : a;
        slot(edges[f].first, color[f]) = f;
        slot(edges[f].second, color[f]) = f;
      }
    }
    color[e] = a;
    slot(u, a) = static_cast<int32_t>(e);
    slot(v, a) = static_cast<int32_t>(e);
  }
  return true;
}

}  // namespace

bool clos_color(const net::Network& net,
                const std::vector<std::vector<std::vector<uint32_t>>>& cands,
                std::vector<size_t>& choice) {
  const size_t n = cands.size();
  std::vector<std::vector<uint32_t>> prefix(n);  // uplinks chosen so far
  auto consistent = [&](size_t i, const std::vector<uint32_t>& path) {
    return std::equal(prefix[i].begin(), prefix[i].end(), path.begin());
  };
  auto owner = [&](uint32_t port) { return static_cast<uint32_t>(net.port(port).switch_index); };
  auto entered = [&](uint32_t port) {
    return static_cast<uint32_t>(net.port(net.port(port).peer).switch_index);
  };
  for (size_t stage = 0;; ++stage) {
    // The flows still going up at this tier, with their colour -> (uplink, mirrored downlink).
    std::vector<size_t> flows;
    std::vector<std::vector<std::pair<uint32_t, uint32_t>>> opts;
    for (size_t i = 0; i < n; ++i) {
      if (cands[i].empty() || cands[i][0].size() / 2 <= stage) continue;
      const size_t len = cands[i][0].size();
      std::map<uint32_t, uint32_t> down_of_up;
      for (const std::vector<uint32_t>& p : cands[i]) {
        if (p.size() != len || len % 2 != 0) return false;
        if (!consistent(i, p)) continue;
        auto [it, fresh] = down_of_up.emplace(p[stage], p[len - 1 - stage]);
        if (!fresh && it->second != p[len - 1 - stage]) return false;  // not mirrored
      }
      flows.push_back(i);
      opts.emplace_back(down_of_up.begin(), down_of_up.end());  // colour = rank of the uplink
    }
    if (flows.empty()) break;
    const uint32_t colors = static_cast<uint32_t>(opts[0].size());
    // Vertices: the switch choosing the uplink (left) and the switch the downlink enters
    // (right); each colour must name one port at each vertex, the same for every flow there.
    std::map<uint32_t, uint32_t> left_id, right_id;
    std::map<std::pair<uint32_t, uint32_t>, uint32_t> left_port, right_port;  // (vertex, colour)
    std::map<std::pair<uint32_t, uint32_t>, uint32_t> right_color;            // (vertex, port)
    std::vector<std::pair<uint32_t, uint32_t>> edges;
    for (size_t f = 0; f < flows.size(); ++f) {
      if (opts[f].size() != colors) return false;
      const uint32_t l = left_id.emplace(owner(opts[f][0].first), left_id.size()).first->second;
      const uint32_t r = right_id.emplace(entered(opts[f][0].second), right_id.size()).first->second;
      for (uint32_t c = 0; c < colors; ++c) {
        const auto [up, down] = opts[f][c];
        if (owner(up) != owner(opts[f][0].first) ||
            entered(down) != entered(opts[f][0].second)) {
          return false;
        }
        if (left_port.emplace(std::pair{l, c}, up).first->second != up) return false;
        if (right_port.emplace(std::pair{r, c}, down).first->second != down) return false;
        if (right_color.emplace(std::pair{r, down}, c).first->second != c) return false;
      }
      edges.emplace_back(l, r);
    }
    const uint32_t left_n = static_cast<uint32_t>(left_id.size());
    for (auto& e : edges) e.second += left_n;
    std::vector<int32_t> color;
    if (!color_edges(left_n + static_cast<uint32_t>(right_id.size()), colors, edges, color)) {
      return false;
    }
    for (size_t f = 0; f < flows.size(); ++f) prefix[flows[f]].push_back(opts[f][color[f]].first);
  }
  choice.assign(n, 0);
  for (size_t i = 0; i < n; ++i) {
    for (size_t c = 0; c < cands[i].size(); ++c) {
      if (consistent(i, cands[i][c])) {
        choice[i] = c;
        break;
      }
    }
  }
  return true;
}

}  // namespace fabricsim::routing
