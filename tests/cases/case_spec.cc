#include "tests/cases/case_spec.h"

#include <sstream>
#include <stdexcept>

namespace hvd::cases {
namespace {

std::vector<std::string> split(const std::string& text, const std::string& sep) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    const auto at = text.find(sep, start);
    parts.push_back(text.substr(start, at == std::string::npos ? std::string::npos : at - start));
    if (at == std::string::npos) return parts;
    start = at + sep.size();
  }
}

std::map<std::string, std::string> fields_of(const std::string& text, std::string* kind) {
  std::map<std::string, std::string> fields;
  std::istringstream words(text);
  std::string word;
  while (words >> word) {
    const auto eq = word.find('=');
    if (eq == std::string::npos) {
      if (!kind || !kind->empty()) throw std::invalid_argument("'" + word + "' is not key=value in '" + text + "'");
      *kind = word;
      continue;
    }
    fields[word.substr(0, eq)] = word.substr(eq + 1);
  }
  return fields;
}

std::int64_t to_integer(const std::string& text, const std::string& what) {
  std::size_t used = 0;
  const auto value = std::stoll(text, &used);
  if (used != text.size()) throw std::invalid_argument(what + ": '" + text + "' is not an integer");
  return value;
}

}  // namespace

const std::string& OpSpec::text(const std::string& key) const {
  const auto it = fields.find(key);
  if (it == fields.end()) throw std::invalid_argument(kind + " has no field '" + key + "'");
  return it->second;
}

std::string OpSpec::text_or(const std::string& key, const std::string& fallback) const {
  return has(key) ? text(key) : fallback;
}

std::int64_t OpSpec::integer(const std::string& key, std::int64_t fallback) const {
  return has(key) ? to_integer(text(key), kind + " " + key) : fallback;
}

double OpSpec::number(const std::string& key, double fallback) const { return has(key) ? std::stod(text(key)) : fallback; }

std::vector<std::int64_t> OpSpec::integers(const std::string& key) const {
  std::vector<std::int64_t> values;
  const std::string& t = text(key);
  if (t.empty() || t == "-") return values;
  for (const auto& part : split(t, ".")) values.push_back(to_integer(part, kind + " " + key));
  return values;
}

std::vector<std::int64_t> parse_shape(const std::string& text) {
  std::vector<std::int64_t> shape;
  if (text == "scalar" || text == "-" || text.empty()) return shape;
  for (const auto& part : split(text, "x")) shape.push_back(to_integer(part, "shape " + text));
  return shape;
}

std::vector<std::vector<std::int64_t>> parse_matrix(const std::string& text) {
  std::vector<std::vector<std::int64_t>> rows;
  for (const auto& row : split(text, "/")) {
    rows.emplace_back();
    for (const auto& part : split(row, ".")) rows.back().push_back(to_integer(part, "splits " + text));
  }
  return rows;
}

CaseSpec parse_case(const std::string& line) {
  const auto parts = split(line, " | ");
  if (parts.size() != 3) throw std::invalid_argument("a case is 'job | step | ops', not '" + line + "'");
  CaseSpec spec;
  spec.line = line;
  spec.job = fields_of(parts[0], nullptr);
  const auto step = fields_of(parts[1], nullptr);
  spec.shuffled = step.count("order") && step.at("order") == "shuffled";
  if (step.count("seed")) spec.seed = static_cast<std::uint64_t>(to_integer(step.at("seed"), "step seed"));
  for (const auto& text : split(parts[2], " ; ")) {
    OpSpec op;
    op.fields = fields_of(text, &op.kind);
    if (op.kind.empty()) throw std::invalid_argument("an op without a kind in '" + line + "'");
    spec.ops.push_back(std::move(op));
  }
  return spec;
}

}  // namespace hvd::cases
