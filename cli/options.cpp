// The one command-line parser of `scangen`: each verb declares its options as
// a CommandLine (cli.h), and this reads the words in order.
#include <cerrno>
#include <cstdlib>
#include <iostream>

#include "cli.h"
#include "scangen/generator/tuning.h"

namespace scangen::cli {

namespace {

// Applies `option` if `args[i]` spells it, taking its value from the word or
// the next one (advancing `i`); false when the word is not this option.
bool apply_option(const Option& option, const std::vector<std::string>& args, size_t& i) {
  const std::string& word = args[i];
  for (const std::string& name : option.names) {
    if (word == name && option.takes != Takes::EqualsOnly) {
      if (option.takes == Takes::Nothing) {
        option.apply("");
        return true;
      }
      if (i + 1 >= args.size()) throw UserError{option.missing.empty() ? word + " needs a value" : option.missing};
      option.apply(args[++i]);
      return true;
    }
    const bool equals = option.takes == Takes::NextOrEquals || option.takes == Takes::EqualsOnly;
    if (equals && word.rfind(name + "=", 0) == 0) {
      option.apply(word.substr(name.size() + 1));
      return true;
    }
  }
  return false;
}

}  // namespace

bool parse_command_line(const CommandLine& line, const std::vector<std::string>& args) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& word = args[i];
    if (word == "--help" || word == "-h") {
      std::cout << line.usage;
      return false;
    }
    bool matched = false;
    for (const Option& option : line.options) {
      matched = apply_option(option, args, i);
      if (matched) break;
    }
    if (matched) continue;
    if (word.size() > 1 && word[0] == '-')
      throw UserError{"unknown option '" + word + "' for " + line.verb + "\n" + line.usage};
    line.operand(word);
  }
  return true;
}

uint64_t parse_number(const std::string& flag, const std::string& text) {
  char* end = nullptr;
  errno = 0;
  unsigned long long v = std::strtoull(text.c_str(), &end, 0);
  if (!text.empty() && *end == '\0' && errno == ERANGE && text[0] != '-')
    throw UserError{flag + " takes a number up to " + std::to_string(UINT64_MAX) + ", not '" + text + "'"};
  if (text.empty() || *end != '\0' || errno != 0 || text[0] == '-')
    throw UserError{flag + " expects a non-negative whole number, not '" + text + "'"};
  return v;
}

generator::Backend parse_backend(const std::string& name) {
  auto b = generator::backend_from_name(name);
  if (!b) throw UserError{"unknown target '" + name + "' (targets: cuda, opencl)"};
  return *b;
}

int parse_arch(const std::string& arch) {
  const int n = generator::cuda_arch_number(arch);
  if (n == 0)
    throw UserError{"--arch takes sm_XX (a cubin) or compute_XX (PTX), such as sm_90 or compute_90, not '" + arch +
                    "'"};
  return n;
}

std::string parse_device(const std::string& name) {
  if (name.empty() || name.find_first_not_of(' ') == std::string::npos)
    throw UserError{"--device takes the device's name as the CUDA driver gives it, such as 'NVIDIA H200'"};
  return name;
}

std::string parse_tuning_knobs(const std::string& knobs) {
  try {
    (void)generator::parse_tuning(knobs, generator::DeviceTuning{});
  } catch (const std::invalid_argument& e) {
    throw UserError{std::string("--") + e.what()};  // "--tuning: unknown knob ..."
  }
  return knobs;
}

void check_device(const std::string& device, int arch) {
  if (!device.empty() && arch == 0)
    throw UserError{"--device needs --arch: the tuning table's rows for a device are rows of its architecture"};
}

}  // namespace scangen::cli
