#include "spec/scenario_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "core/units.h"

namespace fabricsim::scenario {
namespace {

// What kind of file `st` describes, for "is a ..., not a regular file".
const char* file_kind(const struct stat& st) {
  if (S_ISDIR(st.st_mode)) return "a directory";
  if (S_ISCHR(st.st_mode)) return "a character device";
  if (S_ISBLK(st.st_mode)) return "a block device";
  if (S_ISFIFO(st.st_mode)) return "a FIFO";
  if (S_ISSOCK(st.st_mode)) return "a socket";
  return "not a regular file";
}

[[noreturn]] void file_error(const std::string& path, const std::string& message) {
  throw LoadError({path, 0}, "(file)", message);
}

// Refuses anything but a regular file of at most kMaxScenarioFileBytes. `followed` says whether
// `path` is a symbolic link (the message then says what it points to).
void check_file(const std::string& path, const struct stat& st, bool followed) {
  if (!S_ISREG(st.st_mode)) {
    const std::string kind = file_kind(st);
    if (kind == "a directory" && !followed) file_error(path, "cannot read: is a directory");
    file_error(path, std::string("cannot read: ") + (followed ? "is a symbolic link to " : "is ") +
                         kind + ", not a regular file");
  }
  if (st.st_size > kMaxScenarioFileBytes) {
    file_error(path, "is " + format_bytes(st.st_size) + "; a scenario file may be at most " +
                         format_bytes_exact(kMaxScenarioFileBytes));
  }
}

}  // namespace

size_t invalid_utf8_offset(std::string_view text) {
  // RFC 3629 section 4: the well-formed sequences, so overlong forms, UTF-16 surrogates
  // (U+D800..DFFF) and code points above U+10FFFF are refused as nlohmann::json refuses them.
  const auto* b = reinterpret_cast<const unsigned char*>(text.data());
  const size_t n = text.size();
  size_t i = 0;
  while (i < n) {
    const unsigned char c = b[i];
    if (c < 0x80) {
      ++i;
      continue;
    }
    size_t len = 0;
    unsigned char lo = 0x80, hi = 0xBF;  // the range of the second byte
    if (c >= 0xC2 && c <= 0xDF) {
      len = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
      len = 3;
      if (c == 0xE0) lo = 0xA0;
      if (c == 0xED) hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      len = 4;
      if (c == 0xF0) lo = 0x90;
      if (c == 0xF4) hi = 0x8F;
    } else {
      return i;
    }
    if (i + 1 >= n || b[i + 1] < lo || b[i + 1] > hi) return i;
    for (size_t k = 2; k < len; ++k) {
      if (i + k >= n || (b[i + k] & 0xC0) != 0x80) return i;
    }
    i += len;
  }
  return std::string_view::npos;
}

std::string read_scenario_file(const std::string& path) {
  // stat before open: opening a FIFO blocks until a writer comes, and a device need not be
  // opened at all to be refused.
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    file_error(path, std::string("cannot open: ") + std::strerror(errno));
  }
  struct stat link {};
  const bool followed = ::lstat(path.c_str(), &link) == 0 && S_ISLNK(link.st_mode);
  check_file(path, st, followed);
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0) file_error(path, std::string("cannot open: ") + std::strerror(errno));
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  // Again on what was opened: the path may have been replaced since the stat.
  if (::fstat(fd, &st) != 0) file_error(path, std::string("cannot read: ") + std::strerror(errno));
  check_file(path, st, followed);
  // Read at most one byte past the limit whatever the size said: a file that grows while it is
  // read (a log, a pipe swapped in) is refused rather than followed.
  std::string text(static_cast<size_t>(st.st_size) + 1, '\0');
  size_t got = 0;
  for (;;) {
    if (got == text.size()) {
      if (got > static_cast<size_t>(kMaxScenarioFileBytes)) {
        file_error(path, "grew past " + format_bytes_exact(kMaxScenarioFileBytes) +
                             " while being read; a scenario file may be at most that");
      }
      text.resize(std::min(text.size() * 2, static_cast<size_t>(kMaxScenarioFileBytes) + 1));
    }
    const ssize_t n = ::read(fd, text.data() + got, text.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) file_error(path, std::string("cannot read: ") + std::strerror(errno));
    if (n == 0) break;
    got += static_cast<size_t>(n);
  }
  text.resize(got);
  return text;
}

}  // namespace fabricsim::scenario
