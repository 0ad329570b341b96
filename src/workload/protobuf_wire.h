// The protocol-buffer wire format, read by hand (no protoc or libprotobuf on the build machine):
// the encoding rules of https://protobuf.dev/programming-guides/encoding/ — base-128 varints,
// field keys (field number << 3 | wire type), length-delimited payloads, 32- and 64-bit little
// endian fixed fields, zigzag for sint32/sint64 — and the length-delimited stream framing that
// Chakra execution traces use (a varint size before each message). Only what a reader needs: no
// encoder, no reflection, no groups (wire types 3 and 4 are deprecated and refused).
//
// A WireReader walks a byte span it does not own; every read checks the span's end, so a
// truncated or corrupt file ends in a WireError naming the byte offset, never in a read past it.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace fabricsim::workload::protobuf {

enum class WireType : uint8_t { kVarint = 0, kFixed64 = 1, kLengthDelimited = 2, kFixed32 = 5 };

// A malformed byte sequence. `offset` is relative to the span the failing reader was given;
// readers of nested messages add their base (WireReader::base) so it stays file-relative.
class WireError : public std::runtime_error {
 public:
  WireError(uint64_t offset, const std::string& message)
      : std::runtime_error(message), offset_(offset) {}
  uint64_t offset() const { return offset_; }

 private:
  uint64_t offset_;
};

// One field as it appears on the wire: kVarint, kFixed32 and kFixed64 carry their bits in
// `value`; kLengthDelimited its payload in `bytes` (a view into the reader's span).
struct Field {
  uint32_t number = 0;
  WireType type = WireType::kVarint;
  uint64_t value = 0;
  std::string_view bytes;
  uint64_t offset = 0;  // of the field's key, file-relative
  uint64_t payload_offset =
      0;  // kLengthDelimited: of bytes[0], file-relative (nested readers' base)
};

class WireReader {
 public:
  // `base` is the offset of data[0] in the file, used only in error offsets.
  explicit WireReader(std::string_view data, uint64_t base = 0) : data_(data), base_(base) {}

  bool done() const { return pos_ == data_.size(); }
  uint64_t offset() const { return base_ + pos_; }  // file-relative

  // A base-128 varint of at most 10 bytes whose value fits 64 bits.
  uint64_t varint();
  // `length` bytes, which must all be present.
  std::string_view bytes(uint64_t length);
  // A varint length, then that many bytes (a length-delimited field's payload, or one message
  // of a delimited stream).
  std::string_view delimited() { return bytes(varint()); }
  // The next field: key, then its value by wire type. Throws on wire types 3, 4, 6, 7 and on
  // field number 0.
  Field field();

 private:
  std::string_view data_;
  uint64_t base_ = 0;
  size_t pos_ = 0;
};

// A packed repeated varint field's payload (proto3 packs repeated scalars by default).
std::vector<uint64_t> unpack_varints(std::string_view packed, uint64_t base);

// sint32 / sint64 ZigZag decoding: 0, 1, 2, 3 -> 0, -1, 1, -2.
inline int64_t zigzag(uint64_t v) {
  return static_cast<int64_t>(v >> 1) ^ -static_cast<int64_t>(v & 1);
}

}  // namespace fabricsim::workload::protobuf
