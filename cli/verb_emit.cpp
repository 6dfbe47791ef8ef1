// `scangen emit FILE`: the CUDA or OpenCL C source of a file's scans, and
// with --header the typed host wrappers that launch them.
#include <iostream>
#include <optional>
#include <utility>

#include "cli.h"
#include "scangen/generator/emit.h"
#include "scangen/generator/host.h"
#include "scangen/generator/opencl_builtins.h"

namespace scangen::cli {

namespace {

const char* const kEmitUsage =
    "usage: scangen emit [--target cuda|opencl] [--arch sm_XX [--device NAME]] [--tuning KNOBS] [--scan NAME]\n"
    "                    [-o OUT] [--header H] FILE\n"
    "       scangen emit --opencl-builtins [-o OUT]\n"
    "\n"
    "Writes one self-contained source file (no #include) holding every scan of FILE that\n"
    "lists the target: CUDA C++ for NVRTC or nvcc, or OpenCL C 1.2. docs/generated-code.md\n"
    "describes what it defines and how to call it.\n"
    "\n"
    "  --target T          cuda (default) or opencl\n"
    "  --arch A            CUDA: plan for architecture A (sm_90, ...; default: any)\n"
    "  --device NAME       CUDA, with --arch: plan for the device of that name too, as\n"
    "                      the driver gives it ('NVIDIA H200'): the tuning table's rows\n"
    "                      for it come first (docs/cli.md)\n"
    "  --tuning KNOBS      device scans: these knobs over the tuning table's entry, for\n"
    "                      experiments ('raw_tile=1 items=8'; generator/include/scangen/\n"
    "                      generator/tuning.h lists them)\n"
    "  --scan NAME         only the scan called NAME\n"
    "  -o OUT              write to OUT instead of standard output\n"
    "  --header H          also write H, a C++ header of typed host wrappers: per scan, a\n"
    "                      function that checks its arguments and launches the kernels\n"
    "                      (CUDA: declared in H, defined at the end of the .cu; OpenCL: H\n"
    "                      holds the source and builds it once per context). docs/cli.md\n"
    "  --depfile D         also write D, the Make/Ninja dependencies of OUT: FILE and every\n"
    "                      C++ header it imports (CMake's DEPFILE; needs -o)\n"
    "  --opencl-builtins   write OpenCL 2.0's work_group_scan_* / work_group_reduce_*\n"
    "                      for OpenCL 1.2 devices instead (docs/opencl-builtins.md)\n";

struct EmitOptions {
  std::vector<std::string> files;
  std::string only, out_path, header_path, depfile_path;
  bool builtins = false;
  generator::Target target;  // the backend, and with --arch the CUDA architecture
};

// What emit writes: the source, and the header where --header asks for one.
struct Emitted {
  std::string text, header;
  std::vector<std::string> imported;  // the files the scans' imports read
};

// `path` as a word of a Make/Ninja depfile.
std::string depfile_word(const std::string& path) {
  std::string out;
  for (char c : path) {
    if (c == ' ' || c == '\\' || c == '#') out += '\\';
    if (c == '$') out += '$';
    out += c;
  }
  return out;
}

// `OUT: FILE HEADER...`, one dependency a line.
std::string depfile_text(const std::string& out, const std::string& file, const std::vector<std::string>& imported) {
  std::string text = depfile_word(out) + ": " + depfile_word(file);
  for (const std::string& f : imported) text += " \\\n  " + depfile_word(f);
  return text + "\n";
}

// The source (and header) of the scans of the one FILE; the document's
// diagnostics are printed, and nothing returned, when it does not check.
std::optional<Emitted> emit_scans(const EmitOptions& o) {
  if (o.files.size() != 1) throw UserError{std::string("emit takes one FILE\n") + kEmitUsage};
  if (!o.header_path.empty() && o.header_path == o.out_path) throw UserError{"--header and -o name the same file"};
  dsl::Document doc = load(o.files[0]);
  if (!doc.ok()) {
    std::cerr << doc.diagnostics().render();
    return std::nullopt;
  }
  const std::vector<generator::Plan> plans = select_plans(doc, o.files[0], o.only, o.target);
  generator::EmitOptions options;
  if (!o.out_path.empty() && o.out_path != "-") options.source_name = base_name(o.out_path);
  Emitted out;
  out.imported = doc.imported_files();
  out.text = generator::emit(plans, options);
  if (!o.header_path.empty()) {
    generator::HostOptions host;
    host.source_name = options.source_name.empty()
                           ? plans.front().spec.name + generator::source_extension(o.target.backend)
                           : options.source_name;
    host.header_name = base_name(o.header_path);
    generator::HostCode code = generator::emit_host(plans, out.text, host);
    out.text += code.source_tail;
    out.header = std::move(code.header);
  }
  return out;
}

}  // namespace

int run_emit(const std::vector<std::string>& args) {
  EmitOptions o;
  const CommandLine line{
      "emit",
      kEmitUsage,
      {{{"--target"}, Takes::Next, "", [&](const std::string& v) { o.target.backend = parse_backend(v); }},
       {{"--arch"}, Takes::NextOrEquals, "", [&](const std::string& v) { o.target.arch = parse_arch(v); }},
       {{"--device"}, Takes::NextOrEquals, "", [&](const std::string& v) { o.target.device = parse_device(v); }},
       {{"--tuning"}, Takes::NextOrEquals, "", [&](const std::string& v) { o.target.tuning = parse_tuning_knobs(v); }},
       {{"--scan"}, Takes::Next, "", [&](const std::string& v) { o.only = v; }},
       {{"-o"}, Takes::Next, "", [&](const std::string& v) { o.out_path = output_path("-o", v); }},
       {{"--header"},
        Takes::Next,
        "",
        [&](const std::string& v) {
          o.header_path = v;
          if (v.empty() || v == "-") throw UserError{"--header needs a file name"};
        }},
       {{"--depfile"}, Takes::Next, "--depfile needs a file name", [&](const std::string& v) { o.depfile_path = v; }},
       {{"--opencl-builtins"}, Takes::Nothing, "", [&](const std::string&) { o.builtins = true; }}},
      [&](const std::string& word) { o.files.push_back(word); }};
  if (!parse_command_line(line, args)) return kOk;
  check_device(o.target.device, o.target.arch);
  if (o.target.backend != generator::Backend::Cuda) {  // OpenCL plans have no architecture
    o.target.arch = 0;
    o.target.device.clear();
  }
  Emitted out;
  if (o.builtins) {
    if (!o.files.empty() || !o.only.empty() || !o.header_path.empty() || !o.depfile_path.empty())
      throw UserError{"--opencl-builtins takes no FILE, no --scan, no --header and no --depfile"};
    out.text = generator::emit_opencl_builtins();
  } else {
    if (!o.depfile_path.empty() && (o.out_path.empty() || o.out_path == "-"))
      throw UserError{"--depfile needs -o OUT: the depfile lists what OUT depends on"};
    std::optional<Emitted> scans = emit_scans(o);
    if (!scans) return kUserError;
    out = std::move(*scans);
  }
  // The header first: a build that sees the new source sees its header too.
  // Runs writing into one folder take turns, so that once they are done the
  // files are all from one run (a reader beside a writer may still see one
  // file new and the other old: docs/cli.md).
  const OutputLock turn(o.out_path);
  if (!o.header_path.empty()) write_output(o.header_path, out.header, o.files);
  write_output(o.out_path, out.text, o.files);
  if (!o.depfile_path.empty())
    write_output(o.depfile_path, depfile_text(o.out_path, o.files[0], out.imported), o.files);
  return kOk;
}

}  // namespace scangen::cli
