// SHARP's Aggregation Manager (net/sharp.h): builds a streaming-aggregation tree for a set of
// NICs. The real sharp_am reads the SM's fat-tree (it needs updn / ftree routing, SHARP 3.3.0
// "Setting up") and allocates trees per job; here the tree is
//   leaves:  the switches cabled to the NICs,
//   root:    the first switch, by (tier, index), that reaches every leaf switch going only down
//            (to lower tiers) over ports with a free tree slot,
//   edges:   that search's breadth-first tree, in port order (so the result is deterministic).
// Every port a tree uses, the NICs' own included, counts one tree against max_trees_per_port.
#include <algorithm>
#include <string>

#include "net/network.h"

namespace fabricsim::net {

using sharp_detail::Member;
using sharp_detail::State;
using sharp_detail::Tree;
using sharp_detail::TreeSwitch;

int Network::sharp_build_tree(const uint32_t* nics, int n) {
  if (!sharp_) return -1;
  State& st = *sharp_;
  const auto limit = static_cast<uint16_t>(std::max(st.cfg.max_trees_per_port, 0));
  auto fail = [&](const std::string& why) {
    st.failures.push_back(SharpFailure{sched_.now(), why});
    return -1;
  };
  if (n <= 0) return fail("no NICs given");
  if (dfly_groups_ > 0) {
    return fail("the topology is a Dragonfly: trees are built on up/down (fat-tree) fabrics only");
  }
  if (st.active_trees >= st.cfg.max_trees) {
    return fail("the subnet already has max_trees=" + std::to_string(st.cfg.max_trees) + " trees");
  }
  std::vector<uint32_t> sorted(nics, nics + n);
  std::sort(sorted.begin(), sorted.end());
  if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end() ||
      sorted.back() >= nic_port_.size()) {
    return fail("NIC list has duplicates or NICs out of range");
  }
  auto free_slot = [&](uint32_t port) { return st.port_trees[port] < limit && ports_[port].up; };
  std::vector<uint32_t> leaves;
  for (int i = 0; i < n; ++i) {
    const uint32_t nic = nics[i];
    if (!free_slot(nic_port_[nic]) || !free_slot(nic_switch_port_[nic])) {
      return fail("NIC " + std::to_string(nic) + ": its link already carries " +
                  std::to_string(st.port_trees[nic_port_[nic]]) +
                  " tree(s) (max_trees_per_port=" + std::to_string(limit) + ")");
    }
    leaves.push_back(static_cast<uint32_t>(ports_[nic_switch_port_[nic]].switch_index));
  }
  std::sort(leaves.begin(), leaves.end());
  leaves.erase(std::unique(leaves.begin(), leaves.end()), leaves.end());
  int top_leaf_tier = 0;
  for (const uint32_t l : leaves) top_leaf_tier = std::max(top_leaf_tier, switches_[l].tier);

  std::vector<uint32_t> candidates;
  for (uint32_t s = 0; s < switches_.size(); ++s) {
    if (switches_[s].tier >= top_leaf_tier) candidates.push_back(s);
  }
  std::stable_sort(candidates.begin(), candidates.end(), [&](uint32_t a, uint32_t b) {
    return switches_[a].tier < switches_[b].tier;
  });
  // parent_port[s]: the port of s towards its parent in the search from the candidate root.
  std::vector<uint32_t> parent_port(switches_.size(), kNoPort);
  std::vector<uint8_t> seen(switches_.size(), 0);
  std::vector<uint32_t> queue;
  int root = -1;
  for (const uint32_t r : candidates) {
    std::fill(seen.begin(), seen.end(), 0);
    queue.assign(1, r);
    seen[r] = 1;
    parent_port[r] = kNoPort;
    for (size_t q = 0; q < queue.size(); ++q) {
      const Switch& u = switches_[queue[q]];
      for (uint32_t k = 0; k < u.num_ports; ++k) {
        const uint32_t down = u.first_port + k;
        const Port& far = ports_[ports_[down].peer];
        if (far.is_nic) continue;
        const auto v = static_cast<uint32_t>(far.switch_index);
        if (seen[v] || switches_[v].tier >= u.tier) continue;
        if (!free_slot(down) || !free_slot(ports_[down].peer)) continue;
        seen[v] = 1;
        parent_port[v] = ports_[down].peer;
        queue.push_back(v);
      }
    }
    if (std::all_of(leaves.begin(), leaves.end(), [&](uint32_t l) { return seen[l] != 0; })) {
      root = static_cast<int>(r);
      break;
    }
  }
  if (root < 0) {
    return fail("no switch joins the leaf switches of " + std::to_string(n) +
                " NICs with a free tree slot on every port (max_trees_per_port=" +
                std::to_string(limit) + ")");
  }

  // The tree's switches: every leaf's path up to the root.
  std::vector<uint32_t> members_sw{static_cast<uint32_t>(root)};
  std::vector<uint8_t> in_tree(switches_.size(), 0);
  in_tree[root] = 1;
  for (const uint32_t l : leaves) {
    for (uint32_t s = l; !in_tree[s]; s = static_cast<uint32_t>(ports_[ports_[parent_port[s]].peer].switch_index)) {
      in_tree[s] = 1;
      members_sw.push_back(s);
    }
  }
  std::sort(members_sw.begin() + 1, members_sw.end());

  Tree t;
  t.id = static_cast<int>(st.trees.size());
  t.active = true;
  uint32_t slots = 1;
  while (slots < st.window_packets) slots <<= 1;
  t.slot_mask = slots - 1;
  t.node_of_switch.assign(switches_.size(), -1);
  for (size_t i = 0; i < members_sw.size(); ++i) {
    t.node_of_switch[members_sw[i]] = static_cast<int32_t>(i);
  }
  std::vector<std::vector<uint32_t>> children(members_sw.size());
  SharpTreeInfo info;
  info.id = t.id;
  info.active = true;
  info.root_switch = static_cast<uint32_t>(root);
  info.switches = members_sw;
  for (size_t i = 1; i < members_sw.size(); ++i) {
    const uint32_t up = parent_port[members_sw[i]];
    const uint32_t down = ports_[up].peer;
    children[t.node_of_switch[ports_[down].switch_index]].push_back(down);
    info.ports.push_back(up);
    info.ports.push_back(down);
  }
  for (int i = 0; i < n; ++i) {
    const uint32_t down = nic_switch_port_[nics[i]];
    children[t.node_of_switch[ports_[down].switch_index]].push_back(down);
    info.ports.push_back(down);
    info.ports.push_back(nic_port_[nics[i]]);
  }
  for (size_t i = 0; i < members_sw.size(); ++i) {
    std::sort(children[i].begin(), children[i].end());
    TreeSwitch ts;
    ts.sw = members_sw[i];
    ts.parent_port = i == 0 ? kNoPort : parent_port[members_sw[i]];
    ts.first_child = static_cast<uint32_t>(t.child_ports.size());
    ts.num_children = static_cast<uint32_t>(children[i].size());
    ts.first_count = static_cast<uint32_t>(i * slots);
    t.child_ports.insert(t.child_ports.end(), children[i].begin(), children[i].end());
    t.nodes.push_back(ts);
  }
  t.counts.assign(members_sw.size() * slots, 0);
  for (int i = 0; i < n; ++i) {
    Member m;
    m.nic = nics[i];
    st.nic_members[nics[i]].push_back(static_cast<uint32_t>(t.id) << 16 | static_cast<uint32_t>(i));
    t.members.push_back(std::move(m));
    info.nics.push_back(nics[i]);
  }
  std::sort(info.ports.begin(), info.ports.end());
  for (const uint32_t p : info.ports) ++st.port_trees[p];
  ++st.active_trees;
  st.trees.push_back(std::move(t));
  st.info.push_back(std::move(info));
  return st.trees.back().id;
}

void Network::sharp_release_tree(int tree) {
  if (!sharp_ || tree < 0 || static_cast<size_t>(tree) >= sharp_->trees.size()) return;
  State& st = *sharp_;
  Tree& t = st.trees[tree];
  if (!t.active) return;
  t.active = false;
  st.info[tree].active = false;
  for (const uint32_t p : st.info[tree].ports) --st.port_trees[p];
  for (const Member& m : t.members) {
    std::vector<uint32_t>& mine = st.nic_members[m.nic];
    std::erase_if(mine, [&](uint32_t code) { return (code >> 16) == static_cast<uint32_t>(tree); });
    st.nic_rr[m.nic] = 0;
  }
  --st.active_trees;
}

}  // namespace fabricsim::net
