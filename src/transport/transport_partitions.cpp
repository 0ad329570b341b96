// Transport's side of a partitioned run (transport.h, core/partitions.h): what is owed and the
// counters, per partition.
#include <algorithm>
#include <stdexcept>
#include <utility>

#include "transport/transport.h"

namespace fabricsim::transport {

bool Transport::begin_partitioned(uint32_t partitions,
                                  const std::vector<uint16_t>& nic_partition) {
  if (part_ != nullptr) throw std::logic_error("Transport: already partitioned");
  if (!partitionable()) throw std::logic_error("Transport: not partitionable");
  if (owed_.completions != 0 || owed_.notices != 0) return false;
  std::vector<PartSlot> slots(partitions + 1);
  int64_t found = 0;
  for (uint32_t id = first_live_message(); id < num_messages(); ++id) {
    const MessageRecord& m = message(id);
    if (m.tx_done_ps >= 0) continue;
    ++slots[nic_partition[m.src_nic]].owed.unacked;
    ++found;
  }
  if (found != owed_.unacked) return false;  // e.g. a failed connection's messages
  part_slots_ = std::move(slots);
  owed_ = Owed{};
  nic_partition_ = &nic_partition;
  serial_index_ = serial_slot_ = partitions;
  part_ = part_slots_.data();
  on_partitioned(partitions);
  return true;
}

void Transport::end_partitioned() {
  if (part_ == nullptr) return;
  TransportCounters& own = own_counters();
  Owed total;
  for (const PartSlot& s : part_slots_) {
    add_counters(own, s.counters);
    total.unacked += s.owed.unacked;
    total.completions += s.owed.completions;
    total.notices += s.owed.notices;
  }
  owed_ = total;
  apply_deferred_drops();  // none: the serial phase applied them (a run stopped early too)
  on_sequential();
  part_ = nullptr;
  nic_partition_ = nullptr;
  part_slots_.clear();
}

size_t Transport::apply_deferred_drops() {
  std::vector<std::pair<uint32_t, int64_t>> notices;  // (NIC, instant) of each report
  for (PartSlot& s : part_slots_) {
    for (const DeferredDrop& d : s.drops) {
      account_drop(d.packet, d.reason);
      notices.emplace_back(d.packet.src_nic, d.time_ps);
    }
    s.drops.clear();
  }
  std::sort(notices.begin(), notices.end());
  return static_cast<size_t>(std::unique(notices.begin(), notices.end()) - notices.begin());
}

int64_t Transport::delivered_bytes_so_far() const {
  int64_t n = counters().data_bytes_delivered;
  for (const PartSlot& s : part_slots_) n += s.counters.data_bytes_delivered;
  return n;
}

}  // namespace fabricsim::transport

// ---- partitions spread over ranks (core/rank_run.h) ----
namespace fabricsim::transport {

void Transport::pack_deferred_drops(std::vector<std::vector<char>>& out, uint32_t first,
                                    uint32_t end, const std::vector<uint32_t>& rank_of) {
  const auto ranks = static_cast<uint32_t>(out.size());
  std::vector<std::vector<DeferredDrop>> to_rank(ranks);
  for (uint32_t r = 0; r < ranks; ++r) ByteWriter(out[r]).put<uint32_t>(end - first);
  for (uint32_t from = first; from < end; ++from) {
    for (auto& v : to_rank) v.clear();
    for (const DeferredDrop& d : part_slots_[from].drops) {
      to_rank[rank_of[(*nic_partition_)[d.packet.src_nic]]].push_back(d);
    }
    part_slots_[from].drops.clear();
    for (uint32_t r = 0; r < ranks; ++r) {
      ByteWriter w(out[r]);
      w.put<uint32_t>(from);
      w.put_all(to_rank[r]);
    }
  }
  std::vector<std::vector<char>> shared(ranks);
  pack_shared(shared, rank_of);
  for (uint32_t r = 0; r < ranks; ++r) ByteWriter(out[r]).put_all(shared[r]);
}

void Transport::unpack_deferred_drops(ByteReader& in) {
  const auto senders = in.get<uint32_t>();
  for (uint32_t k = 0; k < senders; ++k) {
    const auto from = in.get<uint32_t>();
    if (from >= part_slots_.size()) throw std::logic_error("Transport: drops from no partition");
    in.get_all(part_slots_[from].drops);
  }
  std::vector<char> shared;
  in.get_all(shared);
  ByteReader records(shared);
  while (!records.done()) unpack_shared(records);
}

namespace {

// A message's fields by the side that writes them (transport.h MessageRecord): the sender's
// partition (its source NIC's) and the receiver's (its destination NIC's). The rest are set
// when it is posted, in the serial phase, which every rank runs.
struct SenderSide {
  uint32_t id;
  int64_t ready_ps, tx_done_ps, sent_bytes, dropped_bytes, retransmitted_packets;
};
struct ReceiverSide {
  uint32_t id;
  int64_t rx_done_ps, delivered_bytes, placed_bytes;
};
struct SlotState {
  uint32_t partition;
  int64_t unacked, completions, notices;
  TransportCounters counters;
};

}  // namespace

void Transport::pack_owned_state(ByteWriter& out, uint32_t first, uint32_t end) const {
  std::vector<SlotState> slots;
  for (uint32_t p = first; p < end; ++p) {
    const PartSlot& s = part_slots_[p];
    slots.push_back({p, s.owed.unacked, s.owed.completions, s.owed.notices, s.counters});
  }
  std::vector<SenderSide> senders;
  std::vector<ReceiverSide> receivers;
  auto owned = [&](uint32_t nic) {
    const uint32_t p = (*nic_partition_)[nic];
    return p >= first && p < end;
  };
  for (uint32_t id = first_live_message(); id < num_messages(); ++id) {
    const MessageRecord& m = message(id);
    if (owned(m.src_nic)) {
      senders.push_back({id, m.ready_ps, m.tx_done_ps, m.sent_bytes, m.dropped_bytes,
                         m.retransmitted_packets});
    }
    if (owned(m.dst_nic)) receivers.push_back({id, m.rx_done_ps, m.delivered_bytes, m.placed_bytes});
  }
  out.put_all(slots);
  out.put_all(senders);
  out.put_all(receivers);
}

void Transport::unpack_owned_state(ByteReader& in) {
  std::vector<SlotState> slots;
  std::vector<SenderSide> senders;
  std::vector<ReceiverSide> receivers;
  in.get_all(slots);
  in.get_all(senders);
  in.get_all(receivers);
  for (const SlotState& s : slots) {
    if (s.partition >= part_slots_.size()) throw std::logic_error("Transport: no such partition");
    PartSlot& d = part_slots_[s.partition];
    d.owed = Owed{s.unacked, s.completions, s.notices};
    d.counters = s.counters;
  }
  // The records are the transport's own (non-const) objects, which message() hands out const
  // for the readers; only this merge writes through it.
  for (const SenderSide& s : senders) {
    auto& m = const_cast<MessageRecord&>(message(s.id));
    m.ready_ps = s.ready_ps;
    m.tx_done_ps = s.tx_done_ps;
    m.sent_bytes = s.sent_bytes;
    m.dropped_bytes = s.dropped_bytes;
    m.retransmitted_packets = s.retransmitted_packets;
  }
  for (const ReceiverSide& r : receivers) {
    auto& m = const_cast<MessageRecord&>(message(r.id));
    m.rx_done_ps = r.rx_done_ps;
    m.delivered_bytes = r.delivered_bytes;
    m.placed_bytes = r.placed_bytes;
  }
}

}  // namespace fabricsim::transport
