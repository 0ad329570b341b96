// Which connections (RoCE/IB QPs, TCP connections) a NIC pair has on each NCCL channel: the
// first of the pair's block, made at the pair's first message on that channel
// (Transport::post_channel). Looked up at post time only, never per packet.
#pragma once

#include <cstdint>
#include <unordered_map>

#include "core/rng.h"

namespace fabricsim::transport {

class ConnectionIndex {
 public:
  struct Found {
    uint32_t first = 0;     // the block's first connection id
    bool inserted = false;  // new: the caller makes the block, starting at next_id
  };
  // `pair_key` names the pair (and service level) as the transport does; `next_id` becomes the
  // block's first connection when (pair_key, channel) is new.
  Found find_or_add(uint64_t pair_key, uint32_t channel, uint32_t next_id) {
    if (channel == 0) {
      const auto [it, fresh] = pairs_.try_emplace(pair_key, next_id);
      return {it->second, fresh};
    }
    const auto [it, fresh] = channels_.try_emplace(Key{pair_key, channel}, next_id);
    return {it->second, fresh};
  }
  // What a connection of `channel` mixes into its identity hash: nothing for channel 0, so a
  // pair's channel-0 connections keep the identity, and the path, they had before channels had
  // connections of their own.
  static uint64_t channel_salt(uint32_t channel) {
    if (channel == 0) return 0;
    uint64_t state = 0xA24BAED4963EE407ull * channel;
    return splitmix64(state);
  }

 private:
  struct Key {
    uint64_t pair = 0;
    uint32_t channel = 0;
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    size_t operator()(const Key& k) const {
      return static_cast<size_t>(k.pair * 0x9E3779B97F4A7C15ull ^ k.channel);
    }
  };
  std::unordered_map<uint64_t, uint32_t> pairs_;  // channel 0: one node per pair
  std::unordered_map<Key, uint32_t, KeyHash> channels_;
};

}  // namespace fabricsim::transport
