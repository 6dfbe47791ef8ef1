#include "text.h"

#include <algorithm>
#include <cctype>
#include <stdexcept>

#include "templates.h"

namespace scangen::generator::detail {

const std::string& template_text(const std::string& path) {
  static const std::map<std::string, std::string, std::less<>> texts = [] {
    std::map<std::string, std::string, std::less<>> m;
    for (const EmbeddedTemplate& t : embedded_templates()) m.emplace(t.path, t.text);
    return m;
  }();
  auto it = texts.find(path);
  if (it == texts.end())
    throw std::logic_error("scangen: no embedded template '" + path + "' (the build lists the templates)");
  return it->second;
}

Holes& Holes::set(const std::string& hole, std::string value) {
  if (!hole.empty()) value_heads_.set(static_cast<unsigned char>(hole[0]));
  values_[hole] = std::move(value);
  return *this;
}

Holes& Holes::set(const std::string& hole, std::function<std::string(long line)> value) {
  if (!hole.empty()) placed_heads_.set(static_cast<unsigned char>(hole[0]));
  placed_[hole] = std::move(value);
  return *this;
}

Holes& Holes::names(std::string prefix) {
  name_prefix_ = std::make_unique<std::string>(std::move(prefix));
  return *this;
}

Holes& Holes::add(const std::string& s) {
  sections_.emplace_back(s, std::make_unique<Holes>());
  return *sections_.back().second;
}

Holes& Holes::when(const std::string& s, bool on) {
  if (on)
    add(s);
  else
    sections_.emplace_back(s, nullptr);  // none here, whatever an enclosing repetition says
  return *this;
}

std::string banner(const std::string& title) {
  std::string line = "// ---- " + title + " ";
  if (line.size() < 100) line += std::string(100 - line.size(), '-');
  return line + "\n";
}

namespace {

// ASCII letters, digits and '_' (not std::isalnum: no locale, and it is the
// generator's innermost loop).
bool is_word(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'; }
bool is_blank(char c) { return c == ' ' || c == '\t'; }
bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
bool ends_with(std::string_view s, std::string_view p) {
  return s.size() >= p.size() && s.substr(s.size() - p.size()) == p;
}

constexpr std::string_view kBegin = "SG_BEGIN(", kEnd = "SG_END(", kName = "SG_NAME";

}  // namespace

// One fill: the holes in scope are the innermost repetition's, then those
// around it.
class Filler {
 public:
  Filler(const Holes& holes, const Filler* up) : holes_(holes), up_(up) {}

  void text(std::string_view t, std::string& out) const {
    size_t at = 0;
    for (size_t b; (b = t.find(kBegin, at)) != std::string_view::npos;) {
      const size_t close = t.find(')', b);
      if (close == std::string_view::npos) throw std::logic_error("scangen: a template's SG_BEGIN( has no ')'");
      const std::string name(t.substr(b + kBegin.size(), close - b - kBegin.size()));
      const std::string end_marker = std::string(kEnd) + name + ")";
      const size_t e = t.find(end_marker, close);
      if (e == std::string_view::npos ||
          t.substr(close, e - close).find(std::string(kBegin) + name + ")") != std::string_view::npos)
        throw std::logic_error("scangen: template section '" + name + "' has no SG_END or is nested in itself");
      size_t before = b, body = close + 1, body_end = e, after = e + end_marker.size();
      if (alone(t, at, b, body)) before = line_start(t, b), body = next_line(t, body);
      if (alone(t, body, e, after)) body_end = line_start(t, e), after = next_line(t, after);
      lines(t.substr(at, before - at), out);
      for (const auto& [s, inner] : section(name))
        if (s == name && inner) Filler(*inner, this).text(t.substr(body, body_end - body), out);
      at = after;
    }
    lines(t.substr(at), out);
  }

 private:
  const Holes& holes_;
  const Filler* up_;

  // The value of `hole` in `map` of the innermost holes that give one.
  template <typename Map>
  const typename Map::mapped_type* find(Map Holes::*map, std::bitset<256> Holes::*heads, std::string_view hole) const {
    if (hole.empty()) return nullptr;  // no hole has an empty name (set() never indexes one)
    const auto head = static_cast<unsigned char>(hole[0]);
    for (const Filler* f = this; f; f = f->up_) {
      if (!(f->holes_.*heads).test(head)) continue;
      auto it = (f->holes_.*map).find(hole);
      if (it != (f->holes_.*map).end()) return &it->second;
    }
    return nullptr;
  }
  const std::string* value(std::string_view hole) const { return find(&Holes::values_, &Holes::value_heads_, hole); }
  // The repetitions of section `name`: those of the innermost holes that
  // mention it.
  const std::vector<std::pair<std::string, std::unique_ptr<Holes>>>& section(const std::string& name) const {
    for (const Filler* f = this; f; f = f->up_)
      for (const auto& entry : f->holes_.sections_)
        if (entry.first == name) return f->holes_.sections_;
    return holes_.sections_;
  }
  const std::string* name_prefix() const {
    for (const Filler* f = this; f; f = f->up_)
      if (f->holes_.name_prefix_) return f->holes_.name_prefix_.get();
    return nullptr;
  }

  static size_t line_start(std::string_view t, size_t i) {
    const size_t nl = i == 0 ? std::string_view::npos : t.rfind('\n', i - 1);
    return nl == std::string_view::npos ? 0 : nl + 1;
  }
  static size_t next_line(std::string_view t, size_t i) { return i < t.size() ? i + 1 : i; }
  // Whether t[from, to) is alone on its line, which starts at or after `floor`.
  static bool alone(std::string_view t, size_t floor, size_t from, size_t to) {
    const size_t ls = line_start(t, from);
    if (ls < floor || (to < t.size() && t[to] != '\n')) return false;
    for (size_t i = ls; i < from; ++i)
      if (!is_blank(t[i])) return false;
    return true;
  }

  void lines(std::string_view t, std::string& out) const {
    for (size_t at = 0; at < t.size();) {
      const size_t nl = t.find('\n', at);
      const size_t end = nl == std::string_view::npos ? t.size() : nl + 1;
      line(t.substr(at, end - at), out);
      at = end;
    }
  }

  void line(std::string_view l, std::string& out) const {
    const bool newline = ends_with(l, "\n");
    const std::string_view content = newline ? l.substr(0, l.size() - 1) : l;
    if (const auto* placed = find(&Holes::placed_, &Holes::placed_heads_, content)) {
      out += (*placed)(static_cast<long>(std::count(out.begin(), out.end(), '\n')) + 1);
      return;
    }
    if (const std::string* v = value(content); v && (v->empty() || v->back() == '\n')) {
      out += *v;  // a block of lines
      return;
    }
    if (content.size() < 13 || !starts_with(content, "// ---- ") || !ends_with(content, " ----")) {
      words(l, out);
      return;
    }
    std::string title;  // between "// ---- " and " ----"
    words(content.substr(8, content.size() - 13), title);
    const std::string b = banner(title);
    out += newline ? b : b.substr(0, b.size() - 1);
  }

  void words(std::string_view t, std::string& out) const {
    size_t i = 0;
    while (i < t.size()) {
      if (!is_word(t[i]) || (i > 0 && is_word(t[i - 1]))) {
        size_t end = i + 1;  // a run of characters outside identifiers, copied at once
        while (end < t.size() && !is_word(t[end])) ++end;
        out.append(t.substr(i, end - i));
        i = end;
        continue;
      }
      size_t end = i;
      while (end < t.size() && is_word(t[end])) ++end;
      const std::string_view id = t.substr(i, end - i);
      if (id == kName && end < t.size() && t[end] == '(') {
        size_t close = end + 1;
        while (close < t.size() && is_word(t[close])) ++close;
        const std::string* prefix = name_prefix();
        if (prefix && close < t.size() && t[close] == ')' && close > end + 1) {
          out += *prefix;
          out += t.substr(end + 1, close - end - 1);
          i = close + 1;
          continue;
        }
      }
      const std::string* v = value(id);
      out += v ? std::string_view(*v) : id;
      i = end;
    }
  }
};

std::string fill(std::string_view text, const Holes& holes) {
  std::string out;
  out.reserve(text.size() + text.size() / 4);
  Filler(holes, nullptr).text(text, out);
  return out;
}

std::string fill_template(const std::string& path, const Holes& holes) { return fill(template_text(path), holes); }

}  // namespace scangen::generator::detail
