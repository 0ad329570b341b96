// Shared helpers for tests that drive the fabricsim binary (tests/cli, tests/examples): run a
// command with stdout, stderr and the exit code captured, read a file, split a CSV, and give each
// test its own scratch directory. Header-only on purpose: tests/support holds no .cpp file, so
// CMake does not turn it into a test executable.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace fabricsim::test_support {

namespace fs = std::filesystem;

struct CliOutcome {
  int exit_code = -1;  // -1 when the process did not exit normally (signal)
  std::string out;
  std::string err;
  std::vector<std::string> err_lines;
};

// The whole file as bytes ("" when it cannot be opened).
inline std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

inline std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// `text` in single quotes for /bin/sh, embedded single quotes escaped.
inline std::string shell_quote(const std::string& text) {
  std::string quoted = "'";
  for (char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

// Runs `command` through /bin/sh with stdout and stderr redirected into files in `capture_dir`
// (which must exist), then reads them back.
inline CliOutcome run_shell(const std::string& command, const fs::path& capture_dir) {
  const fs::path out = capture_dir / "stdout.txt";
  const fs::path err = capture_dir / "stderr.txt";
  const std::string full =
      command + " >" + shell_quote(out.string()) + " 2>" + shell_quote(err.string());
  const int status = std::system(full.c_str());
  CliOutcome o;
  o.exit_code = status != -1 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  o.out = read_file(out);
  o.err = read_file(err);
  o.err_lines = split_lines(o.err);
  return o;
}

// Runs `fabricsim ARGS` (ARGS already quoted as the shell needs).
inline CliOutcome run_fabricsim(const std::string& args, const fs::path& capture_dir) {
  return run_shell(shell_quote(FABRICSIM_BINARY) + " " + args, capture_dir);
}

// Comma-separated rows (no quoting: fabricsim's CSVs hold numbers only). An empty field stays
// an empty string; a trailing empty line is not a row.
inline std::vector<std::vector<std::string>> parse_csv(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  for (const std::string& line : split_lines(text)) {
    std::vector<std::string> fields;
    size_t start = 0;
    for (;;) {
      const size_t comma = line.find(',', start);
      fields.push_back(line.substr(start, comma - start));
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
    rows.push_back(std::move(fields));
  }
  return rows;
}

// A fresh, empty directory for the running test, removed by the destructor. The name holds the
// suite, the test and the process id, so parallel ctest jobs and concurrent runs from two build
// trees never share one.
class ScratchDir {
 public:
  explicit ScratchDir(const std::string& prefix) {
    const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string name = prefix + "_" + info->test_suite_name() + "_" + info->name() + "_" +
                       std::to_string(::getpid());
    for (char& c : name) {
      if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-')) c = '_';
    }
    path_ = fs::temp_directory_path() / name;
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~ScratchDir() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  const fs::path& path() const { return path_; }
  fs::path operator/(const std::string& name) const { return path_ / name; }

 private:
  fs::path path_;
};

// A fixture for tests that run the fabricsim binary: a scratch directory per test, a way to
// write a scenario file into it, and `fabricsim ARGS` with its output captured there.
class CliFixture : public ::testing::Test {
 protected:
  explicit CliFixture(std::string prefix) : prefix_(std::move(prefix)) {}
  void SetUp() override {
    scratch_ = std::make_unique<ScratchDir>(prefix_);
    dir_ = scratch_->path();
  }
  void TearDown() override { scratch_.reset(); }

  std::string write(const std::string& name, const std::string& yaml) {
    const fs::path path = dir_ / name;
    std::ofstream(path) << yaml;
    return path.string();
  }

  // Runs `fabricsim ARGS` with stdout and stderr captured in files.
  CliOutcome run(const std::string& args) { return run_fabricsim(args, dir_); }

  // The bad-input contract (SPEC §5) for `run FILE EXTRA --out DIR` and `validate FILE EXTRA`:
  // exit 2, exactly one line on stderr matching `line_pattern` (a regex), and no output
  // directory (nothing simulated or written).
  void expect_bad_input(const std::string& file, const std::string& extra,
                        const std::string& line_pattern) {
    const fs::path out_dir = dir_ / "out";
    for (const std::string command : {"run", "validate"}) {
      const std::string args = command + " '" + file + "' " + extra +
                               (command == "run" ? " --out '" + out_dir.string() + "'" : "");
      const CliOutcome o = run(args);
      EXPECT_EQ(o.exit_code, 2) << "bad input must exit with 2: fabricsim " << args;
      ASSERT_EQ(o.err_lines.size(), 1u) << "exactly one line on stderr: fabricsim " << args
                                        << "\n" << o.err;
      EXPECT_TRUE(std::regex_match(o.err_lines[0], std::regex(line_pattern)))
          << "stderr '" << o.err_lines[0] << "' does not match " << line_pattern;
      EXPECT_FALSE(fs::exists(out_dir)) << "no output directory on bad input: fabricsim " << args;
    }
  }

  std::string prefix_;
  std::unique_ptr<ScratchDir> scratch_;
  fs::path dir_;
};

}  // namespace fabricsim::test_support
