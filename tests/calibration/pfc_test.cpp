// mlx5 PFC headroom: the headroom fabricsim reserves per (ingress port, lossless priority)
// against the Linux mlx5 driver, drivers/net/ethernet/mellanox/mlx5/core/en/port_buffer.c,
// calculate_xoff():
//     speed = max(port speed in Mb/s, SPEED_40000);
//     xoff = (301 + 216 * cable_len / 100) * speed / 1000 + 272 * mtu / 100;   (u32 arithmetic)
// (introduced by commit 0696d60853d5 "net/mlx5e: Receive buffer configuration", whose message
// states it as (301 + 2.16 x len[m]) x speed[Gbps] + 2.72 x MTU[B]). The figures below are that
// expression evaluated by hand, then read back from a built fabric (PortQueues::pfc_headroom_bytes
// of every switch and NIC port), not from the simulator's own formula.
#include <gtest/gtest.h>

#include <cstdint>

#include "calibration.h"
#include "net/network.h"
#include "engine/packet/simulation.h"

namespace fabricsim {
namespace pfc_test {

// The headroom every PFC port of a small RoCE leaf-spine gets; -1 if ports disagree.
double model_headroom(int64_t rate_bps, double cable_m, int mtu) {
  scenario::Scenario sc;
  sc.topology.tiers = 2;
  sc.topology.radix = 8;
  sc.topology.hosts = 16;
  sc.link.rate_bps = rate_bps;
  sc.link.cable_m = cable_m;
  sc.roce.mtu_bytes = mtu;
  sc.switch_config.pfc.enabled = true;
  scenario::Simulation sim(sc);
  const net::Network& net = sim.network();
  const int64_t first = net.queues(0).pfc_headroom_bytes;
  for (uint32_t p = 0; p < net.num_ports(); ++p) {
    if (net.queues(p).pfc_headroom_bytes != first) return -1;
  }
  return static_cast<double>(first);
}

TEST(Calibration, Mlx5PfcHeadroom400GbpsFiveMetres) {
  // (301 + 216 x 5 / 100) x 400000 / 1000 + 272 x 4096 / 100
  //   = (301 + 10) x 400 + 11141 = 124400 + 11141 = 135541 bytes (1080/100 truncates to 10).
  calibration::check_figure({
      .name = "PFC headroom per port and lossless priority, 400 Gb/s, 5 m, MTU 4096",
      .published = "135541 B",
      .source = "Linux mlx5 calculate_xoff(), drivers/net/ethernet/mellanox/mlx5/core/en/"
                "port_buffer.c (integer arithmetic as in the driver)",
      .scenario = "Calibration.Mlx5PfcHeadroom400GbpsFiveMetres: RoCE leaf-spine k=8, PFC on, "
                  "every port's PortQueues::pfc_headroom_bytes",
      .unit = "B",
      .value = model_headroom(400'000'000'000, 5.0, 4096),
      .lo = 135541,
      .hi = 135541,
  });
}

TEST(Calibration, Mlx5PfcHeadroom100GbpsFortyMetres) {
  // (301 + 216 x 40 / 100) x 100000 / 1000 + 272 x 1024 / 100
  //   = (301 + 86) x 100 + 2785 = 38700 + 2785 = 41485 bytes.
  calibration::check_figure({
      .name = "PFC headroom per port and lossless priority, 100 Gb/s, 40 m, MTU 1024",
      .published = "41485 B",
      .source = "Linux mlx5 calculate_xoff(), drivers/net/ethernet/mellanox/mlx5/core/en/"
                "port_buffer.c",
      .scenario = "Calibration.Mlx5PfcHeadroom100GbpsFortyMetres: RoCE leaf-spine k=8, PFC on, "
                  "every port's PortQueues::pfc_headroom_bytes",
      .unit = "B",
      .value = model_headroom(100'000'000'000, 40.0, 1024),
      .lo = 41485,
      .hi = 41485,
  });
}

TEST(Calibration, Mlx5PfcHeadroomSpeedFloorsAt40Gbps) {
  // speed = max(25000, SPEED_40000) = 40000: (301 + 6) x 40 + 11141 = 12280 + 11141 = 23421.
  calibration::check_figure({
      .name = "PFC headroom, 25 Gb/s port, 3 m, MTU 4096 (driver floors the speed at 40 Gb/s)",
      .published = "23421 B",
      .source = "Linux mlx5 calculate_xoff(): speed = max_t(u32, speed, SPEED_40000)",
      .scenario = "Calibration.Mlx5PfcHeadroomSpeedFloorsAt40Gbps: RoCE leaf-spine k=8 at 25 Gb/s",
      .unit = "B",
      .value = model_headroom(25'000'000'000, 3.0, 4096),
      .lo = 23421,
      .hi = 23421,
  });
}

}  // namespace pfc_test
}  // namespace fabricsim
