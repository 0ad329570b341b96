// A NIC's on-chip cache of connection contexts (RDMA QP contexts; offloaded TCP connection
// state for iWARP), and the PCIe reads that fill it.
//
// An RDMA NIC keeps every connection's state (the QPC: PSNs, addresses, retry state; plus its
// memory-translation entries) in host memory and caches the active ones on chip. A packet of a
// connection whose context is not cached waits while the NIC reads it from host memory over
// PCIe; once more connections are active than the cache holds, every packet pays that read and
// the NIC's message rate falls (Kalia et al., ATC 2016 and OSDI 2016 "FaSST"; Chen et al.,
// EuroSys 2019 "ScaleRPC"; Wang et al., NSDI 2023 "SRNIC": docs/nic.md "Connection-context
// cache"). What is modelled:
//   - per NIC, `entries` contexts with least-recently-used replacement. LRU is exact and O(1)
//     here: an intrusive doubly linked list threaded through a preallocated slot array, plus an
//     open-addressing index from connection id to slot. It gives the textbook cliff the sources
//     describe for connections served round-robin (all hits while they fit, every access a miss
//     once they do not); CLOCK would give the same cliff for round-robin but not exact LRU's
//     order elsewhere. ConnectX's real policy is not public (UNVERIFIED).
//   - a miss is one PCIe read round trip (`miss_latency_ps`) before the packet proceeds, and a
//     NIC keeps at most `outstanding_misses` such reads in flight. With fixed-latency reads
//     issued in order, reads complete in issue order, so the read engine is a ring of completion
//     times (no scan, no event). What a miss does when every read is busy depends on the side:
//     the send scheduler stalls until one completes (it picks connections in turn and does not
//     scan ahead for cached ones: access()), a received packet queues its read behind them
//     (access_waiting()). Either way a NIC whose every access misses processes at most
//     outstanding_misses packets per miss_latency: the rate the sources see collapse.
//   - creating a connection writes its context (the firmware's QP set-up), so a new connection
//     is cached from the start and set-up costs nothing here.
//
// No transport knowledge: a connection is a 32-bit id the transport picks (RoCE: the QP index;
// an iWARP transport: its TCP connection index), looked up in the cache of one NIC. The pattern
// for a transport (transport/rc.cpp does it):
//   TX: when the NIC's scheduler picks a connection to send, a = access(nic, conn, now); if
//       a.ready_ps > now the packet cannot go yet: with a.engine_busy stop scheduling until
//       a.ready_ps (nothing was issued), else skip this connection and come back at a.ready_ps
//       (the read is for this packet: that later access is not counted again).
//   RX: ready = access_waiting(nic, conn, arrival); processing waits until `ready`.
// Hot path: no allocation, no virtual call; disabled, the transport pays one branch.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace fabricsim::net {

// fabric.nic.context_cache.* (spec/knob_registry_ctxcache.cpp has the sources).
struct ContextCacheConfig {
  bool enabled = false;
  int64_t entries = 1024;        // contexts cached per NIC
  // One PCIe read round trip; unset = the NIC profile's dma_read (the same round trip).
  std::optional<int64_t> miss_latency_ps;
  int outstanding_misses = 8;    // context reads in flight per NIC
  int64_t context_bytes = 232;   // one connection's context (mlx5 QPC: 0x740 bits)
};

// What the send scheduler learns from a look-up.
struct ContextAccess {
  int64_t ready_ps = 0;      // when the context is on the NIC (the look-up time on a hit)
  bool engine_busy = false;  // a miss found every read in flight: nothing issued, retry then
};

class NicContextCache {
 public:
  static constexpr int64_t kSlotBytes = 24;  // one cached context (the pre-flight estimate)

  // Disabled and empty: callers test enabled() and make no look-up.
  NicContextCache() = default;
  // REQUIRES: cfg.entries >= 1, cfg.outstanding_misses >= 1, miss_latency_ps >= 0.
  NicContextCache(const ContextCacheConfig& cfg, int64_t miss_latency_ps, uint32_t num_nics);

  bool enabled() const { return enabled_; }
  int64_t miss_latency_ps() const { return miss_latency_ps_; }

  // A new connection `conn` has a context on `nic` (not per packet: at connection set-up). It
  // is written into the cache (evicting the least recently used if full) and counted for the
  // memory the NIC's connections need.
  void add_connection(uint32_t nic, uint32_t conn);

  // The send scheduler of `nic` picked `conn` at `now_ps`. A hit returns now_ps; a miss issues
  // the PCIe read if one of the read slots is free and returns its completion, else issues
  // nothing and returns when a slot frees (engine_busy). A context still being read returns that
  // read's completion and counts nothing (the packet it is for is already counted); the first
  // access after a read completes is the access the read was for and is not counted again.
  // REQUIRES: add_connection(nic, conn) was called.
  ContextAccess access(uint32_t nic, uint32_t conn, int64_t now_ps);
  // Whether `nic` could issue a context read now (one of its read slots is free).
  bool read_slot_free(uint32_t nic, int64_t now_ps) const {
    const Nic& n = nics_[nic];
    return n.read_done_ps.empty() || n.read_done_ps[n.next_read] <= now_ps;
  }
  // A packet of `conn` received by `nic` at `now_ps` needs its context: as access(), but a miss
  // always issues its read, queued behind the reads in flight. Returns when the context is on
  // the NIC.
  int64_t access_waiting(uint32_t nic, uint32_t conn, int64_t now_ps);

  // Totals over every NIC.
  int64_t hits() const { return hits_; }
  int64_t misses() const { return misses_; }
  // Sum over misses of (context on the NIC - miss time): the read plus any wait for a read slot.
  int64_t miss_stall_ps() const { return miss_stall_ps_; }
  // Connections with a context on `nic`, and the most on any NIC (the NIC memory they need is
  // that times context_bytes).
  int64_t connections(uint32_t nic) const { return nics_[nic].connections; }
  int64_t max_connections_per_nic() const;
  int64_t total_connections() const;
  int64_t context_bytes() const { return context_bytes_; }
  int64_t entries() const { return entries_; }
  uint32_t num_nics() const { return static_cast<uint32_t>(nics_.size()); }
  // Per-NIC counters (for tests and per-NIC reports).
  int64_t nic_misses(uint32_t nic) const { return nics_[nic].misses; }
  bool cached(uint32_t nic, uint32_t conn) const { return find(nics_[nic], conn) != kNone; }

 private:
  static constexpr uint32_t kNone = 0xFFFFFFFFu;
  struct Slot {
    int64_t ready_ps = 0;   // when its context is (or was) on the NIC
    uint32_t conn = kNone;
    uint32_t prev = kNone;  // towards the most recently used
    uint32_t next = kNone;  // towards the least recently used
    bool fresh = false;     // filled by a miss whose packet has not come back for it yet
  };
  static_assert(sizeof(Slot) == kSlotBytes);
  // One NIC's cache. Slots grow with the NIC's connections up to `entries` (at set-up, never
  // per packet), so a NIC with few connections holds few slots.
  struct Nic {
    std::vector<Slot> slots;
    std::vector<uint32_t> index;  // open addressing, linear probing: slot or kNone
    std::vector<int64_t> read_done_ps;  // the read engine: completion time per read slot
    uint32_t next_read = 0;
    uint32_t mru = kNone;
    uint32_t lru = kNone;
    int64_t connections = 0;
    int64_t misses = 0;
  };
  uint32_t find(const Nic& n, uint32_t conn) const;
  void index_insert(Nic& n, uint32_t slot);
  void index_erase(Nic& n, uint32_t conn);
  // Re-creates the index for at least `min_slots` slots (at set-up only).
  void rebuild_index(Nic& n, size_t min_slots);
  void unlink(Nic& n, uint32_t slot);
  void push_mru(Nic& n, uint32_t slot);
  // A slot for `conn`: a never-used one, else the least recently used, evicted. Made MRU.
  uint32_t allocate(Nic& n, uint32_t conn);
  // Both look-ups' hit path: false when `conn` is not cached, else *ready_ps is when it is.
  bool lookup(Nic& n, uint32_t conn, int64_t now_ps, int64_t* ready_ps);
  // Issues the read for `conn` starting at `start_ps` on the next read slot.
  int64_t issue(Nic& n, uint32_t conn, int64_t now_ps, int64_t start_ps);

  bool enabled_ = false;
  int64_t entries_ = 0;
  int64_t miss_latency_ps_ = 0;
  int outstanding_ = 1;
  int64_t context_bytes_ = 0;
  std::vector<Nic> nics_;
  int64_t hits_ = 0;
  int64_t misses_ = 0;
  int64_t miss_stall_ps_ = 0;
};

}  // namespace fabricsim::net
