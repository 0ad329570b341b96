#include "core/partitions.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

namespace fabricsim {
OwnerSpace owner_space(uint32_t kind) {
  switch (kind) {
    case kPortTxDone:
    case kPauseExpire:
    case kPfcRefresh:
    case kPfcWatchdog:
    case kCreditWatchdog:
      return OwnerSpace::kPort;
    case kLinkArrive:
    case kCtrlArrive:
      return OwnerSpace::kFarPort;
    case kNicStall:
    case kNicResume:
    case kQpTimer:
    case kCcTimer:
    case kNicWake:
    case kMsgComplete:
    case kCtxRx:
    case kDropNotice:
      return OwnerSpace::kNic;
    case kNodeEvent:
      return OwnerSpace::kNode;
    default:  // link failures, routing, the workload, samplers, hybrid, time limits
      return OwnerSpace::kSerial;
  }
}

int64_t partition_now(const Partitions& parts) { return parts.now(); }
void partition_push(Partitions& parts, int64_t time_ps, uint32_t kind, uint32_t target,
                    uint32_t owner) {
  parts.push(time_ps, kind, target, owner);
}

Partitions::Partitions(Scheduler& sched, uint32_t count, Tables tables, int64_t lookahead_ps)
    : sched_(sched), count_(count), tables_(std::move(tables)), lookahead_ps_(lookahead_ps),
      parts_(count) {
  if (count == 0 || count > 0xFFFF) throw std::invalid_argument("Partitions: bad count");
  if (lookahead_ps <= 0) throw std::invalid_argument("Partitions: lookahead must be positive");
  auto check = [count](const std::vector<uint16_t>& t) {
    for (uint16_t p : t) {
      if (p >= count) throw std::invalid_argument("Partitions: owner in no partition");
    }
  };
  check(tables_.port);
  check(tables_.far_port);
  check(tables_.nic);
  check(tables_.node);
  for (Part& p : parts_) p.out.resize(count + 1);
  owned_end_ = count;
}

void Partitions::set_owned(uint32_t first, uint32_t count) {
  if (count == 0 || first + count > count_) throw std::invalid_argument("Partitions: bad owned range");
  owned_first_ = first;
  owned_end_ = first + count;
  inbox_.assign(count_, {});
}

uint32_t Partitions::route(uint32_t kind, uint32_t owner) const {
  const std::vector<uint16_t>* t = nullptr;
  switch (owner_space(kind)) {
    case OwnerSpace::kSerial:
      return count_;
    case OwnerSpace::kPort:
      t = &tables_.port;
      break;
    case OwnerSpace::kFarPort:
      t = &tables_.far_port;
      break;
    case OwnerSpace::kNic:
      t = &tables_.nic;
      break;
    case OwnerSpace::kNode:
      t = &tables_.node;
      break;
  }
  if (owner >= t->size()) {
    std::fprintf(stderr, "fabricsim: internal error: event kind %u owner %u has no partition\n",
                 kind, owner);
    std::abort();
  }
  return (*t)[owner];
}

int64_t Partitions::now() const {
  const uint32_t p = tls_partition;
  return p >= count_ ? sched_.now_ps : parts_[p].now_ps;
}

void Partitions::push(int64_t time_ps, uint32_t kind, uint32_t target, uint32_t owner) {
  const uint32_t to = route(kind, owner);
  const uint32_t from = tls_partition;
  EventQueue& dest = to == count_ ? sched_.queue : parts_[to].queue;
  if (from >= count_ || to == from) {  // the serial phase (nothing else runs), or its own list
    dest.push(time_ps, kind, target, owner);
    return;
  }
  // Another partition's (or the serial list's) event from inside a window: it may not come
  // before the window's end, or that partition could already have run past it.
  if (time_ps < bound_.time_ps) lookahead_violation(time_ps, kind, from, to);
  parts_[from].out[to].push_back(Mail{time_ps, kind, target, owner});
}

void Partitions::lookahead_violation(int64_t time_ps, uint32_t kind, uint32_t from,
                                     uint32_t to) const {
  std::fprintf(stderr,
               "fabricsim: internal error: partition %u scheduled kind %u at %lld ps for partition "
               "%u, before the window's end (%lld ps): the lookahead is wrong\n",
               from, kind, static_cast<long long>(time_ps), to,
               static_cast<long long>(bound_.time_ps));
  std::abort();
}

void Partitions::join_mailboxes() {
  // In partition order, each in the order it was filled: the same at any thread count.
  for (uint32_t from = 0; from < count_; ++from) {
    for (uint32_t to = 0; to <= count_; ++to) {
      std::vector<Mail>& box = parts_[from].out[to];
      EventQueue& dest = to == count_ ? sched_.queue : parts_[to].queue;
      for (const Mail& m : box) dest.push(m.time_ps, m.kind, m.target, m.owner);
      box.clear();
    }
  }
}

size_t Partitions::mailbox_events() const {
  size_t n = 0;
  for (const Part& p : parts_) {
    for (const auto& box : p.out) n += box.size();
  }
  return n;
}

void Partitions::scatter(const Retarget& retarget) {
  std::vector<Event> pending;
  sched_.queue.drain(pending);
  std::sort(pending.begin(), pending.end(),
            [](const Event& a, const Event& b) { return a.seq < b.seq; });
  for (Part& p : parts_) p.now_ps = sched_.now_ps;
  for (const Event& e : pending) {
    const uint32_t to = route(e.kind(), e.owner());
    EventQueue& dest = to == count_ ? sched_.queue : parts_[to].queue;
    dest.push(e.time_ps, e.kind(), retarget ? retarget(e.kind(), e.target) : e.target, e.owner());
  }
}

void Partitions::gather(int64_t now_ps, const Retarget& retarget) {
  std::vector<Event> pending;
  for (Part& p : parts_) {
    const size_t first = pending.size();
    p.queue.drain(pending);
    std::sort(pending.begin() + static_cast<std::ptrdiff_t>(first), pending.end(),
              [](const Event& a, const Event& b) { return a.seq < b.seq; });
  }
  sched_.now_ps = now_ps;
  for (const Event& e : pending) {
    sched_.queue.push(e.time_ps, e.kind(), retarget ? retarget(e.kind(), e.target) : e.target,
                      e.owner());
  }
}

EventKey peek_key(const EventQueue& q) {
  EventKey k;
  if (!q.min_key(k.time_ps, k.order)) return kNoEventKey;
  return k;
}

EventKey Partitions::earliest_partition_key() const {
  EventKey best = kNoEventKey;
  for (uint32_t p = owned_first_; p < owned_end_; ++p) best = std::min(best, peek_key(parts_[p].queue));
  return best;
}

int64_t Partitions::partition_time_lower_bound() const {
  int64_t t = std::numeric_limits<int64_t>::max();
  for (uint32_t p = owned_first_; p < owned_end_; ++p) {
    t = std::min(t, parts_[p].queue.time_lower_bound());
  }
  return t;
}

EventKey Partitions::window_bound(EventKey earliest, EventKey serial_next) const {
  EventKey b = serial_next;
  if (earliest.time_ps <= std::numeric_limits<int64_t>::max() - lookahead_ps_) {
    b = std::min(b, EventKey{earliest.time_ps + lookahead_ps_, 0});
  }
  return b;
}

int64_t Partitions::events() const {
  int64_t n = 0;
  for (const Part& p : parts_) n += p.events;
  return n;
}

}  // namespace fabricsim
