// flows.csv's rows, and the file they are written into while the packet engine's harvest reads
// the transport's records one by one (issue 24 item 1): the run keeps no record per message
// (RunResult::flows stays empty unless its caller asks for them), so a training step's millions
// of NCCL chunk messages cost a bounded buffer, not a copy each plus the file's text.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>

namespace fabricsim::scenario {

struct FlowRecord;

inline constexpr const char* kFlowsCsvHeader =
    "id,src,dst,size_bytes,start_ps,finish_ps,fct_ps,ideal_fct_ps,slowdown,sent_bytes,"
    "delivered_bytes,dropped_bytes,retransmitted_packets,class,qp";

// Appends the header line (with `with_path`, a last column "path").
void append_flows_csv_header(std::string& out, bool with_path);
// Appends one flow's line. An unfinished flow leaves finish_ps, fct_ps and slowdown empty (read as
// missing by pandas and spreadsheets, where -1 would be averaged in silently). Slowdown has six
// decimals; every other column is an integer. class: the flow's IB SL or Ethernet priority; qp:
// its connection (QP, PDC, TCP connection); path (outputs.flows.path,
// engine/packet/flow_paths.h format): port labels, '>', " | " and "(+N more)", never a comma or
// a quote to escape.
void append_flows_csv_row(std::string& out, const FlowRecord& f, bool with_path);

// A finished flows.csv the run wrote, not yet where the outputs go. Shared by the copies of its
// RunResult; the last one gone removes the file unless place() put it somewhere.
class FlowsCsvFile {
 public:
  explicit FlowsCsvFile(std::filesystem::path path) : path_(std::move(path)) {}
  ~FlowsCsvFile();
  FlowsCsvFile(const FlowsCsvFile&) = delete;
  FlowsCsvFile& operator=(const FlowsCsvFile&) = delete;

  // Puts the file at `dest` (replacing it): moved there the first time (a rename, or a copy
  // across file systems), copied from there after. Throws std::runtime_error naming the file.
  void place(const std::filesystem::path& dest) const;
  const std::filesystem::path& path() const { return path_; }

 private:
  mutable std::filesystem::path path_;
  mutable bool placed_ = false;
};

// Writes flows.csv into a new file in `dir` (hidden, unique in this process) through a buffer of
// at most kBufferBytes, then hands it over as a FlowsCsvFile.
class FlowsCsvWriter {
 public:
  static constexpr size_t kBufferBytes = size_t{1} << 20;
  // Throws std::runtime_error when the file cannot be created.
  FlowsCsvWriter(const std::filesystem::path& dir, bool with_path);
  ~FlowsCsvWriter();
  FlowsCsvWriter(const FlowsCsvWriter&) = delete;
  FlowsCsvWriter& operator=(const FlowsCsvWriter&) = delete;

  void add(const FlowRecord& f);
  // Flushes and closes; throws std::runtime_error on a write error (a full disk).
  std::shared_ptr<const FlowsCsvFile> finish();

 private:
  void flush();

  std::filesystem::path path_;
  std::FILE* file_ = nullptr;
  std::string buffer_;
  bool with_path_ = false;
};

}  // namespace fabricsim::scenario
