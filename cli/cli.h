// The parts of the `scangen` program, shared by its files:
//   main.cpp            the commands and the top-level usage
//   options.cpp         the one command-line parser: each verb declares its options
//   files.cpp           reading FILE, writing OUT, picking the plans of a file's scans
//   verb_*.cpp          one file per command: check, explain, emit, compile, list, import
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "scangen/dsl/dsl.h"
#include "scangen/generator/plan.h"

namespace scangen::cli {

// Exit status: 0 success, 1 a problem in the input or the command line, 2 an
// internal error.
constexpr int kOk = 0;
constexpr int kUserError = 1;
constexpr int kInternalError = 2;

// A problem in the input or the command line: main prints
// "scangen: error: MESSAGE" and exits 1; a located one (`where` set:
// "FILE:LINE:COL") as a compiler's diagnostic, "WHERE: error: MESSAGE".
struct UserError {
  std::string message;
  std::string where = "";
};

// ---- the command line (options.cpp) -------------------------------------------

// How an option takes its value.
enum class Takes {
  Nothing,       // a flag: --quiet
  Next,          // the next word: --scan NAME
  NextOrEquals,  // the next word or after '=': --arch sm_90, --arch=sm_90
  EqualsOnly,    // only after '=': --dump=spec
};

// One option of a verb: its spellings, how it takes a value, and what it does
// with the value ("" for a flag).
struct Option {
  std::vector<std::string> names;
  Takes takes = Takes::Nothing;
  // The message when the value is missing; "" for "NAME needs a value".
  std::string missing;
  std::function<void(const std::string& value)> apply;
};

// A verb's command line: its name and usage text, its options, and what to do
// with each word that is not an option (a FILE, a group).
struct CommandLine {
  const char* verb;
  const char* usage;
  std::vector<Option> options;
  std::function<void(const std::string& word)> operand;
};

// Reads `args` in order, applying each option and operand as it comes
// ("-" alone is an operand). --help or -h prints the usage and returns false;
// an unknown option is a UserError that shows the usage.
bool parse_command_line(const CommandLine& line, const std::vector<std::string>& args);

// A whole number for `flag`, or a UserError.
uint64_t parse_number(const std::string& flag, const std::string& text);
// A target name (cuda, opencl), or a UserError.
generator::Backend parse_backend(const std::string& name);
// --arch's value, sm_XX or compute_XX (a letter may follow the number), as a
// number (90); a UserError for anything else.
int parse_arch(const std::string& arch);
// --device NAME: the CUDA device's name (generator::Target::device), not empty.
std::string parse_device(const std::string& name);
// --tuning's knobs, checked as generator::parse_tuning reads them (a UserError naming the bad one).
std::string parse_tuning_knobs(const std::string& knobs);
// A UserError where --device is given without --arch (arch 0).
void check_device(const std::string& device, int arch);

// ---- files (files.cpp) ----------------------------------------------------------

// The checked document of FILE ("-": standard input), or a UserError when it
// cannot be read.
dsl::Document load(const std::string& path);
// Writes `text` to standard output ("" or "-") or to `path`, never over one
// of `inputs`; a UserError on failure.
void write_output(const std::string& path, const std::string& text, const std::vector<std::string>& inputs);
// The value of an option that names an output file: '-' is standard output,
// an empty name an error.
std::string output_path(const std::string& flag, const std::string& value);
// An exclusive lock (flock) on the folder `path` is in, held while it lives;
// none for standard output ("" or "-") or a folder that cannot be opened.
class OutputLock {
 public:
  explicit OutputLock(const std::string& path);
  ~OutputLock();
  OutputLock(const OutputLock&) = delete;
  OutputLock& operator=(const OutputLock&) = delete;

 private:
  int fd_ = -1;
};
// The last component of a path.
std::string base_name(const std::string& path);
// The plans of `doc`'s scans for `target`: every scan that lists it, or only
// the scan called `only`; the operator check of `scangen check` first.
std::vector<generator::Plan> select_plans(const dsl::Document& doc, const std::string& path, const std::string& only,
                                          const generator::Target& target);

// ---- the C++ front end (verb_import.cpp) -----------------------------------------

// dsl::load's options: `import "HEADER";` resolved by the C++ front end
// (scangen-cxx.so, loaded only when a file imports), or, where it was not
// built, a diagnostic that says how to get it.
dsl::LoadOptions load_options();

// ---- the commands (verb_*.cpp) --------------------------------------------------

int run_check(const std::vector<std::string>& args);
int run_explain(const std::vector<std::string>& args);
int run_emit(const std::vector<std::string>& args);
int run_compile(const std::vector<std::string>& args);
int run_list(const std::vector<std::string>& args);
int run_import(const std::vector<std::string>& args);

}  // namespace scangen::cli
