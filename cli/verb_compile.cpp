// `scangen compile FILE --arch A`: the CUDA source of a file's scans,
// compiled with NVRTC to PTX or a cubin.
#include <cctype>
#include <iostream>

#include "cli.h"
#include "nvrtc_compile.h"
#include "scangen/generator/emit.h"

namespace scangen::cli {

namespace {

const char* const kCompileUsage =
    "usage: scangen compile --arch sm_XX|compute_XX [--device NAME] [--scan NAME] [-o OUT] FILE\n"
    "\n"
    "Emits the CUDA source of FILE's scans (as 'scangen emit --target cuda') and compiles it\n"
    "with NVRTC: a cubin for --arch sm_XX, PTX text for --arch compute_XX. The kernels are\n"
    "extern \"C\": load the result with cuModuleLoadData and launch them by name.\n"
    "\n"
    "  --arch A      sm_90, compute_90, ... (required; the scans are planned for it)\n"
    "  --device NAME plan for the device of that name too ('NVIDIA H200'): the tuning\n"
    "                table's rows for it come first\n"
    "  --scan NAME   only the scan called NAME\n"
    "  -o OUT        write to OUT instead of standard output\n"
    "\n"
    "On a compile error the NVRTC log goes to standard error; exit 1 when it points at the\n"
    "FILE or the architecture is unknown, 2 when it points at generated code.\n";

struct CompileOptions {
  std::vector<std::string> files;
  std::string only, out_path, arch, device;
};

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

// What NVRTC's answer means for the exit status: the output written, or why not.
int report(const NvrtcResult& r, const std::vector<generator::Plan>& plans, const CompileOptions& o) {
  using Status = NvrtcResult::Status;
  switch (r.status) {
    case Status::Ok:
      write_output(o.out_path, r.output, o.files);
      return kOk;
    case Status::Unavailable:
      throw UserError{"compile is unavailable: " + r.log};
    case Status::BadArch:
      if (!r.log.empty()) std::cerr << r.log << "\n";
      throw UserError{nvrtc_version() + " does not know --arch " + o.arch};
    case Status::CompileError: {
      std::cerr << r.log << (r.log.empty() || r.log.back() == '\n' ? "" : "\n");
      bool user = false;
      for (const generator::Plan& p : plans) user = user || log_points_at(r.log, p.spec.file);
      if (user) throw UserError{"the scans of " + o.files[0] + " do not compile for " + o.arch + " (the log above)"};
      std::cerr << "scangen: internal error: the generated source does not compile with " << nvrtc_version() << " for "
                << o.arch << " (the log above)\n";
      return kInternalError;
    }
    case Status::Failed:
      break;
  }
  std::cerr << "scangen: internal error: " << r.log << "\n";
  return kInternalError;
}

}  // namespace

int run_compile(const std::vector<std::string>& args) {
  CompileOptions o;
  const CommandLine line{
      "compile",
      kCompileUsage,
      {{{"--arch"}, Takes::NextOrEquals, "", [&](const std::string& v) { o.arch = v; }},
       {{"--device"}, Takes::NextOrEquals, "", [&](const std::string& v) { o.device = parse_device(v); }},
       {{"--scan"}, Takes::Next, "", [&](const std::string& v) { o.only = v; }},
       {{"-o"}, Takes::Next, "", [&](const std::string& v) { o.out_path = output_path("-o", v); }}},
      [&](const std::string& word) { o.files.push_back(word); }};
  if (!parse_command_line(line, args)) return kOk;
  if (o.files.size() != 1) throw UserError{std::string("compile takes one FILE\n") + kCompileUsage};
  if (o.arch.empty()) throw UserError{std::string("compile needs --arch\n") + kCompileUsage};
  const generator::Target target{generator::Backend::Cuda, parse_arch(o.arch), o.device};
  dsl::Document doc = load(o.files[0]);
  if (!doc.ok()) {
    std::cerr << doc.diagnostics().render();
    return kUserError;
  }
  const std::vector<generator::Plan> plans = select_plans(doc, o.files[0], o.only, target);
  const std::string name = plans.front().spec.name + ".cu";
  generator::EmitOptions options;
  options.source_name = name;
  const std::string source = generator::emit(plans, options);
  return report(nvrtc_compile(source, name, o.arch), plans, o);
}

}  // namespace scangen::cli
