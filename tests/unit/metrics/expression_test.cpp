// Expression: precedence, numbers, functions, division by zero, and errors that name the column.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "pmukit/metrics/expression.h"
#include "pmukit/util/error.h"

using pmukit::metrics::Expression;

namespace {

double eval(std::string_view text, const std::map<std::string, double>& vars = {}) {
  auto r = Expression::parse(text).evaluate(vars);
  EXPECT_TRUE(r.valid) << text << ": " << r.problem;
  return r.value;
}

std::string parse_error(std::string_view text, std::string_view owner = {}) {
  try {
    Expression::parse(text, owner);
  } catch (const pmukit::UsageError& e) {
    return e.what();
  }
  return "(parsed without error)";
}

}  // namespace

TEST(Expression, MultiplicationBindsTighterThanAddition) {
  EXPECT_EQ(eval("2+3*4"), 14);
  EXPECT_EQ(eval("2*3+4"), 10);
  EXPECT_EQ(eval("(2+3)*4"), 20);
  EXPECT_EQ(Expression::parse("a + b * c").canonical(), "(a + (b * c))");
  EXPECT_EQ(Expression::parse("(a + b) * c").canonical(), "((a + b) * c)");
}

TEST(Expression, SubtractionAndDivisionGroupToTheLeft) {
  EXPECT_EQ(eval("10-4-3"), 3);
  EXPECT_EQ(eval("64/4/2"), 8);
  EXPECT_EQ(eval("8/2*4"), 16);
  EXPECT_EQ(Expression::parse("a/b/c").canonical(), "((a / b) / c)");
  EXPECT_EQ(Expression::parse("a-b+c").canonical(), "((a - b) + c)");
}

TEST(Expression, UnaryMinusAndPlus) {
  EXPECT_EQ(eval("-3"), -3);
  EXPECT_EQ(eval("2*-3"), -6);
  EXPECT_EQ(eval("-2*3"), -6);
  EXPECT_EQ(eval("--3"), 3);
  EXPECT_EQ(eval("1 - -1"), 2);
  EXPECT_EQ(eval("-(2+3)*2"), -10);
  EXPECT_EQ(eval("+4"), 4);
  EXPECT_EQ(Expression::parse("-a*b").canonical(), "((-a) * b)");
  EXPECT_EQ(Expression::parse("a--b").canonical(), "(a - (-b))");
}

TEST(Expression, NumberForms) {
  EXPECT_EQ(eval("0x1f"), 31);
  EXPECT_EQ(eval("0X10"), 16);
  EXPECT_EQ(eval("0x100000000"), 4294967296.0);
  EXPECT_EQ(eval("1.5"), 1.5);
  EXPECT_EQ(eval(".5"), 0.5);
  EXPECT_EQ(eval("1e9"), 1e9);
  EXPECT_EQ(eval("2E+3"), 2000);
  EXPECT_EQ(eval("6.103515625e-5"), 6.103515625e-5);
  EXPECT_EQ(eval("007"), 7);
  EXPECT_EQ(eval("100.0"), 100);
}

TEST(Expression, MinAndMax) {
  EXPECT_EQ(eval("min(3, 5)"), 3);
  EXPECT_EQ(eval("max(3, 5)"), 5);
  EXPECT_EQ(eval("min(max(1, 2), 0)"), 0);
  EXPECT_EQ(eval("2 * max(a, b) + 1", {{"a", 4}, {"b", -7}}), 9);
  EXPECT_EQ(Expression::parse("min(a,b*2)").canonical(), "min(a, (b * 2))");
}

TEST(Expression, VariablesAreSortedAndListedOnce) {
  auto e = Expression::parse("B + A * B - DURATION_TIME");
  EXPECT_EQ(e.variables(), (std::vector<std::string>{"A", "B", "DURATION_TIME"}));
  EXPECT_TRUE(e.uses("A"));
  EXPECT_FALSE(e.uses("C"));
  EXPECT_TRUE(Expression::parse("0x10 * 2").variables().empty());
}

TEST(Expression, ParsedOnceEvaluatedManyTimes) {
  auto e = Expression::parse("CMEM_RD_DATA * 32 / DURATION_TIME");
  ASSERT_EQ(e.variables(), (std::vector<std::string>{"CMEM_RD_DATA", "DURATION_TIME"}));
  for (double beats : {0.0, 1.0, 35572420.0}) {
    std::vector<double> values{beats, 1000.0};
    auto r = e.evaluate(std::span<const double>(values));
    EXPECT_TRUE(r.valid);
    EXPECT_DOUBLE_EQ(r.value, beats * 32 / 1000.0);
  }
  auto r = e.evaluate({{"CMEM_RD_DATA", 10.0}, {"DURATION_TIME", 4.0}, {"UNUSED", 1.0}});
  EXPECT_DOUBLE_EQ(r.value, 80.0);
}

TEST(Expression, DivisionByZeroIsFlaggedNotThrown) {
  auto e = Expression::parse("RD_CUM_OUTS/RD_REQ");
  auto r = e.evaluate({{"RD_CUM_OUTS", 500.0}, {"RD_REQ", 0.0}});
  EXPECT_FALSE(r.valid);
  EXPECT_TRUE(std::isnan(r.value));
  EXPECT_EQ(r.problem, "division by zero: 'RD_REQ' is 0");

  // The first zero denominator is the one reported; the NaN survives the rest of the formula.
  r = Expression::parse("(a / (b - c)) * 100 + 1 / d").evaluate({{"a", 1.0}, {"b", 2.0}, {"c", 2.0}, {"d", 0.0}});
  EXPECT_FALSE(r.valid);
  EXPECT_TRUE(std::isnan(r.value));
  EXPECT_EQ(r.problem, "division by zero: 'b - c' is 0");

  r = Expression::parse("0/0").evaluate(std::map<std::string, double>{});
  EXPECT_FALSE(r.valid);
  EXPECT_EQ(r.problem, "division by zero: '0' is 0");

  r = e.evaluate({{"RD_CUM_OUTS", 500.0}, {"RD_REQ", 4.0}});
  EXPECT_TRUE(r.valid);
  EXPECT_EQ(r.problem, "");
  EXPECT_EQ(r.value, 125);
}

TEST(Expression, NonFiniteValuesAreInvalid) {
  auto e = Expression::parse("a * 2");
  auto r = e.evaluate({{"a", std::numeric_limits<double>::quiet_NaN()}});
  EXPECT_FALSE(r.valid);
  EXPECT_EQ(r.problem, "the result is not a finite number");
  r = e.evaluate({{"a", std::numeric_limits<double>::max()}});
  EXPECT_FALSE(r.valid);
}

TEST(Expression, MissingVariableIsAnErrorNamingIt) {
  auto e = Expression::parse("a + b", "metric 'm'");
  try {
    e.evaluate({{"a", 1.0}});
    FAIL() << "no error";
  } catch (const pmukit::UsageError&) {
    FAIL() << "a missing value is a program error, not a usage error";
  } catch (const pmukit::Error& err) {
    EXPECT_STREQ(err.what(), "metric 'm': expression 'a + b': no value for variable 'b'");
  }
  std::vector<double> one{1.0};
  EXPECT_THROW(e.evaluate(std::span<const double>(one)), pmukit::Error);
}

TEST(Expression, ParseErrorsNameTheExpressionAndTheColumn) {
  EXPECT_EQ(parse_error("a*/b", "metric 'x'"), "metric 'x': expression 'a*/b': unexpected '/' at column 3");
  EXPECT_EQ(parse_error("a+"), "expression 'a+': unexpected end of expression at column 3");
  EXPECT_EQ(parse_error("(a+b"), "expression '(a+b': missing ')' for this '(' at column 1");
  EXPECT_EQ(parse_error("x * (a+(b)"), "expression 'x * (a+(b)': missing ')' for this '(' at column 5");
  EXPECT_EQ(parse_error("a b"), "expression 'a b': unexpected 'b' at column 3");
  EXPECT_EQ(parse_error("a)"), "expression 'a)': unexpected ')' at column 2");
  EXPECT_EQ(parse_error("()"), "expression '()': unexpected ')' at column 2");
  EXPECT_EQ(parse_error("a,b"), "expression 'a,b': unexpected ',' at column 2");
  EXPECT_EQ(parse_error("a $ b"), "expression 'a $ b': unexpected character '$' at column 3");
  EXPECT_EQ(parse_error("a ^ 2"), "expression 'a ^ 2': unexpected character '^' at column 3");
}

TEST(Expression, MalformedNumbersAreOneToken) {
  EXPECT_EQ(parse_error("2x"), "expression '2x': malformed number '2x' at column 1");
  EXPECT_EQ(parse_error("a*1.2.3"), "expression 'a*1.2.3': malformed number '1.2.3' at column 3");
  EXPECT_EQ(parse_error("0x"), "expression '0x': malformed number '0x' at column 1");
  EXPECT_EQ(parse_error("0xfg"), "expression '0xfg': malformed number '0xfg' at column 1");
  EXPECT_EQ(parse_error("1e"), "expression '1e': malformed number '1e' at column 1");
  EXPECT_EQ(parse_error("1e+"), "expression '1e+': malformed number '1e' at column 1");
}

TEST(Expression, FunctionsAreCheckedByNameAndArity) {
  EXPECT_EQ(parse_error("foo(1, 2)"), "expression 'foo(1, 2)': unknown function 'foo' at column 1");
  EXPECT_EQ(parse_error("1 + min(1)"), "expression '1 + min(1)': min() takes 2 arguments, not 1, at column 5");
  EXPECT_EQ(parse_error("max(1,2,3)"), "expression 'max(1,2,3)': max() takes 2 arguments, not 3, at column 1");
  EXPECT_EQ(parse_error("min(1,2"), "expression 'min(1,2': missing ')' for this '(' at column 4");
  // A name that is not followed by '(' is a variable even if it spells a function.
  EXPECT_EQ(eval("min + 1", {{"min", 2}}), 3);
}

TEST(Expression, EmptyAndHugeInputsAreErrorsNotCrashes) {
  EXPECT_EQ(parse_error(""), "expression '': empty");
  EXPECT_EQ(parse_error("  \t"), "expression '  \t': empty");
  std::string deep = std::string(1000, '(') + "1" + std::string(1000, ')');
  EXPECT_NE(parse_error(deep).find("nested too deeply"), std::string::npos);
  EXPECT_NE(parse_error(std::string(1000, '-') + "1").find("nested too deeply"), std::string::npos);
  std::string longest = "1";
  for (int i = 0; i < 6000; ++i) longest += "+1";
  EXPECT_NE(parse_error(longest).find("is longer than"), std::string::npos);
  // Long but legal: a flat chain is fine.
  std::string chain = "1";
  for (int i = 0; i < 2000; ++i) chain += "+1";
  EXPECT_EQ(eval(chain), 2001);
}

// perf's uncore formulas: source_count(EVENT) and #num_packages are variables the caller supplies.
TEST(Expression, PerfsSourceCountAndNumPackagesAreVariables) {
  auto e = Expression::parse("CLK / (source_count(CLK) * #num_packages) / 1e9 / duration_time");
  EXPECT_EQ(e.variables(), (std::vector<std::string>{"#num_packages", "CLK", "duration_time", "source_count(CLK)"}));
  // 2 sockets x 60 CHAs, 2.4e11 ticks in 1 s: 2 GHz a CHA.
  auto r = e.evaluate({{"CLK", 2.4e11}, {"source_count(CLK)", 60}, {"#num_packages", 2}, {"duration_time", 1}});
  ASSERT_TRUE(r.valid) << r.problem;
  EXPECT_DOUBLE_EQ(r.value, 2.0);
  EXPECT_EQ(parse_error("source_count(1)"), "expression 'source_count(1)': source_count() takes an event variable at "
                                            "column 14");
  EXPECT_EQ(parse_error("source_count(#num_packages)"),
            "expression 'source_count(#num_packages)': source_count() takes an event variable at column 14");
  EXPECT_EQ(parse_error("source_count(A, B)"), "expression 'source_count(A, B)': unexpected ',' at column 15");
  EXPECT_EQ(parse_error("# 2"), "expression '# 2': unexpected character '#' at column 1");
}
