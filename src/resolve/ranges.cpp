#include "resolve/ranges.h"

#include <algorithm>
#include <cstdio>
#include <string>
#include <unordered_map>

#include "core/checked.h"
#include "core/error.h"
#include "core/event_queue.h"
#include "core/units.h"
#include "topo/topology.h"
#include "workload/size_distributions.h"
#include "workload/workload.h"

namespace fabricsim::scenario {
namespace {

// Products are formed in 128 bits, where no product of bounded keys can wrap (the largest,
// all-to-all bytes per NIC, is below 2^30 NICs x 2^40 bytes = 2^70), then compared with the
// limit of the 64- or 32-bit integer the simulator keeps them in.
using Wide = __int128;

// A QP numbers its packets in a uint32 and compares PSNs without wrap-around
// (transport/rc.h); messages are indexed by uint32 (RoceTransport::post).
constexpr Wide kMaxPackets = UINT32_MAX;
constexpr Wide kMaxMessages = UINT32_MAX;

std::string number(Wide v) {
  if (v <= INT64_MAX) return std::to_string(static_cast<int64_t>(v));
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3Lg", static_cast<long double>(v));
  return buf;
}

std::string seconds(Wide ps) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3Lg s", static_cast<long double>(ps) * 1e-12L);
  return buf;
}

Wide ceil_div(Wide a, Wide b) { return (a + b - 1) / b; }

// What a workload asks of the fabric at its busiest point.
struct Demand {
  const char* size_key = "";   // the key that sets the bytes (named for time and PSN limits)
  const char* count_key = "";  // the key that sets the number of messages
  std::string start_key;       // the key that sets latest_start_ps / last_end_ps
  Wide nic_bytes = 0;          // bytes the busiest NIC must send or receive
  Wide latest_start_ps = 0;    // ... after the last message is posted (Poisson: the duration)
  Wide last_end_ps = 0;        // flow list: the latest start plus that flow's serialization
  Wide qp_packets = 0;         // packets of the busiest QP (an upper bound)
  Wide message_packets = 0;    // packets of the largest message
  Wide messages = 0;           // messages the workload posts
  bool expected = false;       // Poisson: the figures are expectations
};

Demand collective_demand(const workload::WorkloadSpec& w, Wide nics, Wide mtu) {
  // Ring all-reduce (workload.cpp): 2(n-1) steps; at each a rank sends one chunk of
  // ceil(S/n) bytes to its successor, cut into ceil(chunk/slice) messages.
  Demand d;
  d.size_key = "workload.size";
  const Wide chunk = ceil_div(w.size_bytes, nics);
  const Wide slices = ceil_div(chunk, w.slice_bytes);
  const Wide steps = 2 * (nics - 1);
  d.count_key = slices > 1 ? "workload.slice" : "hosts.count";
  d.nic_bytes = steps * chunk;
  d.message_packets = ceil_div(std::min<Wide>(chunk, w.slice_bytes), mtu);
  d.qp_packets = steps * (chunk / mtu + slices);  // each message rounds up by < 1 packet
  d.messages = nics * steps * slices;
  return d;
}

Demand flow_list_demand(const workload::WorkloadSpec& w, Wide mtu, Wide rate_bps) {
  Demand d;
  d.size_key = "workload.flows";
  d.count_key = "workload.flows";
  d.messages = static_cast<Wide>(w.flows.size());
  // Keyed by the NICs the list names, not sized by the fabric: 2^30 NICs would be 32 GB.
  std::unordered_map<int, Wide> sent, received;
  std::unordered_map<uint64_t, Wide> pair_packets;
  for (size_t i = 0; i < w.flows.size(); ++i) {
    const workload::ExplicitFlow& f = w.flows[i];
    d.nic_bytes =
        std::max({d.nic_bytes, sent[f.src] += f.size_bytes, received[f.dst] += f.size_bytes});
    const Wide packets = ceil_div(f.size_bytes, mtu);
    d.message_packets = std::max(d.message_packets, packets);
    const uint64_t pair = (static_cast<uint64_t>(f.src) << 32) | static_cast<uint32_t>(f.dst);
    d.qp_packets = std::max(d.qp_packets, pair_packets[pair] += packets);
    // A flow cannot end before it has been clocked onto its first link.
    const Wide end_ps = f.start_ps + ceil_div(Wide{f.size_bytes} * 8 * kPsPerSecond, rate_bps);
    if (end_ps > d.last_end_ps) {
      d.last_end_ps = end_ps;
      d.start_key = "workload.flows[" + std::to_string(i) + "]";
    }
  }
  return d;
}

Demand poisson_demand(const workload::WorkloadSpec& w, Wide nics, Wide mtu, Wide rate_bps) {
  // Each NIC offers load x line rate for the duration (workload.cpp plan_pattern), spread over
  // the n-1 others; the last arrival comes just before the duration ends.
  Demand d;
  d.size_key = w.size_distribution != workload::SizeDistribution::kCustom
                   ? "workload.size_distribution"
               : w.size_cdf.empty() ? "workload.flow_size"
                                    : "workload.size_cdf";
  d.count_key = "workload.duration";
  d.start_key = "workload.duration";
  d.expected = true;
  const int64_t largest = workload::largest_flow_size(w);
  const double mean = workload::mean_size(w);  // as plan_pattern draws the sizes
  const long double offered_bytes = static_cast<long double>(w.load) * rate_bps / 8 *
                                    static_cast<long double>(w.duration_ps) * 1e-12L;
  d.latest_start_ps = w.duration_ps;
  d.nic_bytes = largest;  // the last flow still has to be sent after the duration
  d.message_packets = ceil_div(largest, mtu);
  // Twice the mean share of one destination: a margin for the randomness of the draws.
  d.qp_packets = static_cast<Wide>(2 * offered_bytes / (nics - 1) / static_cast<long double>(mtu));
  d.messages = static_cast<Wide>(static_cast<long double>(nics) * offered_bytes / mean);
  return d;
}

Demand workload_demand(const Scenario& sc) {
  const workload::WorkloadSpec& w = sc.workload;
  const Wide nics = Wide{sc.topology.hosts} * sc.topology.nics_per_host;
  const Wide mtu = sc.roce.mtu_bytes;
  if (w.kind == workload::WorkloadKind::kCollective) return collective_demand(w, nics, mtu);
  Demand d;
  d.size_key = "workload.flow_size";
  d.message_packets = ceil_div(w.flow_size_bytes, mtu);
  d.qp_packets = d.message_packets;  // one flow per pair of NICs
  switch (w.pattern) {
    case workload::PatternKind::kPermutation:
    case workload::PatternKind::kGroupShift:  // also one flow out of and into every NIC
      d.count_key = "hosts.count";
      d.nic_bytes = w.flow_size_bytes;
      d.messages = nics;
      break;
    case workload::PatternKind::kIncast:
      d.count_key = "workload.senders";
      d.nic_bytes = Wide{w.incast_senders} * w.flow_size_bytes;  // into the receiver
      d.messages = w.incast_senders;
      break;
    case workload::PatternKind::kAllToAll:
      d.count_key = "hosts.count";
      d.nic_bytes = (nics - 1) * w.flow_size_bytes;
      d.messages = nics * (nics - 1);
      break;
    case workload::PatternKind::kFlows:
      return flow_list_demand(w, mtu, sc.link.rate_bps);
    case workload::PatternKind::kPoisson:
      return poisson_demand(w, nics, mtu, sc.link.rate_bps);
    case workload::PatternKind::kPingPong: {
      // One message in flight per pair and direction; a NIC of several pairs sends each of them.
      const workload::PingPongSpec& pp = w.ping_pong;
      d.size_key = "workload.ping_pong.size";
      d.count_key = "workload.ping_pong.iterations";
      d.message_packets = ceil_div(pp.size_bytes, mtu);
      d.qp_packets = (Wide{pp.iterations} + pp.warmup) * d.message_packets;
      d.messages = Wide{static_cast<int64_t>(pp.pairs.size())} * (Wide{pp.iterations} + pp.warmup);
      d.nic_bytes = (Wide{pp.iterations} + pp.warmup) * pp.size_bytes;  // each side of one pair
      break;
    }
  }
  return d;
}

}  // namespace

void check_ranges(const Scenario& sc) {
  // The event order keys every event by its owner (a port, NIC or node) in 24 bits
  // (core/event_queue.h): a NIC port and two ports per cable must fit.
  const topo::ShapeCounts shape = topo::shape_counts(sc.topology);
  const Wide ports = Wide{shape.nics} + 2 * Wide{shape.cables};
  if (ports >= kMaxEventOwners) {
    throw InputError(sc.topology.kind == topo::TopologyKind::kFile ? "topology.file" : "hosts.count",
                     "the fabric has " + number(ports) + " ports; events name their port in 24 bits (at most " +
                         number(kMaxEventOwners - 1) + ")");
  }
  const Demand d = workload_demand(sc);
  const Wide rate = sc.link.rate_bps;
  const Wide mtu = sc.roce.mtu_bytes;
  const std::string at_rate = " at " + format_rate(static_cast<double>(rate));
  const std::string limit_psn =
      "; a QP numbers its packets in 32 bits (at most " + number(kMaxPackets) + ")";

  // The least simulated time the run needs: the busiest NIC clocks its bytes out (or in) one
  // after another, after the latest start.
  const std::string horizon =
      "; the simulator's horizon is " + format_time_exact(kSimHorizonPs) + " (int64 picoseconds)";
  const Wide transfer_ps = ceil_div(d.nic_bytes * 8 * kPsPerSecond, rate);
  const Wide need_ps = d.latest_start_ps + transfer_ps;
  if (need_ps > kSimHorizonPs) {
    const bool start_dominates = d.latest_start_ps >= transfer_ps;
    throw InputError(start_dominates ? d.start_key : d.size_key,
                     "needs at least " + seconds(need_ps) + " of simulated time (" +
                         number(d.nic_bytes) + " B through one NIC" + at_rate +
                         (d.latest_start_ps > 0 ? ", after " + seconds(d.latest_start_ps) : "") +
                         ")" + horizon);
  }
  if (d.last_end_ps > kSimHorizonPs) {
    throw InputError(d.start_key, "this flow cannot end before " + seconds(d.last_end_ps) +
                                      " (its start plus its size" + at_rate + ")" + horizon);
  }
  // Before the per-QP check: a tiny collective slice is best named as the count it makes.
  if (d.messages > kMaxMessages) {
    throw InputError(d.count_key, std::string("the workload posts ") +
                                      (d.expected ? "an expected " : "") + number(d.messages) +
                                      " messages; message ids are 32-bit (at most " +
                                      number(kMaxMessages) + ")");
  }
  if (d.message_packets > kMaxPackets) {
    throw InputError(d.size_key, "a message of " + number(d.message_packets) + " packets of " +
                                     number(mtu) + " B is too long" + limit_psn);
  }
  if (d.qp_packets > kMaxPackets) {
    throw InputError(d.size_key, std::string(d.expected ? "an expected " : "") +
                                     number(d.qp_packets) + " packets of " + number(mtu) +
                                     " B between one pair of NICs are too many" + limit_psn);
  }
}

}  // namespace fabricsim::scenario
