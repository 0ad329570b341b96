// Registry entries for TCP and iWARP (fabric.tcp.*, technology tcp and iwarp). Sources restate
// the comments on transport::TcpConfig (transport/tcp_config.h); docs/transports.md "TCP" and
// "iWARP" say which parameter carries which part of a latency.
#include <string>
#include <utility>
#include <vector>

#include "spec/knob_bind.h"
#include "spec/knob_tables.h"
#include "spec/knobs.h"

namespace fabricsim::scenario {

using knob_bind::bind;
using knob_bind::bind_enum;

namespace {

using transport::TcpCc;
using knob_bind::positive;
using knob_bind::non_negative;
const Bound one_minute{60e12};

const std::vector<Knob> kTcpKnobs = {
    bind_enum(
        {.path = "fabric.tcp.cc",
         .description = "TCP congestion control: newreno = RFC 5681/6582 with RFC 6675 SACK "
                        "recovery, data Not-ECT; dctcp = RFC 8257 (ECT data, exact CE echo, "
                        "cwnd x (1 - alpha/2) once per window) with step ECN marking at "
                        "fabric.tcp.dctcp_k in the switches; cubic = RFC 9438 (C 0.4, beta 0.7, "
                        "Reno-friendly region, no HyStart), data Not-ECT",
         .source = "dctcp: the datacenter choice (RFC 8257 §1; Linux tcp_dctcp.c); newreno: "
                   "RFC 5681 / RFC 6582; cubic: RFC 9438, Linux's default tcp_cubic.c"},
        std::vector<std::pair<std::string, TcpCc>>{
            {"newreno", TcpCc::kNewReno}, {"dctcp", TcpCc::kDctcp}, {"cubic", TcpCc::kCubic}},
        [](auto& s) -> auto& { return s.tcp.cc; }),
    bind(
        {.path = "fabric.tcp.cc_scheme",
         .type = KnobType::kString,
         .description = "A TCP congestion-control rule registered through the interface "
                        "(transport/tcp_window_cc.h, docs/cc.md) by the program that runs the "
                        "scenario; replaces fabric.tcp.cc",
         .source = "none: fabric.tcp.cc decides"},
        [](auto& s) -> auto& { return s.tcp.cc_scheme; }),
    bind(
        {.path = "fabric.tcp.mtu",
         .type = KnobType::kBytes,
         .description = "IP MTU; MSS = MTU - IPv4 20 - TCP 20 - timestamps option 12 "
                        "(1448 B at 1500)",
         .source = "1500: Ethernet payload (IEEE 802.3, RFC 894); RFC 791, RFC 9293, "
                   "RFC 7323 §3 header sizes",
         .min = Bound{576},
         .max = Bound{9216}},
        [](auto& s) -> auto& { return s.tcp.mtu_bytes; }),
    bind(
        {.path = "fabric.tcp.init_cwnd",
         .type = KnobType::kInt,
         .description = "Initial congestion window, in segments",
         .source = "10: RFC 6928 (Linux TCP_INIT_CWND)",
         .min = Bound{1},
         .max = Bound{1000}},
        [](auto& s) -> auto& { return s.tcp.init_cwnd_segments; }),
    bind(
        {.path = "fabric.tcp.connections_per_pair",
         .type = KnobType::kInt,
         .description = "TCP connections per (source NIC, destination NIC) pair, opened "
                        "with the pair's first message; messages take them in turn",
         .source = "1: one connection per peer (the model's unit); more for "
                   "connection-per-thread applications and the iWARP scaling study "
                   "(docs/nic.md)",
         .min = Bound{1},
         .max = Bound{65536}},
        [](auto& s) -> auto& { return s.tcp.connections_per_pair; }),
    bind(
        {.path = "fabric.tcp.rwnd",
         .type = KnobType::kBytes,
         .description = "Receive window (the receiving application reads at once, so "
                        "always the whole buffer); also caps cwnd",
         .source = "6291456: Linux net.ipv4.tcp_rmem maximum "
                   "(Documentation/networking/ip-sysctl.rst)",
         .min = Bound{2048},
         .max = Bound{1073741824}},
        [](auto& s) -> auto& { return s.tcp.rwnd_bytes; }),
    bind(
        {.path = "fabric.tcp.rto_min",
         .type = KnobType::kTime,
         .description = "Floor of the retransmission timeout (RFC 6298 estimator)",
         .source = "200 ms: Linux TCP_RTO_MIN = HZ/5 (include/net/tcp.h); RFC 6298 "
                   "§2.4 says 1 s; datacenters lower it per route (ip route rto_min)",
         .min = positive,
         .max = one_minute},
        [](auto& s) -> auto& { return s.tcp.rto_min_ps; }),
    bind(
        {.path = "fabric.tcp.rto_initial",
         .type = KnobType::kTime,
         .description = "Retransmission timeout before the connection's first RTT "
                        "sample",
         .source = "1 s: RFC 6298 §2.1, Linux TCP_TIMEOUT_INIT",
         .min = positive,
         .max = one_minute},
        [](auto& s) -> auto& { return s.tcp.rto_initial_ps; }),
    bind(
        {.path = "fabric.tcp.delayed_ack",
         .type = KnobType::kTime,
         .description = "Delayed-ACK timer; 0 = ACK every segment at once",
         .source = "40 ms: Linux TCP_DELACK_MIN = HZ/25 (include/net/tcp.h); RFC 5681 "
                   "§4.2 allows up to 500 ms",
         .min = non_negative,
         .max = Bound{500e9}},
        [](auto& s) -> auto& { return s.tcp.delack_ps; }),
    bind(
        {.path = "fabric.tcp.ack_every",
         .type = KnobType::kInt,
         .description = "The receiver ACKs at once every this many segments "
                        "(otherwise on the delayed-ACK timer)",
         .source = "2: RFC 5681 §4.2 (every second full-sized segment)",
         .min = Bound{1},
         .max = Bound{64}},
        [](auto& s) -> auto& { return s.tcp.ack_every_segments; }),
    bind(
        {.path = "fabric.tcp.quickacks",
         .type = KnobType::kInt,
         .description = "Segments ACKed at once at a connection's start (quick-ack "
                        "mode)",
         .source = "16: Linux TCP_MAX_QUICKACKS (include/net/tcp.h)",
         .min = Bound{0},
         .max = Bound{1000000}},
        [](auto& s) -> auto& { return s.tcp.quickacks; }),
    bind(
        {.path = "fabric.tcp.dctcp_g",
         .type = KnobType::kDouble,
         .description = "DCTCP alpha gain g",
         .source = "1/16: RFC 8257 §3.3, Linux dctcp_shift_g 4",
         .min = positive,
         .max = Bound{1}},
        [](auto& s) -> auto& { return s.tcp.dctcp_g; }),
    bind(
        {.path = "fabric.tcp.dctcp_k",
         .type = KnobType::kBytes,
         .description = "DCTCP switch marking threshold K (step marking: every packet "
                        "leaving a queue above K is CE-marked); 0 = C x RTT / 7 of the "
                        "fabric's diameter path in whole frames. fabric.ecn.kmin/kmax "
                        "override it",
         .source = "Alizadeh et al., DCTCP, SIGCOMM 2010 §3.3 (K > C x RTT / 7); "
                   "RFC 8257 §4",
         .min = non_negative,
         .max = Bound{1073741824}},
        [](auto& s) -> auto& { return s.tcp.dctcp_k_bytes; }),
    bind(
        {.path = "fabric.tcp.priority",
         .type = KnobType::kInt,
         .description = "802.1p class of TCP segments and ACKs",
         .source = "0: best effort, what untagged TCP traffic gets",
         .min = Bound{0},
         .max = Bound{7}},
        [](auto& s) -> auto& { return s.tcp.data_priority; }),
    bind(
        {.path = "fabric.tcp.phase_jitter",
         .type = KnobType::kBool,
         .description = "The sender acts on each ACK after a random time up to one full "
                        "frame's serialization, so identical flows behind a drop-tail "
                        "queue do not lock each other out",
         .source = "on: Floyd & Jacobson, On Traffic Phase Effects in Packet-Switched "
                   "Gateways (1992); ns-2 Agent/TCP overhead_"},
        [](auto& s) -> auto& { return s.tcp.phase_jitter; }),
    bind(
        {.path = "fabric.tcp.host_tx_message",
         .type = KnobType::kTime,
         .description = "Kernel TCP: host CPU per message sent (send() syscall and "
                        "socket layer); iwarp ignores it",
         .source = "2 us: UNVERIFIED order of magnitude (docs/transports.md \"TCP\")",
         .min = non_negative,
         .max = Bound{1e12}},
        [](auto& s) -> auto& { return s.tcp.host_tx_message_ps; }),
    bind(
        {.path = "fabric.tcp.host_rx_message",
         .type = KnobType::kTime,
         .description = "Kernel TCP: host CPU per message received (interrupt, "
                        "wake-up of the reader, recv() syscall); iwarp ignores it",
         .source = "5 us: UNVERIFIED order of magnitude (docs/transports.md \"TCP\")",
         .min = non_negative,
         .max = Bound{1e12}},
        [](auto& s) -> auto& { return s.tcp.host_rx_message_ps; }),
    bind(
        {.path = "fabric.tcp.host_tx_segment",
         .type = KnobType::kTime,
         .description = "Kernel TCP: host CPU per segment sent (TCP/IP and driver, "
                        "TSO amortised); also bounds one connection's send rate",
         .source = "100 ns: UNVERIFIED",
         .min = non_negative,
         .max = Bound{1e9}},
        [](auto& s) -> auto& { return s.tcp.host_tx_segment_ps; }),
    bind(
        {.path = "fabric.tcp.host_rx_segment",
         .type = KnobType::kTime,
         .description = "Kernel TCP: host CPU per segment received (driver, GRO, "
                        "TCP/IP)",
         .source = "150 ns: UNVERIFIED",
         .min = non_negative,
         .max = Bound{1e9}},
        [](auto& s) -> auto& { return s.tcp.host_rx_segment_ps; }),
    bind(
        {.path = "fabric.tcp.host_copy_rate",
         .type = KnobType::kRate,
         .description = "Kernel TCP: user<->kernel copy rate of one core, each side; "
                        "0 = no copy cost",
         .source = "80 Gb/s (10 GB/s): UNVERIFIED order; Cai et al., \"Understanding "
                   "Host Network Stack Overheads\", SIGCOMM 2021: data copy dominates",
         .min = non_negative,
         .max = Bound{1e13}},
        [](auto& s) -> auto& { return s.tcp.host_copy_rate_bps; }),
    bind(
        {.path = "fabric.tcp.iwarp_tx_latency",
         .type = KnobType::kTime,
         .description = "iWARP: the RNIC's TCP offload work per packet sent, added to "
                        "the NIC profile's tx pipeline",
         .source = "250 ns: UNVERIFIED; Chelsio T5 ~1.5 us end-to-end RDMA latency "
                   "(chelsio.com/nic/rdma-iwarp), T6 \"sub 1 us through hardware\"",
         .min = non_negative,
         .max = Bound{1e9}},
        [](auto& s) -> auto& { return s.tcp.iwarp_tx_extra_ps; }),
    bind(
        {.path = "fabric.tcp.iwarp_rx_latency",
         .type = KnobType::kTime,
         .description = "iWARP: the RNIC's TCP offload work per packet received "
                        "(lookup, MPA CRC, DDP placement), added to the rx pipeline",
         .source = "250 ns: UNVERIFIED (as fabric.tcp.iwarp_tx_latency)",
         .min = non_negative,
         .max = Bound{1e9}},
        [](auto& s) -> auto& { return s.tcp.iwarp_rx_extra_ps; }),
    bind(
        {.path = "fabric.tcp.iwarp_mpa_markers",
         .type = KnobType::kBool,
         .description = "iWARP: MPA markers (4 B every 512 B of stream) in each "
                        "segment",
         .source = "off: Linux iw_cxgb4 markers_enabled default 0 "
                   "(drivers/infiniband/hw/cxgb4/cm.c); RFC 5044 §5"},
        [](auto& s) -> auto& { return s.tcp.iwarp_mpa_markers; }),
};

}  // namespace

const std::vector<Knob>& tcp_knobs() { return kTcpKnobs; }

}  // namespace fabricsim::scenario
