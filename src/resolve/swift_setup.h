// Swift's and DCTCP-on-RDMA's parameters for a scenario (transport/swift.h; docs/cc.md "Swift").
#pragma once

#include "spec/scenario.h"
#include "transport/dctcp_rdma.h"
#include "transport/swift.h"

namespace fabricsim::scenario {

// The defaults for the fabric's base RTT (the longest host-to-host path's, as HPCC's T:
// resolve/hpcc_setup.h) and its BDP in MTU packets, with fabric.roce.swift.* applied; throws
// InputError naming the key at fault. On a topology file or a Dragonfly the base RTT is not
// derived: fabric.roce.swift.base_rtt must be set there.
transport::SwiftParams resolve_swift(const Scenario& sc);

// DCTCP on RDMA (transport/dctcp_rdma.h): the defaults for the link rate, MTU and the fabric's
// base RTT (fabric.roce.dctcp.base_rtt on a topology file or a Dragonfly), with
// fabric.roce.dctcp.* applied.
transport::DctcpRdmaParams resolve_dctcp_rdma(const Scenario& sc);

}  // namespace fabricsim::scenario
