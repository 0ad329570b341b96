// The scenarios a partitioned run is checked on (tests/engine/partitioned_run_test.cpp at 1-8
// threads, tests/engine/mpi_run_test.cpp at 2 and 3 MPI ranks): together they exercise every
// way a partition touches another (see partitioned_run_test.cpp's header).
#pragma once

namespace fabricsim::partitioned_cases {

struct Case {
  const char* name;
  const char* yaml;
};

// Small enough for the suite (each run well under a second), large enough that every
// partition count cuts cables carrying traffic.
const Case kCases[] = {
    {"roce-pfc-permutation",  // 3-tier k=8 fat-tree: PAUSE frames cross cut cables
     "name: p\nseed: 1\nfabric: {technology: roce, link: {rate: 100Gbps, cable: 3m}, "
     "switch: {latency: 450ns, buffer: 1MiB}, pfc: {enabled: true}, roce: {mtu: 4000B}}\n"
     "topology: {kind: fat_tree, tiers: 3, radix: 8}\nhosts: {count: 128}\n"
     "workload: {kind: pattern, pattern: permutation, flow_size: 300000B}\n"},
    {"roce-dcqcn-incast",  // ECN marks, CNPs back to the senders, PFC
     "name: i\nseed: 3\nfabric: {technology: roce, link: {rate: 100Gbps, cable: 3m}, "
     "switch: {latency: 450ns, buffer: 4MiB}, pfc: {enabled: true}, roce: {cc: dcqcn}}\n"
     "topology: {kind: leaf_spine, radix: 16}\nhosts: {count: 64}\n"
     "workload: {kind: pattern, pattern: incast, senders: 24, receiver: 5, flow_size: 400KB}\n"},
    {"ib-credits-all-to-all",  // credit packets cross cut cables
     "name: a\nseed: 5\nfabric: {technology: ib, link: {rate: 200Gbps, cable: 5m}}\n"
     "topology: {kind: leaf_spine, radix: 8}\nhosts: {count: 32}\n"
     "workload: {kind: pattern, pattern: all_to_all, flow_size: 64KB}\n"},
    {"lossy-drops",  // no PFC, small buffers: drops, reported across partitions at barriers
     "name: l\nseed: 7\nfabric: {technology: roce, link: {rate: 100Gbps, cable: 10m}, "
     "switch: {latency: 300ns, buffer: 256KiB}, roce: {mtu: 4096B}}\n"
     "topology: {kind: leaf_spine, radix: 8, oversubscription: 3}\nhosts: {count: 48}\n"
     "workload: {kind: pattern, pattern: permutation, flow_size: 500KB}\n"},
    {"poisson-mid-run-starts",  // flows start all along the run: serial events between windows
     "name: q\nseed: 11\nfabric: {technology: roce, link: {rate: 100Gbps, cable: 3m}, "
     "switch: {latency: 450ns, buffer: 8MiB}, pfc: {enabled: true}, roce: {cc: dcqcn}}\n"
     "topology: {kind: fat_tree, tiers: 2, radix: 8}\nhosts: {count: 32}\n"
     "workload: {kind: pattern, pattern: poisson, load: 0.6, duration: 200us, "
     "size_distribution: web_search}\n"},
    {"uet-nscc-trimming",  // UET: NSCC, trimmed packets NACKed, ACK slots across partitions
     "name: u\nseed: 9\nfabric: {technology: uet, link: {rate: 100Gbps, cable: 3m}, "
     "switch: {latency: 450ns, buffer: 512KiB}, uet: {nscc: true}}\n"
     "topology: {kind: leaf_spine, radix: 12, oversubscription: 2}\nhosts: {count: 32}\n"
     "workload: {kind: pattern, pattern: all_to_all, flow_size: 128KB}\n"},
    {"time-limit",  // stopped mid-flight: the partial results must agree too
     "name: t\nseed: 2\nfabric: {technology: roce, link: {rate: 100Gbps, cable: 3m}, "
     "switch: {latency: 450ns, buffer: 2MiB}, pfc: {enabled: true}}\n"
     "topology: {kind: fat_tree, tiers: 3, radix: 8}\nhosts: {count: 128}\n"
     "workload: {kind: pattern, pattern: permutation, flow_size: 1MB}\nstop_time: 40us\n"},
    {"tcp-incast-spurious-rto",  // kernel TCP: drops, SACK recovery, RTOs far below the
     // queueing delay (copies that arrive or are dropped after their segment was acknowledged),
     // delayed-ACK timers at the receiver, ACK details in another partition's table
     "name: ti\nseed: 4\nfabric: {technology: tcp, link: {rate: 100Gbps, cable: 3m}, "
     "switch: {latency: 450ns, buffer: 256KiB}, tcp: {cc: newreno, rto_min: 20us, "
     "rto_initial: 100us, delayed_ack: 50us}}\n"
     "topology: {kind: leaf_spine, radix: 16}\nhosts: {count: 64}\n"
     "workload: {kind: pattern, pattern: incast, senders: 24, receiver: 5, flow_size: 300KB}\n"},
    {"tcp-small-messages",  // kernel TCP, CUBIC: many 3 KB messages per connection posted
     // between windows, segments spanning messages, heavy loss; a posted message's NIC may send
     // at once in the serial phase
     "name: ts\nseed: 13\nfabric: {technology: tcp, link: {rate: 100Gbps, cable: 3m}, "
     "switch: {latency: 300ns, buffer: 64KiB}, tcp: {cc: cubic, rto_min: 50us, "
     "rto_initial: 200us, delayed_ack: 20us}}\n"
     "topology: {kind: leaf_spine, radix: 8, oversubscription: 3}\nhosts: {count: 32}\n"
     "workload: {kind: pattern, pattern: poisson, load: 0.9, duration: 150us, "
     "flow_size: 3000B}\n"},
    {"iwarp-lossy-permutation",  // iWARP (TCP in the RNIC, MPA/DDP framing): drops, RTOs
     "name: tw\nseed: 6\nfabric: {technology: iwarp, link: {rate: 100Gbps, cable: 10m}, "
     "switch: {latency: 300ns, buffer: 96KiB}, tcp: {cc: newreno, rto_min: 100us, "
     "rto_initial: 1ms}}\n"
     "topology: {kind: leaf_spine, radix: 8, oversubscription: 3}\nhosts: {count: 48}\n"
     "workload: {kind: pattern, pattern: permutation, flow_size: 500KB}\n"},
};

}  // namespace fabricsim::partitioned_cases
