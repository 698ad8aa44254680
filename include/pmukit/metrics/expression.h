// pmukit -- metric expressions: parsed once into a tree, evaluated many times against variables.
//
// Grammar (the arithmetic the vendor guides write their formulas in):
//   expr    := term (('+' | '-') term)*
//   term    := unary (('*' | '/') unary)*
//   unary   := ('-' | '+') unary | primary
//   primary := number | name | name '(' expr (',' expr)* ')' | '(' expr ')'
//   number  := 12 | 1.5 | .5 | 1e9 | 6.1e-5 | 0x1f
//   name    := [A-Za-z_][A-Za-z0-9_]*      -- an event variable, a parameter or DURATION_TIME
//            | '#' [A-Za-z_][A-Za-z0-9_]*  -- a value of the machine, as perf writes it: #num_packages
// Functions: min(a, b) and max(a, b); perf's source_count(NAME), the number of PMUs that counted
// the event variable NAME, is the variable "source_count(NAME)" (its value is the caller's).
// There is no power, comparison or conditional: no vendor guide needs
// one. Division by zero does not throw: the value is NaN and the evaluation says why.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace pmukit::metrics {

struct Evaluation {
  double value = std::numeric_limits<double>::quiet_NaN();
  bool valid = false;
  std::string problem;  // why the value is not valid, "" when it is: "division by zero: 'RD_REQ' is 0"
};

class Expression {
 public:
  // Throws UsageError("<owner>: expression '<text>': <reason> at column <n>"); columns count
  // from 1. `owner` names what the expression belongs to ("metric 'scf_frequency'"), or is empty.
  static Expression parse(std::string_view text, std::string_view owner = {});

  const std::string& text() const { return text_; }
  // The variables the expression reads, sorted, each once.
  const std::vector<std::string>& variables() const { return variables_; }
  bool uses(std::string_view variable) const;

  // values[i] is the value of variables()[i]; throws Error if the sizes differ.
  Evaluation evaluate(std::span<const double> values) const;
  // Throws Error("<owner>: expression '<text>': no value for variable '<name>'") for a missing one.
  Evaluation evaluate(const std::map<std::string, double>& values) const;

  // The tree printed with every operation in parentheses: "((a + (b * c)) / 2)". For tests and
  // for showing how an expression was understood.
  std::string canonical() const;

 private:
  enum class Op : std::uint8_t { Number, Variable, Add, Sub, Mul, Div, Neg, Min, Max };
  struct Node {
    Op op = Op::Number;
    double number = 0;                 // Op::Number
    int variable = -1;                 // Op::Variable: index into variables_
    int lhs = -1, rhs = -1;            // operands (Neg uses lhs only)
    std::uint32_t begin = 0, end = 0;  // the node's source text, for messages
  };
  struct Context;
  class Parser;

  Expression() = default;  // only parse() makes one

  double eval(int node, Context& ctx) const;
  std::string print(int node) const;
  std::string where() const;

  std::string text_;
  std::string owner_;
  std::vector<Node> nodes_;
  std::vector<std::string> variables_;
  int root_ = -1;
};

}  // namespace pmukit::metrics
