// RoCEv2 RC transport configuration.
#pragma once

#include <cstdint>

#include "core/time.h"

namespace fabricsim::transport {

struct RoceConfig {
  // RDMA payload bytes per packet (the path MTU). 4096 is the largest RoCE/IB MTU (SPEC §8).
  int mtu_bytes = 4096;
  // Responder sends an ACK after this many in-order data packets and always on a message's last
  // packet. 1 = every packet, as the HPCC RDMA simulator does (L2_ACK_INTERVAL 1).
  int ack_every = 1;
  // Local ACK Timeout = 4.096 us x 2^exponent (IBTA; Linux rxe_qp.c). 14 (~67 ms) is the value
  // commonly used by RDMA applications (UNVERIFIED, shared/reference/rocev2.md §6).
  int ack_timeout_exponent = 14;
  // Consecutive retransmit timeouts without progress before the QP goes to the error state and
  // its unfinished messages are reported as failed: the IBTA 3-bit retry_cnt, whose maximum 7 is
  // what perftest and librdmacm applications commonly set.
  int retry_count = 7;
  int64_t retransmit_timeout_ps() const {
    return (4096ll * kPsPerNs) << ack_timeout_exponent;  // 4.096 us = 4096 ns
  }
  // Whether frames carry an 802.1Q tag (+4 bytes). Off: DSCP-based priority, the common RoCE
  // deployment (NVIDIA "RoCE configuration" guides use DSCP trust mode).
  bool vlan_tag = false;
  // Priority (traffic class) of RoCE data/ACKs and of CNPs; 3 and 6 are NVIDIA's defaults.
  int data_priority = 3;
  int cnp_priority = 6;
};

}  // namespace fabricsim::transport
