// Shared helpers for tests that read fabricsim's pcaps back with Wireshark's own dissectors
// (tshark) as an independent parser (tests/output/pcap_*tshark_test.cpp, pcap_ib_run_test.cpp):
// require tshark, run it with `-T fields`, split its lines into fields, parse the numbers and
// booleans it prints, and read a pcap's link type. Files are dissected exactly as fabricsim
// wrote them: nothing is relabelled or rewritten before tshark reads them.
// Header-only on purpose: tests/support holds no .cpp file, so CMake does not turn it into a test
// executable.
#pragma once

#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "cli_runner.h"  // read_file

namespace fabricsim::test_support {

namespace fs = std::filesystem;

inline bool have_tshark() { return std::system("command -v tshark >/dev/null 2>&1") == 0; }

// tshark is a build dependency (scripts/install-deps installs it, CI runs that script): without
// it these tests fail rather than skip, so a missing install cannot pass as green.
#define REQUIRE_TSHARK()                                      \
  ASSERT_TRUE(::fabricsim::test_support::have_tshark())       \
      << "tshark is not installed: run scripts/install-deps " \
         "(it installs Debian's tshark; CI does the same)"

struct CommandOutput {
  bool started = false;  // popen succeeded
  int status = -1;       // what pclose returned (0: exited 0); -1 when not started
  std::string out;       // everything the command wrote to stdout
};

// Runs `command` through /bin/sh and collects its stdout. Nothing is asserted here: each caller
// checks `started` and `status` with the message that suits it.
inline CommandOutput run_command(const std::string& command) {
  CommandOutput r;
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return r;
  r.started = true;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, pipe)) > 0) r.out.append(buf, n);
  r.status = pclose(pipe);
  return r;
}

// `tshark -r FILE OPTIONS -T fields -E separator=, FIELDS`: one line per packet, its fields
// comma-separated. OPTIONS (preferences, `-o ...`) may be empty; FIELDS is the `-e` list,
// possibly preceded by further `-E` flags. No redirection: callers add their own 2>...
inline std::string tshark_fields_command(const fs::path& file, const std::string& options,
                                         const std::string& fields) {
  return "tshark -r '" + file.string() + "' " + (options.empty() ? "" : options + " ") +
         "-T fields -E separator=, " + fields;
}

// The same for InfiniBand: first occurrence of each field only, since the dissector adds some
// (ImmDt) twice and a second value would shift every later column.
inline std::string tshark_ib_command(const fs::path& file, const std::string& options,
                                     const std::string& fields) {
  return tshark_fields_command(file, options, "-E occurrence=f " + fields);
}

using FieldRows = std::vector<std::vector<std::string>>;

// Lines of `text` (tshark's `-T fields` output, or a CSV), each split at its first `fields - 1`
// commas: the last field keeps any commas of its own (tshark joins expert messages with commas).
// A line with fewer commas gives a shorter row, which callers check.
inline FieldRows split_rows(const std::string& text, size_t fields) {
  FieldRows rows;
  size_t start = 0;
  while (start < text.size()) {
    const size_t end = text.find('\n', start);
    const std::string line = text.substr(start, end - start);
    start = end == std::string::npos ? text.size() : end + 1;
    std::vector<std::string> row;
    size_t from = 0;
    while (row.size() + 1 < fields) {
      const size_t comma = line.find(',', from);
      if (comma == std::string::npos) break;
      row.push_back(line.substr(from, comma - from));
      from = comma + 1;
    }
    row.push_back(line.substr(from));
    rows.push_back(row);
  }
  return rows;
}

// tshark prints hexadecimal fields as 0x..., others in decimal; -1 when absent. Parsed unsigned
// so a 64-bit field above INT64_MAX (an RDMA virtual address) still reads, as its two's
// complement; callers compare such fields after a cast back to uint64_t.
inline int64_t number(const std::string& s) {
  return s.empty() ? -1 : static_cast<int64_t>(std::stoull(s, nullptr, 0));
}

// Booleans: 1/0 in tshark 4.0, True/False in later releases; -1 when absent or anything else.
inline int flag(const std::string& s) {
  if (s == "1" || s == "True") return 1;
  if (s == "0" || s == "False") return 0;
  return -1;
}

// An empty directory under the system temp dir, emptied first if a previous run left it (the
// process id keeps concurrent test runs of two checkouts apart).
inline fs::path fresh_dir(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / (name + "-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// ---------------------------------------------------------------------------------------------
// pcap global header (tcpdump.org "pcap savefile format"): the link type is bytes 20-23.

// LINKTYPE_ERF (tcpdump.org link-layer header types; Mellanox ibdump's DLT_ERF): what an
// InfiniBand trace.pcap must say, since Wireshark 4.0 refuses LINKTYPE_INFINIBAND (247).
inline constexpr uint32_t kLinktypeErf = 197;

// The link type in the pcap global header held by `bytes` (at least 24 of them): bytes 20-23,
// little-endian as fabricsim writes them.
inline uint32_t pcap_linktype(const std::string& bytes) {
  return static_cast<uint8_t>(bytes.at(20)) | static_cast<uint8_t>(bytes.at(21)) << 8 |
         static_cast<uint8_t>(bytes.at(22)) << 16 |
         static_cast<uint32_t>(static_cast<uint8_t>(bytes.at(23))) << 24;
}

// frame.time_epoch as tshark prints it ("S.NNNNNNNNN") in picoseconds; -1 if not that shape.
inline int64_t epoch_ps(const std::string& s) {
  const size_t dot = s.find('.');
  if (dot == std::string::npos || s.size() - dot - 1 != 9) return -1;
  return std::stoll(s.substr(0, dot)) * 1'000'000'000'000 + std::stoll(s.substr(dot + 1)) * 1000;
}

// An ERF timestamp (2^-32 s units) rounded to the nearest 2^-32 s is within 2^-33 s (116.4 ps) of
// the true time, and tshark prints it rounded to the nanosecond (500 ps more): the largest
// distance between a packet's simulated time and the time tshark shows for it.
inline constexpr int64_t kErfShownTimeTolerancePs = 117 + 500;

}  // namespace fabricsim::test_support
