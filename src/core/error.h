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

}  // namespace fabricsim
