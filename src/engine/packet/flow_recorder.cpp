#include "engine/packet/flow_recorder.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "engine/packet/simulation.h"
#include "net/plane_choice.h"

namespace fabricsim::scenario {

FlowRecorder::FlowRecorder(const Simulation& sim, const FlowHarvest& how) : sim_(sim), how_(how) {
  const Scenario& sc = sim.scenario();
  // A per-packet plane split sends every message over all P planes at once, up to the NIC's own
  // rate (topo/multi_plane.h): its ideal FCT is at that rate.
  packet_split_ = sc.topology.planes > 1 &&
                  sc.topology.plane_split == static_cast<uint8_t>(net::PlaneSplit::kPacket);
  // trace.json (pattern runs) draws every k-th flow by id (output/chrome_trace.h); k is fixed
  // before the first message by the number the workload plans.
  if (sc.trace.enabled && sim.gpu_workload() == nullptr) {
    trace_stride_ = flow_sample(sim.workload().total_messages(), sc.trace.max_flows).stride;
  }
  sizes_ = sc.capture.max_frames > 0;
  if (!how_.csv_dir.empty()) {
    csv_ = std::make_unique<FlowsCsvWriter>(how_.csv_dir, sim.flow_paths() != nullptr);
  }
}

void FlowRecorder::add(uint32_t id, const transport::MessageRecord& m) {
  if (id != next_id_) {
    throw std::logic_error("FlowRecorder: message " + std::to_string(id) + " out of order");
  }
  ++next_id_;
  const Scenario& sc = sim_.scenario();
  const routing::EcmpRoutes& routes = sim_.routes();
  // The link a message's ideal FCT is computed on: its shortest path's (EcmpRoutes::path_link),
  // whose bottleneck on a multi-plane fabric is one plane port.
  net::LinkConfig link = routes.path_link(m.src_nic, m.dst_nic, sc.link);
  if (packet_split_) link.rate_bps = std::min(sc.link.rate_bps, link.rate_bps * sc.topology.planes);
  FlowRecord f;
  f.id = id;
  f.src_nic = m.src_nic;
  f.dst_nic = m.dst_nic;
  f.size_bytes = m.size_bytes;
  f.start_ps = m.post_ps;
  f.finish_ps = m.rx_done_ps;
  f.ideal_fct_ps = sim_.transport().ideal_fct_ps(
      m.size_bytes, routes.switch_hops(m.src_nic, m.dst_nic), link, sc.switch_config, sc.nic);
  f.sent_bytes = m.sent_bytes;
  f.delivered_bytes = m.delivered_bytes;
  f.dropped_bytes = m.dropped_bytes;
  f.retransmitted_packets = m.retransmitted_packets;
  f.traffic_class = m.traffic_class;
  f.qp = m.connection;
  if (const FlowPaths* paths = sim_.flow_paths()) f.path = paths->text(id);
  summary_.add(f);
  if (csv_) csv_->add(f);
  if (sizes_) sizes_by_id_.push_back(m.size_bytes);
  if (trace_stride_ > 0 && id % trace_stride_ == 0) traced_.push_back(f);
  if (how_.keep_records) kept_.push_back(std::move(f));
}

void FlowRecorder::finish(bool finished, RunResult& r) {
  r.flow_summary = summary_.summary();
  if (csv_) r.flows_csv = csv_->finish();
  r.flows = std::move(kept_);
  r.message_bytes = std::move(sizes_by_id_);
  // trace.json's sample, every trace_stride_-th flow: ceil(flows / max_flows) when the workload
  // posted exactly the flows it planned (a pattern run), a little more than max_flows when a
  // caller posted more (trace.json says the stride it used).
  r.trace_flows = std::move(traced_);
  r.trace_flow_stride = std::max<int64_t>(1, trace_stride_);
  const FlowStats& s = r.flow_summary.stats;
  if (s.completed < s.total || !finished) r.completed = false;
  const FlowSummary& fs = r.flow_summary;
  if (fs.last_finish_ps > fs.first_start_ps) {
    r.aggregate_throughput_gbps =
        static_cast<double>(fs.finished_bytes) * 8.0 /
        (static_cast<double>(fs.last_finish_ps - fs.first_start_ps) * 1e-3);
  }
}

}  // namespace fabricsim::scenario
