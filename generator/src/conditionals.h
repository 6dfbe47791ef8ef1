// The templates' `#if` on the plan's own constants, decided when the text is
// emitted: a conditional whose every condition reads only macros whose
// values the emitter knows (the plan's `SG_*` constants, and what the text
// before it defines from them) keeps the lines of its taken branch alone and
// loses its directives; one that reads anything else (`__CUDA_ARCH__`,
// `__OPENCL_VERSION__`, a macro defined under such a condition) stays for
// the device compiler, its branches decided inside the same way. The
// emitted source then holds the code its plan runs.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace scangen::generator::detail {

class Conditionals {
 public:
  // The macros of `text` (the dialect, the prologue) as the emitted source
  // defines them before the templates; the text itself is not changed.
  void read(std::string_view text);
  // The part's constants, #defined before its templates and #undefined after.
  void define(const std::vector<std::pair<std::string, std::string>>& constants);
  void undefine(const std::vector<std::pair<std::string, std::string>>& constants);
  // `text` with every conditional the known macros decide resolved; the
  // macros it defines and undefines recorded for the text after it.
  std::string resolve(std::string_view text);

 private:
  struct Macro {
    bool known = false;          // its state at this point of the text is known
    bool defined = false;        // (known) defined, with `value`
    bool function_like = false;  // (defined) takes arguments: no value for #if, only defined()
    std::string value;
  };
  friend class ConditionalsPass;
  // A name the text has not mentioned: known undefined when it is an SG_
  // macro (the generator's own names), else unknown (the compiler's, -D options).
  Macro state(const std::string& name) const;
  std::map<std::string, Macro, std::less<>> macros_;
};

}  // namespace scangen::generator::detail
