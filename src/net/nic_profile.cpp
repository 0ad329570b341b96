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

// ---- era profile (issue 12, the latency ladder; docs/calibration.md, section The latency ladder (item 7)) ----
// Seed article 002's one-hop figures (TCP ~50 us, RoCEv2 ~5 us, IB ~2 us) restate the
// 2010-2014 generation: ConnectX-2/-3 adapters on PCIe Gen2/Gen3, QDR/FDR InfiniBand and
// 10GbE. ConnectX-3 (2011; ConnectX-3 Pro 2013 added RoCEv2) is its last member. Published
// sums this profile is held to (tests/calibration/ladder_test.cpp):
//  - ib_write_lat 2 B through one FDR switch on ConnectX-3: 0.98 us typical (a published
//    perftest log, mlx4, the same figure nic_test.cpp cites);
//  - "sub-microsecond latency" for ConnectX-3 on FDR IB or 40GbE RoCE, against ~1.3 us for
//    ConnectX-2 RoCE on 10GbE (Mellanox's J. Monson in The Register, 6 June 2011,
//    "Mellanox forges switch-hitting ConnectX-3 adapters");
//  - "1 us MPI ping latency" (ConnectX-3 product brief; UNVERIFIED here, not reachable).
// The split is an estimate like connectx-7's (UNVERIFIED per part): PCIe Gen3 one-way posted
// writes of ~200 ns and a ~600 ns read round trip follow Neugebauer et al., SIGCOMM 2018, whose
// measurements are on Gen3 hosts of this generation; a 2.6 GHz Sandy/Ivy Bridge core takes a
// little longer than today's to post and to notice the write. The ASIC pipelines take what the
// published 0.98 us leaves after the PCIe and host parts (520 ns) and the wire (~0.21 us of
// FDR switch, cable and serialization): 125 ns each way.
NicConfig connectx3() {
  NicConfig c;
  c.host_post_ps = ns(60);    // UNVERIFIED: a few hundred cycles at 2.6 GHz
  c.doorbell_ps = ns(200);    // PCIe Gen3 posted MMIO write (Neugebauer et al. 2018; UNVERIFIED split)
  c.dma_read_ps = ns(600);    // PCIe Gen3 read round trip (Neugebauer et al. 2018: ~500-900 ns)
  c.inline_max_bytes = 220;   // perftest DEF_INLINE_WRITE, as on connectx-7
  c.tx_latency_ps = ns(125);  // what the published sum leaves for the ASIC (UNVERIFIED split)
  c.rx_latency_ps = ns(125);
  c.mem_write_ps = ns(200);   // PCIe Gen3 posted write into host memory (UNVERIFIED split)
  c.host_poll_ps = ns(60);    // one cache-line miss on the polling core (UNVERIFIED)
  return c;
}

}  // namespace

const std::vector<NicProfile>& nic_profiles() {
  static const std::vector<NicProfile> kProfiles = {
      {"connectx-7", "NDR / 400GbE ConnectX-7-class adapter on PCIe Gen5", connectx7()},
      {"connectx-6", "HDR / 200GbE ConnectX-6-class adapter on PCIe Gen4", connectx6()},
      {"connectx-3", "FDR / 10-40GbE ConnectX-3-class adapter on PCIe Gen3 (2011-2014)",
       connectx3()},
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
