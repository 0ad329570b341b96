// Explicit topologies read from a file (topology.kind: file): the parsed graph, its two text
// forms (fabricsim's native form and the HPCC/ns-3 RDMA simulator's topology.txt), the checks
// every imported graph must pass, the builder into net::Network and the native exporter.
//
// Parsing (file_topology.cpp) is kept apart from building (file_topology_build.cpp) so the
// loader and the resource pre-flight can count a file's nodes without building a Network.
// Formats: docs/topologies.md "Topology files".
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "net/network.h"
#include "topo/topology.h"

namespace fabricsim::topo {

struct FileNode {
  bool is_switch = false;
  std::string name;  // native: the file's name; HPCC: the node id
  int tier = 0;      // 0 = not given (derived from hop distance when built)
  int line = 0;      // where the node was declared
};

// A cable. Values < 0 mean "not given": the scenario's fabric.link.* applies.
struct FileLink {
  uint32_t a = 0, b = 0;  // indexes into TopologyFile::nodes
  int64_t rate_bps = -1;
  double cable_m = -1;    // the file's delay is turned into the cable length with that delay
  double loss_rate = -1;
  int line = 0;
};

struct TopologyFile {
  std::string path;
  std::string format;  // "native" or "hpcc"
  std::vector<FileNode> nodes;  // in file order: the order of add_nic/add_switch
  std::vector<FileLink> links;  // in file order: the order of connect (port numbering)
  int nics() const;
  int switches() const;
  // The first cable of a NIC that the file gives a rate other than `rate_bps` (fabric.link.rate,
  // which a cable without a rate runs at), or nullptr.
  const FileLink* first_nic_link_not_at(int64_t rate_bps) const;
};

// Reads and checks `path` (the format is told by the first token: a number starts an HPCC
// topology.txt). Throws ImportError(path, line, key_path, ...) for unreadable files, malformed
// lines, unknown node names/ids, self-loops, duplicate cables, a NIC without exactly one cable
// and a graph that does not connect (naming the unreachable nodes).
TopologyFile read_topology_file(const std::string& path, const std::string& key_path);
// The same, from text already in memory (tests); `path` only names it in errors.
TopologyFile parse_topology_text(const std::string& text, const std::string& path,
                                 const std::string& key_path);

// Builds `file` into the empty `net` and finalizes it. NIC i (file order) belongs to host
// i / nics_per_host. A switch's tier is the file's, else its hop distance from the nearest NIC
// (switches cabled to NICs are tier 1).
BuiltTopology build_file(const TopologyFile& file, const FabricParams& params,
                         int nics_per_host, net::Network& net);

// Writes a built network in the native form: every node in node-id order, every cable in
// connection order with its rate, length and loss, so reading it back builds the same network.
void write_native(const net::Network& net, std::ostream& out);

}  // namespace fabricsim::topo
