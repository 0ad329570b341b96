// Partitions::pack_mail's other half (core/partitions.h): mailboxes that cross ranks. A rank
// sends each other rank, per sending partition it owns, the events for that rank's partitions
// and for the serial list (which every rank runs); the receiver keeps them per sending
// partition until the window's join, which pushes them in sending-partition order, each box in
// the order it was filled: into any one list, the order join_mailboxes() gives on one process.
#include <algorithm>
#include <stdexcept>

#include "core/partitions.h"
#include "core/rank_exchange.h"

namespace fabricsim {

void Partitions::pack_one(uint32_t from, std::vector<char>& block, uint32_t rank,
                          const std::vector<uint32_t>& rank_of_target) {
  ByteWriter w(block);
  size_t n = 0;
  for (uint32_t to = 0; to <= count_; ++to) {
    const uint32_t r = rank_of_target[to];
    if (r == rank || r == UINT32_MAX) n += parts_[from].out[to].size();
  }
  w.put<uint32_t>(from);
  w.put<uint64_t>(n);
  for (uint32_t to = 0; to <= count_; ++to) {
    const uint32_t r = rank_of_target[to];
    if (r != rank && r != UINT32_MAX) continue;
    for (const Mail& m : parts_[from].out[to]) w.put(m);
  }
}

void Partitions::unpack_mail(ByteReader& in) {
  const auto senders = in.get<uint32_t>();  // the sending rank's partitions, one record each
  for (uint32_t k = 0; k < senders; ++k) {
    const auto from = in.get<uint32_t>();
    const auto n = static_cast<size_t>(in.get<uint64_t>());
    if (from >= count_) throw std::logic_error("Partitions: mail from no partition");
    std::vector<Mail>& box = inbox_[from];
    box.reserve(box.size() + n);
    for (size_t i = 0; i < n; ++i) box.push_back(in.get<Mail>());
  }
}

bool Partitions::mail_pending() const {
  for (uint32_t p = owned_first_; p < owned_end_; ++p) {
    for (const auto& box : parts_[p].out) {
      if (!box.empty()) return true;
    }
  }
  return std::any_of(inbox_.begin(), inbox_.end(), [](const auto& b) { return !b.empty(); });
}

void Partitions::drop_unowned() {
  std::vector<Event> stale;
  for (uint32_t p = 0; p < count_; ++p) {
    if (owned(p)) continue;
    parts_[p].queue.drain(stale);
    stale.clear();
  }
}

void Partitions::join_inboxes() {
  for (uint32_t from = 0; from < count_; ++from) {
    for (const Mail& m : inbox_[from]) {
      const uint32_t to = route(m.kind, m.owner);
      EventQueue& dest = to == count_ ? sched_.queue : parts_[to].queue;
      dest.push(m.time_ps, m.kind, m.target, m.owner);
    }
    inbox_[from].clear();
  }
}

}  // namespace fabricsim
