#include "results/flows_csv.h"

#include <atomic>
#include <cstdio>
#include <stdexcept>
#include <system_error>

#include <unistd.h>

#include "results/result.h"

namespace fabricsim::scenario {

namespace fs = std::filesystem;

void append_flows_csv_header(std::string& out, bool with_path) {
  out += kFlowsCsvHeader;
  out += with_path ? ",path\n" : "\n";
}

void append_flows_csv_row(std::string& out, const FlowRecord& f, bool with_path) {
  const bool done = f.finish_ps >= 0;
  char slowdown[64];
  std::snprintf(slowdown, sizeof slowdown, "%.6f", f.slowdown());
  auto field = [&out](int64_t v) {
    out += std::to_string(v);
    out += ',';
  };
  field(f.id);
  field(f.src_nic);
  field(f.dst_nic);
  field(f.size_bytes);
  field(f.start_ps);
  if (done) out += std::to_string(f.finish_ps);
  out += ',';
  if (done) out += std::to_string(f.fct_ps());
  out += ',';
  field(f.ideal_fct_ps);
  if (done) out += slowdown;
  out += ',';
  field(f.sent_bytes);
  field(f.delivered_bytes);
  field(f.dropped_bytes);
  field(f.retransmitted_packets);
  field(f.traffic_class);
  out += std::to_string(f.qp);
  if (with_path) {
    out += ',';
    out += f.path;
  }
  out += '\n';
}

FlowsCsvFile::~FlowsCsvFile() {
  if (placed_) return;
  std::error_code ec;
  fs::remove(path_, ec);  // a destructor cannot report; a leftover hidden file is harmless
}

void FlowsCsvFile::place(const fs::path& dest) const {
  std::error_code ec;
  if (!placed_) {
    fs::rename(path_, dest, ec);
    if (!ec) {
      path_ = dest;
      placed_ = true;
      return;
    }
  }
  // Across file systems, or a second destination: a copy.
  ec.clear();
  fs::copy_file(path_, dest, fs::copy_options::overwrite_existing, ec);
  if (ec) throw std::runtime_error("cannot write " + dest.string() + ": " + ec.message());
  if (!placed_) {
    fs::remove(path_, ec);
    path_ = dest;
    placed_ = true;
  }
}

FlowsCsvWriter::FlowsCsvWriter(const fs::path& dir, bool with_path) : with_path_(with_path) {
  static std::atomic<uint64_t> serial{0};
  path_ = dir / (".flows-" + std::to_string(::getpid()) + "-" + std::to_string(serial++) +
                 ".csv.part");
  file_ = std::fopen(path_.c_str(), "wb");
  if (file_ == nullptr) {
    throw std::runtime_error("cannot create " + path_.string() + ": " +
                             std::generic_category().message(errno));
  }
  buffer_.reserve(kBufferBytes + 4096);
  append_flows_csv_header(buffer_, with_path_);
}

FlowsCsvWriter::~FlowsCsvWriter() {
  if (file_ == nullptr) return;  // finished: the file is the FlowsCsvFile's now
  std::fclose(file_);
  std::error_code ec;
  fs::remove(path_, ec);
}

void FlowsCsvWriter::add(const FlowRecord& f) {
  append_flows_csv_row(buffer_, f, with_path_);
  if (buffer_.size() >= kBufferBytes) flush();
}

void FlowsCsvWriter::flush() {
  if (!buffer_.empty() && std::fwrite(buffer_.data(), 1, buffer_.size(), file_) != buffer_.size()) {
    throw std::runtime_error("cannot write " + path_.string() + ": " +
                             std::generic_category().message(errno));
  }
  buffer_.clear();
}

std::shared_ptr<const FlowsCsvFile> FlowsCsvWriter::finish() {
  flush();
  const int closed = std::fclose(file_);
  file_ = nullptr;
  if (closed != 0) {
    std::error_code ec;
    fs::remove(path_, ec);
    throw std::runtime_error("cannot write " + path_.string() + ": " +
                             std::generic_category().message(errno));
  }
  return std::make_shared<const FlowsCsvFile>(path_);
}

}  // namespace fabricsim::scenario
