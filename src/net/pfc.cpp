// Priority flow control (IEEE 802.1Qbb), ECN marking and NIC stalls: the parts of Network that
// only run when those features are on.
//
//   upstream port ──data──► ingress port [ingress_bytes per class] ... egress queue
//        ▲                        │ passes XOFF: PAUSE(quanta) on the reverse direction
//        └──── PAUSE / RESUME ────┘ falls to XON: PAUSE(0)
//
// A PAUSE frame is a real 64-byte frame: it waits for the frame being sent, crosses the cable
// with its delay and stops only the classes it names at the far end, for quanta x 512 bit
// times unless refreshed; the sender refreshes at half that period while still above XOFF.
#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/units.h"
#include "net/network.h"

namespace fabricsim::net {

namespace {
constexpr uint32_t kPauseFrameBytes = 64;  // minimum frame: MAC control, 802.1Qbb

int64_t quanta_ps(int quanta, int64_t rate_bps) {
  return serialization_ps(static_cast<int64_t>(quanta) * 512 / 8, rate_bps);  // 512 bit times
}
}  // namespace

const PfcConfig& Network::pfc_of(uint32_t port) const {
  const Port& p = ports_[port];
  const int32_t sw = p.is_nic ? ports_[p.peer].switch_index : p.switch_index;
  return switch_cfg_[sw].pfc;
}

int64_t mlx5_pfc_headroom_bytes(int64_t rate_bps, double cable_m, int mtu_bytes) {
  const int64_t len_m = static_cast<int64_t>(std::ceil(cable_m - 1e-9));
  const int64_t speed_mbps = std::max<int64_t>(rate_bps / 1'000'000, 40'000);  // SPEED_40000
  return (301 + 216 * len_m / 100) * speed_mbps / 1000 + 272 * int64_t{mtu_bytes} / 100;
}

void Network::set_pfc_thresholds() {
  std::vector<int64_t> headroom_total(switches_.size(), 0);
  for (uint32_t id = 0; id < ports_.size(); ++id) {
    const PfcConfig& cfg = pfc_of(id);
    if (!cfg.enabled) continue;
    const Port& p = ports_[id];
    PortQueues& q = queues_[id];
    // Headroom for the cable this port receives on (the same cable it sends on).
    const double cable_m = static_cast<double>(q.prop_ps) / kPropagationPsPerMetre;
    const int64_t headroom = cfg.headroom_bytes > 0
                                 ? cfg.headroom_bytes
                                 : mlx5_pfc_headroom_bytes(p.rate_bps, cable_m, cfg.mtu_bytes);
    q.pfc_headroom_bytes = headroom;
    if (!p.is_nic && cfg.threshold == PfcThreshold::kDynamic) {
      // XOFF comes from the shared pool at run time (pfc_admit_switch); the headroom of every
      // lossless priority of the port is reserved out of the switch buffer below.
      if (cfg.xoff_bytes > 0 || cfg.port_buffer_bytes > 0) {
        throw InputError(cfg.xoff_bytes > 0 ? "fabric.pfc.xoff" : "fabric.pfc.port_buffer",
                         "is a static threshold: it needs fabric.pfc.threshold: static");
      }
      q.pfc_xon_bytes = cfg.xon_bytes > 0 ? cfg.xon_bytes : cfg.dynamic_xon_bytes;
      q.pfc_xon_offset_bytes = cfg.xon_offset_bytes;
      headroom_total[p.switch_index] += headroom * __builtin_popcount(cfg.lossless_mask);
      continue;
    }
    int64_t buffer;
    const char* key;
    if (p.is_nic) {
      buffer = nic_cfg_[p.nic].rx_buffer_bytes;
      key = "fabric.nic.rx_buffer";
    } else {
      const Switch& sw = switches_[p.switch_index];
      buffer = cfg.port_buffer_bytes > 0 ? cfg.port_buffer_bytes
                                         : switch_cfg_[p.switch_index].buffer_bytes / sw.num_ports;
      key = cfg.port_buffer_bytes > 0 ? "fabric.pfc.port_buffer" : "fabric.switch.buffer";
    }
    // The port buffer is XOFF plus headroom: an explicit XOFF leaves buffer - XOFF as headroom.
    q.pfc_xoff_bytes = cfg.xoff_bytes > 0 ? cfg.xoff_bytes : buffer - headroom;
    if (q.pfc_xoff_bytes <= 0 || q.pfc_xoff_bytes >= buffer) {
      const std::string why =
          cfg.xoff_bytes > 0
              ? "fabric.pfc.xoff (" + std::to_string(cfg.xoff_bytes) +
                    " bytes) must be below the per-port buffer of " + std::to_string(buffer) +
                    " bytes"
              : "a per-port buffer of " + std::to_string(buffer) +
                    " bytes leaves no room below the PFC headroom of " +
                    std::to_string(headroom) + " bytes (" + format_rate_exact(p.rate_bps) + ", " +
                    format_length_exact(cable_m) + " cable)";
      throw InputError(cfg.xoff_bytes > 0 ? "fabric.pfc.xoff" : key, why);
    }
    q.pfc_xon_bytes = cfg.xon_bytes > 0 ? cfg.xon_bytes
                                        : std::max<int64_t>(0, q.pfc_xoff_bytes - cfg.mtu_bytes);
    if (q.pfc_xon_bytes >= q.pfc_xoff_bytes) {
      throw InputError("fabric.pfc.xon", "must be below XOFF (" +
                                             std::to_string(q.pfc_xoff_bytes) + " bytes here)");
    }
    q.pfc_limit_bytes = buffer;
  }
  // Dynamic mode: the headroom is carved out of the switch buffer, and the rest is the shared
  // pool that lossy queues (egress DT) and lossless PGs (below their dynamic XOFF) share.
  for (uint32_t s = 0; s < switches_.size(); ++s) {
    if (!switches_[s].pfc_dynamic) continue;
    const SwitchConfig& cfg = switch_cfg_[s];
    if (headroom_total[s] >= cfg.buffer_bytes) {
      const uint32_t first = switches_[s].first_port;
      throw InputError(
          "fabric.switch.buffer",
          std::to_string(cfg.buffer_bytes) + " bytes cannot hold the PFC headroom of " +
              std::to_string(switches_[s].num_ports) + " ports x " +
              std::to_string(__builtin_popcount(cfg.pfc.lossless_mask)) +
              " lossless classes (" + std::to_string(headroom_total[s]) + " bytes; " +
              std::to_string(queues_[first].pfc_headroom_bytes) +
              " on its first port) and leave a shared pool");
    }
    switches_[s].buffer_bytes = cfg.buffer_bytes - headroom_total[s];
  }
}

void Network::set_xoff(uint32_t port, uint8_t mask) {
  PortQueues& q = queues_[port];
  const int32_t sw = ports_[port].switch_index;
  if (sw >= 0) {
    switch_xoff_pgs_[sw] += static_cast<uint32_t>(std::popcount(mask)) -
                            static_cast<uint32_t>(std::popcount(q.xoff_mask));
  }
  q.xoff_mask = mask;
}

bool Network::pfc_admit(uint32_t in_port, const Packet& pkt) {
  PortQueues& q = queues_[in_port];
  uint32_t& held = q.ingress_bytes[pkt.priority];
  if (held + pkt.frame_bytes > q.pfc_limit_bytes) return false;  // headroom overflow
  held += pkt.frame_bytes;
  const uint8_t cls = static_cast<uint8_t>(1u << pkt.priority);
  if (held >= q.pfc_xoff_bytes && !(q.xoff_mask & cls)) {
    set_xoff(in_port, q.xoff_mask | cls);
    send_pause(in_port, cls, pfc_of(in_port).pause_quanta);
  }
  return true;
}

void Network::pfc_release(uint32_t in_port, const Packet& pkt) {
  PortQueues& q = queues_[in_port];
  const uint8_t cls = static_cast<uint8_t>(1u << pkt.priority);
  uint32_t& held = q.ingress_bytes[pkt.priority];
  held -= pkt.frame_bytes;
  if ((q.xoff_mask & cls) && held <= q.pfc_xon_bytes) {
    set_xoff(in_port, q.xoff_mask & static_cast<uint8_t>(~cls));
    send_pause(in_port, cls, 0);  // RESUME
  }
}

// The dynamic mode follows the SAI buffer model that SONiC programs on Broadcom and Spectrum
// (saibuffer.h, SHARED_DYNAMIC_TH, XOFF_TH, XON_OFFSET_TH): a lossless PG's bytes go to the
// shared pool while the PG holds less than alpha x (free shared pool) and the pool has room;
// beyond, to the PG's headroom. XOFF when the PG reaches the threshold (or spills into its
// headroom). Departures empty the headroom first, so that it is whole again for the next
// XOFF, and XON once it is empty and the PG is back to max(XON_TH, threshold - xon_offset).
bool Network::pfc_admit_switch(Switch& sw, uint32_t in_port, const Packet& pkt) {
  const int64_t free_bytes = sw.buffer_bytes - sw.buffer_used_bytes;
  if (!sw.pfc_dynamic) {
    if (pkt.frame_bytes > free_bytes || !pfc_admit(in_port, pkt)) return false;
    sw.buffer_used_bytes += pkt.frame_bytes;
    return true;
  }
  PortQueues& q = queues_[in_port];
  const int c = pkt.priority;
  uint32_t& held = q.ingress_bytes[c];
  uint32_t& room = q.headroom_used_bytes[c];
  const int64_t shared = held - room;
  const uint8_t cls = static_cast<uint8_t>(1u << c);
  bool xoff;
  if (pkt.frame_bytes <= free_bytes &&
      static_cast<double>(shared) < static_cast<double>(sw.pfc_alpha) * free_bytes) {
    sw.buffer_used_bytes += pkt.frame_bytes;
    xoff = static_cast<double>(shared + pkt.frame_bytes) >=
           static_cast<double>(sw.pfc_alpha) * (free_bytes - pkt.frame_bytes);
  } else {
    if (room + pkt.frame_bytes > q.pfc_headroom_bytes) return false;  // headroom overflow
    room += pkt.frame_bytes;
    q.peak_headroom_bytes = std::max<int64_t>(q.peak_headroom_bytes, room);
    xoff = true;
  }
  held += pkt.frame_bytes;
  if (xoff && !(q.xoff_mask & cls)) {
    set_xoff(in_port, q.xoff_mask | cls);
    send_pause(in_port, cls, pfc_of(in_port).pause_quanta);
  }
  return true;
}

bool Network::pfc_dynamic_xon_ready(uint32_t in_port, int c) const {
  const PortQueues& q = queues_[in_port];
  if (q.headroom_used_bytes[c] != 0) return false;
  const Switch& sw = switches_[ports_[in_port].switch_index];
  const double limit = static_cast<double>(sw.pfc_alpha) *
                       static_cast<double>(sw.buffer_bytes - sw.buffer_used_bytes);
  const double xon = std::max(static_cast<double>(q.pfc_xon_bytes),
                              limit - static_cast<double>(q.pfc_xon_offset_bytes));
  return static_cast<double>(q.ingress_bytes[c]) <= xon;
}

void Network::pfc_release_switch(Switch& sw, uint32_t in_port, const Packet& pkt) {
  if (!sw.pfc_dynamic) {
    sw.buffer_used_bytes -= pkt.frame_bytes;
    pfc_release(in_port, pkt);
    return;
  }
  PortQueues& q = queues_[in_port];
  const int c = pkt.priority;
  uint32_t& room = q.headroom_used_bytes[c];
  const uint32_t from_room = std::min<uint32_t>(room, pkt.frame_bytes);
  room -= from_room;
  sw.buffer_used_bytes -= pkt.frame_bytes - from_room;
  q.ingress_bytes[c] -= pkt.frame_bytes;
  // Most departures leave a switch with no PG in XOFF: the dense per-switch count (in cache)
  // says so without reading xoff_mask, a line of PortQueues this hop touches nowhere else.
  if (switch_xoff_pgs_[static_cast<size_t>(&sw - switches_.data())] == 0) return;
  const uint8_t cls = static_cast<uint8_t>(1u << c);
  if ((q.xoff_mask & cls) && pfc_dynamic_xon_ready(in_port, c)) {
    set_xoff(in_port, q.xoff_mask & static_cast<uint8_t>(~cls));
    send_pause(in_port, cls, 0);  // RESUME
  }
}

void Network::send_pause(uint32_t port, uint8_t classes, int quanta) {
  Packet f;
  f.type = PacketType::kPause;
  f.qp = classes;
  f.psn = static_cast<uint32_t>(quanta);
  f.frame_bytes = kPauseFrameBytes;
  if (ports_[port].is_nic) f.src_nic = f.dst_nic = ports_[port].nic;  // for the pcap source MAC
  PortQueues& q = queues_[port];
  push_control(port, f);
  ++q.pause_frames_sent;
  ++ctr().pause_frames;
  if (quanta > 0 && !q.refresh_pending) {
    q.refresh_pending = true;
    sched_.at(sched_.now() + quanta_ps(quanta, ports_[port].rate_bps) / 2, kPfcRefresh, port);
  }
  wake(port);
}

void Network::on_pfc_refresh(uint32_t port) {
  PortQueues& q = queues_[port];
  q.refresh_pending = false;
  if (q.xoff_mask == 0) return;
  const Port& p = ports_[port];
  if (!p.is_nic && switches_[p.switch_index].pfc_dynamic) {
    // The dynamic XON point moves with the free pool, not only when this PG drains: a PG whose
    // threshold rose (others drained) resumes at the refresh instead of pausing on.
    uint8_t resume = 0;
    for (int c = 0; c < kPriorities; ++c) {
      if ((q.xoff_mask & (1u << c)) && pfc_dynamic_xon_ready(port, c)) resume |= 1u << c;
    }
    if (resume != 0) {
      set_xoff(port, q.xoff_mask & static_cast<uint8_t>(~resume));
      send_pause(port, resume, 0);
      if (q.xoff_mask == 0) return;
    }
  }
  if (!q.mac_ctrl.empty()) {
    // The last PAUSE has not even left yet (quanta shorter than a frame time): queueing another
    // would grow the queue without bound. Look again one period later.
    q.refresh_pending = true;
    const int quanta = pfc_of(port).pause_quanta;
    sched_.at(sched_.now() + std::max<int64_t>(1, quanta_ps(quanta, ports_[port].rate_bps) / 2),
              kPfcRefresh, port);
    return;
  }
  send_pause(port, q.xoff_mask, pfc_of(port).pause_quanta);
}

void Network::on_pause_frame(uint32_t port, const Packet& frame) {
  Port& p = ports_[port];
  PortQueues& q = queues_[port];
  ++q.pause_frames_received;
  const int quanta = static_cast<int>(frame.psn);
  const int64_t now = sched_.now();
  if (quanta > 0) q.last_pause_rx_ps = now;
  const int64_t watchdog_ps = p.is_nic ? 0 : pfc_of(port).watchdog_ps;
  bool resumed = false;
  for (int c = 0; c < kPriorities; ++c) {
    const uint8_t cls = static_cast<uint8_t>(1u << c);
    if (!(frame.qp & cls) || (p.storm_mask & cls)) continue;
    if (quanta == 0) {
      if (p.paused_mask & cls) {
        unpause(port, c);
        resumed = true;
      }
      continue;
    }
    q.pause_until_ps[c] = now + quanta_ps(quanta, p.rate_bps);
    if (!(p.paused_mask & cls)) {
      p.paused_mask |= cls;
      q.paused_since_ps[c] = now;
      if (watchdog_ps > 0 && !q.watchdog_pending) {
        q.watchdog_pending = true;
        sched_.at(now + watchdog_ps, kPfcWatchdog, port);
      }
    }
    arm_pause_timer(port, q.pause_until_ps[c]);
  }
  if (resumed) wake(port);
}

void Network::unpause(uint32_t port, int cls) {
  PortQueues& q = queues_[port];
  ports_[port].paused_mask &= static_cast<uint8_t>(~(1u << cls));
  q.paused_ps += sched_.now() - q.paused_since_ps[cls];
}

void Network::arm_pause_timer(uint32_t port, int64_t at_ps) {
  PortQueues& q = queues_[port];
  if (q.pause_timer_ps >= 0 && q.pause_timer_ps <= at_ps) return;  // an earlier one re-arms
  q.pause_timer_ps = at_ps;
  sched_.at(at_ps, kPauseExpire, port);
}

void Network::on_pause_expire(uint32_t port) {
  PortQueues& q = queues_[port];
  if (q.pause_timer_ps != sched_.now()) return;  // superseded by an earlier timer
  q.pause_timer_ps = -1;
  const Port& p = ports_[port];
  int64_t next = std::numeric_limits<int64_t>::max();
  bool resumed = false;
  for (int c = 0; c < kPriorities; ++c) {
    if (!(p.paused_mask & (1u << c))) continue;
    if (q.pause_until_ps[c] <= sched_.now()) {
      unpause(port, c);
      resumed = true;
    } else {
      next = std::min(next, q.pause_until_ps[c]);
    }
  }
  if (next != std::numeric_limits<int64_t>::max()) arm_pause_timer(port, next);
  if (resumed) wake(port);
}

void Network::on_pfc_watchdog(uint32_t port) {
  PortQueues& q = queues_[port];
  Port& p = ports_[port];
  q.watchdog_pending = false;
  const int64_t wd = pfc_of(port).watchdog_ps;
  const int64_t now = sched_.now();
  int64_t next = std::numeric_limits<int64_t>::max();
  for (int c = 0; c < kPriorities; ++c) {
    const uint8_t cls = static_cast<uint8_t>(1u << c);
    if (p.storm_mask & cls) {
      // Restore once the far end has sent no PAUSE for a whole period.
      if (now - q.last_pause_rx_ps >= wd) {
        p.storm_mask &= static_cast<uint8_t>(~cls);
      } else {
        next = std::min(next, q.last_pause_rx_ps + wd);
      }
      continue;
    }
    if (!(p.paused_mask & cls)) continue;
    if (now - q.paused_since_ps[c] < wd) {
      next = std::min(next, q.paused_since_ps[c] + wd);
      continue;
    }
    // A PFC storm: stop obeying PAUSE for this class and drop what waits in it.
    p.storm_mask |= cls;
    ++ctr().watchdog_storms;
    unpause(port, c);
    discard_class(port, c, DropReason::kWatchdog);
    next = std::min(next, now + wd);
  }
  if (next != std::numeric_limits<int64_t>::max()) {
    q.watchdog_pending = true;
    sched_.at(next, kPfcWatchdog, port);
  }
}

void Network::hold_at_stalled_nic(uint32_t port, const Packet& pkt) {
  PortQueues& q = queues_[port];
  if (ib_on_) {  // the credits it consumed stay out until the NIC drains again
    q.rx_hold.push_back(pkt);
    return;
  }
  const PfcConfig& cfg = pfc_of(port);
  const bool lossless = cfg.enabled && (cfg.lossless_mask & (1u << pkt.priority));
  const int64_t limit = lossless ? q.pfc_limit_bytes : nic_cfg_[ports_[port].nic].rx_buffer_bytes;
  if (q.ingress_bytes[pkt.priority] + pkt.frame_bytes > limit) {
    drop(port, pkt, lossless ? DropReason::kLossless : DropReason::kBuffer);
    return;
  }
  if (lossless) {
    pfc_admit(port, pkt);
  } else {
    q.ingress_bytes[pkt.priority] += pkt.frame_bytes;
  }
  q.rx_hold.push_back(pkt);
}

void Network::on_nic_stall(uint32_t nic) { nic_stalled_[nic] = 1; }

void Network::on_nic_resume(uint32_t nic) {
  nic_stalled_[nic] = 0;
  const uint32_t port = nic_port_[nic];
  PortQueues& q = queues_[port];
  const PfcConfig& cfg = pfc_of(port);
  while (!q.rx_hold.empty()) {
    const Packet pkt = q.rx_hold.pop_front();
    if (ib_on_) {
      credit_release(port, pkt);
    } else if (cfg.enabled && (cfg.lossless_mask & (1u << pkt.priority))) {
      pfc_release(port, pkt);
    } else {
      q.ingress_bytes[pkt.priority] -= pkt.frame_bytes;
    }
    --flight();
    if (pkt.type == PacketType::kSharp) {
      sharp_nic_receive(nic, pkt);
    } else {
      endpoint_.deliver(endpoint_.ctx, nic, pkt);
    }
  }
}

bool Network::ecn_mark(uint32_t port, Packet& pkt) {
  const Port& p = ports_[port];
  const EcnConfig& ecn = switch_cfg_[p.switch_index].ecn;
  if (!(ecn.mask & (1u << pkt.priority))) return false;
  const int64_t queued = queues_[port].cls[pkt.priority].bytes;
  if (queued <= ecn.kmin_bytes) return false;
  if (ecn.skip_credit_victims) {
    // A victim: its VL's next packet waits for credits, or the credits left would not carry
    // another packet of this size.
    const PortQueues& q = queues_[port];
    const int vl = pkt.priority;
    if ((p.paused_mask & (1u << vl)) ||
        static_cast<int32_t>(q.fc_limit_blocks[vl] - q.fc_sent_blocks[vl]) <
            static_cast<int32_t>(credit_blocks(pkt))) {
      return false;
    }
  }
  if (ecn.mark_gap > 0) {
    // Marking_Rate: one mark, then mark_gap eligible packets unmarked, per port.
    uint16_t& skipped = queues_[port].ecn_skipped;
    if (skipped < ecn.mark_gap) {
      ++skipped;
      return false;
    }
    skipped = 0;
  }
  if (queued < ecn.kmax_bytes) {
    const double prob = ecn.pmax * static_cast<double>(queued - ecn.kmin_bytes) /
                        static_cast<double>(ecn.kmax_bytes - ecn.kmin_bytes);
    if (switch_rng_[p.switch_index].uniform() >= prob) return false;
  }
  pkt.ecn = 3;  // CE
  ++ctr().ecn_marks;
  ++queues_[port].ecn_marks;
  return true;
}

void Network::finish_pause_accounting() {
  for (uint32_t id = 0; id < ports_.size(); ++id) {
    for (int c = 0; c < kPriorities; ++c) {
      if (ports_[id].paused_mask & (1u << c)) {
        queues_[id].paused_ps += sched_.now() - queues_[id].paused_since_ps[c];
        queues_[id].paused_since_ps[c] = sched_.now();
      }
    }
  }
}

}  // namespace fabricsim::net
