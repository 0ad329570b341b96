#include "results/flows_csv.h"

#include <atomic>
#include <charconv>
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
  // One row per message: at the 70B step's 15 M rows the formatting is a few percent of a
  // flow-mode run, so numbers go through std::to_chars into one stack buffer (no string per
  // field). Fixed with precision 6 is printf's "%.6f" (the standard defines it so).
  const bool done = f.finish_ps >= 0;
  char buf[512];
  char* p = buf;
  char* const end = buf + sizeof buf;
  auto num = [&](int64_t v) { p = std::to_chars(p, end, v).ptr; };
  auto comma = [&] { *p++ = ','; };
  num(f.id), comma();
  num(f.src_nic), comma();
  num(f.dst_nic), comma();
  num(f.size_bytes), comma();
  num(f.start_ps), comma();
  if (done) num(f.finish_ps);
  comma();
  if (done) num(f.fct_ps());
  comma();
  num(f.ideal_fct_ps), comma();
  if (done) p = std::to_chars(p, end, f.slowdown(), std::chars_format::fixed, 6).ptr;
  comma();
  num(f.sent_bytes), comma();
  num(f.delivered_bytes), comma();
  num(f.dropped_bytes), comma();
  num(f.retransmitted_packets), comma();
  num(f.traffic_class), comma();
  num(f.qp);
  out.append(buf, p);
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
