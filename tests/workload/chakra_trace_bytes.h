// Chakra trace bytes written out by hand for the importer's tests: each node a literal string of
// field keys and values (et_def.proto field numbers; key = number << 3 | wire type), framed with
// a one-byte varint length as the trace format frames every record. Nothing here encodes a
// message from values: a reader bug cannot be mirrored by a writer bug.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "workload/chakra_format.h"

namespace fabricsim::workload::chakra_bytes {

// A record: its length (one varint byte: every record here is shorter than 128 bytes) and body.
inline std::string rec(const std::string& body) {
  EXPECT_LT(body.size(), 128u);
  return std::string(1, static_cast<char>(body.size())) + body;
}

// GlobalMetadata { version: "0.0.4" }
inline const std::string kMeta =
    rec("\x0a\x05"
        "0.0.4");

// AttributeProto records as Node.attr (field 10, key 0x52) values.
// comm_size int64_val (field 9, key 0x48) 4096 = varint 80 20.
inline const std::string kSize4096 =
    "\x52\x0e\x0a\x09"
    "comm_size"
    "\x48\x80\x20";
// comm_dst / comm_src / comm_tag int32_val (field 7, key 0x38).
inline std::string int32_attr(const std::string& name, char value) {
  return std::string("\x52") + static_cast<char>(name.size() + 4) + "\x0a" +
         static_cast<char>(name.size()) + name + "\x38" + value;
}

inline chakra::Trace trace(const std::string& bytes, const std::string& path) {
  return chakra::parse_trace(bytes, path, "training.file");
}

}  // namespace fabricsim::workload::chakra_bytes
