// The NIC/host latency profiles. A perftest small-message latency (ib_write_lat 2 B, inline, half
// the ping-pong round trip) decomposes as
//   host_post + doorbell + tx_latency + wire (serialization, propagation, switches)
//   + rx_latency + mem_write + host_poll
// (docs/calibration.md). Only the sum is published for ConnectX-class NICs; how it splits
// between the parts below is an estimate from the PCIe and host figures cited with each value,
// marked UNVERIFIED where no public measurement of that part exists. The calibration tests
// (tests/calibration/nic_test.cpp) hold the sum to the published perftest figures.
#include "net/nic_profile.h"

namespace fabricsim::net {

namespace {

constexpr int64_t ns(int64_t v) { return v * kPsPerNs; }

NicConfig connectx7() {
  NicConfig c;
  // Software post of one inline WQE (ibv_post_send through mlx5's BlueFlame path): ~100-200 CPU
  // cycles, order 50 ns at 3 GHz (UNVERIFIED; Kalia et al., "Design Guidelines for High
  // Performance RDMA Systems", ATC 2016, treat the post as an MMIO write plus WQE build).
  c.host_post_ps = ns(50);
  // Doorbell / BlueFlame MMIO write crossing PCIe Gen5 to the NIC: a posted write, one way,
  // order 150-250 ns (UNVERIFIED split; Neugebauer et al., "Understanding PCIe performance for
  // end host networking", SIGCOMM 2018, measure 64 B DMA round trips of ~400-900 ns, i.e. a few
  // hundred ns per direction).
  c.doorbell_ps = ns(150);
  // WQE fetch + first payload gather for a non-inline message: a PCIe read round trip
  // (Neugebauer et al. SIGCOMM 2018: ~500 ns median on Xeon hosts; UNVERIFIED for Gen5).
  c.dma_read_ps = ns(500);
  // perftest's default inline size for RDMA WRITE (perftest_parameters.h DEF_INLINE_WRITE 220):
  // messages up to this size travel in the doorbell write, no DMA read.
  c.inline_max_bytes = 220;
  // Send and receive pipelines of the NIC ASIC. NVIDIA states only the sum for the adapter
  // ("sub 0.6 us latency", ConnectX-6 VPI product brief; UNVERIFIED for ConnectX-7); 180 ns per
  // direction puts the end-to-end sum on the published perftest figures: 0.83 us back to back
  // (ib_send_lat 32 B: 0.81-0.83 us, SPEC §8 "~0.8 us through one link") and 0.97 us through one
  // 130 ns IB switch (0.96-1.00 us published).
  c.tx_latency_ps = ns(180);
  c.rx_latency_ps = ns(180);
  // The payload's posted write into host memory (then the CQE), one PCIe crossing plus the
  // root complex's write into the cache hierarchy (UNVERIFIED split, as doorbell_ps).
  c.mem_write_ps = ns(200);
  // The polling CPU noticing the new data: one cache-line miss to the line the NIC wrote
  // (~50-100 ns on a Xeon; UNVERIFIED).
  c.host_poll_ps = ns(50);
  return c;
}

NicConfig connectx6() {
  // HDR / 200GbE, PCIe Gen4: the same structure, each PCIe crossing and the ASIC pipelines a
  // little slower (UNVERIFIED split; the sum stays inside the same published perftest band).
  NicConfig c = connectx7();
  c.doorbell_ps = ns(180);
  c.dma_read_ps = ns(550);
  c.tx_latency_ps = ns(200);
  c.rx_latency_ps = ns(200);
  c.mem_write_ps = ns(220);
  return c;
}

}  // namespace

const std::vector<NicProfile>& nic_profiles() {
  static const std::vector<NicProfile> kProfiles = {
      {"connectx-7", "NDR / 400GbE ConnectX-7-class adapter on PCIe Gen5", connectx7()},
      {"connectx-6", "HDR / 200GbE ConnectX-6-class adapter on PCIe Gen4", connectx6()},
      {"zero", "no NIC or host latency: the pure wire model (analytic validation)", NicConfig{}},
  };
  return kProfiles;
}

const NicProfile* find_nic_profile(std::string_view name) {
  for (const NicProfile& p : nic_profiles()) {
    if (name == p.name) return &p;
  }
  return nullptr;
}

std::string nic_profile_names() {
  std::string out;
  for (const NicProfile& p : nic_profiles()) {
    out += (out.empty() ? "" : " | ") + std::string(p.name);
  }
  return out;
}

}  // namespace fabricsim::net
