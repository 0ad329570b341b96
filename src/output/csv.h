// flows.csv: one row per flow, for plotting FCT distributions outside the simulator.
#pragma once

#include <string>
#include <vector>

#include "results/result.h"

namespace fabricsim::output {

inline constexpr const char* kFlowsCsvHeader =
    "id,src,dst,size_bytes,start_ps,finish_ps,fct_ps,ideal_fct_ps,slowdown,sent_bytes,"
    "delivered_bytes,dropped_bytes,retransmitted_packets,class,qp";

// Header line, then one line per flow in the given order. An unfinished flow leaves finish_ps,
// fct_ps and slowdown empty (read as missing by pandas and spreadsheets, where -1 would be
// averaged in silently). Slowdown has six decimals; every other column is an integer.
// routes.csv (InfiniBand): switch,tier,port,direction,far,routes, one row per switch port, the
// CA LIDs the Subnet Manager's LFT sends out of each (`far` is "nic N" or "switch N").
std::string routes_csv_text(const std::vector<scenario::PortRoutes>& routes);

// class: the flow's IB SL or Ethernet priority; qp: its connection (QP, PDC, TCP connection).
// `with_path` (outputs.flows.path) adds a last column, path (engine/packet/flow_paths.h format).
std::string flows_csv_text(const std::vector<scenario::FlowRecord>& flows, bool with_path = false);

}  // namespace fabricsim::output
