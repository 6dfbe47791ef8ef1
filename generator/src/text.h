// The one way scangen writes text: a template under templates/ (embedded at
// build time, templates.h) whose named holes fill() fills. The emitted
// source (its frame and the kernels), the host wrappers and the OpenCL
// built-ins are all written this way; the C++ that calls fill() makes the
// decisions and gives the holes their values.
//
// A template's holes (templates/README.md, "Holes"):
//  - HOLE: an identifier (a whole word) that has a value is written as its
//    value; every other word stays as it is (the kernel templates' own SG_*
//    macros). A line that holds only a hole whose value is empty or ends
//    with a newline is replaced by the value (a block of lines); such a
//    block may be given as a function of the line it starts on (the
//    preamble's #line directives).
//  - SG_NAME(word): written prefix + word, where names(prefix) was given
//    (the scan's own names: SG_NAME(inclusive) is P_inclusive).
//  - SG_BEGIN(s) ... SG_END(s): a section, written once for each repetition
//    add(s) made (none: left out; a condition is a section of zero or one),
//    filled with that repetition's holes and, for the holes it does not
//    give, the enclosing ones. A marker alone on its line goes with its line.
//  - a line "// ---- title ----" is a banner: filled, then padded with '-' to
//    100 columns, as banner() writes one.
#pragma once

#include <bitset>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "scangen/dsl/hash.h"

namespace scangen::generator::detail {

class Holes {
 public:
  // The value of `hole` (an identifier).
  Holes& set(const std::string& hole, std::string value);
  // The value of `hole`, alone on its line, as a function of that line's
  // number in the output (from 1).
  Holes& set(const std::string& hole, std::function<std::string(long line)> value);
  // SG_NAME(word) becomes prefix + word.
  Holes& names(std::string prefix);
  // A new repetition of section `s`, filled with the holes given to it.
  Holes& add(const std::string& s);
  // Section `s` once (with these holes) where `on`, else not at all.
  Holes& when(const std::string& s, bool on);

 private:
  friend class Filler;
  std::map<std::string, std::string, std::less<>> values_;
  std::map<std::string, std::function<std::string(long)>, std::less<>> placed_;
  // The first characters of the names in values_ and placed_: most words of
  // a template are no hole, and this turns them away before a map lookup.
  std::bitset<256> value_heads_, placed_heads_;
  std::unique_ptr<std::string> name_prefix_;
  std::vector<std::pair<std::string, std::unique_ptr<Holes>>> sections_;
};

// `text` with its holes filled from `holes`.
std::string fill(std::string_view text, const Holes& holes);

// templates/<path>, filled.
std::string fill_template(const std::string& path, const Holes& holes);

// FNV-1a (scangen/dsl/hash.h): the hash of generated text (the host headers'
// include guards, the templates' hash).
using dsl::fnv1a;

// "// ---- title ", padded with '-' to 100 columns, and a newline.
std::string banner(const std::string& title);

}  // namespace scangen::generator::detail
