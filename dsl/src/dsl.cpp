#include "scangen/dsl/dsl.h"

#include "imports.h"

namespace scangen::dsl {

const Spec* Document::find(std::string_view name) const {
  for (const Spec& s : specs_)
    if (s.name == name) return &s;
  return nullptr;
}

Document load(std::string name, std::string text) { return load(std::move(name), std::move(text), LoadOptions{}); }

Document load(std::string name, std::string text, const LoadOptions& options) {
  Document doc;
  doc.file_ = std::make_unique<SourceFile>(std::move(name), std::move(text));
  doc.diags_ = std::make_unique<Diagnostics>(*doc.file_);
  if (doc.file_->text().size() > kMaxSourceBytes) {
    doc.diags_->error(SourceLoc{1, 1}, "the file is " + std::to_string(doc.file_->text().size()) +
                                           " bytes; a scan file holds at most " + std::to_string(kMaxSourceBytes) +
                                           " (4 MiB): is it the right file?");
    return doc;
  }
  doc.ast_ = parse(*doc.file_, *doc.diags_);
  if (!doc.ast_.imports.empty()) doc.imported_files_ = resolve_imports(doc.ast_, *doc.file_, *doc.diags_, options);
  doc.specs_ = check(doc.ast_, *doc.diags_);
  return doc;
}

}  // namespace scangen::dsl
