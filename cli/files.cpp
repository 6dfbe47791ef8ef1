// Reading FILE and writing OUT for `scangen`, and the plans of a file's scans.
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <sstream>
#include <stdexcept>

#include "cli.h"
#include "scangen/dsl/dsl.h"
#include "scangen/reference/reference.h"

namespace scangen::cli {

namespace {

std::string os_error(int error) { return std::strerror(error); }

// Closes a file descriptor on every way out.
struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

std::string too_large(const std::string& path) {
  return "cannot read '" + path + "': more than " + std::to_string(dsl::kMaxSourceBytes) +
         " bytes (4 MiB), the most a scan file holds: is it the right file?";
}

// The whole file (or standard input, "-"), refused before it is read where it
// is larger than a scan file may be, and as soon as a stream passes that.
std::string read_input(const std::string& path) {
  Fd owned;
  int fd = STDIN_FILENO;
  const std::string name = path == "-" ? "<stdin>" : path;
  if (path != "-") {
    owned.fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (owned.fd < 0) throw UserError{"cannot read '" + path + "': " + os_error(errno)};
    fd = owned.fd;
    struct stat st {};
    if (::fstat(fd, &st) != 0) throw UserError{"cannot read '" + path + "': " + os_error(errno)};
    if (S_ISDIR(st.st_mode)) throw UserError{"cannot read '" + path + "': it is a directory, not a .scan file"};
    if (S_ISREG(st.st_mode) && static_cast<uint64_t>(st.st_size) > dsl::kMaxSourceBytes)
      throw UserError{too_large(path)};
  }
  std::string text;
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw UserError{"cannot read '" + name + "': " + os_error(errno)};
    if (n == 0) break;
    text.append(buffer, static_cast<size_t>(n));
    if (text.size() > dsl::kMaxSourceBytes) throw UserError{too_large(name)};
  }
  return text;
}

int write_all(int fd, const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno;
    done += static_cast<size_t>(n);
  }
  return 0;
}

}  // namespace

dsl::Document load(const std::string& path) {
  return dsl::load(path == "-" ? "<stdin>" : path, read_input(path), load_options());
}

// Writes `text` to standard output ("" or "-") or to `path`. A regular file
// (or a new one) is written through a temporary file of a unique name
// (mkstemp) in its folder, renamed into place: a reader never sees half a
// file, and nothing planted at a fixed name is followed. Anything else that
// exists at `path` (a device such as /dev/null, a FIFO) is written into as it
// is, never replaced. `inputs` are the files the command reads: an output
// that names one of them is refused before anything is written.
void write_output(const std::string& path, const std::string& text, const std::vector<std::string>& inputs) {
  if (path.empty() || path == "-") {
    std::cout << text;
    std::cout.flush();
    if (!std::cout) throw UserError{"cannot write to standard output"};
    return;
  }
  struct stat target {};
  const bool exists = ::stat(path.c_str(), &target) == 0;
  if (exists) {
    for (const std::string& input : inputs) {
      struct stat st {};
      if (input != "-" && ::stat(input.c_str(), &st) == 0 && st.st_dev == target.st_dev && st.st_ino == target.st_ino)
        throw UserError{"the output '" + path + "' is the input '" + input + "'; write to another file"};
    }
  }
  if (exists && !S_ISREG(target.st_mode)) {
    if (S_ISDIR(target.st_mode)) throw UserError{"cannot write '" + path + "': it is a directory"};
    Fd out{::open(path.c_str(), O_WRONLY | O_CLOEXEC)};
    if (out.fd < 0) throw UserError{"cannot write '" + path + "': " + os_error(errno)};
    if (const int error = write_all(out.fd, text); error != 0)
      throw UserError{"cannot write '" + path + "': " + os_error(error)};
    return;
  }
  const size_t slash = path.find_last_of('/');
  const std::string dir = slash == std::string::npos ? "." : path.substr(0, slash + 1);
  const std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  std::string tmp = dir + (dir.back() == '/' ? "" : "/") + "." + base + ".scangen-XXXXXX";
  Fd out{::mkstemp(tmp.data())};
  if (out.fd < 0) throw UserError{"cannot write '" + path + "': " + os_error(errno)};
  // mkstemp's 0600 would make the result private: the mode a new file gets
  // (0666 less the umask), or the mode of the file it replaces.
  mode_t mode = target.st_mode & 07777;
  if (!exists) {
    const mode_t mask = ::umask(0);
    ::umask(mask);
    mode = 0666 & ~mask;
  }
  int error = ::fchmod(out.fd, mode) != 0 ? errno : 0;
  if (error == 0) error = write_all(out.fd, text);
  if (::close(out.fd) != 0 && error == 0) error = errno;
  out.fd = -1;
  if (error == 0 && std::rename(tmp.c_str(), path.c_str()) != 0) error = errno;
  if (error != 0) {
    ::unlink(tmp.c_str());
    throw UserError{"cannot write '" + path + "': " + os_error(error)};
  }
}

std::string output_path(const std::string& flag, const std::string& value) {
  if (value.empty()) throw UserError{flag + " needs a file name ('-' for standard output)"};
  return value;
}

OutputLock::OutputLock(const std::string& path) {
  if (path.empty() || path == "-") return;
  const size_t slash = path.find_last_of('/');
  const std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
  fd_ = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd_ < 0) return;  // write_output says what is wrong with the folder
  while (::flock(fd_, LOCK_EX) != 0 && errno == EINTR) {
  }
}

OutputLock::~OutputLock() {
  if (fd_ >= 0) ::close(fd_);  // and with it the lock
}

std::string base_name(const std::string& path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::vector<generator::Plan> select_plans(const dsl::Document& doc, const std::string& path, const std::string& only,
                                          const generator::Target& target) {
  std::vector<generator::Plan> plans;
  for (const dsl::Spec& spec : doc.specs()) {
    if (!only.empty() && spec.name != only) continue;
    bool listed = false;
    for (dsl::Target t : spec.targets) listed = listed || generator::backend_for(t) == target.backend;
    if (!listed && only.empty()) continue;  // a scan for the other backend
    const std::string at = doc.file().name() + ":" + std::to_string(spec.loc.line) + ":" + std::to_string(spec.loc.col);
    // The operator check of `scangen check`, on every path that makes a kernel, as check says it.
    if (const std::string refusal = ref::refuse_operator(spec); !refusal.empty()) throw UserError{refusal, at};
    try {
      plans.push_back(generator::make_plan(spec, target));
    } catch (const std::invalid_argument& e) {
      throw UserError{e.what(), at};
    }
  }
  if (plans.empty()) {
    if (!only.empty()) throw UserError{"no scan named '" + only + "' in " + path};
    throw UserError{"no scan in " + path + " lists target '" + generator::to_string(target.backend) + "'"};
  }
  return plans;
}

}  // namespace scangen::cli
