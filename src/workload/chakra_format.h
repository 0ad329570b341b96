// Chakra execution traces (MLCommons Chakra, schema/protobuf/et_def.proto), read into plain
// per-node records with no meaning attached yet; workload/chakra_import.cpp decides what the nodes
// do on the scenario's GPUs. A trace is one file per rank, `<prefix>.<rank>.et` (ASTRA-sim
// astra-sim/workload/Workload.cc, Workload::Workload), holding a delimited protobuf stream: a
// varint size and a GlobalMetadata message, then a varint size and a Node message per node
// (Chakra's ETFeeder reads it so; checked against ASTRA-sim's published .et files, see
// docs/workloads.md "Chakra execution traces").
//
// Schema: mlcommons/chakra @6dc63e1, schema/protobuf/et_def.proto. Fields read from Node: id (1),
// name (2), type (3), ctrl_deps (4), data_deps (5), start_time_micros (6), duration_micros (7),
// attr (10). inputs/outputs (8, 9; strings) and storage (11) are skipped as unknown fields are,
// since nothing below uses them; the importer refuses the node types that would need them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fabricsim::workload::chakra {

// et_def.proto enum NodeType. Kept as the file's integer so a value beyond the schema reaches the
// importer, which refuses it naming the node.
enum NodeType : int64_t {
  kInvalidNode = 0,
  kMetadataNode = 1,
  kMemLoadNode = 2,
  kMemStoreNode = 3,
  kCompNode = 4,
  kCommSendNode = 5,
  kCommRecvNode = 6,
  kCommCollNode = 7,
  kStorageNode = 8,
  kBatchNode = 9,
  kCheckpointNode = 10,
};
const char* node_type_name(int64_t type);  // "COMP_NODE"; "type 42" beyond the schema

// et_def.proto enum CollectiveCommType.
enum CollectiveType : int64_t {
  kAllReduce = 0,
  kReduce = 1,
  kAllGather = 2,
  kGather = 3,
  kScatter = 4,
  kBroadcast = 5,
  kAllToAll = 6,
  kReduceScatter = 7,
  kReduceScatterBlock = 8,
  kBarrier = 9,
};
const char* collective_type_name(int64_t type);

// An AttributeProto: its name and the one value of its oneof, by the oneof's field number.
struct Attr {
  enum class Kind : uint8_t { kNone, kInt, kDouble, kString, kIntList, kOtherList };
  std::string name;
  uint32_t field = 0;  // the oneof member's field number (7 = int32_val, 27 = bool_val ...)
  Kind kind = Kind::kNone;
  int64_t int_value = 0;  // the integer kinds (int32/64, uint32/64, sint32/64, (s)fixed32/64, bool)
  double double_value = 0;
  std::string string_value;         // string_val, bytes_val
  std::vector<int64_t> int_values;  // the integer and bool lists
};

struct Node {
  uint64_t id = 0;
  std::string name;
  int64_t type = kInvalidNode;
  std::vector<uint64_t> ctrl_deps;
  std::vector<uint64_t> data_deps;
  uint64_t start_time_micros = 0;
  uint64_t duration_micros = 0;
  std::vector<Attr> attrs;
  uint64_t offset = 0;  // of the node's record in the file (errors)

  const Attr* attr(std::string_view attr_name) const;
  // The integer value of an integer-typed attribute; nullopt when absent. Throws ImportError when
  // present with a non-integer value.
  std::optional<int64_t> int_attr(std::string_view attr_name, const std::string& path,
                                  const std::string& key_path) const;
};

// "node 17 (all_reduce_8npus_1MB)": how every error names a node.
std::string node_label(const Node& n);

struct Trace {
  std::string path;
  std::string version;         // GlobalMetadata.version ("0.0.4"), empty when not written
  std::vector<Attr> metadata;  // GlobalMetadata.attr
  std::vector<Node> nodes;     // in file order
};

// Reads one rank's file whole (bounded: core/bounded_file.h) and decodes it. Throws
// ImportError(path, 0, key_path, message) naming the byte offset, and the node when the fault is
// inside one, for a truncated varint, a length past the end of the file, a wire type that does
// not exist, or a known field with the wrong wire type.
Trace read_trace(const std::string& path, const std::string& key_path);
// The same from bytes in memory (tests).
Trace parse_trace(std::string_view data, const std::string& path, const std::string& key_path);

}  // namespace fabricsim::workload::chakra
