// The header fields a message's first data packet would carry in packet mode, asked of the
// scenario's own packet transport (which makes and rotates its QPs, PDCs and TCP connections as
// its post() does), and how the flow engine spreads the message over the group choices on its
// way (engine/flow/path_walk.h). For mode: flow (engine/flow/flow_transport.h).
#pragma once

#include "engine/flow/flow_transport.h"
#include "spec/scenario.h"
#include "transport/transport.h"

namespace fabricsim::scenario {

// REQUIRES: `proto` is the transport sc.technology selects (RoceTransport for roce and ib,
// UetTransport for uet, TcpTransport for tcp and iwarp); it must outlive the function.
HeaderFn flow_headers(const Scenario& sc, transport::Transport& proto);
// Each NCCL channel's entropy where channels take paths of their own (RoCE RC: a UDP source
// port per queue pair; TCP and iWARP: a source port per connection); empty where every channel
// of a NIC pair takes one path.
ChannelEntropyFn flow_channel_entropy(const Scenario& sc, transport::Transport& proto);

}  // namespace fabricsim::scenario
