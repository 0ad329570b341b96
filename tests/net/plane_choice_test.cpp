// The plane choice of a multi-plane NIC's selector (net/plane_choice.h), on its own: round-robin
// per connection, per message and per packet, a connection's plane never moving (RoCE order),
// more connections than the table holds, and a dead plane port skipped at once.
#include <gtest/gtest.h>

#include <array>
#include <map>

#include "net/plane_choice.h"

namespace fabricsim::net {
namespace plane_choice_test {

struct Selector {
  Switch sw;
  std::array<Port, 5> ports{};                    // port 0: the NIC; 1..4: planes 0..3
  std::array<uint32_t, 4> members{1, 2, 3, 4};  // the group of every destination
  explicit Selector(PlaneSplit split) { make_plane_selector(sw, split); }
  uint32_t choose(const Packet& p) { return choose_plane(sw, p, members.data(), 4, ports.data()); }
};

Packet data(uint32_t qp, uint32_t msg, uint8_t flags = 0) {
  Packet p;
  p.qp = qp;
  p.msg = msg;
  p.flags = flags;
  return p;
}

TEST(PlaneChoice, ConnectionsAreDealtRoundRobinAndNeverMove) {
  Selector s(PlaneSplit::kConnection);
  std::map<uint32_t, uint32_t> plane_of;
  std::map<uint32_t, int> count;
  for (uint32_t qp = 0; qp < 1000; ++qp) {
    plane_of[qp] = s.choose(data(qp, qp));
    ++count[plane_of[qp]];
  }
  for (uint32_t port = 1; port <= 4; ++port) EXPECT_EQ(count[port], 250) << "port " << port;
  // 3000 connections in a 2048-slot table: the late ones take their fixed plane; none moves.
  for (uint32_t qp = 1000; qp < 3000; ++qp) plane_of[qp] = s.choose(data(qp, 0));
  for (int round = 0; round < 3; ++round) {
    for (uint32_t qp = 0; qp < 3000; ++qp) {
      ASSERT_EQ(s.choose(data(qp, round + 7, kFlagLast)), plane_of[qp]) << "QP " << qp;
    }
  }
  // Control packets of a placed connection follow it, and never advance the round-robin.
  Packet ack = data(5, 0);
  ack.type = PacketType::kAck;
  const uint32_t next_before = s.sw.plane_next;
  EXPECT_EQ(s.choose(ack), plane_of[5]);
  EXPECT_EQ(s.sw.plane_next, next_before);
}

TEST(PlaneChoice, ControlPacketsWithoutAMessageTakeAPlanePort) {
  // RoCE ACKs carry msg = 0xFFFFFFFF: under per-message split that key must not match a free
  // slot (whose port field is 0, here the NIC's own port).
  Selector s(PlaneSplit::kMessage);
  Packet ack = data(3, 0xFFFFFFFFu);
  ack.type = PacketType::kAck;
  const uint32_t port = s.choose(ack);
  EXPECT_GE(port, 1u);
  EXPECT_LE(port, 4u);
}

TEST(PlaneChoice, MessagesFreeTheirEntryWithTheLastPacket) {
  Selector s(PlaneSplit::kMessage);
  // 20000 messages of 3 packets each, one after the other: far more than the table's slots, yet
  // each keeps its plane for its packets and the planes stay in strict turn.
  for (uint32_t m = 0; m < 20000; ++m) {
    const uint32_t first = s.choose(data(9, m, kFlagFirst));
    EXPECT_EQ(first, 1 + m % 4) << "message " << m;
    EXPECT_EQ(s.choose(data(9, m)), first);
    EXPECT_EQ(s.choose(data(9, m, kFlagLast)), first);
  }
}

TEST(PlaneChoice, PacketsRoundRobinSkippingADeadPlane) {
  Selector s(PlaneSplit::kPacket);
  std::map<uint32_t, int> count;
  for (int i = 0; i < 400; ++i) ++count[s.choose(data(1, 1))];
  for (uint32_t port = 1; port <= 4; ++port) EXPECT_EQ(count[port], 100);
  s.ports[2].up = false;  // plane 1's port goes down: the NIC sees it at once
  count.clear();
  for (int i = 0; i < 300; ++i) ++count[s.choose(data(1, 1))];
  EXPECT_EQ(count[2], 0);
  for (uint32_t port : {1u, 3u, 4u}) EXPECT_EQ(count[port], 100) << "port " << port;
  // A connection placed on the dead plane moves to a working one, and stays there.
  Selector c(PlaneSplit::kConnection);
  EXPECT_EQ(c.choose(data(0, 0)), 1u);
  EXPECT_EQ(c.choose(data(1, 0)), 2u);
  c.ports[2].up = false;
  const uint32_t moved = c.choose(data(1, 0));
  EXPECT_NE(moved, 2u);
  EXPECT_EQ(c.choose(data(1, 0)), moved);
}

}  // namespace plane_choice_test
}  // namespace fabricsim::net
