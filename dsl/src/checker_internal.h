// The checker's parts, shared by its files:
//   checker.cpp              the entry point, scan names, suggestions ("did you mean")
//   checker_types.cpp        type names and struct declarations
//   checker_literals.cpp     integer and float literals, untyped constants
//   checker_expressions.cpp  names, fields, operators, calls, struct values
//   checker_functions.cpp    function bodies and constants: combine, convert,
//                            identity, init, the built-in operators
//   checker_settings.cpp     a scan's settings: level, algorithm, threads,
//                            mode, outputs, targets, ...
//   checker_shape.cpp        shape = rows / strided and what it combines with
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "scangen/dsl/checker.h"

namespace scangen::dsl::checking {

// 128-bit integers hold every literal of every integer type, with its sign.
__extension__ using i128 = __int128;
__extension__ using u128 = unsigned __int128;

constexpr int kMaxThreads = 1024;
constexpr int kMaxItems = 128;
constexpr int kMaxWarp = 1024;          // warp(W): W up to a block; W > 32 spans warps
constexpr size_t kMaxInputArrays = 8;   // input = T1, T2, ...;
constexpr size_t kMaxTypeNesting = 64;  // structs inside structs; bounds recursion

// ---- helpers (checker.cpp) --------------------------------------------------

// "; did you mean 'x'?" when one candidate is close, else "".
std::string suggest(std::string_view name, const std::vector<std::string>& candidates);
std::string join(const std::vector<std::string>& v, const char* sep = ", ");
// The scalar type names a value may have (every one but bool).
std::vector<std::string> scalar_type_names();

// ---- literal values (checker_literals.cpp) ---------------------------------

inline bool is_power_of_two(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }
// The range of an integer kind as (min, max) in 128-bit arithmetic.
void integer_range(ScalarKind k, i128& lo, i128& hi);
std::string int128_to_string(i128 v);
ExprPtr make_literal(const Type& t, Literal lit, SourceLoc loc);
Literal integer_literal(i128 v);
Literal float_literal(double v);
// The identity of a built-in operator on a scalar kind (OpenCL C's table).
Literal builtin_identity(BuiltinOp op, ScalarKind k);

// A parameter or a `let` in scope.
struct Binding {
  std::string name;
  Type type;
  ExprKind kind;  // Param or Local
  int index;
  SourceLoc loc;
};

// A scan's settings by key (each key once; checker_settings.cpp).
using Items = std::map<std::string, const ast::Item*>;

class Checker {
 public:
  explicit Checker(Diagnostics& diags) : diags_(diags) {}
  std::vector<Spec> run(const ast::File& file);

 private:
  void error(SourceLoc loc, std::string msg) { diags_.error(loc, std::move(msg)); }
  void note(SourceLoc loc, std::string msg) { diags_.note(loc, std::move(msg)); }

  // ---- types (checker_types.cpp) ----
  void declare_types(const ast::File& file);
  Type resolve_struct(const std::string& name, SourceLoc use_loc);
  std::shared_ptr<StructType> resolve_fields(const ast::TypeDecl& decl);
  bool check_nesting(const ast::TypeDecl& decl, const StructType& st);
  std::vector<std::string> known_type_names() const;
  Type resolve_type_name(const ast::TypeName& tn, bool allow_bool);
  Type resolve_type_value(const ast::Expr& e, const char* setting);

  // ---- literals (checker_literals.cpp) ----
  static bool is_untyped_literal(const ast::Expr& e);
  bool is_untyped_constant_name(const ast::Expr& e) const;
  bool is_untyped(const ast::Expr& e) const;
  static bool contains_float_literal(const ast::Expr& e);
  bool parse_integer(const ast::Expr& e, u128& out);
  ExprPtr literal(const ast::Expr& outer, bool negate, const Type* hint);
  ExprPtr float_value(const ast::Expr& e, bool negate, ScalarKind k, SourceLoc at, const std::string& shown);

  // ---- expressions (checker_expressions.cpp) ----
  static ExprPtr make(ExprKind kind, const Type& t, SourceLoc loc, std::vector<ExprPtr> args = {});
  const Binding* lookup(const std::string& name) const;
  ExprPtr expr(const ast::Expr& e, const Type* hint);
  ExprPtr name(const ast::Expr& e, const Type* hint);
  ExprPtr member(const ast::Expr& e);
  ExprPtr unary(const ast::Expr& e, const Type* hint);
  std::vector<ExprPtr> unify(const std::vector<const ast::Expr*>& operands, const Type* hint);
  ExprPtr binary(const ast::Expr& e, const Type* hint);
  ExprPtr ternary(const ast::Expr& e, const Type* hint);
  ExprPtr call(const ast::Expr& e, const Type* hint);
  ExprPtr conversion(const ast::Expr& e, ScalarKind k);
  std::vector<ExprPtr> select_arguments(const ast::Expr& e, const Type* hint);
  std::vector<ExprPtr> math_arguments(const ast::Expr& e, MathFn fn, const Type* hint);
  ExprPtr construct(const ast::Expr& e);
  bool field_sources(const ast::Expr& e, const StructType& st, std::vector<const ast::Expr*>& sources);

  // ---- functions and constants (checker_functions.cpp) ----
  std::optional<Function> function(const ast::Item& item, const std::vector<Type>& param_types, const Type& result,
                                   const std::string& what);
  ExprPtr constant(const ast::Item& item, const Type& t, const char* what);
  static std::optional<Function> implicit_convert(const Type& from, const Type& to, SourceLoc loc);
  void check_builtin_op(const ast::Item& item, const ast::Item* identity_item, Spec& spec, bool types_ok);
  static Function builtin_combine(BuiltinOp op, const Type& t, SourceLoc loc);
  void check_combine(const ast::Item& item, const ast::Item* identity_item, Spec& spec);

  // ---- settings (checker_settings.cpp) ----
  static constexpr int kAuto = -1;
  const ast::Expr* single_value(const ast::Item& item);
  std::optional<int> int_setting(const ast::Item& item, bool allow_auto);
  const ast::Expr* name_value(const ast::Expr* v, const std::string& key, const std::vector<std::string>& choices);
  std::optional<bool> bool_setting(const ast::Item& item);
  Items collect_items(const ast::ScanDecl& scan);
  Spec check_scan(const ast::ScanDecl& scan);
  void check_types(const ast::ScanDecl& scan, const Items& items, Spec& spec);
  void check_operator(const ast::ScanDecl& scan, const Items& items, Spec& spec);
  void check_convert(const Items& items, Spec& spec);
  void check_level(const Items& items, Spec& spec);
  void check_algorithm(const Items& items, Spec& spec);
  void check_threads(const Items& items, Spec& spec);
  void check_items(const Items& items, Spec& spec);
  void check_mode(const Items& items, Spec& spec);
  void check_outputs(const Items& items, Spec& spec);
  void check_init(const Items& items, Spec& spec);
  void check_init_applies_to(const Items& items, Spec& spec);
  void check_targets(const ast::ScanDecl& scan, const Items& items, Spec& spec);
  void check_flags(const Items& items, Spec& spec);
  void check_reverse(const Items& items, Spec& spec);

  // ---- segmented scans (checker_segments.cpp) ----
  std::optional<ScalarKind> segment_type_setting(const ast::Item& item, bool (*allowed)(ScalarKind),
                                                 const std::string& choices);
  void check_segments_fit(const ast::Item& item, const Items& items, const Spec& spec);
  void check_segments(const Items& items, Spec& spec);
  void check_head_flags(const Items& items, Spec& spec);
  void check_key_equal(const ast::Item& item, Spec& spec, bool key_ok);
  void check_shape(const Items& items, Spec& spec);  // checker_shape.cpp

  // ---- fused inputs (checker_fused.cpp) ----
  static std::vector<Type> convert_parameter_types(const Spec& spec);
  void check_convert_index(const Items& items, const Spec& spec);
  static bool is_input_arrays(const ast::Item& input);
  void check_input_arrays(const ast::Item& input, Spec& spec);
  void check_arrays_convert(const ast::Item* input, const ast::Item* convert, Spec& spec);
  void check_input_arrays_fit(const Items& items, const Spec& spec);
  std::optional<Function> scatter_function(const ast::Item& item, const Spec& spec, const Type& result);
  void check_scatter_fits(const ast::Item& item, const Spec& spec);
  void check_scatter(const Items& items, Spec& spec);
  void check_named_scatter(const Items& items, Spec& spec);
  // prev(x) / next(x): the function being checked may read them when
  // neighbours_.base >= 0, as its parameters base and base + 1.
  struct NeighbourScope {
    int base = -1;
    bool used = false;
  };
  ExprPtr neighbour(const ast::Expr& e);
  std::optional<Function> function_with_neighbours(const ast::Item& item, const std::vector<Type>& all_types,
                                                   const Type& result, const std::string& what);
  void check_neighbours(const Function& f, const Spec& spec, const std::string& what);
  NeighbourScope neighbours_;

  Diagnostics& diags_;
  std::map<std::string, const ast::TypeDecl*> type_decls_;
  std::map<std::string, Type> structs_;
  std::map<std::string, int> nesting_;  // struct name -> depth of struct nesting (1 = flat)
  std::set<std::string> resolving_;
  std::set<std::string> failed_types_;
  std::vector<Binding> scope_;
  bool names_allowed_ = true;
  std::string context_;
};

}  // namespace scangen::dsl::checking
