// Max-min fair fluid sharing (processor sharing over several resources) at message grain: the
// running machine of NVLink, PCIe and host memory (node/gpu_net.h). NVLink/NVSwitch and PCIe
// interleave concurrent transfers at flit / TLP grain, so a message does not hold a link whole:
// every active flow gets its max-min fair share of the resources it crosses (progressive filling,
// Bertsekas & Gallager, "Data Networks", §6.5.2). docs/reference/nccl-at-scale.md §3 derives it.
//
// A flow is one stage of one message crossing a set of resources at once (cut-through: the
// NVSwitch crossbar and PCIe switches forward as bytes arrive, so a tandem is one flow whose rate
// is its share on all of them). Resources come in groups (one per node: NVLink, PCIe and host
// memory never cross nodes); an arrival or departure re-shares only the flows of its group that
// it can reach through shared resources (its connected component: the PCIe switch of one GPU
// and NIC pair holds no resource of another's, so their flows never move each other's rates).
//
// Time is integer picoseconds; rates are bits per second. Remaining bytes are kept in 1/65536
// byte fixed point and brought to the present only when a flow's rate changes (lazily: a flow
// whose share stands keeps the end it was given, so nothing about it needs the present), each
// time re-integerized, so rounding never accumulates into drift.
// Each group has at most one useful pending completion event (its earliest flow end, the top of
// the group's heap of ends): the owner schedules it when take_schedule says so and passes it
// back to on_event, which ignores stale ones by comparing the time. An event's cost is the
// component it re-shares plus log(flows) per changed end, not the group's whole flow count.
// Deterministic: flows finishing together finish in id order, fresh flows are rated in id
// order, and nothing iterates an unordered container. No allocation per event once the vectors
// have grown.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace fabricsim::node {

class PsNetwork {
 public:
  // `capacity_bps` has groups x per_group entries: resource id = group x per_group + local.
  // REQUIRES: every capacity > 0.
  PsNetwork() = default;
  PsNetwork(uint32_t groups, uint32_t per_group, std::vector<int64_t> capacity_bps);

  // Starts a flow of `size_bytes` over `res[0..n)` (ids of one group; a resource listed twice is
  // crossed twice and counts double) at now_ps. cap_bps > 0 caps its rate (0: none).
  // head_start_ps: the flow already drained this long at the share it gets now (the receive side
  // of a NIC, which wrote bytes while the message was on the wire): its remaining bytes start
  // that much lower, possibly at 0 (it then ends at now_ps). Returns the flow id.
  // Arrivals are batched: the flow gets its rate at the group's event at now_ps (take_schedule
  // asks for one), so all arrivals of one instant cost one re-share. With `notify` its tag and
  // rate are then appended to rated().
  // `weight` (>= 1) makes the flow count as that many flows in the max-min share (weighted
  // max-min fairness): a flow that stands for `weight` identical transfers moving in lockstep
  // (the folded channels of a collective, workload/collective_plan.h) gets exactly what they
  // would get together. Its cap, if any, is for the whole flow.
  uint32_t start(const uint32_t* res, int n, int64_t size_bytes, double cap_bps, uint64_t tag,
                 int64_t now_ps, int64_t head_start_ps = 0, bool notify = false,
                 int32_t weight = 1);

  // The group's event for now_ps fired: flows started since the last one get their rates, flows
  // whose end has come finish (their tags are appended to finished(), in flow-id order) and the
  // group is re-shared. A stale event (the group's next event moved since it was scheduled)
  // does nothing.
  void on_event(uint32_t group, int64_t now_ps);

  // Whether the group's next event (now, after an arrival; else its earliest flow end) moved
  // since the last call, and to when: the owner then schedules on_event(group) at *time_ps.
  // Call after start() / on_event().
  bool take_schedule(uint32_t group, int64_t* time_ps);

  // Tags of the flows finished by on_event / start since the caller last cleared it.
  std::vector<uint64_t>& finished() { return finished_; }
  // (tag, rate_bps) of the flows started with `notify` that got their first rate.
  std::vector<std::pair<uint64_t, double>>& rated() { return rated_; }

  double rate_bps(uint32_t flow) const { return flows_[flow].rate_bps; }
  uint32_t group_of(uint32_t resource) const { return resource / per_group_; }
  int64_t capacity_bps(uint32_t resource) const { return res_[resource].capacity_bps; }
  // Bytes that flows started over the resource (whole flows, at their start).
  int64_t bytes(uint32_t resource) const { return res_[resource].bytes; }
  // Time with at least one flow active on the resource, up to now_ps.
  int64_t busy_ps(uint32_t resource, int64_t now_ps) const;
  // The crossings' weights summed (start's `weight`): what the flows on it count for in the
  // share.
  int64_t weight_on(uint32_t resource) const { return res_[resource].weights; }
  uint32_t active_flows(uint32_t group) const { return groups_[group].active; }
  // Flow records ever allocated (reused through a free list): bounded by the peak in flight.
  uint32_t flows_allocated() const { return static_cast<uint32_t>(flows_.size()); }

 private:
  // One crossing of a resource: the flow, and which entry of the flow's res it is (so that a
  // swap-remove updates the moved crossing's pos in O(1), not by searching the flow's list).
  struct Crossing {
    uint32_t flow;
    uint32_t k;
  };
  struct Resource {
    int64_t capacity_bps = 0;
    int64_t bytes = 0;
    int64_t busy_ps = 0;   // closed busy periods
    int64_t since_ps = 0;  // start of the open one while flows is not empty
    int64_t weights = 0;   // the crossings' weights summed (weight_on)
    // max-min scratch (unfrozen, the unfrozen crossings' weights, is 0 outside share())
    double left_bps = 0;
    int32_t unfrozen = 0;
    uint32_t mark = 0;            // component walk epoch
    std::vector<Crossing> flows;  // the flows crossing it now, one entry per crossing
  };
  struct Flow {
    std::vector<uint32_t> res;  // reused when the record is recycled
    std::vector<uint32_t> pos;  // pos[i]: its index in res_[res[i]].flows
    int64_t remaining_q16 = 0;  // bytes x 65536, as of last_ps
    int64_t last_ps = 0;        // remaining is as of this time (the last rate change)
    int64_t end_ps = 0;         // when remaining reaches 0 at the current rate
    double rate_bps = 0;
    double cap_bps = 0;
    int64_t head_start_ps = 0;
    uint64_t tag = 0;
    uint32_t group = 0;
    int32_t weight = 1;  // counts as this many flows in the share (start)
    bool notify = false;
    bool frozen = false;  // fill() scratch: its rate is set this fill
    uint32_t gen = 0;    // bumped at start and at finish: heap entries of an earlier incarnation
                         // (or of a finished flow) no longer match
    uint32_t mark = 0;   // component walk epoch
  };
  // One flow's end as it was when pushed; stale once the flow's end moved or it finished.
  struct End {
    int64_t end_ps;
    uint32_t flow;
    uint32_t gen;
    bool operator>(const End& o) const {
      return end_ps != o.end_ps ? end_ps > o.end_ps : flow > o.flow;
    }
  };
  struct Group {
    uint32_t active = 0;          // live flows
    int64_t pending_ps = -1;      // the event time last handed out by take_schedule
    int64_t arrival_ps = -1;      // >= 0: flows arrived at this time and await a share
    std::vector<uint32_t> dirty;  // resources whose flows changed since the last share
    std::vector<uint32_t> fresh;  // flows started since the last share
    std::vector<End> ends;        // min-heap of ends; may hold stale entries
  };

  bool stale(const End& e) const {
    const Flow& f = flows_[e.flow];
    return f.gen != e.gen || f.end_ps != e.end_ps;
  }
  // A new end for the flow: pushed on its group's heap (compacted when stale entries dominate).
  void push_end(uint32_t flow);
  // Pops stale entries off the top of the group's heap.
  void drop_stale(Group& g);
  // Takes `ps` of draining at the flow's current rate off its remaining bytes.
  static void drain(Flow& f, int64_t ps);
  // Brings the flow's remaining bytes to now_ps at its current rate.
  void bring_to(Flow& f, int64_t now_ps);
  // Progressive filling over the flows of each component of the group that holds a dirty
  // resource; new rates, and new ends for changed rates.
  void share(uint32_t group);
  void fill(const std::vector<uint32_t>& flows);  // one component's flows
  int64_t now_ps_ = 0;  // the instant share() and fill() re-rate at
  void finish(uint32_t flow, int64_t now_ps);
  static int64_t end_after(const Flow& f);  // time left at rate_bps, rounded to nearest ps
  // The filling level at which a capped flow reaches its cap (its rate is level x weight).
  static double cap_level(const Flow& f) { return f.cap_bps / f.weight; }

  uint32_t per_group_ = 0;
  std::vector<Resource> res_;
  std::vector<Flow> flows_;
  std::vector<uint32_t> free_flows_;
  std::vector<Group> groups_;
  std::vector<uint64_t> finished_;
  std::vector<std::pair<uint64_t, double>> rated_;
  // max-min scratch, reused: resources with unfrozen crossings, unfrozen capped flows, flows
  // frozen in the current round
  std::vector<uint32_t> touched_;
  std::vector<uint32_t> unfrozen_;
  std::vector<uint32_t> scratch_;
  std::vector<uint32_t> comp_res_;
  std::vector<uint32_t> comp_flows_;
  std::vector<uint32_t> due_;  // on_event: flows whose end has come
  uint32_t epoch_ = 0;
};

}  // namespace fabricsim::node
