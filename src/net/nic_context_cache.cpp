#include "net/nic_context_cache.h"

#include <algorithm>

namespace fabricsim::net {

NicContextCache::NicContextCache(const ContextCacheConfig& cfg, int64_t miss_latency_ps,
                                 uint32_t num_nics)
    : enabled_(cfg.enabled),
      entries_(std::max<int64_t>(cfg.entries, 1)),
      miss_latency_ps_(miss_latency_ps),
      outstanding_(std::max(cfg.outstanding_misses, 1)),
      context_bytes_(cfg.context_bytes),
      nics_(num_nics) {}

namespace {
// Fibonacci hashing of the connection id onto a power-of-two table.
uint32_t hash_slot(uint32_t conn, size_t table_size) {
  const int bits = __builtin_ctzll(table_size);
  return static_cast<uint32_t>((static_cast<uint64_t>(conn) * 0x9E3779B97F4A7C15ull) >>
                               (64 - bits));
}
}  // namespace

uint32_t NicContextCache::find(const Nic& n, uint32_t conn) const {
  if (n.index.empty()) return kNone;
  const uint32_t mask = static_cast<uint32_t>(n.index.size() - 1);
  for (uint32_t i = hash_slot(conn, n.index.size());; i = (i + 1) & mask) {
    const uint32_t s = n.index[i];
    if (s == kNone) return kNone;
    if (n.slots[s].conn == conn) return s;
  }
}

void NicContextCache::index_insert(Nic& n, uint32_t slot) {
  const uint32_t mask = static_cast<uint32_t>(n.index.size() - 1);
  uint32_t i = hash_slot(n.slots[slot].conn, n.index.size());
  while (n.index[i] != kNone) i = (i + 1) & mask;
  n.index[i] = slot;
}

// Linear probing deletion by backward shift: later entries of the probe run move into the hole
// unless their home lies cyclically in (hole, position], so no tombstones accumulate.
void NicContextCache::index_erase(Nic& n, uint32_t conn) {
  const uint32_t mask = static_cast<uint32_t>(n.index.size() - 1);
  uint32_t i = hash_slot(conn, n.index.size());
  while (n.slots[n.index[i]].conn != conn) i = (i + 1) & mask;  // present by precondition
  uint32_t hole = i;
  for (uint32_t j = (hole + 1) & mask; n.index[j] != kNone; j = (j + 1) & mask) {
    const uint32_t h = hash_slot(n.slots[n.index[j]].conn, n.index.size());
    const bool stays = hole <= j ? (hole < h && h <= j) : (hole < h || h <= j);
    if (stays) continue;
    n.index[hole] = n.index[j];
    hole = j;
  }
  n.index[hole] = kNone;
}

void NicContextCache::rebuild_index(Nic& n, size_t min_slots) {
  size_t size = 16;
  while (size < 2 * min_slots) size *= 2;  // load factor at most 1/2
  n.index.assign(size, kNone);
  for (uint32_t s = 0; s < n.slots.size(); ++s) {
    if (n.slots[s].conn != kNone) index_insert(n, s);
  }
}

void NicContextCache::unlink(Nic& n, uint32_t s) {
  Slot& x = n.slots[s];
  if (x.prev != kNone) n.slots[x.prev].next = x.next; else n.mru = x.next;
  if (x.next != kNone) n.slots[x.next].prev = x.prev; else n.lru = x.prev;
  x.prev = x.next = kNone;
}

void NicContextCache::push_mru(Nic& n, uint32_t s) {
  Slot& x = n.slots[s];
  x.prev = kNone;
  x.next = n.mru;
  if (n.mru != kNone) n.slots[n.mru].prev = s;
  n.mru = s;
  if (n.lru == kNone) n.lru = s;
}

uint32_t NicContextCache::allocate(Nic& n, uint32_t conn) {
  uint32_t s;
  if (static_cast<int64_t>(n.slots.size()) < entries_) {
    // Room left: only at set-up, since every connection of a NIC whose cache has never been
    // full is cached (nothing was evicted), so an access that misses finds the cache full.
    if (2 * (n.slots.size() + 1) > n.index.size()) rebuild_index(n, 2 * n.slots.size() + 8);
    s = static_cast<uint32_t>(n.slots.size());
    n.slots.emplace_back();
  } else {
    // Full: evict the least recently used context, passing over ones whose read has not yet
    // served its packet (at most one per read in flight), so no read is wasted.
    s = n.lru;
    for (int walk = 0; walk < outstanding_ && n.slots[s].fresh && n.slots[s].prev != kNone;
         ++walk) {
      s = n.slots[s].prev;
    }
    if (n.slots[s].fresh) s = n.lru;
    unlink(n, s);
    index_erase(n, n.slots[s].conn);
  }
  n.slots[s] = Slot{};
  n.slots[s].conn = conn;
  index_insert(n, s);
  push_mru(n, s);
  return s;
}

void NicContextCache::add_connection(uint32_t nic, uint32_t conn) {
  Nic& n = nics_[nic];
  ++n.connections;
  if (n.read_done_ps.empty()) n.read_done_ps.assign(static_cast<size_t>(outstanding_), 0);
  if (find(n, conn) != kNone) return;  // already has a context here (a loopback connection)
  allocate(n, conn);  // set-up writes the context: cached, ready now
}

bool NicContextCache::lookup(Nic& n, uint32_t conn, int64_t now_ps, int64_t* ready_ps) {
  const uint32_t found = find(n, conn);
  if (found == kNone) return false;
  Slot& s = n.slots[found];
  if (s.ready_ps > now_ps) {  // its read is under way; the packet it is for is counted
    *ready_ps = s.ready_ps;
    return true;
  }
  if (s.fresh) {
    s.fresh = false;  // the access this read was for
  } else {
    ++hits_;
  }
  if (n.mru != found) {
    unlink(n, found);
    push_mru(n, found);
  }
  *ready_ps = now_ps;
  return true;
}

int64_t NicContextCache::issue(Nic& n, uint32_t conn, int64_t now_ps, int64_t start_ps) {
  int64_t& slot_done = n.read_done_ps[n.next_read];
  n.next_read = (n.next_read + 1) % static_cast<uint32_t>(n.read_done_ps.size());
  const int64_t ready = start_ps + miss_latency_ps_;
  slot_done = ready;
  const uint32_t s = allocate(n, conn);
  n.slots[s].ready_ps = ready;
  n.slots[s].fresh = true;
  ++misses_;
  ++n.misses;
  miss_stall_ps_ += ready - now_ps;
  return ready;
}

ContextAccess NicContextCache::access(uint32_t nic, uint32_t conn, int64_t now_ps) {
  Nic& n = nics_[nic];
  ContextAccess a;
  if (lookup(n, conn, now_ps, &a.ready_ps)) return a;
  // Reads complete in issue order, so the next slot in turn is the first to free.
  const int64_t slot_free = n.read_done_ps[n.next_read];
  if (slot_free > now_ps) {
    a.ready_ps = slot_free;
    a.engine_busy = true;
    return a;
  }
  a.ready_ps = issue(n, conn, now_ps, now_ps);
  return a;
}

int64_t NicContextCache::access_waiting(uint32_t nic, uint32_t conn, int64_t now_ps) {
  Nic& n = nics_[nic];
  int64_t ready = now_ps;
  if (lookup(n, conn, now_ps, &ready)) return ready;
  return issue(n, conn, now_ps, std::max(now_ps, n.read_done_ps[n.next_read]));
}

int64_t NicContextCache::max_connections_per_nic() const {
  int64_t m = 0;
  for (const Nic& n : nics_) m = std::max(m, n.connections);
  return m;
}

int64_t NicContextCache::total_connections() const {
  int64_t t = 0;
  for (const Nic& n : nics_) t += n.connections;
  return t;
}

}  // namespace fabricsim::net
