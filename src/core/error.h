// Errors in what the user asked for (as opposed to bugs): they carry the scenario key path so the
// CLI can print `file:line: key.path: message` and exit 2.
#pragma once

#include <stdexcept>
#include <string>

namespace fabricsim {

class InputError : public std::runtime_error {
 public:
  InputError(std::string key_path, const std::string& message)
      : std::runtime_error(message), key_path_(std::move(key_path)) {}
  const std::string& key_path() const { return key_path_; }

 private:
  std::string key_path_;
};

// Bad input found in a file the scenario names (an imported workload): reported as
// `file:line: key_path: message`, where key_path is the scenario key that named the file.
class ImportError : public InputError {
 public:
  ImportError(std::string file, int line, std::string key_path, const std::string& message)
      : InputError(std::move(key_path), message), file_(std::move(file)), line_(line) {}
  const std::string& file() const { return file_; }
  int line() const { return line_; }

 private:
  std::string file_;
  int line_ = 0;
};

}  // namespace fabricsim
