// Decoding Chakra execution traces (see chakra_format.h) with the hand-written wire reader
// (workload/protobuf_wire.h). Field numbers and types are those of mlcommons/chakra @6dc63e1
// schema/protobuf/et_def.proto; unknown fields are skipped as protobuf readers must (a newer
// schema may add fields), but a known field on the wrong wire type is a corrupt file.
#include "workload/chakra_format.h"

#include <cstring>
#include <string>

#include "core/bounded_file.h"
#include "core/error.h"
#include "workload/protobuf_wire.h"

namespace fabricsim::workload::chakra {

using protobuf::Field;
using protobuf::WireError;
using protobuf::WireReader;
using protobuf::WireType;

const char* node_type_name(int64_t type) {
  switch (type) {
    case kInvalidNode:
      return "INVALID_NODE";
    case kMetadataNode:
      return "METADATA_NODE";
    case kMemLoadNode:
      return "MEM_LOAD_NODE";
    case kMemStoreNode:
      return "MEM_STORE_NODE";
    case kCompNode:
      return "COMP_NODE";
    case kCommSendNode:
      return "COMM_SEND_NODE";
    case kCommRecvNode:
      return "COMM_RECV_NODE";
    case kCommCollNode:
      return "COMM_COLL_NODE";
    case kStorageNode:
      return "STORAGE_NODE";
    case kBatchNode:
      return "BATCH_NODE";
    case kCheckpointNode:
      return "CHECKPOINT_NODE";
    default:
      return "an unknown node type";
  }
}

const char* collective_type_name(int64_t type) {
  switch (type) {
    case kAllReduce:
      return "ALL_REDUCE";
    case kReduce:
      return "REDUCE";
    case kAllGather:
      return "ALL_GATHER";
    case kGather:
      return "GATHER";
    case kScatter:
      return "SCATTER";
    case kBroadcast:
      return "BROADCAST";
    case kAllToAll:
      return "ALL_TO_ALL";
    case kReduceScatter:
      return "REDUCE_SCATTER";
    case kReduceScatterBlock:
      return "REDUCE_SCATTER_BLOCK";
    case kBarrier:
      return "BARRIER";
    default:
      return "an unknown collective type";
  }
}

const Attr* Node::attr(std::string_view attr_name) const {
  for (const Attr& a : attrs) {
    if (a.name == attr_name) return &a;
  }
  return nullptr;
}

std::optional<int64_t> Node::int_attr(std::string_view attr_name, const std::string& path,
                                      const std::string& key_path) const {
  const Attr* a = attr(attr_name);
  if (a == nullptr) return std::nullopt;
  if (a->kind != Attr::Kind::kInt) {
    throw ImportError(path, 0, key_path,
                      node_label(*this) + ": attribute " + std::string(attr_name) +
                          " is not an integer (AttributeProto field " + std::to_string(a->field) +
                          ")");
  }
  return a->int_value;
}

std::string node_label(const Node& n) {
  return "node " + std::to_string(n.id) + " (" + n.name + ")";
}

namespace {

void expect(const Field& f, WireType type, const char* what) {
  if (f.type != type) {
    throw WireError(f.offset, std::string(what) + " (field " + std::to_string(f.number) +
                                  ") has the wrong wire type " +
                                  std::to_string(static_cast<int>(f.type)));
  }
}

// AttributeProto (et_def.proto): name = 1, doc_string = 2, then the oneof `value`, fields 3-32,
// odd numbers scalars and even numbers the matching *List messages.
Attr decode_attr(const Field& outer) {
  Attr a;
  WireReader r(outer.bytes, outer.payload_offset);
  while (!r.done()) {
    const Field f = r.field();
    if (f.number == 1) {
      expect(f, WireType::kLengthDelimited, "AttributeProto.name");
      a.name = std::string(f.bytes);
      continue;
    }
    if (f.number == 2 || f.number > 32) continue;  // doc_string; fields a newer schema adds
    a.field = f.number;
    switch (f.number) {
      case 3:  // double_val
        expect(f, WireType::kFixed64, "double_val");
        a.kind = Attr::Kind::kDouble;
        std::memcpy(&a.double_value, &f.value, sizeof(double));
        break;
      case 5: {  // float_val
        expect(f, WireType::kFixed32, "float_val");
        const auto bits = static_cast<uint32_t>(f.value);
        float v = 0;
        std::memcpy(&v, &bits, sizeof(float));
        a.kind = Attr::Kind::kDouble;
        a.double_value = v;
        break;
      }
      case 7:
      case 9:
      case 11:
      case 13:
      case 27:  // int32, int64, uint32, uint64, bool
        expect(f, WireType::kVarint, "an integer attribute");
        a.kind = Attr::Kind::kInt;
        // int32 values are sign-extended to 64 bits on the wire; the cast restores them.
        a.int_value = f.number == 11 ? static_cast<int64_t>(static_cast<uint32_t>(f.value))
                                     : static_cast<int64_t>(f.value);
        break;
      case 15:
      case 17:  // sint32, sint64
        expect(f, WireType::kVarint, "a sint attribute");
        a.kind = Attr::Kind::kInt;
        a.int_value = protobuf::zigzag(f.value);
        break;
      case 19:
      case 23:  // fixed32, sfixed32
        expect(f, WireType::kFixed32, "a fixed32 attribute");
        a.kind = Attr::Kind::kInt;
        a.int_value = f.number == 19 ? static_cast<int64_t>(f.value)
                                     : static_cast<int64_t>(static_cast<int32_t>(f.value));
        break;
      case 21:
      case 25:  // fixed64, sfixed64
        expect(f, WireType::kFixed64, "a fixed64 attribute");
        a.kind = Attr::Kind::kInt;
        a.int_value = static_cast<int64_t>(f.value);
        break;
      case 29:
      case 31:  // string, bytes
        expect(f, WireType::kLengthDelimited, "a string attribute");
        a.kind = Attr::Kind::kString;
        a.string_value = std::string(f.bytes);
        break;
      case 8:
      case 10:
      case 12:
      case 14:
      case 16:
      case 18:
      case 28: {
        // Int32List ... BoolList: one field `values = 1`, packed (proto3's default) or not.
        expect(f, WireType::kLengthDelimited, "a list attribute");
        a.kind = Attr::Kind::kIntList;
        a.int_values.clear();
        const bool zig = f.number == 16 || f.number == 18;
        WireReader list(f.bytes, f.payload_offset);
        while (!list.done()) {
          const Field v = list.field();
          if (v.number != 1) continue;
          if (v.type == WireType::kLengthDelimited) {
            for (uint64_t x : protobuf::unpack_varints(v.bytes, v.payload_offset)) {
              a.int_values.push_back(zig ? protobuf::zigzag(x) : static_cast<int64_t>(x));
            }
          } else {
            expect(v, WireType::kVarint, "a list value");
            a.int_values.push_back(zig ? protobuf::zigzag(v.value) : static_cast<int64_t>(v.value));
          }
        }
        break;
      }
      default:  // double, float, fixed and string lists: kept only as present
        expect(f, WireType::kLengthDelimited, "a list attribute");
        a.kind = Attr::Kind::kOtherList;
        break;
    }
  }
  return a;
}

void append_deps(const Field& f, std::vector<uint64_t>& out) {
  if (f.type == WireType::kLengthDelimited) {
    for (uint64_t id : protobuf::unpack_varints(f.bytes, f.payload_offset)) out.push_back(id);
  } else {
    expect(f, WireType::kVarint, "a dependency");
    out.push_back(f.value);
  }
}

Node decode_node(std::string_view bytes, uint64_t base) {
  Node n;
  n.offset = base;
  WireReader r(bytes, base);
  while (!r.done()) {
    const Field f = r.field();
    switch (f.number) {
      case 1:
        expect(f, WireType::kVarint, "Node.id");
        n.id = f.value;
        break;
      case 2:
        expect(f, WireType::kLengthDelimited, "Node.name");
        n.name = std::string(f.bytes);
        break;
      case 3:
        expect(f, WireType::kVarint, "Node.type");
        n.type = static_cast<int64_t>(f.value);
        break;
      case 4:
        append_deps(f, n.ctrl_deps);
        break;
      case 5:
        append_deps(f, n.data_deps);
        break;
      case 6:
        expect(f, WireType::kVarint, "Node.start_time_micros");
        n.start_time_micros = f.value;
        break;
      case 7:
        expect(f, WireType::kVarint, "Node.duration_micros");
        n.duration_micros = f.value;
        break;
      case 10:
        expect(f, WireType::kLengthDelimited, "Node.attr");
        n.attrs.push_back(decode_attr(f));
        break;
      default:  // inputs, outputs, storage, and fields of later schemas
        break;
    }
  }
  return n;
}

}  // namespace

Trace parse_trace(std::string_view data, const std::string& path, const std::string& key_path) {
  Trace t;
  t.path = path;
  WireReader stream(data);
  size_t record = 0;
  uint64_t record_offset = 0;
  try {
    if (stream.done()) throw WireError(0, "the file is empty (no GlobalMetadata record)");
    const std::string_view meta = stream.delimited();
    WireReader m(meta, stream.offset() - meta.size());
    while (!m.done()) {
      const Field f = m.field();
      if (f.number == 1) {
        expect(f, WireType::kLengthDelimited, "GlobalMetadata.version");
        t.version = std::string(f.bytes);
      } else if (f.number == 2) {
        expect(f, WireType::kLengthDelimited, "GlobalMetadata.attr");
        t.metadata.push_back(decode_attr(f));
      }
    }
    while (!stream.done()) {
      ++record;
      record_offset = stream.offset();
      const std::string_view node = stream.delimited();
      t.nodes.push_back(decode_node(node, stream.offset() - node.size()));
    }
  } catch (const WireError& e) {
    const std::string where = record == 0 ? std::string("the GlobalMetadata record")
                                          : "node record " + std::to_string(record) + " (at byte " +
                                                std::to_string(record_offset) + ")";
    throw ImportError(path, 0, key_path,
                      where + ": byte " + std::to_string(e.offset()) + ": " + e.what());
  }
  return t;
}

Trace read_trace(const std::string& path, const std::string& key_path) {
  // 1 GiB: a trace of millions of nodes still fits; /dev/zero and FIFOs are refused there.
  return parse_trace(read_bounded_file(path, int64_t{1} << 30, key_path, "the Chakra trace"), path,
                     key_path);
}

}  // namespace fabricsim::workload::chakra
