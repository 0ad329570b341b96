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
