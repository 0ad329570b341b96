// The wire format's reading rules (see protobuf_wire.h).
#include "workload/protobuf_wire.h"

namespace fabricsim::workload::protobuf {

uint64_t WireReader::varint() {
  const uint64_t start = offset();
  uint64_t v = 0;
  // Ten 7-bit groups cover 64 bits; the tenth may only carry the top bit.
  for (int shift = 0; shift < 70; shift += 7) {
    if (pos_ >= data_.size()) throw WireError(start, "truncated varint");
    const auto byte = static_cast<uint8_t>(data_[pos_++]);
    if (shift == 63 && (byte & 0x7e) != 0) throw WireError(start, "varint overflows 64 bits");
    v |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) return v;
  }
  throw WireError(start, "varint longer than 10 bytes");
}

std::string_view WireReader::bytes(uint64_t length) {
  if (length > data_.size() - pos_) {
    throw WireError(offset(), "a length of " + std::to_string(length) +
                                  " bytes runs past the end (" +
                                  std::to_string(data_.size() - pos_) + " bytes left)");
  }
  std::string_view out = data_.substr(pos_, length);
  pos_ += length;
  return out;
}

Field WireReader::field() {
  Field f;
  f.offset = offset();
  const uint64_t key = varint();
  const uint64_t number = key >> 3;
  if (number == 0 || number > 0x1fffffff) {
    throw WireError(f.offset, "field number " + std::to_string(number) + " is out of range");
  }
  f.number = static_cast<uint32_t>(number);
  auto fixed = [&](int n) {
    const std::string_view b = bytes(n);
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; --i) v = (v << 8) | static_cast<uint8_t>(b[i]);  // little endian
    return v;
  };
  switch (key & 7) {
    case 0:
      f.type = WireType::kVarint;
      f.value = varint();
      break;
    case 1:
      f.type = WireType::kFixed64;
      f.value = fixed(8);
      break;
    case 2:
      f.type = WireType::kLengthDelimited;
      f.bytes = delimited();
      f.payload_offset = offset() - f.bytes.size();
      break;
    case 5:
      f.type = WireType::kFixed32;
      f.value = fixed(4);
      break;
    default:
      throw WireError(f.offset, "field " + std::to_string(number) + " has wire type " +
                                    std::to_string(key & 7) +
                                    " (groups are deprecated; 6 and 7 do not exist)");
  }
  return f;
}

std::vector<uint64_t> unpack_varints(std::string_view packed, uint64_t base) {
  std::vector<uint64_t> out;
  WireReader r(packed, base);
  while (!r.done()) out.push_back(r.varint());
  return out;
}

}  // namespace fabricsim::workload::protobuf
