// What a UET or TCP ACK takes along when it crosses to another rank (core/rank_run.h): the
// details the receiver put in its partition's SlotTable part (core/slot_table.h), which the
// sender reads by the slot the ACK carries. On one process the sender reads the receiver's
// part directly once the ACK has crossed a barrier; across ranks that part is in another
// process, so the value travels with the frame (stored at the same slot on the far rank) and
// the slot, freed where it was read, travels back to the rank that owns its part. Records:
//   kAckValue: slot, value    kFree: slot
// (an implementation may add its own kinds from kFirstOwnKind on, e.g. TCP's segment anchors).
#pragma once

#include <cstdint>
#include <vector>

#include "core/rank_exchange.h"
#include "core/slot_table.h"
#include "net/packet.h"

namespace fabricsim::transport {

template <class AckInfo>
class AckAnnex {
 public:
  static constexpr uint8_t kAckValue = 1;
  static constexpr uint8_t kFree = 2;
  static constexpr uint8_t kFirstOwnKind = 16;

  void begin(uint32_t ranks) { by_rank_.assign(ranks, {}); }
  // An ACK for `rank`: its slot's value goes along (data and other packets carry no slot).
  void note(uint32_t rank, const SlotTable<AckInfo>& acks, const net::Packet& p) {
    if (p.type != net::PacketType::kAck) return;
    if (const AckInfo* v = acks.slot_value(p.msg)) {
      ByteWriter w(by_rank_[rank]);
      w.put(kAckValue);
      w.put(p.msg);
      w.put(*v);
    }
  }
  std::vector<char>& block(uint32_t rank) { return by_rank_[rank]; }
  // The noted values and the slots freed here that other ranks' parts own, to out[rank].
  void pack(std::vector<std::vector<char>>& out, SlotTable<AckInfo>& acks,
            const std::vector<uint32_t>& rank_of) {
    for (uint32_t slot : acks.foreign_frees()) {
      ByteWriter w(by_rank_[rank_of[SlotTable<AckInfo>::partition_of(slot)]]);
      w.put(kFree);
      w.put(slot);
    }
    acks.foreign_frees().clear();
    for (size_t r = 0; r < out.size(); ++r) {
      out[r].insert(out[r].end(), by_rank_[r].begin(), by_rank_[r].end());
      by_rank_[r].clear();
    }
  }
  // Reads one record of a kind this class knows (returns false, having read only the kind,
  // for the implementation's own kinds).
  bool unpack(ByteReader& in, SlotTable<AckInfo>& acks, uint8_t& kind) {
    kind = in.get<uint8_t>();
    if (kind == kAckValue) {
      const auto slot = in.get<uint32_t>();
      acks.store_at(slot, in.get<AckInfo>());
      return true;
    }
    if (kind == kFree) {
      acks.give_back(in.get<uint32_t>());
      return true;
    }
    return false;
  }

 private:
  std::vector<std::vector<char>> by_rank_;
};

}  // namespace fabricsim::transport
