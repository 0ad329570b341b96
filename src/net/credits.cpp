// InfiniBand link-level flow control and VL arbitration: the parts of Network that run only on
// an InfiniBand fabric (shared/reference/infiniband.md §1-2).
//
//   sender port [fc_sent, fc_limit per VL] ──data──► receiving port [rx_blocks per VL]
//        ▲                                                │ received: ABR advances; leaves the
//        └──────── flow-control packet (FCCL) ────────────┘ switch (or reaches the CA): free
//
// Credits count 64-byte blocks. A sender transmits a packet only when the far receiver has
// advertised room for all of its blocks (FCCL - FCTBS >= blocks), so a healthy fabric never
// drops for lack of buffer. The receiver returns credits in 6-byte flow-control packets that
// travel the reverse direction of the cable with its delay, served ahead of data between
// packets; each carries the absolute limit, so one packet covers everything before it leaves
// (coalescing), and a lost one is repaired by the next (IBA §7.9, as the reference says).
//
// The limit is FCCL = ABR + min(free blocks, 2048), ABR = blocks received (reference §1; the
// same ABR + free as Mellanox's OMNeT++ model, ib_model ibuf.cc). The 12-bit FCTBS/FCCL make
// 2048 blocks (128 KiB) the most a limit can run ahead of what was received: a window on the
// blocks in flight on the cable, not a bound on what the receiver may hold. A receiver whose
// free space exceeds the window therefore advances its limit as blocks arrive, not only as they
// leave, and holds up to its whole buffer (config.h kIbMaxAdvertisedBlocks).
//
// Buffer sizes: every receiving port has a buffer per data VL, switch ports fabric.ib.vl_buffer
// (default: the shared buffer split over ports and VLs), HCA ports fabric.ib.hca_vl_buffer. The
// counts here are 32-bit absolute; with at most 2048 blocks ahead of ABR, the wire's modulo-4096
// comparison gives the same answer.
#include <algorithm>
#include <limits>
#include <string>
#include <utility>

#include "core/error.h"
#include "net/network.h"
#include "net/plane_choice.h"

namespace fabricsim::net {

namespace {
constexpr uint16_t kFlowControlPacketBytes = 6;  // reference §1: three 16-bit words
// The largest IB packet at the 4096-byte MTU: LRH 8 + GRH 40 + BTH 12 + RETH 16 + payload +
// ICRC 4 + VCRC 2 = 4178 bytes = 66 blocks. A VL buffer smaller than that could never accept it.
constexpr uint32_t kLargestPacketBlocks = 66;
}  // namespace

void Network::set_ib(const IbLinkConfig& cfg) {
  ib_ = cfg;
  ib_on_ = cfg.enabled;
  vlarb_high_mask_ = vlarb_low_mask_ = 0;
  for (int i = 0; i < cfg.vlarb_high_count; ++i) {
    if (cfg.vlarb_high[i].weight > 0) vlarb_high_mask_ |= static_cast<uint8_t>(1u << cfg.vlarb_high[i].vl);
  }
  for (int i = 0; i < cfg.vlarb_low_count; ++i) {
    if (cfg.vlarb_low[i].weight > 0) vlarb_low_mask_ |= static_cast<uint8_t>(1u << cfg.vlarb_low[i].vl);
  }
  // HighLimit in 4 KiB units; 255 = unbounded; 0 = one packet (any packet is >= 1 block).
  high_limit_blocks_ = cfg.high_limit == 255 ? std::numeric_limits<int64_t>::max()
                       : cfg.high_limit == 0 ? 1
                                             : static_cast<int64_t>(cfg.high_limit) * 4096 / 64;
}

void Network::set_credit_buffers() {
  credit_return_broken_.assign(ports_.size(), 0);
  if (!ib_on_) return;
  const int vls = std::max(1, ib_.data_vls);
  for (uint32_t id = 0; id < ports_.size(); ++id) {
    const Port& p = ports_[id];
    int64_t bytes;
    // A plane selector stands for the NIC's own plane ports (net/plane_choice.h): its receive
    // buffers are the ConnectX port buffer's, not a switch's share.
    if (p.is_nic || is_plane_selector(switches_[p.switch_index])) {
      bytes = ib_.hca_vl_buffer_bytes > 0 ? ib_.hca_vl_buffer_bytes : kConnectXPortBufferBytes / vls;
    } else {
      const Switch& sw = switches_[p.switch_index];
      const int64_t shared = switch_cfg_[p.switch_index].buffer_bytes;
      bytes = ib_.vl_buffer_bytes > 0 ? ib_.vl_buffer_bytes : shared / sw.num_ports / vls;
      if (bytes * sw.num_ports * vls > shared) {
        throw InputError("fabric.ib.vl_buffer",
                         std::to_string(bytes) + " bytes x " + std::to_string(vls) + " VLs x " +
                             std::to_string(sw.num_ports) + " ports exceeds the switch buffer of " +
                             std::to_string(shared) + " bytes (fabric.switch.buffer)");
      }
    }
    if (bytes / kIbCreditBytes < kLargestPacketBlocks) {
      throw InputError(p.is_nic ? "fabric.ib.hca_vl_buffer" : "fabric.ib.vl_buffer",
                       std::to_string(bytes) + " bytes per VL cannot hold one 4 KiB-MTU packet (" +
                           std::to_string(kLargestPacketBlocks * kIbCreditBytes) + " bytes)");
    }
    queues_[id].rx_buffer_blocks = static_cast<uint32_t>(bytes / kIbCreditBytes);
  }
  // Link initialization: every sender starts with the far receiver's empty buffer's limit.
  for (uint32_t id = 0; id < ports_.size(); ++id) {
    PortQueues& q = queues_[id];
    const PortQueues& far = queues_[ports_[id].peer];
    for (int vl = 0; vl < kPriorities; ++vl) q.fc_limit_blocks[vl] = credit_limit(far, vl);
  }
  wire_extra_bytes_ = 0;  // IB framing symbols are inside the 4x data rate's encoding overhead
}

uint32_t Network::credit_limit(const PortQueues& q, int vl) {
  const uint32_t free_blocks = q.rx_buffer_blocks - q.rx_blocks[vl];
  return q.rx_freed_blocks[vl] + q.rx_blocks[vl] +
         std::min<uint32_t>(free_blocks, kIbMaxAdvertisedBlocks);
}

void Network::credit_block(uint32_t port, int vl) {
  Port& p = ports_[port];
  const uint8_t bit = static_cast<uint8_t>(1u << vl);
  if (p.paused_mask & bit) return;
  PortQueues& q = queues_[port];
  p.paused_mask |= bit;
  q.paused_since_ps[vl] = sched_.now();
  ++ctr().credit_waits;
  ++q.credit_waits;
  if (ib_.hoq_lifetime_ps > 0 && !q.watchdog_pending) {
    q.watchdog_pending = true;
    sched_.at(sched_.now() + ib_.hoq_lifetime_ps, kCreditWatchdog, port);
  }
}

bool Network::credit_receive(uint32_t in_port, const Packet& pkt) {
  PortQueues& q = queues_[in_port];
  uint32_t& held = q.rx_blocks[pkt.priority];
  const uint32_t blocks = credit_blocks(pkt);
  if (held + blocks > q.rx_buffer_blocks) {
    ++ctr().credit_violations;  // the sender overran its credits: a model defect if ever
    return false;
  }
  // With more free space than the window, receiving advances ABR and with it the limit.
  const bool limit_moves = q.rx_buffer_blocks - held > kIbMaxAdvertisedBlocks;
  held += blocks;
  q.peak_rx_blocks = std::max(q.peak_rx_blocks, held);
  if (limit_moves) send_credit_update(in_port, pkt.priority);
  return true;
}

void Network::credit_release(uint32_t in_port, const Packet& pkt) {
  PortQueues& q = queues_[in_port];
  const uint32_t blocks = credit_blocks(pkt);
  // Freeing moves the limit only while the free space is below the window.
  const bool limit_moves = q.rx_buffer_blocks - q.rx_blocks[pkt.priority] < kIbMaxAdvertisedBlocks;
  q.rx_blocks[pkt.priority] -= blocks;
  q.rx_freed_blocks[pkt.priority] += blocks;
  if (limit_moves) send_credit_update(in_port, pkt.priority);
}

void Network::send_credit_update(uint32_t in_port, int vl) {
  if (credit_return_broken_[in_port]) return;  // the fault: no flow-control packet goes out
  PortQueues& q = queues_[in_port];
  const uint8_t bit = static_cast<uint8_t>(1u << vl);
  if (q.fc_pending_mask & bit) return;  // the queued one will carry the new limit
  q.fc_pending_mask |= bit;
  Packet f;
  f.type = PacketType::kCredit;
  f.qp = static_cast<uint32_t>(vl);
  f.frame_bytes = kFlowControlPacketBytes;
  push_control(in_port, f);
  wake(in_port);
}

void Network::fill_credit_packet(uint32_t port, Packet& f) {
  PortQueues& q = queues_[port];
  q.fc_pending_mask &= static_cast<uint8_t>(~(1u << f.qp));
  f.psn = credit_limit(q, static_cast<int>(f.qp));  // FCCL = ABR + min(free blocks, 2048)
  ++ctr().credit_packets;
}

void Network::on_credit_packet(uint32_t port, const Packet& f) {
  Port& p = ports_[port];
  PortQueues& q = queues_[port];
  const int vl = static_cast<int>(f.qp);
  if (static_cast<int32_t>(f.psn - q.fc_limit_blocks[vl]) > 0) q.fc_limit_blocks[vl] = f.psn;
  // Invariant: never more credit than the receiver's buffer holds, nor than the window.
  if (q.fc_limit_blocks[vl] - q.fc_sent_blocks[vl] >
      std::min<uint32_t>(queues_[p.peer].rx_buffer_blocks, kIbMaxAdvertisedBlocks)) {
    ++ctr().credit_violations;
  }
  const uint8_t bit = static_cast<uint8_t>(1u << vl);
  if ((p.paused_mask & bit) && credits_fit(port, q.cls[vl].ring.front())) {
    unpause(port, vl);
    if (p.is_nic) p.storm_mask &= static_cast<uint8_t>(~bit);  // a reported NIC stall ended
    wake(port);
  }
}

int Network::vl_arbitrate(uint32_t port, uint32_t ready) {
  PortQueues& q = queues_[port];
  // One table's weighted round robin: serve the current entry while it has weight left and its
  // VL is ready, else move on (weight 0 entries are skipped). A packet that overdraws the weight
  // still goes whole; the entry is then exhausted (IBA 7.6.9).
  auto pick = [&](const VlArbEntry* table, int count, uint8_t& entry, int32_t& left) {
    if (count == 0) return -1;
    for (int scanned = 0; scanned <= count; ++scanned) {
      const VlArbEntry& e = table[entry];
      if (left < 0) left = e.weight;  // entering the entry
      if (left > 0 && (ready & (1u << e.vl))) {
        left -= static_cast<int32_t>(credit_blocks(q.cls[e.vl].ring.front()));
        if (left <= 0) {
          entry = static_cast<uint8_t>((entry + 1) % count);
          left = -1;
        }
        return static_cast<int>(e.vl);
      }
      entry = static_cast<uint8_t>((entry + 1) % count);
      left = -1;
    }
    return -1;
  };
  const bool low_waiting = (ready & vlarb_low_mask_) != 0;
  const bool high_turn = (ready & vlarb_high_mask_) != 0 &&
                         (!low_waiting || q.arb_high_sent_blocks < high_limit_blocks_);
  int vl = -1;
  if (high_turn) {
    vl = pick(ib_.vlarb_high, ib_.vlarb_high_count, q.arb_high_entry, q.arb_high_left);
    if (vl >= 0) {
      q.arb_high_sent_blocks += credit_blocks(q.cls[vl].ring.front());
      return vl;
    }
  }
  vl = pick(ib_.vlarb_low, ib_.vlarb_low_count, q.arb_low_entry, q.arb_low_left);
  if (vl >= 0) {
    q.arb_high_sent_blocks = 0;  // the low table had its turn
    return vl;
  }
  vl = pick(ib_.vlarb_high, ib_.vlarb_high_count, q.arb_high_entry, q.arb_high_left);
  if (vl >= 0) return vl;
  // A ready VL in no table: configuration validation refuses that, so this is a defect.
  return 31 - __builtin_clz(ready);
}

void Network::stage_vl_heads(uint32_t port) {
  // A channel adapter's port arbitrates between its VLs with the same tables as a switch port
  // (IBA 7.6.9; OpenSM programs CA ports too): it takes the next packet of every VL that has
  // nothing queued and is not waiting for credits, and next_queued() arbitrates among the heads.
  // A staged packet is committed like one on the wire: a go-back-N rewind does not recall it.
  const Port& p = ports_[port];
  uint8_t skip = static_cast<uint8_t>(p.backlog_mask | p.paused_mask);
  Packet next;
  while (skip != 0xFF && pull_data(p.nic, skip, next)) {
    ++flight_at(port);
    push_queue(port, next);
    skip |= static_cast<uint8_t>(1u << next.priority);
  }
}

void Network::on_credit_watchdog(uint32_t port) {
  PortQueues& q = queues_[port];
  Port& p = ports_[port];
  q.watchdog_pending = false;
  const int64_t hoq = ib_.hoq_lifetime_ps;
  const int64_t now = sched_.now();
  int64_t next = std::numeric_limits<int64_t>::max();
  for (int vl = 0; vl < kPriorities; ++vl) {
    const uint8_t bit = static_cast<uint8_t>(1u << vl);
    if (!p.is_nic && (p.storm_mask & bit)) {
      if (now >= q.credit_stalled_until_ps) {
        p.storm_mask &= static_cast<uint8_t>(~bit);  // the stalled VL may carry traffic again
      } else {
        next = std::min(next, q.credit_stalled_until_ps);
      }
      continue;
    }
    if (!(p.paused_mask & bit) || (p.storm_mask & bit)) continue;
    if (now - q.paused_since_ps[vl] < hoq) {
      next = std::min(next, q.paused_since_ps[vl] + hoq);
      continue;
    }
    // The head packet has waited a whole head-of-queue lifetime for credits: a credit stall.
    ++ctr().credit_stalls;
    if (ctr().first_credit_stall_ps < 0) ctr().first_credit_stall_ps = now;
    p.storm_mask |= bit;
    if (p.is_nic) continue;  // a channel adapter has no HOQ discard: reported, left waiting
    // A switch port discards the stalled VL's packets and, as the IBA VL stall state does, what
    // arrives for it during 8 lifetimes.
    unpause(port, vl);
    discard_class(port, vl, DropReason::kHeadOfQueue);
    q.credit_stalled_until_ps = now + 8 * hoq;
    next = std::min(next, q.credit_stalled_until_ps);
  }
  if (next != std::numeric_limits<int64_t>::max()) {
    q.watchdog_pending = true;
    sched_.at(next, kCreditWatchdog, port);
  }
}

void Network::flush_queues(uint32_t port) {
  Port& p = ports_[port];
  PortQueues& q = queues_[port];
  for (int c = 0; c < kPriorities; ++c) {
    discard_class(port, c, DropReason::kLinkDown);
    if (p.paused_mask & (1u << c)) unpause(port, c);
  }
  while (!q.mac_ctrl.empty()) q.mac_ctrl.pop_front();
  p.mac_ctrl_pending = false;
  q.fc_pending_mask = 0;
}

}  // namespace fabricsim::net
