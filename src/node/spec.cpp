#include "node/spec.h"

#include <string>

#include "core/error.h"

namespace fabricsim::node {

namespace {

// GT/s per lane; Gen3-5 all use 128b/130b encoding (PCIe Base Spec §4.2; Gen6's FLIT mode is a
// different encoding and not offered).
double gt_per_s(int generation) {
  switch (generation) {
    case 3:
      return 8.0;
    case 4:
      return 16.0;
    default:
      return 32.0;
  }
}

}  // namespace

double pcie_rate_bps(const NodeSpec& spec, int lanes) {
  const double raw_bps = lanes * gt_per_s(spec.pcie_generation) * 1e9 * 128.0 / 130.0;
  const double mps = static_cast<double>(spec.pcie_max_payload_bytes);
  return raw_bps * mps / (mps + static_cast<double>(spec.pcie_tlp_overhead_bytes));
}

NcclView nccl_view(const NodeSpec& spec, int64_t nic_rate_bps, int nics_per_node) {
  NcclView v;
  // nccl@5067397 topo.h SM90_NVLINK_BW x links: fabricsim's effective NVLink rate is defined as
  // exactly that (nvlink_efficiency = 370.8 / 450), so it is NCCL's figure.
  v.nvlink_gbps = static_cast<double>(spec.nvlink_rate_bps) * spec.nvlink_efficiency / 8e9;
  // topo.cc: bw = width x speed / 80 with speed 60 / 120 / 240 (x 100 Mb/s per lane) for
  // 8 / 16 / 32 GT/s: the path's narrowest PCIe link (the uplink when GPU and NIC sit on
  // different switches is not told apart here).
  const double per_lane = spec.pcie_generation == 3 ? 60 : spec.pcie_generation == 4 ? 120 : 240;
  v.pcie_gbps = spec.pcie_lanes * per_lane / 80.0;
  v.nic_gbps = static_cast<double>(nic_rate_bps) / 8e9;
  v.nics_per_node = nics_per_node;
  // node.nvls: NVSwitch with multicast (nvls.cc also needs >= 2 GPUs).
  v.nvls = spec.nvls && spec.gpus_per_node >= 2;
  return v;
}

void check_spec(const NodeSpec& spec, const topo::TopologySpec& topology) {
  const int gpus = spec.gpus_per_node;
  if (gpus <= 0) return;
  const int nics = topology.nics_per_host;
  const std::string n = std::to_string(nics);
  if (gpus % nics != 0) {
    throw InputError("node.gpus_per_node",
                     "must be a multiple of hosts.nics_per_host (" + n +
                         "): each NIC serves the same number of GPUs (1:1, 1:2, 1:4 ...)");
  }
  if (gpus % spec.gpus_per_pcie_switch != 0) {
    throw InputError("node.pcie.gpus_per_switch",
                     "must divide node.gpus_per_node (" + std::to_string(gpus) + ")");
  }
  const int switches = gpus / spec.gpus_per_pcie_switch;
  if (switches % nics != 0 && nics % switches != 0) {
    throw InputError("node.pcie.gpus_per_switch", "gives " + std::to_string(switches) +
                                                      " PCIe switches per node, which " + n +
                                                      " NICs cannot be spread over evenly");
  }
  if (switches % spec.sockets != 0 || nics % spec.sockets != 0) {
    throw InputError("node.host.sockets",
                     "must divide the PCIe switches (" + std::to_string(switches) +
                         ") and the NICs (" + n +
                         ") per node, so that every GPU's NIC is on its own socket");
  }
  if (spec.nvlink_efficiency <= 0 || spec.nvlink_efficiency > 1) {
    throw InputError("node.nvlink.efficiency", "must be in (0, 1]");
  }
  if (spec.nvls_efficiency <= 0 || spec.nvls_efficiency > 1) {
    throw InputError("node.nvls_efficiency", "must be in (0, 1]");
  }
}

}  // namespace fabricsim::node
