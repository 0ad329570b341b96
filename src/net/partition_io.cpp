// A partitioned run's side of the network (core/partitions.h): counters and packets in flight
// per partition, and frames crossing a cut cable. A frame sent on a cut cable cannot go onto
// the cable's delay line at once (the far end's partition pops that line, on another thread);
// it waits in its partition's outbox, and at the barrier join_cut_frames() appends it to the
// line and schedules the arrival exactly as transmit() does. It arrives no sooner than the
// window's end (its delay is at least the lookahead), so nothing has missed it.
#include <stdexcept>

#include "net/network.h"

namespace fabricsim::net {

void Network::begin_partitioned(uint32_t partitions, std::vector<uint8_t> cut,
                                const std::vector<uint16_t>& port_partition,
                                const std::vector<uint16_t>& far_partition) {
  if (part_ != nullptr) throw std::logic_error("Network: already partitioned");
  if (cut.size() != ports_.size()) throw std::logic_error("Network: a cut flag per port");
  cut_ = std::move(cut);
  port_partition_ = &port_partition;
  cut_lines_.clear();
  cut_lines_.resize(ports_.size());
  for (uint32_t port = 0; port < ports_.size(); ++port) {
    if (!cut_[port]) continue;
    Port& p = ports_[port];
    CutLine& c = cut_lines_[port];
    c.peer = p.peer;
    c.far_index = p.far_index;
    c.far_is_nic = p.far_is_nic;
    // Frames already on the cable (a run resumed) move to the far end's line, with their
    // pending arrival (retargeted by partitioned_target when the events are scattered).
    while (!p.line.empty()) c.line.push_back(p.line.pop_front());
    c.arrive_pending = p.arrive_event_pending;
    p.arrive_event_pending = false;
  }
  part_slots_.clear();
  part_slots_.resize(partitions + 1);  // + the serial phase's
  // What is in flight now, where it is: queued at a port (its partition), or on a cable (the
  // far end's). Control frames (PAUSE, credits) are not counted in flight.
  int64_t counted = 0;
  for (uint32_t port = 0; port < ports_.size(); ++port) {
    int64_t queued = 0;
    for (const ClassQueue& c : queues_[port].cls) queued += c.ring.size();
    const int64_t on_cable = cut_[port] ? cut_lines_[port].line.size() : ports_[port].line.size();
    part_slots_[port_partition[port]].in_flight += queued;
    part_slots_[far_partition[port]].in_flight += on_cable;
    counted += queued + on_cable;
    if (!queues_[port].rx_hold.empty()) throw std::logic_error("Network: a stalled NIC holds packets");
  }
  if (counted != in_flight_) throw std::logic_error("Network: packets in flight not all found");
  part_ = part_slots_.data();
}

void Network::end_partitioned() {
  if (part_ == nullptr) return;
  if (cut_frames_waiting() != 0) throw std::logic_error("Network: cut frames left unjoined");
  int64_t in_flight = 0;
  for (const PartSlot& s : part_slots_) {
    add_counters(counters_, s.counters);
    in_flight += s.in_flight;
  }
  in_flight_ = in_flight;
  // Frames still on cut cables go back onto the cables' own lines, arrivals re-keyed (only a
  // run stopped by its time limit or a signal leaves any).
  for (uint32_t port = 0; port < ports_.size(); ++port) {
    CutLine& c = cut_lines_[port];
    if (c.line.empty()) continue;
    Port& p = ports_[port];
    while (!c.line.empty()) p.line.push_back(c.line.pop_front());
    p.arrive_event_pending = c.arrive_pending;  // its event, retargeted when gathered
  }
  part_ = nullptr;
  part_slots_.clear();
  cut_.clear();
  port_partition_ = nullptr;
  cut_lines_.clear();
}

void Network::send_across(uint32_t port, bool control, const InFlight& frame) {
  // REQUIRES is_cut(port) (transmit's test, or a frame join_cut_frames puts on the cable).
  const uint32_t p = current_partition();
  if (p + 1 < part_slots_.size()) {  // inside a window: to the outbox until the barrier
    // Data frames are counted in flight in the partition that holds them (control frames
    // never are): the sender's until the barrier moves them to the far end's.
    if (!control) --part_[p].in_flight;
    part_[p].out.push_back(CutFrame{port, control, frame});
    return;
  }
  // The serial phase: straight onto the cable, in the far end's line.
  if (control) {
    PortQueues& q = queues_[port];
    q.ctrl_line.push_back(frame);
    if (!q.ctrl_arrive_pending) {
      sched_.at(frame.arrive_ps, kCtrlArrive, port | kCutArrival, port);
      q.ctrl_arrive_pending = true;
    }
    return;
  }
  CutLine& c = cut_lines_[port];
  c.line.push_back(frame);
  if (!c.arrive_pending) {
    sched_.at(frame.arrive_ps, kLinkArrive, port | kCutArrival, port);
    c.arrive_pending = true;
  }
}

size_t Network::join_cut_frames(const std::vector<uint16_t>& far_partition) {
  size_t n = 0;
  const auto serial = static_cast<uint32_t>(part_slots_.size() - 1);
  for (uint32_t from = 0; from < serial; ++from) {
    std::vector<CutFrame>& out = part_slots_[from].out;
    for (const CutFrame& c : out) {
      if (!c.control) ++part_slots_[far_partition[c.port]].in_flight;
      const uint32_t saved = current_partition();
      set_current_partition(serial);
      send_across(c.port, c.control, c.frame);  // the serial phase: onto the cable
      set_current_partition(saved);
    }
    n += out.size();
    out.clear();
  }
  return n;
}

size_t Network::cut_frames_waiting() const {
  size_t n = 0;
  for (const PartSlot& s : part_slots_) n += s.out.size();
  return n;
}

}  // namespace fabricsim::net
