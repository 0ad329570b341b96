// Parsing of topology files (topology.kind: file) into a TopologyFile, and the graph checks
// (one cable per NIC, parallel cables only between switches, connected). Building is in file_topology_build.cpp.
//
// HPCC/ns-3 topology.txt, as alibaba-edu/High-Precision-Congestion-Control reads it
// (simulation/scratch/third.cc at 9f4be2a, lines 693-771; sample simulation/mix/topology.txt):
//   node_num switch_num link_num
//   <switch_num switch node ids>
//   <link_num lines: src dst data_rate link_delay error_rate>, e.g. "0 16 100Gbps 0.001ms 0"
// Nodes 0..node_num-1 that are not switches are hosts (one NIC each). third.cc reads the file
// with operator>> (whitespace-separated tokens), so the switch ids may wrap lines; we read the
// same token stream and keep each token's line for errors; text after the declared links is
// ignored, as third.cc ignores it. data_rate and link_delay are ns-3
// DataRate/Time strings; the units fabricsim parses (Gbps, ms, us, ns...) cover the published
// files. error_rate is a per-packet loss probability (RateErrorModel, ERROR_UNIT_PACKET), the
// same meaning as fabric.link.loss_rate.
//
// Native form, one statement a line, '#' starts a comment:
//   nic NAME
//   switch NAME [tier=N]
//   link A B [rate=400Gbps] [cable=3m | delay=15ns] [loss=0.0001]
#include "topo/file_topology.h"

#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <fstream>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include "core/bounded_file.h"
#include "core/error.h"
#include "core/units.h"
#include "net/config.h"

namespace fabricsim::topo {
namespace {

struct Token {
  std::string text;
  int line;
};

class Parser {
 public:
  Parser(std::string path, std::string key) : path_(std::move(path)), key_(std::move(key)) {}

  [[noreturn]] void fail(int line, const std::string& message) const {
    throw ImportError(path_, line, key_, message);
  }

  static std::vector<std::vector<Token>> lines_of(const std::string& text) {
    std::vector<std::vector<Token>> out;
    std::istringstream in(text);
    std::string line;
    int n = 0;
    while (std::getline(in, line)) {
      ++n;
      const size_t hash = line.find('#');
      if (hash != std::string::npos) line.resize(hash);
      std::istringstream words(line);
      std::vector<Token> toks;
      std::string w;
      while (words >> w) toks.push_back({w, n});
      if (!toks.empty()) out.push_back(std::move(toks));
    }
    return out;
  }

  bool parse_uint(const std::string& s, uint64_t& v) const {
    const char* end = s.data() + s.size();
    const auto r = std::from_chars(s.data(), end, v);
    return r.ec == std::errc() && r.ptr == end;
  }

  int64_t rate(const Token& t, const std::string& text) const {
    const auto r = parse_rate_bps(text);
    if (!r.ok) fail(t.line, "link rate: " + r.error);
    if (r.value <= 0) fail(t.line, "link rate must be > 0, got '" + text + "'");
    return r.value;
  }
  double delay_as_cable_m(const Token& t, const std::string& text) const {
    const auto r = parse_time_ps(text);
    if (!r.ok) fail(t.line, "link delay: " + r.error);
    // The cable whose propagation is this delay (net::LinkConfig keeps lengths, 5 ns/m).
    return static_cast<double>(r.value) / static_cast<double>(net::kPropagationPsPerMetre);
  }
  double probability(const Token& t, const std::string& text) const {
    double v = 0;
    const char* end = text.data() + text.size();
    const auto r = std::from_chars(text.data(), end, v);
    if (r.ec != std::errc() || r.ptr != end || !(v >= 0.0 && v < 1.0)) {
      fail(t.line, "loss rate must be a number in [0, 1), got '" + text + "'");
    }
    return v;
  }

  TopologyFile hpcc(const std::vector<std::vector<Token>>& lines) {
    std::vector<Token> toks;
    for (const auto& l : lines) toks.insert(toks.end(), l.begin(), l.end());
    size_t i = 0;
    auto next = [&](const char* what) -> const Token& {
      if (i >= toks.size()) {
        fail(toks.empty() ? 1 : toks.back().line, std::string("file ends before ") + what);
      }
      return toks[i++];
    };
    auto count = [&](const char* what) -> uint64_t {
      const Token& t = next(what);
      uint64_t v = 0;
      if (!parse_uint(t.text, v) || v > 100'000'000) {
        fail(t.line, std::string("expected ") + what + " (a whole number), got '" + t.text + "'");
      }
      return v;
    };
    const uint64_t nodes = count("the node count");
    const uint64_t switches = count("the switch count");
    const uint64_t links = count("the link count");
    // Checked before anything is allocated: L links touch at most 2L nodes (more would leave
    // one unconnected), and every link takes 5 tokens of the file.
    if (nodes > 2 * links) {
      fail(toks[0].line, std::to_string(nodes) + " nodes cannot be connected by " +
                             std::to_string(links) + " links");
    }
    if (links > toks.size() / 5) {
      fail(toks.back().line, "file ends before the " + std::to_string(links) +
                                 " links the header declares");
    }
    TopologyFile f;
    f.format = "hpcc";
    f.nodes.resize(nodes);
    for (uint64_t n = 0; n < nodes; ++n) {
      f.nodes[n].name = std::to_string(n);
      f.nodes[n].line = toks[0].line;
    }
    auto node_id = [&](const char* what) -> uint32_t {
      const Token& t = next(what);
      uint64_t v = 0;
      if (!parse_uint(t.text, v)) fail(t.line, std::string("expected ") + what + ", got '" + t.text + "'");
      if (v >= nodes) {
        fail(t.line, "unknown node id " + t.text + " (the header declares nodes 0.." +
                         std::to_string(nodes - 1) + ")");
      }
      return static_cast<uint32_t>(v);
    };
    for (uint64_t s = 0; s < switches; ++s) {
      const int line = i < toks.size() ? toks[i].line : 0;
      const uint32_t id = node_id("a switch node id");
      if (f.nodes[id].is_switch) fail(line, "switch id " + std::to_string(id) + " listed twice");
      f.nodes[id].is_switch = true;
      f.nodes[id].line = line;
    }
    for (uint64_t l = 0; l < links; ++l) {
      FileLink link;
      link.line = i < toks.size() ? toks[i].line : 0;
      link.a = node_id("a link's source node id");
      link.b = node_id("a link's destination node id");
      const Token& r = next("a link's data rate");
      const Token& d = next("a link's delay");
      const Token& e = next("a link's error rate");
      if (r.line != link.line || e.line != link.line) {
        fail(link.line, "a link line is 'src dst rate delay error_rate', like "
                        "'0 16 100Gbps 0.001ms 0'");
      }
      link.rate_bps = rate(r, r.text);
      link.cable_m = delay_as_cable_m(d, d.text);
      link.loss_rate = probability(e, e.text);
      f.links.push_back(link);
    }
    // What follows the declared links is ignored, as third.cc (which reads exactly link_num
    // links) ignores it: the published simulation/mix/topology.txt has 199 more lines there.
    return f;
  }

  TopologyFile native(const std::vector<std::vector<Token>>& lines) {
    TopologyFile f;
    f.format = "native";
    std::unordered_map<std::string, uint32_t> ids;
    auto lookup = [&](const Token& t) {
      const auto it = ids.find(t.text);
      if (it == ids.end()) fail(t.line, "unknown node '" + t.text + "' (declare it with nic or switch first)");
      return it->second;
    };
    for (const auto& toks : lines) {
      const std::string& word = toks[0].text;
      const int line = toks[0].line;
      if (word == "nic" || word == "switch") {
        if (toks.size() < 2) fail(line, word + " needs a name: '" + word + " NAME'");
        FileNode n;
        n.is_switch = word == "switch";
        n.name = toks[1].text;
        n.line = line;
        for (size_t k = 2; k < toks.size(); ++k) {
          uint64_t tier = 0;
          if (n.is_switch && toks[k].text.rfind("tier=", 0) == 0 &&
              parse_uint(toks[k].text.substr(5), tier) && tier >= 1 && tier <= 16) {
            n.tier = static_cast<int>(tier);
          } else {
            fail(line, "unexpected '" + toks[k].text + "'; expected " +
                           (n.is_switch ? "'switch NAME [tier=N]' with 1 <= N <= 16" : "'nic NAME'"));
          }
        }
        if (!ids.emplace(n.name, static_cast<uint32_t>(f.nodes.size())).second) {
          fail(line, "node '" + n.name + "' declared twice");
        }
        f.nodes.push_back(std::move(n));
      } else if (word == "link") {
        if (toks.size() < 3) fail(line, "expected 'link A B [rate=R] [cable=L | delay=T] [loss=P]'");
        FileLink link;
        link.line = line;
        link.a = lookup(toks[1]);
        link.b = lookup(toks[2]);
        for (size_t k = 3; k < toks.size(); ++k) {
          const std::string& t = toks[k].text;
          const size_t eq = t.find('=');
          const std::string key = eq == std::string::npos ? t : t.substr(0, eq);
          const std::string val = eq == std::string::npos ? "" : t.substr(eq + 1);
          if (key == "rate" && link.rate_bps < 0) {
            link.rate_bps = rate(toks[k], val);
          } else if ((key == "cable" || key == "delay") && link.cable_m < 0) {
            if (key == "delay") {
              link.cable_m = delay_as_cable_m(toks[k], val);
            } else {
              const auto r = parse_length_m(val);
              if (!r.ok) fail(line, "link cable: " + r.error);
              link.cable_m = r.value;
            }
          } else if (key == "loss" && link.loss_rate < 0) {
            link.loss_rate = probability(toks[k], val);
          } else {
            fail(line, "unexpected '" + t + "'; expected 'link A B [rate=R] [cable=L | delay=T] "
                       "[loss=P]', each at most once");
          }
        }
        f.links.push_back(link);
      } else {
        fail(line, "unknown statement '" + word + "'; expected nic, switch or link");
      }
    }
    return f;
  }

  // One cable per NIC, no self-loops, at least 2 NICs, one component. Parallel cables between
  // two switches are legal (a rail fabric's leaf has several uplinks to one spine; ECMP spreads
  // over them as over any equal-cost ports); a second cable to a NIC is refused here.
  void check(const TopologyFile& f) const {
    const int first_line = f.nodes.empty() ? 1 : f.nodes.front().line;
    if (f.nics() < 2) fail(first_line, "a topology needs at least 2 NICs, got " + std::to_string(f.nics()));
    std::vector<std::vector<uint32_t>> adj(f.nodes.size());
    std::unordered_set<uint64_t> seen;
    for (const FileLink& l : f.links) {
      if (l.a == l.b) fail(l.line, "node '" + f.nodes[l.a].name + "' cabled to itself");
      const uint64_t key = (uint64_t{std::min(l.a, l.b)} << 32) | std::max(l.a, l.b);
      const bool to_nic = !f.nodes[l.a].is_switch || !f.nodes[l.b].is_switch;
      if (!seen.insert(key).second && to_nic) {
        fail(l.line, "duplicate link between '" + f.nodes[l.a].name + "' and '" +
                         f.nodes[l.b].name + "'");
      }
      adj[l.a].push_back(l.b);
      adj[l.b].push_back(l.a);
    }
    for (size_t n = 0; n < f.nodes.size(); ++n) {
      if (!f.nodes[n].is_switch && adj[n].size() != 1) {
        fail(f.nodes[n].line, "NIC '" + f.nodes[n].name + "' has " + std::to_string(adj[n].size()) +
                                  " links; a NIC needs exactly 1");
      }
    }
    std::vector<char> reached(f.nodes.size(), 0);
    std::vector<uint32_t> stack{0};
    reached[0] = 1;
    while (!stack.empty()) {
      const uint32_t n = stack.back();
      stack.pop_back();
      for (uint32_t m : adj[n]) {
        if (!reached[m]) {
          reached[m] = 1;
          stack.push_back(m);
        }
      }
    }
    std::string missing;
    int count = 0, line = 0;
    for (size_t n = 0; n < f.nodes.size(); ++n) {
      if (reached[n]) continue;
      if (count == 0) line = f.nodes[n].line;
      if (count < 10) missing += (count ? ", " : "") + f.nodes[n].name;
      ++count;
    }
    if (count > 0) {
      if (count > 10) missing += " and " + std::to_string(count - 10) + " more";
      fail(line, "the topology does not connect: " + std::to_string(count) +
                     " node(s) unreachable from '" + f.nodes[0].name + "': " + missing);
    }
  }

 private:
  std::string path_;
  std::string key_;
};

}  // namespace

int TopologyFile::nics() const {
  return static_cast<int>(std::count_if(nodes.begin(), nodes.end(),
                                        [](const FileNode& n) { return !n.is_switch; }));
}
int TopologyFile::switches() const { return static_cast<int>(nodes.size()) - nics(); }

const FileLink* TopologyFile::first_nic_link_not_at(int64_t rate_bps) const {
  for (const FileLink& l : links) {
    if (nodes[l.a].is_switch && nodes[l.b].is_switch) continue;
    if (l.rate_bps >= 0 && l.rate_bps != rate_bps) return &l;
  }
  return nullptr;
}

TopologyFile parse_topology_text(const std::string& text, const std::string& path,
                                 const std::string& key_path) {
  Parser p(path, key_path);
  const auto lines = Parser::lines_of(text);
  if (lines.empty()) p.fail(1, "empty topology file");
  const std::string& first = lines[0][0].text;
  const bool hpcc = std::isdigit(static_cast<unsigned char>(first[0])) != 0;
  TopologyFile f = hpcc ? p.hpcc(lines) : p.native(lines);
  f.path = path;
  p.check(f);
  return f;
}

TopologyFile read_topology_file(const std::string& path, const std::string& key_path) {
  // Only a regular file of bounded size: /dev/zero or a FIFO would never end. 256 MiB holds
  // ~8 M links of ~30 bytes, far beyond any fabric this simulator builds in memory.
  const std::string text = read_bounded_file(path, int64_t{256} << 20, key_path, "topology file");
  return parse_topology_text(text, path, key_path);
}

}  // namespace fabricsim::topo
