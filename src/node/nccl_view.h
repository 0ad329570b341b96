// The machine as NCCL's topology detection reads it: NCCL's own nominal figures, not the rates
// fabricsim simulates. NCCL's tuner (workload/nccl_graph.h, workload/nccl_model.h) decides from
// these, so the simulated NCCL chooses what the real one would on the same hardware, even where
// the real bytes then move at a different rate.
#pragma once

namespace fabricsim::node {

struct NcclView {
  // Per GPU, one direction, GB/s (10^9 B/s): NVLink links x SM90_NVLINK_BW 20.6
  // (nccl@5067397 src/graph/topo.h; 18 links on H100 = 370.8); 0 = no NVLink.
  double nvlink_gbps = 0;
  // GPU <-> NIC PCIe as topo.cc reads it: width x kvDictPciGen speed / 80
  // (Gen3 60, Gen4 120, Gen5 240 x 100 Mb/s per lane: Gen5 x16 = 48 GB/s).
  double pcie_gbps = 0;
  // The NIC port speed / 8000 (ibv port speed in Mb/s): 400 Gb/s = 50 GB/s.
  double nic_gbps = 0;
  int nics_per_node = 0;
  // NVLink SHARP (multicast + in-switch reduction) available: an NVSwitch of sm90+ GPUs with
  // CUDA multicast (nvls.cc ncclNvlsInit reads CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED).
  bool nvls = false;
};

}  // namespace fabricsim::node
