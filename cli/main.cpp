// scangen: the command-line front end.
//
//   scangen check FILE...            parse, check, and test each operator
//   scangen explain FILE [--dump=ast|spec|plan] [--scan NAME] [--target cuda|opencl]
//   scangen emit FILE [--target cuda|opencl] [--scan NAME] [-o OUT] [--header H]
//   scangen emit --opencl-builtins [-o OUT]
//   scangen compile FILE --arch sm_XX|compute_XX [--scan NAME] [-o OUT]
//   scangen list [types|operators|functions|levels|algorithms|modes|targets]
//
// Exit status: 0 success, 1 a problem in the input, 2 an internal error.

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <iostream>
#include <optional>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "nvrtc_compile.h"
#include "scangen/dsl/dsl.h"
#include "scangen/generator/emit.h"
#include "scangen/generator/host.h"
#include "scangen/generator/opencl_builtins.h"
#include "scangen/generator/plan.h"
#include "scangen/reference/reference.h"

namespace {

constexpr int kOk = 0;
constexpr int kUserError = 1;
constexpr int kInternalError = 2;

const char* const kUsage =
    "usage: scangen <command> [options] FILE...\n"
    "\n"
    "commands:\n"
    "  check FILE...     parse and check scan files, then test each operator's identity and\n"
    "                    associativity on random values with the CPU reference\n"
    "  explain FILE      print each scan fully resolved, defaults filled in, and the\n"
    "                    generator's plan for each of its targets\n"
    "  emit FILE         write the CUDA or OpenCL C source of the file's scans, and with\n"
    "                    --header the typed host wrappers that launch them\n"
    "  compile FILE      compile the file's CUDA scans with NVRTC: PTX or a cubin\n"
    "  list              the element types, operators, functions, levels, algorithms, modes\n"
    "                    and targets of the language\n"
    "  help              this text\n"
    "  --version         the version of scangen\n"
    "\n"
    "FILE may be '-' for standard input. Run 'scangen <command> --help' for a command's options.\n"
    "Exit status: 0 success, 1 a problem in the input or the command line, 2 an internal error.\n";

const char* const kCheckUsage =
    "usage: scangen check [--seed N] [--samples N] [-q|--quiet] FILE...\n"
    "\n"
    "Parses and checks every FILE, then tests each scan's operator on random values:\n"
    "identity (combine(e, x) == x == combine(x, e)) and associativity\n"
    "(combine(combine(a, b), c) == combine(a, combine(b, c))). Integers must match exactly;\n"
    "floats are evaluated in f64 and must agree within a relative 1e-9.\n"
    "\n"
    "  --seed N      random seed (default: a fresh one, printed when a test fails)\n"
    "  --samples N   random triples per scan (default 2000)\n"
    "  -q, --quiet   print nothing on success\n";

const char* const kExplainUsage =
    "usage: scangen explain [--dump=ast|spec|plan] [--scan NAME] [--target cuda|opencl] [--arch sm_XX] FILE\n"
    "\n"
    "  (default)     each scan as the checked Spec, every default filled in, then its plan\n"
    "  --dump=spec   only the Spec\n"
    "  --dump=plan   only the plans: every decision the generator makes for a backend\n"
    "  --dump=ast    the parse tree, before names and types are resolved\n"
    "  --scan NAME   only the scan called NAME\n"
    "  --target T    only the plan for backend T (cuda or opencl)\n"
    "  --arch A      plan CUDA for architecture A (sm_90, ...; default: any, with sm_90's tuning)\n";

const char* const kEmitUsage =
    "usage: scangen emit [--target cuda|opencl] [--arch sm_XX] [--scan NAME] [-o OUT] [--header H] FILE\n"
    "       scangen emit --opencl-builtins [-o OUT]\n"
    "\n"
    "Writes one self-contained source file (no #include) holding every scan of FILE that\n"
    "lists the target: CUDA C++ for NVRTC or nvcc, or OpenCL C 1.2. docs/generated-code.md\n"
    "describes what it defines and how to call it.\n"
    "\n"
    "  --target T          cuda (default) or opencl\n"
    "  --arch A            CUDA: plan for architecture A (sm_90, ...; default: any)\n"
    "  --scan NAME         only the scan called NAME\n"
    "  -o OUT              write to OUT instead of standard output\n"
    "  --header H          also write H, a C++ header of typed host wrappers: per scan, a\n"
    "                      function that checks its arguments and launches the kernels\n"
    "                      (CUDA: declared in H, defined at the end of the .cu; OpenCL: H\n"
    "                      holds the source and builds it once per context). docs/cli.md\n"
    "  --opencl-builtins   write OpenCL 2.0's work_group_scan_* / work_group_reduce_*\n"
    "                      for OpenCL 1.2 devices instead (docs/opencl-builtins.md)\n";

const char* const kCompileUsage =
    "usage: scangen compile --arch sm_XX|compute_XX [--scan NAME] [-o OUT] FILE\n"
    "\n"
    "Emits the CUDA source of FILE's scans (as 'scangen emit --target cuda') and compiles it\n"
    "with NVRTC: a cubin for --arch sm_XX, PTX text for --arch compute_XX. The kernels are\n"
    "extern \"C\": load the result with cuModuleLoadData and launch them by name.\n"
    "\n"
    "  --arch A      sm_90, compute_90, ... (required; the scans are planned for it)\n"
    "  --scan NAME   only the scan called NAME\n"
    "  -o OUT        write to OUT instead of standard output\n"
    "\n"
    "On a compile error the NVRTC log goes to standard error; exit 1 when it points at the\n"
    "FILE or the architecture is unknown, 2 when it points at generated code.\n";

const char* const kListUsage =
    "usage: scangen list [types|operators|functions|levels|algorithms|modes|targets]\n"
    "\n"
    "Prints what a .scan file may name, with a line on each: element types, built-in\n"
    "operators (op = ...), math functions, levels, algorithms, modes and targets; all of\n"
    "them, or one group.\n";

struct UserError {
  std::string message;
};

std::string os_error(int error) { return std::strerror(error); }

// Closes a file descriptor on every way out.
struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

std::string read_input(const std::string& path) {
  if (path == "-") {
    std::ostringstream ss;
    ss << std::cin.rdbuf();
    return ss.str();
  }
  Fd in{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (in.fd < 0) throw UserError{"cannot read '" + path + "': " + os_error(errno)};
  struct stat st {};
  if (::fstat(in.fd, &st) != 0) throw UserError{"cannot read '" + path + "': " + os_error(errno)};
  if (S_ISDIR(st.st_mode)) throw UserError{"cannot read '" + path + "': it is a directory, not a .scan file"};
  std::string text;
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = ::read(in.fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw UserError{"cannot read '" + path + "': " + os_error(errno)};
    if (n == 0) break;
    text.append(buffer, static_cast<size_t>(n));
  }
  return text;
}

scangen::dsl::Document load(const std::string& path) {
  return scangen::dsl::load(path == "-" ? "<stdin>" : path, read_input(path));
}

uint64_t parse_number(const std::string& flag, const std::string& text) {
  char* end = nullptr;
  errno = 0;
  unsigned long long v = std::strtoull(text.c_str(), &end, 0);
  if (text.empty() || *end != '\0' || errno != 0 || text[0] == '-')
    throw UserError{flag + " expects a non-negative whole number, not '" + text + "'"};
  return v;
}

scangen::generator::Backend parse_backend(const std::string& name) {
  auto b = scangen::generator::backend_from_name(name);
  if (!b) throw UserError{"unknown target '" + name + "' (targets: cuda, opencl)"};
  return *b;
}

int cmd_check(const std::vector<std::string>& args) {
  std::vector<std::string> files;
  std::optional<uint64_t> seed;
  int samples = 2000;
  bool quiet = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= args.size()) throw UserError{a + " needs a value"};
      return args[++i];
    };
    if (a == "--help" || a == "-h") {
      std::cout << kCheckUsage;
      return kOk;
    } else if (a == "--seed") {
      seed = parse_number(a, value());
    } else if (a == "--samples") {
      uint64_t n = parse_number(a, value());
      if (n < 1 || n > 10000000) throw UserError{"--samples must be 1 to 10000000"};
      samples = static_cast<int>(n);
    } else if (a == "--quiet" || a == "-q") {
      quiet = true;
    } else if (a.size() > 1 && a[0] == '-') {
      throw UserError{"unknown option '" + a + "' for check\n" + kCheckUsage};
    } else {
      files.push_back(a);
    }
  }
  if (files.empty()) throw UserError{std::string("check needs at least one FILE\n") + kCheckUsage};
  if (!seed) seed = (static_cast<uint64_t>(std::random_device{}()) << 32) ^ std::random_device{}();

  int status = kOk;
  for (const std::string& path : files) {
    scangen::dsl::Document doc;
    try {
      doc = load(path);
    } catch (const UserError& e) {
      std::cerr << "scangen: error: " << e.message << "\n";
      status = kUserError;
      continue;
    }
    if (!doc.ok()) {
      std::cerr << doc.diagnostics().render();
      std::cerr << doc.file().name() << ": " << doc.diagnostics().error_count() << " error"
                << (doc.diagnostics().error_count() == 1 ? "" : "s") << "\n";
      status = kUserError;
      continue;
    }
    if (doc.specs().empty() && !quiet) std::cout << doc.file().name() << ": no scans to check\n";
    for (const scangen::dsl::Spec& spec : doc.specs()) {
      scangen::ref::OperatorReport r = scangen::ref::check_operator(spec, *seed, samples);
      if (!r.ok) {
        std::cerr << doc.file().name() << ":" << spec.loc.line << ":" << spec.loc.col << ": error: " << r.message
                  << " (seed " << *seed << ")\n";
        status = kUserError;
      } else if (!quiet) {
        std::cout << doc.file().name() << ": scan '" << spec.name << "': ok (" << spec.type.name() << ", "
                  << scangen::dsl::to_string(spec.level) << ", " << scangen::dsl::to_string(spec.algorithm)
                  << "; identity and associativity hold on " << r.samples << " random samples)\n";
      }
    }
  }
  return status;
}

// The plan of `spec` for `target`, or why there is none.
std::string plan_text(const scangen::dsl::Spec& spec, const scangen::generator::Target& target) {
  try {
    return scangen::generator::to_string(scangen::generator::make_plan(spec, target));
  } catch (const std::invalid_argument& e) {
    return std::string("no plan for ") + scangen::generator::to_string(target.backend) + ": " + e.what() + "\n";
  }
}

// --arch's value: sm_XX or compute_XX (an optional letter after the number), as a number (90).
int arch_number(const std::string& arch) {
  const int n = scangen::generator::cuda_arch_number(arch);
  if (n == 0)
    throw UserError{"--arch takes sm_XX (a cubin) or compute_XX (PTX), such as sm_90 or compute_90, not '" + arch +
                    "'"};
  return n;
}

int cmd_explain(const std::vector<std::string>& args) {
  std::string dump = "all";
  std::optional<scangen::generator::Backend> target;
  int arch = 0;
  std::string only;
  std::vector<std::string> files;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--help" || a == "-h") {
      std::cout << kExplainUsage;
      return kOk;
    } else if (a.rfind("--dump=", 0) == 0) {
      dump = a.substr(7);
      if (dump != "ast" && dump != "spec" && dump != "plan")
        throw UserError{"--dump takes 'ast', 'spec' or 'plan', not '" + dump + "'"};
    } else if (a == "--scan") {
      if (i + 1 >= args.size()) throw UserError{"--scan needs a scan name"};
      only = args[++i];
    } else if (a == "--target") {
      if (i + 1 >= args.size()) throw UserError{"--target needs cuda or opencl"};
      target = parse_backend(args[++i]);
    } else if (a == "--arch") {
      if (i + 1 >= args.size()) throw UserError{"--arch needs sm_XX"};
      arch = arch_number(args[++i]);
    } else if (a.size() > 1 && a[0] == '-') {
      throw UserError{"unknown option '" + a + "' for explain\n" + kExplainUsage};
    } else {
      files.push_back(a);
    }
  }
  if (files.size() != 1) throw UserError{std::string("explain takes one FILE\n") + kExplainUsage};
  scangen::dsl::Document doc = load(files[0]);
  if (dump == "ast") {
    std::cout << scangen::dsl::ast::dump(doc.ast());
  }
  if (!doc.ok()) {
    std::cerr << doc.diagnostics().render();
    return kUserError;
  }
  if (dump != "ast") {
    bool found = false;
    for (const scangen::dsl::Spec& spec : doc.specs()) {
      if (!only.empty() && spec.name != only) continue;
      found = true;
      if (dump != "plan") std::cout << spec.to_string();
      if (dump == "spec") continue;
      for (scangen::dsl::Target t : spec.targets) {
        scangen::generator::Backend b = scangen::generator::backend_for(t);
        if (target && *target != b) continue;
        std::string text = plan_text(spec, {b, b == scangen::generator::Backend::Cuda ? arch : 0});
        // Inside the spec's text, the plan reads as a comment.
        if (dump != "plan") {
          std::string commented;
          size_t start = 0;
          while (start < text.size()) {
            size_t end = text.find('\n', start);
            commented += "# " + text.substr(start, end - start) + "\n";
            start = end + 1;
          }
          text = commented;
        }
        std::cout << text;
      }
    }
    if (!found && !only.empty()) throw UserError{"no scan named '" + only + "' in " + files[0]};
  }
  return kOk;
}

// The plans of FILE's scans for `target`: every scan that lists it, or only
// the scan called `only`.
std::vector<scangen::generator::Plan> select_plans(const scangen::dsl::Document& doc, const std::string& path,
                                                   const std::string& only, const scangen::generator::Target& target) {
  std::vector<scangen::generator::Plan> plans;
  for (const scangen::dsl::Spec& spec : doc.specs()) {
    if (!only.empty() && spec.name != only) continue;
    bool listed = false;
    for (scangen::dsl::Target t : spec.targets) listed = listed || scangen::generator::backend_for(t) == target.backend;
    if (!listed && only.empty()) continue;  // a scan for the other backend
    // The operator check of `scangen check`, on every path that makes a kernel.
    if (const std::string refusal = scangen::ref::refuse_operator(spec); !refusal.empty())
      throw UserError{doc.file().name() + ":" + std::to_string(spec.loc.line) + ":" + std::to_string(spec.loc.col) +
                      ": " + refusal};
    try {
      plans.push_back(scangen::generator::make_plan(spec, target));
    } catch (const std::invalid_argument& e) {
      throw UserError{doc.file().name() + ":" + std::to_string(spec.loc.line) + ":" + std::to_string(spec.loc.col) +
                      ": " + e.what()};
    }
  }
  if (plans.empty()) {
    if (!only.empty()) throw UserError{"no scan named '" + only + "' in " + path};
    throw UserError{"no scan in " + path + " lists target '" + scangen::generator::to_string(target.backend) + "'"};
  }
  return plans;
}

std::string base_name(const std::string& path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
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

int cmd_emit(const std::vector<std::string>& args) {
  std::vector<std::string> files;
  std::string only, out_path, header_path;
  bool builtins = false;
  scangen::generator::Target target;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= args.size()) throw UserError{a + " needs a value"};
      return args[++i];
    };
    if (a == "--help" || a == "-h") {
      std::cout << kEmitUsage;
      return kOk;
    } else if (a == "--target") {
      target.backend = parse_backend(value());
    } else if (a == "--arch") {
      target.arch = arch_number(value());
    } else if (a == "--scan") {
      only = value();
    } else if (a == "-o") {
      out_path = value();
    } else if (a == "--header") {
      header_path = value();
      if (header_path.empty() || header_path == "-") throw UserError{"--header needs a file name"};
    } else if (a == "--opencl-builtins") {
      builtins = true;
    } else if (a.size() > 1 && a[0] == '-') {
      throw UserError{"unknown option '" + a + "' for emit\n" + kEmitUsage};
    } else {
      files.push_back(a);
    }
  }
  std::string text, header;
  if (builtins) {
    if (!files.empty() || !only.empty() || !header_path.empty())
      throw UserError{"--opencl-builtins takes no FILE, no --scan and no --header"};
    text = scangen::generator::emit_opencl_builtins();
  } else {
    if (files.size() != 1) throw UserError{std::string("emit takes one FILE\n") + kEmitUsage};
    if (!header_path.empty() && header_path == out_path) throw UserError{"--header and -o name the same file"};
    scangen::dsl::Document doc = load(files[0]);
    if (!doc.ok()) {
      std::cerr << doc.diagnostics().render();
      return kUserError;
    }
    if (target.backend != scangen::generator::Backend::Cuda) target.arch = 0;
    const std::vector<scangen::generator::Plan> plans = select_plans(doc, files[0], only, target);
    scangen::generator::EmitOptions options;
    if (!out_path.empty() && out_path != "-") options.source_name = base_name(out_path);
    text = scangen::generator::emit(plans, options);
    if (!header_path.empty()) {
      scangen::generator::HostOptions host;
      host.source_name = options.source_name.empty()
                             ? plans.front().spec.name + scangen::generator::source_extension(target.backend)
                             : options.source_name;
      host.header_name = base_name(header_path);
      scangen::generator::HostCode code = scangen::generator::emit_host(plans, text, host);
      text += code.source_tail;
      header = std::move(code.header);
    }
  }
  // The header first: a build that sees the new source sees its header too.
  if (!header_path.empty()) write_output(header_path, header, files);
  write_output(out_path, text, files);
  return kOk;
}

// An NVRTC log line such as "affine.scan(8): error: ..." that points at `file`.
bool log_points_at(const std::string& log, const std::string& file) {
  if (file.empty()) return false;
  size_t at = 0;
  while ((at = log.find(file + "(", at)) != std::string::npos) {
    if (at == 0 || log[at - 1] == '\n') return true;
    at += file.size();
  }
  return false;
}

int cmd_compile(const std::vector<std::string>& args) {
  std::vector<std::string> files;
  std::string only, out_path, arch;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= args.size()) throw UserError{a + " needs a value"};
      return args[++i];
    };
    if (a == "--help" || a == "-h") {
      std::cout << kCompileUsage;
      return kOk;
    } else if (a == "--arch") {
      arch = value();
    } else if (a.rfind("--arch=", 0) == 0) {
      arch = a.substr(7);
    } else if (a == "--scan") {
      only = value();
    } else if (a == "-o") {
      out_path = value();
    } else if (a.size() > 1 && a[0] == '-') {
      throw UserError{"unknown option '" + a + "' for compile\n" + kCompileUsage};
    } else {
      files.push_back(a);
    }
  }
  if (files.size() != 1) throw UserError{std::string("compile takes one FILE\n") + kCompileUsage};
  if (arch.empty()) throw UserError{std::string("compile needs --arch\n") + kCompileUsage};
  const scangen::generator::Target target{scangen::generator::Backend::Cuda, arch_number(arch)};
  scangen::dsl::Document doc = load(files[0]);
  if (!doc.ok()) {
    std::cerr << doc.diagnostics().render();
    return kUserError;
  }
  const std::vector<scangen::generator::Plan> plans = select_plans(doc, files[0], only, target);
  const std::string name = plans.front().spec.name + ".cu";
  scangen::generator::EmitOptions options;
  options.source_name = name;
  const std::string source = scangen::generator::emit(plans, options);

  using Status = scangen::cli::NvrtcResult::Status;
  scangen::cli::NvrtcResult r = scangen::cli::nvrtc_compile(source, name, arch);
  switch (r.status) {
    case Status::Ok:
      write_output(out_path, r.output, files);
      return kOk;
    case Status::Unavailable:
      throw UserError{"compile is unavailable: " + r.log};
    case Status::BadArch:
      if (!r.log.empty()) std::cerr << r.log << "\n";
      throw UserError{scangen::cli::nvrtc_version() + " does not know --arch " + arch};
    case Status::CompileError: {
      std::cerr << r.log << (r.log.empty() || r.log.back() == '\n' ? "" : "\n");
      bool user = false;
      for (const scangen::generator::Plan& p : plans) user = user || log_points_at(r.log, p.spec.file);
      if (user) throw UserError{"the scans of " + files[0] + " do not compile for " + arch + " (the log above)"};
      std::cerr << "scangen: internal error: the generated source does not compile with "
                << scangen::cli::nvrtc_version() << " for " << arch << " (the log above)\n";
      return kInternalError;
    }
    case Status::Failed:
      break;
  }
  std::cerr << "scangen: internal error: " << r.log << "\n";
  return kInternalError;
}

int cmd_list(const std::vector<std::string>& args) {
  std::string only;
  for (const std::string& a : args) {
    if (a == "--help" || a == "-h") {
      std::cout << kListUsage;
      return kOk;
    }
    if (a.size() > 1 && a[0] == '-') throw UserError{"unknown option '" + a + "' for list\n" + kListUsage};
    if (!only.empty()) throw UserError{std::string("list takes at most one group\n") + kListUsage};
    only = a;
  }
  const char* const groups[] = {"types", "operators", "functions", "levels", "algorithms", "modes", "targets"};
  bool known = only.empty();
  for (const char* g : groups) known = known || only == g;
  if (!known)
    throw UserError{"unknown group '" + only +
                    "' (groups: types, operators, functions, levels, algorithms, modes, targets)"};
  auto want = [&](const char* g) { return only.empty() || only == g; };
  auto pad = [](std::string s, size_t w) { return s.size() < w ? s + std::string(w - s.size(), ' ') : s + " "; };
  std::ostringstream o;
  bool first = true;
  auto heading = [&](const char* title) {
    if (only.empty()) o << (first ? "" : "\n") << title << "\n";
    first = false;
  };

  if (want("types")) {
    heading("types (type = ..., struct fields, input = ...):");
#define X(e, name, bytes, is_float_, is_signed_)                                                                 \
  {                                                                                                              \
    const scangen::dsl::ScalarKind k = scangen::dsl::ScalarKind::e;                                              \
    std::string what = k == scangen::dsl::ScalarKind::Bool                                                       \
                           ? "truth value of conditions (not an element or field type)"                          \
                           : std::string(bytes == 1 ? "1 byte" : std::to_string(bytes) + " bytes") + ", " +      \
                                 (is_float_ ? (k == scangen::dsl::ScalarKind::F16 ? "IEEE binary16, computed in f32" \
                                                                                  : "IEEE float")                \
                                            : (is_signed_ ? "signed integer, wraps around" : "unsigned integer, wraps around")); \
    o << "  " << pad(name, 18) << what << "\n";                                                                  \
  }
    SCANGEN_SCALAR_KINDS(X)
#undef X
    o << "  " << pad("type S { ... }", 18) << "a struct of fields of these types and of other structs, C layout\n";
  }
  if (want("operators")) {
    heading("operators (op = ...; sets combine, identity and init):");
#define X(e, s, integer_only) o << "  " << pad(s, 18) << (integer_only ? "integer types" : "integer and float types") << "\n";
    SCANGEN_BUILTIN_OPS(X)
#undef X
  }
  if (want("functions")) {
    heading("functions (in combine, identity, init and convert expressions):");
#define X(e, s, arity, floats_only)                                                                           \
  o << "  " << pad(std::string(s) + "(" + (arity == 1 ? "x" : arity == 2 ? "x, y" : "x, y, z") + ")", 18)   \
    << (std::string(s) == "select" ? "x, y of one type (scalar or struct), z a bool: z ? y : x"                 \
        : floats_only              ? "float types"                                                             \
                                   : "integer and float types")                                               \
    << "\n";
    SCANGEN_MATH_FNS(X)
#undef X
  }
  if (want("levels")) {
    heading("levels (level = ...):");
#define X(e, s, d) o << "  " << pad(s, 18) << d << "\n";
    SCANGEN_LEVELS(X)
#undef X
  }
  if (want("algorithms")) {
    heading("algorithms (algorithm = ...), by level; * marks the level's default:");
#define X(e, s, level, d)                                                                                       \
  {                                                                                                             \
    const scangen::dsl::Level l = scangen::dsl::Level::level;                                                   \
    const bool is_default = scangen::dsl::default_algorithm(l) == scangen::dsl::Algorithm::e;                   \
    o << "  " << pad(std::string(s) + (is_default ? " *" : ""), 21) << pad(scangen::dsl::to_string(l), 7) << d \
      << "\n";                                                                                                  \
  }
    SCANGEN_ALGORITHMS(X)
#undef X
  }
  if (want("modes")) {
    heading("modes (mode = ...):");
#define X(e, s)                                                                                                  \
  o << "  " << pad(s, 18)                                                                                        \
    << (scangen::dsl::Mode::e == scangen::dsl::Mode::Inclusive   ? "element k gets init . x0 . ... . xk (the default)" \
        : scangen::dsl::Mode::e == scangen::dsl::Mode::Exclusive ? "element k gets init . x0 . ... . x(k-1)"           \
                                                                 : "both, into two outputs")                           \
    << "\n";
    SCANGEN_MODES(X)
#undef X
  }
  if (want("targets")) {
    heading("targets (targets = ...; both by default):");
#define X(e, s)                                                                                                   \
  {                                                                                                               \
    const scangen::generator::Backend b = scangen::generator::backend_for(scangen::dsl::Target::e);               \
    o << "  " << pad(s, 18)                                                                                       \
      << (b == scangen::generator::Backend::Cuda ? "CUDA C++ for nvcc or NVRTC" : "OpenCL C 1.2") << " ("       \
      << scangen::generator::source_extension(b) << ")\n";                                                        \
  }
    SCANGEN_TARGETS(X)
#undef X
  }
  std::cout << o.str();
  return kOk;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  try {
    if (args.empty()) {
      std::cerr << kUsage;
      return kUserError;
    }
    std::string cmd = args[0];
    args.erase(args.begin());
    if (cmd == "check") return cmd_check(args);
    if (cmd == "explain") return cmd_explain(args);
    if (cmd == "emit") return cmd_emit(args);
    if (cmd == "compile") return cmd_compile(args);
    if (cmd == "list") return cmd_list(args);
    if (cmd == "help" || cmd == "--help" || cmd == "-h") {
      std::cout << kUsage;
      return kOk;
    }
    if (cmd == "--version") {
      std::cout << "scangen 0.1.0\n";
      return kOk;
    }
    std::cerr << "scangen: error: unknown command '" << cmd << "'\n" << kUsage;
    return kUserError;
  } catch (const UserError& e) {
    std::cerr << "scangen: error: " << e.message << "\n";
    return kUserError;
  } catch (const std::exception& e) {
    std::cerr << "scangen: internal error: " << e.what() << "\n";
    return kInternalError;
  }
}
