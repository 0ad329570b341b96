// The hand-written protocol-buffer wire reader (workload/protobuf_wire.h) on byte sequences
// written out here from the encoding rules (https://protobuf.dev/programming-guides/encoding/):
// 150 is the varint 96 01 (the guide's own example), field 1 varint is key 08.
#include <gtest/gtest.h>

#include <string>

#include "workload/protobuf_wire.h"

namespace fabricsim::workload::protobuf {
namespace chakra_wire_test {

std::string bytes(std::initializer_list<unsigned> b) {
  std::string s;
  for (unsigned c : b) s.push_back(static_cast<char>(c));
  return s;
}

TEST(ChakraWire, VarintsDecodeAsTheEncodingGuideSays) {
  const std::string data = bytes({0x96, 0x01, 0x00, 0x7f, 0x80, 0x80, 0x40,
                                  // 2^64 - 1: nine 0xff groups and a final 0x01
                                  0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01});
  WireReader r(data);
  EXPECT_EQ(r.varint(), 150u);
  EXPECT_EQ(r.varint(), 0u);
  EXPECT_EQ(r.varint(), 127u);
  EXPECT_EQ(r.varint(), 1048576u) << "80 80 40: the traces' comm_size of 1 MiB";
  EXPECT_EQ(r.varint(), ~uint64_t{0});
  EXPECT_TRUE(r.done());
}

TEST(ChakraWire, FieldsOfEachWireType) {
  // field 1 varint 150; field 2 string "hi"; field 3 fixed32 1; field 4 fixed64 2
  const std::string data = bytes(
      {0x08, 0x96, 0x01, 0x12, 0x02, 'h', 'i', 0x1d, 1, 0, 0, 0, 0x21, 2, 0, 0, 0, 0, 0, 0, 0});
  WireReader r(data, 100);
  Field f = r.field();
  EXPECT_EQ(f.number, 1u);
  EXPECT_EQ(f.type, WireType::kVarint);
  EXPECT_EQ(f.value, 150u);
  EXPECT_EQ(f.offset, 100u) << "offsets are file-relative through the base";
  f = r.field();
  EXPECT_EQ(f.number, 2u);
  EXPECT_EQ(f.bytes, "hi");
  EXPECT_EQ(f.payload_offset, 105u);
  f = r.field();
  EXPECT_EQ(f.type, WireType::kFixed32);
  EXPECT_EQ(f.value, 1u);
  f = r.field();
  EXPECT_EQ(f.type, WireType::kFixed64);
  EXPECT_EQ(f.value, 2u);
  EXPECT_TRUE(r.done());
}

TEST(ChakraWire, PackedVarintsAndZigzag) {
  EXPECT_EQ(unpack_varints(bytes({0x01, 0x96, 0x01, 0x03}), 0), (std::vector<uint64_t>{1, 150, 3}));
  EXPECT_EQ(zigzag(0), 0);
  EXPECT_EQ(zigzag(1), -1);
  EXPECT_EQ(zigzag(2), 1);
  EXPECT_EQ(zigzag(3), -2);
  EXPECT_EQ(zigzag(0xfffffffe), 0x7fffffff);
}

TEST(ChakraWire, MalformedBytesAreRefusedAtTheirOffset) {
  auto error = [](const std::string& data, bool as_field) {
    try {
      WireReader r(data, 10);
      if (as_field)
        r.field();
      else
        r.varint();
    } catch (const WireError& e) {
      return std::to_string(e.offset()) + ": " + e.what();
    }
    return std::string("accepted");
  };
  EXPECT_EQ(error(bytes({0x96}), false), "10: truncated varint");
  EXPECT_EQ(error(bytes({0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02}), false),
            "10: varint overflows 64 bits");
  EXPECT_EQ(error(bytes({0x12, 0x05, 'a'}), true),
            "12: a length of 5 bytes runs past the end (1 bytes left)");
  EXPECT_EQ(error(bytes({0x0b}), true),
            "10: field 1 has wire type 3 (groups are deprecated; 6 and 7 do not exist)");
  EXPECT_EQ(error(bytes({0x00}), true), "10: field number 0 is out of range");
  EXPECT_EQ(error(bytes({0x1d, 1, 2}), true),
            "11: a length of 4 bytes runs past the end (2 bytes left)");
}

}  // namespace chakra_wire_test
}  // namespace fabricsim::workload::protobuf
