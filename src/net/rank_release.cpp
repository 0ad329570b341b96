// What a rank of an MPI run gives back once the fabric is split (network.h release_unowned;
// docs/parallel.md "What each rank builds"). The arrays stay indexed by global port and switch
// ids, so the hop's code is the one-process code; only the memory behind the parts this rank
// never touches goes: the queue state's pages (core/resident_pages.h) and the switches' tables;
// and, after its last window, the buffers of its empty rings (release_empty_rings).
#include <vector>

#include "core/resident_pages.h"
#include "net/network.h"

namespace fabricsim::net {

namespace {

template <class T>
size_t free_vector(std::vector<T>& v) {
  const size_t bytes = v.capacity() * sizeof(T);
  std::vector<T>().swap(v);
  return bytes;
}

template <class T>
size_t free_if_empty(Ring<T>& r) {
  if (!r.empty() || r.capacity() == 0) return 0;
  const size_t bytes = r.capacity() * sizeof(T);
  r = Ring<T>();  // the buffer goes with the temporary
  return bytes;
}

}  // namespace

size_t Network::release_empty_rings() {
  size_t bytes = 0;
  for (Port& p : ports_) bytes += free_if_empty(p.line);
  // A given-back entry's rings have no buffer: it is read here, never written.
  for (PortQueues& q : queues_) {
    for (ClassQueue& c : q.cls) bytes += free_if_empty(c.ring);
    bytes += free_if_empty(q.mac_ctrl) + free_if_empty(q.ctrl_line) + free_if_empty(q.rx_hold);
  }
  release_free_heap();
  return bytes;
}

Network::Released Network::release_unowned(const std::vector<uint16_t>& port_partition,
                                            uint32_t first, uint32_t end) {
  Released r;
  auto owned = [&](uint32_t port) {
    return port_partition[port] >= first && port_partition[port] < end;
  };
  // Read as zero bytes from now on, a PortQueues is a default one whose rings have no buffer:
  // only entries whose rings have none yet are given back (before the first event, none has).
  auto untouched = [&](uint32_t port) {
    const Port& p = ports_[port];
    if (p.is_nic || owned(port) || owned(p.peer)) return false;
    const PortQueues& q = queues_[port];
    for (const ClassQueue& c : q.cls) {
      if (c.ring.capacity() != 0) return false;
    }
    return q.mac_ctrl.capacity() == 0 && q.ctrl_line.capacity() == 0 &&
           q.rx_hold.capacity() == 0;
  };
  const auto ports = static_cast<uint32_t>(ports_.size());
  uint32_t from = 0;  // start of the current run of untouched ports
  for (uint32_t port = 0; port <= ports; ++port) {
    if (port < ports && untouched(port)) {
      ++r.queue_ports;
      continue;
    }
    if (port > from) {
      r.queue_bytes += release_pages(queues_.data() + from, (port - from) * sizeof(PortQueues));
    }
    from = port + 1;
  }
  for (Switch& s : switches_) {
    if (s.num_ports == 0 || owned(s.first_port)) continue;  // a node's ports share its partition
    r.table_bytes += free_vector(s.group_of_key) + free_vector(s.group_offsets) +
                     free_vector(s.group_ports) + free_vector(s.flowlets) +
                     free_vector(s.te_rules) + free_vector(s.dfly.port_to_group);
    ++r.switches;
  }
  return r;
}

}  // namespace fabricsim::net
