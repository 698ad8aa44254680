// pmukit -- metric expressions: a tokenizer, a recursive-descent parser and a tree evaluator.
#include "pmukit/metrics/expression.h"

#include <algorithm>
#include <charconv>
#include <cmath>

#include <fmt/format.h>

#include "pmukit/util/error.h"
#include "pmukit/util/text.h"

namespace pmukit::metrics {

namespace {

// Deep enough for any formula a person writes; shallow enough that "((((...))))" from a broken file
// cannot exhaust the stack of the recursive parser and evaluator.
constexpr int kMaxDepth = 200;
// The evaluator recurses along left-deep chains too ("a+a+a+..."), which only length bounds.
constexpr std::size_t kMaxLength = 10000;

bool is_name_start(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}
bool is_digit(char c) {
  return c >= '0' && c <= '9';
}
bool is_name_char(char c) {
  return is_name_start(c) || is_digit(c);
}

struct Token {
  enum class Kind { Number, Name, Punct, End };
  Kind kind = Kind::End;
  std::string_view text;
  std::size_t pos = 0;  // byte offset in the expression
  double number = 0;
};

}  // namespace

struct Expression::Context {
  std::span<const double> values;
  std::string problem;  // the first division by zero
};

// Builds the node table of one Expression; every error becomes a UsageError naming the column.
class Expression::Parser {
 public:
  explicit Parser(Expression& e) : e_(e), s_(e.text_) {}

  void run() {
    if (s_.size() > kMaxLength)
      throw UsageError(fmt::format("{}{}expression of {} characters is longer than {}", e_.owner_,
                                   e_.owner_.empty() ? "" : ": ", s_.size(), kMaxLength));
    advance();
    if (tok_.kind == Token::Kind::End) throw UsageError(fmt::format("{}: empty", e_.where()));
    e_.root_ = expr(0);
    if (tok_.kind != Token::Kind::End) unexpected();
    // Variables were numbered in order of appearance; renumber them in sorted order.
    std::vector<std::string> sorted = names_;
    std::sort(sorted.begin(), sorted.end());
    std::vector<int> remap(names_.size());
    for (std::size_t i = 0; i < names_.size(); ++i)
      remap[i] = static_cast<int>(std::lower_bound(sorted.begin(), sorted.end(), names_[i]) - sorted.begin());
    for (Node& n : e_.nodes_)
      if (n.op == Op::Variable) n.variable = remap[static_cast<std::size_t>(n.variable)];
    e_.variables_ = std::move(sorted);
  }

 private:
  [[noreturn]] void fail(std::size_t pos, std::string_view reason) const {
    throw UsageError(fmt::format("{}: {} at column {}", e_.where(), reason, pos + 1));
  }
  [[noreturn]] void unexpected() const {
    if (tok_.kind == Token::Kind::End) fail(tok_.pos, "unexpected end of expression");
    fail(tok_.pos, fmt::format("unexpected '{}'", tok_.text));
  }

  void advance() {
    std::size_t i = pos_;
    while (i < s_.size() && (s_[i] == ' ' || s_[i] == '\t' || s_[i] == '\n' || s_[i] == '\r')) ++i;
    tok_ = Token{};
    tok_.pos = i;
    if (i == s_.size()) {
      pos_ = i;
      return;
    }
    char c = s_[i];
    if (is_digit(c) || (c == '.' && i + 1 < s_.size() && is_digit(s_[i + 1]))) {
      lex_number(i);
    } else if (is_name_start(c) || (c == '#' && i + 1 < s_.size() && is_name_start(s_[i + 1]))) {
      std::size_t j = i + 1;  // perf's "#num_packages": a name the evaluation supplies
      while (j < s_.size() && is_name_char(s_[j])) ++j;
      tok_.kind = Token::Kind::Name;
      tok_.text = s_.substr(i, j - i);
    } else if (c == '+' || c == '-' || c == '*' || c == '/' || c == '(' || c == ')' || c == ',') {
      tok_.kind = Token::Kind::Punct;
      tok_.text = s_.substr(i, 1);
    } else {
      fail(i, fmt::format("unexpected character '{}'", c));
    }
    pos_ = i + tok_.text.size();
  }

  void lex_number(std::size_t i) {
    std::size_t j = i;
    bool ok = true;
    if (s_[i] == '0' && i + 1 < s_.size() && (s_[i + 1] == 'x' || s_[i + 1] == 'X')) {
      j = i + 2;
      std::uint64_t v = 0;
      auto [end, ec] = std::from_chars(s_.data() + j, s_.data() + s_.size(), v, 16);
      ok = ec == std::errc() && end != s_.data() + j;
      j = static_cast<std::size_t>(end - s_.data());
      tok_.number = static_cast<double>(v);
    } else {
      while (j < s_.size() && is_digit(s_[j])) ++j;
      if (j < s_.size() && s_[j] == '.')
        for (++j; j < s_.size() && is_digit(s_[j]);) ++j;
      if (j < s_.size() && (s_[j] == 'e' || s_[j] == 'E')) {
        std::size_t k = j + 1;
        if (k < s_.size() && (s_[k] == '+' || s_[k] == '-')) ++k;
        if (k < s_.size() && is_digit(s_[k])) {
          while (k < s_.size() && is_digit(s_[k])) ++k;
          j = k;
        }
      }
      auto [end, ec] = parse_double(s_.data() + i, s_.data() + j, tok_.number);
      ok = ec == std::errc() && end == s_.data() + j;
    }
    // "2x", "1e", "1.2.3", "0x": letters or dots glued to a number make the whole run one bad
    // token.
    if (j < s_.size() && (is_name_char(s_[j]) || s_[j] == '.')) {
      while (j < s_.size() && (is_name_char(s_[j]) || s_[j] == '.')) ++j;
      ok = false;
    }
    if (!ok) fail(i, fmt::format("malformed number '{}'", s_.substr(i, j - i)));
    tok_.kind = Token::Kind::Number;
    tok_.text = s_.substr(i, j - i);
  }

  bool at(char c) const { return tok_.kind == Token::Kind::Punct && tok_.text[0] == c; }

  int add(Node n) {
    e_.nodes_.push_back(n);
    return static_cast<int>(e_.nodes_.size() - 1);
  }
  int binary(Op op, int lhs, int rhs) {
    Node n;
    n.op = op;
    n.lhs = lhs;
    n.rhs = rhs;
    n.begin = e_.nodes_[static_cast<std::size_t>(lhs)].begin;
    n.end = e_.nodes_[static_cast<std::size_t>(rhs)].end;
    return add(n);
  }

  int expr(int depth) {
    if (depth > kMaxDepth) fail(tok_.pos, "expression nested too deeply");
    int lhs = term(depth);
    while (at('+') || at('-')) {
      Op op = at('+') ? Op::Add : Op::Sub;
      advance();
      lhs = binary(op, lhs, term(depth));
    }
    return lhs;
  }

  int term(int depth) {
    int lhs = unary(depth);
    while (at('*') || at('/')) {
      Op op = at('*') ? Op::Mul : Op::Div;
      advance();
      lhs = binary(op, lhs, unary(depth));
    }
    return lhs;
  }

  int unary(int depth) {
    if (depth > kMaxDepth) fail(tok_.pos, "expression nested too deeply");
    if (at('+')) {
      advance();
      return unary(depth + 1);
    }
    if (at('-')) {
      auto begin = static_cast<std::uint32_t>(tok_.pos);
      advance();
      Node n;
      n.op = Op::Neg;
      n.lhs = unary(depth + 1);
      n.begin = begin;
      n.end = e_.nodes_[static_cast<std::size_t>(n.lhs)].end;
      return add(n);
    }
    return primary(depth);
  }

  int primary(int depth) {
    Token t = tok_;
    Node n;
    n.begin = static_cast<std::uint32_t>(t.pos);
    n.end = static_cast<std::uint32_t>(t.pos + t.text.size());
    if (t.kind == Token::Kind::Number) {
      advance();
      n.op = Op::Number;
      n.number = t.number;
      return add(n);
    }
    if (t.kind == Token::Kind::Name) {
      advance();
      if (at('(') && t.text[0] != '#') return call(t, depth);
      return variable(t.text, n);
    }
    if (at('(')) {
      std::size_t open = t.pos;
      advance();
      int inner = expr(depth + 1);
      if (tok_.kind == Token::Kind::End) fail(open, "missing ')' for this '('");
      if (!at(')')) unexpected();
      advance();
      return inner;
    }
    unexpected();
  }

  int variable(std::string_view name, Node n) {
    n.op = Op::Variable;
    auto it = std::find(names_.begin(), names_.end(), name);
    n.variable = static_cast<int>(it - names_.begin());
    if (it == names_.end()) names_.emplace_back(name);
    return add(n);
  }

  // perf's source_count(EVENT): how many PMUs counted the event, a variable named
  // "source_count(EVENT)" that the evaluation supplies.
  int source_count(const Token& name) {
    std::size_t open = tok_.pos;
    advance();  // '('
    Token arg = tok_;
    if (arg.kind != Token::Kind::Name || arg.text[0] == '#') fail(arg.pos, "source_count() takes an event variable");
    advance();
    if (tok_.kind == Token::Kind::End) fail(open, "missing ')' for this '('");
    if (!at(')')) unexpected();
    Node n;
    n.begin = static_cast<std::uint32_t>(name.pos);
    n.end = static_cast<std::uint32_t>(tok_.pos + 1);
    advance();  // ')'
    return variable(fmt::format("source_count({})", arg.text), n);
  }

  int call(const Token& name, int depth) {
    if (name.text == "source_count") return source_count(name);
    Op op = Op::Min;
    if (name.text == "min")
      op = Op::Min;
    else if (name.text == "max")
      op = Op::Max;
    else
      fail(name.pos, fmt::format("unknown function '{}'", name.text));
    std::size_t open = tok_.pos;
    advance();  // '('
    std::vector<int> args{expr(depth + 1)};
    while (at(',')) {
      advance();
      args.push_back(expr(depth + 1));
    }
    if (tok_.kind == Token::Kind::End) fail(open, "missing ')' for this '('");
    if (!at(')')) unexpected();
    if (args.size() != 2) fail(name.pos, fmt::format("{}() takes 2 arguments, not {},", name.text, args.size()));
    Node n;
    n.op = op;
    n.lhs = args[0];
    n.rhs = args[1];
    n.begin = static_cast<std::uint32_t>(name.pos);
    n.end = static_cast<std::uint32_t>(tok_.pos + 1);
    advance();  // ')'
    return add(n);
  }

  Expression& e_;
  std::string_view s_;
  std::size_t pos_ = 0;
  Token tok_;
  std::vector<std::string> names_;  // in order of first appearance while parsing
};

Expression Expression::parse(std::string_view text, std::string_view owner) {
  Expression e;
  e.text_ = std::string(text);
  e.owner_ = std::string(owner);
  Parser(e).run();
  return e;
}

bool Expression::uses(std::string_view variable) const {
  return std::binary_search(variables_.begin(), variables_.end(), variable);
}

std::string Expression::where() const {
  if (owner_.empty()) return fmt::format("expression '{}'", text_);
  return fmt::format("{}: expression '{}'", owner_, text_);
}

double Expression::eval(int index, Context& ctx) const {
  const Node& n = nodes_[static_cast<std::size_t>(index)];
  switch (n.op) {
  case Op::Number:
    return n.number;
  case Op::Variable:
    return ctx.values[static_cast<std::size_t>(n.variable)];
  case Op::Neg:
    return -eval(n.lhs, ctx);
  case Op::Add:
    return eval(n.lhs, ctx) + eval(n.rhs, ctx);
  case Op::Sub:
    return eval(n.lhs, ctx) - eval(n.rhs, ctx);
  case Op::Mul:
    return eval(n.lhs, ctx) * eval(n.rhs, ctx);
  case Op::Min:
    return std::min(eval(n.lhs, ctx), eval(n.rhs, ctx));
  case Op::Max:
    return std::max(eval(n.lhs, ctx), eval(n.rhs, ctx));
  case Op::Div: {
    double num = eval(n.lhs, ctx);
    double den = eval(n.rhs, ctx);
    if (den != 0) return num / den;
    if (ctx.problem.empty()) {
      const Node& d = nodes_[static_cast<std::size_t>(n.rhs)];
      ctx.problem =
          fmt::format("division by zero: '{}' is 0", std::string_view(text_).substr(d.begin, d.end - d.begin));
    }
    return std::numeric_limits<double>::quiet_NaN();
  }
  }
  return std::numeric_limits<double>::quiet_NaN();
}

Evaluation Expression::evaluate(std::span<const double> values) const {
  if (values.size() != variables_.size())
    throw Error(fmt::format("{}: {} values given for {} variables", where(), values.size(), variables_.size()));
  Context ctx{values, {}};
  Evaluation r;
  r.value = eval(root_, ctx);
  r.problem = std::move(ctx.problem);
  if (r.problem.empty() && !std::isfinite(r.value)) r.problem = "the result is not a finite number";
  r.valid = r.problem.empty();
  return r;
}

Evaluation Expression::evaluate(const std::map<std::string, double>& values) const {
  std::vector<double> v;
  v.reserve(variables_.size());
  for (const auto& name : variables_) {
    auto it = values.find(name);
    if (it == values.end()) throw Error(fmt::format("{}: no value for variable '{}'", where(), name));
    v.push_back(it->second);
  }
  return evaluate(std::span<const double>(v));
}

std::string Expression::print(int index) const {
  const Node& n = nodes_[static_cast<std::size_t>(index)];
  switch (n.op) {
  case Op::Number:
    return fmt::format("{}", n.number);
  case Op::Variable:
    return variables_[static_cast<std::size_t>(n.variable)];
  case Op::Neg:
    return fmt::format("(-{})", print(n.lhs));
  case Op::Add:
    return fmt::format("({} + {})", print(n.lhs), print(n.rhs));
  case Op::Sub:
    return fmt::format("({} - {})", print(n.lhs), print(n.rhs));
  case Op::Mul:
    return fmt::format("({} * {})", print(n.lhs), print(n.rhs));
  case Op::Div:
    return fmt::format("({} / {})", print(n.lhs), print(n.rhs));
  case Op::Min:
    return fmt::format("min({}, {})", print(n.lhs), print(n.rhs));
  case Op::Max:
    return fmt::format("max({}, {})", print(n.lhs), print(n.rhs));
  }
  return {};
}

std::string Expression::canonical() const {
  return print(root_);
}

}  // namespace pmukit::metrics
