// Max-min fair fluid sharing of the fabric's links (mode: flow, docs/modes.md). Every active flow
// crosses a set of links, each with a weight: 1 for a flow on one path, the share of its bytes
// for a sprayed flow whose fluid splits over several paths. Rates are max-min fair under
// sum(weight x rate) <= capacity per link (progressive filling, Bertsekas & Gallager, "Data
// Networks", 2nd ed., §6.5.2, with weighted crossings).
//
// Incremental: arrivals and departures mark their links dirty; reshare(now) re-fills only the
// connected component of the sharing graph (links <-> flows) that holds a dirty link. A change
// cannot move the max-min rates of a flow in another component (they share no constraint), so
// the result equals a whole-fabric re-fill. All arrivals and departures of one instant cost one
// re-fill (the owner calls reshare once per instant).
//
// Each flow has at most one pending end event (take_ends lists the flows whose event the owner
// must schedule): when a new rate moves the end earlier a new event is asked for; when it moves
// later, the pending one is left and on_end() reports it early, asking again for the true end.
// So a finished flow has no event left and its id can be reused at once.
//
// Time is integer picoseconds, rates bits per second, remaining bytes a double brought up to
// date at every re-fill of the flow's component. Deterministic: components are walked in the
// order of the dirty list and of each link's flow list, ties in the filling broken by link id.
#pragma once

#include <cstdint>
#include <vector>

namespace fabricsim::scenario {

class FluidFabric {
 public:
  struct Crossing {
    uint32_t link = 0;
    double weight = 1.0;
  };

  // One capacity per link (bits per second); REQUIRES: every capacity >= 0 (0: a link that
  // carries nothing, e.g. a failed cable; flows on it crawl at a token 1 b/s).
  explicit FluidFabric(std::vector<double> capacity_bps);

  // A flow of `size_bytes` (> 0) over c[0..n) (each link at most once) becomes active at
  // now_ps; it gets its rate at the next reshare(). Returns its id (ids are reused).
  // `share` > 1: the flow counts as that many flows of size_bytes / share each moving together
  // (its crossings' weights already multiplied by share): its rate is share x its filling level.
  uint32_t add(const Crossing* c, int n, int64_t size_bytes, uint64_t tag, int64_t now_ps,
               double share = 1.0);
  // Re-fills the components that changed since the last call (arrivals, departures).
  void reshare(int64_t now_ps);
  // A link's capacity changes (a failed cable: 0, its flows stall at a token rate until they
  // are re-routed; back up: its rate again). Takes effect at the next reshare().
  void set_capacity(uint32_t link, double capacity_bps);
  double capacity_bps(uint32_t link) const { return links_[link].capacity_bps; }
  // Moves an active flow onto other links at now_ps, keeping what it has left to send (a
  // re-route after a failure or a routing change). Takes effect at the next reshare().
  // Returns the bytes it had left.
  double reroute(uint32_t flow, const Crossing* c, int n, int64_t now_ps);
  bool active(uint32_t flow) const { return flow < flows_.size() && flows_[flow].active; }
  // fn(link, weight) for each link flow `flow` crosses now, in the order given.
  template <typename Fn>
  void for_each_link(uint32_t flow, const Fn& fn) const {
    for (const Cross& c : flows_[flow].cross) fn(c.link, c.weight);
  }
  bool dirty() const { return !dirty_links_.empty(); }

  // The end event of `flow` fired at now_ps. Returns true when the flow is done (it is removed
  // and its links marked dirty: call reshare); false when its end moved later (take_ends asks
  // for the new event).
  bool on_end(uint32_t flow, int64_t now_ps);

  // A connection's next message continuing where flow `flow` ends: called at the flow's end
  // (now_ps == its end) instead of on_end. When the crossings equal the flow's own (same links
  // and weights in order), the record carries on with `size_bytes` (> 0) and `tag` at the rate
  // it has, and nothing is marked dirty: one flow leaving and one joining the same links in
  // one instant leave every max-min rate as it was, so the component's re-fill is skipped.
  // Returns false (nothing changed) otherwise: the owner then calls on_end and add.
  bool renew(uint32_t flow, const Crossing* c, int n, int64_t size_bytes, uint64_t tag,
             int64_t now_ps, double share = 1.0);
  // Whether flow `flow`'s end is now (its pending event is its true end, not an early one).
  bool ends_at(uint32_t flow, int64_t now_ps) const {
    return active(flow) && flows_[flow].end_ps == now_ps;
  }
  int64_t renewals() const { return renewals_; }

  // A link of the owner's own (not a cable): the fluid DCQCN's rate cap of one connection
  // (engine/flow/fluid_dcqcn.h), a link that only that connection's flows cross. Returns its id.
  uint32_t add_link(double capacity_bps);
  // Watched flows report every re-fill that moved their rate or their bottleneck (take_changed):
  // the fluid DCQCN counts their bytes and looks for congestion there.
  void watch(uint32_t flow) { flows_[flow].watched = true; }
  std::vector<uint32_t>& take_changed() { return changed_; }
  // Watched links are listed (take_changed_links) whenever their component is re-filled or
  // loses its last flow: the fluid DCQCN's queue at a switch port follows its flows' rates.
  void watch_link(uint32_t link) { links_[link].watched = true; }
  std::vector<uint32_t>& take_changed_links() { return changed_links_; }
  // fn(flow, weight) for each flow crossing `link` now.
  template <typename Fn>
  void for_each_flow(uint32_t link, const Fn& fn) const {
    const Link& l = links_[link];
    for (const uint32_t f : l.flows) fn(f, flows_[f].cross[crossing_index(f, link)].weight);
  }
  // The summed weights of the flows crossing `link` now (the channels a NIC's port serves).
  double weight_on(uint32_t link) const { return links_[link].weight; }
  // The flow's first crossing (its NIC's port) and last (the fluid DCQCN's cap, appended last).
  Crossing first_crossing(uint32_t flow) const {
    const Cross& c = flows_[flow].cross.front();
    return {c.link, c.weight};
  }
  Crossing last_crossing(uint32_t flow) const {
    const Cross& c = flows_[flow].cross.back();
    return {c.link, c.weight};
  }
  // The link whose filling level fixed the flow's rate in the last re-fill (its bottleneck).
  uint32_t bottleneck(uint32_t flow) const { return flows_[flow].bottleneck; }
  // Bytes (of one of the `share` flows it stands for) the flow has left at now_ps >= the time of
  // its last re-fill, at the rate it has.
  double remaining_bytes(uint32_t flow, int64_t now_ps) const;

  // Flows whose end event the owner must schedule, with the time (cleared by the caller).
  struct EndEvent {
    uint32_t flow;
    int64_t time_ps;
  };
  std::vector<EndEvent>& take_ends() { return ends_; }

  uint64_t tag(uint32_t flow) const { return flows_[flow].tag; }
  double rate_bps(uint32_t flow) const { return flows_[flow].rate_bps; }
  uint32_t active_flows() const { return active_; }
  // Flows crossing a link now (the adaptive path choice's load).
  uint32_t crossings(uint32_t link) const { return static_cast<uint32_t>(links_[link].flows.size()); }
  uint32_t flows_allocated() const { return static_cast<uint32_t>(flows_.size()); }
  // Bytes of one flow record without its crossings (the pre-flight, preflight/resources.cpp).
  static constexpr size_t flow_record_bytes();
  // Bytes per crossing: the flow's and the link's list entries.
  static constexpr size_t kCrossingBytes = 16 + sizeof(uint32_t);
  // Work counters for docs/performance.md: re-fills, and flow-crossings they visited.
  int64_t refills() const { return refills_; }
  int64_t refill_crossings() const { return refill_crossings_; }
  int64_t largest_component_flows() const { return largest_component_; }

 private:
  struct Cross {
    uint32_t link;
    uint32_t pos;  // index in the link's flow list
    double weight;
  };
  struct Flow {
    std::vector<Cross> cross;  // reused when the record is recycled
    double remaining_bytes = 0;
    double rate_bps = 0;
    double prev_rate_bps = 0;  // filling scratch: the rate before the re-fill
    int64_t last_ps = 0;    // remaining_bytes is as of this time
    int64_t end_ps = -1;    // when remaining reaches 0 at rate_bps (-1: not rated yet)
    int64_t event_ps = -1;  // the pending end event (-1: none)
    uint64_t tag = 0;
    uint32_t mark = 0;      // component walk epoch
    uint32_t bottleneck = 0;       // the link that froze it in the last re-fill
    uint32_t prev_bottleneck = 0;  // filling scratch
    bool frozen = false;    // filling scratch
    bool active = false;
    bool watched = false;   // re-fills that move it are listed in changed_
  };
  struct Link {
    double capacity_bps = 0;
    std::vector<uint32_t> flows;
    double weight = 0;  // summed over flows (link_in / unlink)
    // filling scratch
    double left_bps = 0;
    int32_t unfrozen = 0;
    double unfrozen_weight = 0;
    uint32_t mark = 0;
    uint32_t version = 0;
    bool watched = false;
  };
  size_t crossing_index(uint32_t flow, uint32_t link) const {
    const std::vector<Cross>& c = flows_[flow].cross;
    size_t i = 0;
    while (c[i].link != link) ++i;
    return i;
  }

  void advance(Flow& f, int64_t now_ps);
  void fill(int64_t now_ps);  // progressive filling over comp_links_ / comp_flows_
  void remove(uint32_t flow);
  void unlink(uint32_t flow);  // takes the flow off its links' lists, marking them dirty
  void link_in(uint32_t flow, const Crossing* c, int n);
  void set_end(uint32_t id, int64_t now_ps);

  std::vector<Link> links_;
  std::vector<Flow> flows_;
  std::vector<uint32_t> free_;
  uint32_t active_ = 0;
  std::vector<uint32_t> dirty_links_;
  std::vector<EndEvent> ends_;
  std::vector<uint32_t> changed_;
  std::vector<uint32_t> changed_links_;
  uint32_t epoch_ = 0;
  // scratch
  std::vector<uint32_t> comp_links_;
  std::vector<uint32_t> comp_flows_;
  struct HeapEntry {
    double level;
    uint32_t link;
    uint32_t version;
  };
  std::vector<HeapEntry> heap_;
  int64_t refills_ = 0;
  int64_t refill_crossings_ = 0;
  int64_t largest_component_ = 0;
  int64_t renewals_ = 0;
};

constexpr size_t FluidFabric::flow_record_bytes() { return sizeof(Flow); }

}  // namespace fabricsim::scenario
