// Link utilization per tier and direction, from the per-port wire-byte counters of a finished
// run (net::Network::port_tx_bytes): SPEC §6 "link utilization per tier", and the load imbalance
// (max / mean) that shows ECMP collisions and hash polarization (shared/reference/rocev2.md §4).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "net/network.h"
#include "results/result.h"

namespace fabricsim::scenario {

// A node's tier: 0 for a NIC, else its switch's tier (1 = leaf/edge, 2 = spine/agg, 3 = core).
int port_tier(const net::Network& net, uint32_t port);

// Names used in every per-link output (links.csv, time series, outputs.timeseries.ports, the
// report): a NIC is "nic<i>", a switch "sw<i>" (net::Network indices); a port, i.e. one
// direction of a cable, is "<from>:<local port>-><to>", e.g. "sw3:5->sw17", "nic0:0->sw0". The
// local port number makes parallel cables between the same two switches distinct.
std::string node_label(const net::Network& net, uint32_t node);
std::string port_label(const net::Network& net, uint32_t port);

// Wire bytes `port` sent x 8 / (its rate x span_ps). REQUIRES: span_ps > 0.
double port_utilization(const net::Network& net, uint32_t port, int64_t span_ps);

// Groups every port by the tiers at its two ends (a port from tier t to t + 1 is an uplink of
// tier t, one from t + 1 to t a downlink of tier t; other ports, e.g. between switches of one
// tier, belong to no group) and summarizes each group. Order: uplinks from tier 0 upwards, then
// downlinks from the top tier down to tier 0. Empty when span_ps <= 0.
std::vector<LinkGroupLoad> link_group_loads(const net::Network& net, int64_t span_ps);

// When the last frame any port sent finished serializing (0 if none was ever sent).
int64_t last_frame_end_ps(const net::Network& net);

// LinkLoads over T = [first_post_ps, max(traffic_end_ps, last_frame_end_ps(net))]: every byte
// counted in port_tx_bytes lies inside T. `first_post_ps` < 0: no traffic (empty result).
LinkLoads link_loads(const net::Network& net, int64_t first_post_ps, int64_t traffic_end_ps);

}  // namespace fabricsim::scenario
