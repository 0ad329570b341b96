// The settings technology tcp or iwarp implies for the rest of the fabric: which host stack
// runs, lossy Ethernet, DCTCP's step marking at K, the RNIC's extra pipeline latency and GPU
// staging. Used by the simulation before it builds the network.
#pragma once

#include "spec/scenario.h"

namespace fabricsim::scenario {

// The base RTT of the fabric's longest path for TCP: data frame out, ACK back, through
// 2 x tiers links, their switches and both NICs' pipelines (no host stack: the receiving NIC's
// stack ACKs). What DCTCP's derived K scales from.
int64_t tcp_base_rtt_ps(const Scenario& sc);

// DCTCP's marking threshold: fabric.tcp.dctcp_k, or C x RTT / 7 rounded up to whole full frames
// (Alizadeh et al., SIGCOMM 2010 §3.3).
int64_t tcp_dctcp_k_bytes(const Scenario& sc);

// Applies technology tcp / iwarp to `sc` (REQUIRES: sc.nic resolved): the stack, PFC off,
// ECN step marking at K for DCTCP on the TCP class (fabric.ecn.* may still override), the
// iWARP NIC's extra per-packet latency, and for kernel TCP GPU data staged through host memory
// (node.gpudirect off: a kernel socket cannot DMA into GPU memory).
void configure_tcp(Scenario& sc);

}  // namespace fabricsim::scenario
