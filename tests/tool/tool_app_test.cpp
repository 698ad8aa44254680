// tools::ToolApp: the option table CLI11 would build, with the duplicate-name check done once per
// name instead of once per earlier option.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/tool.h"

namespace pmukit::tools {
namespace {

struct Values {
  std::vector<std::string> events, command;
  std::string output;
  unsigned interval = 0;
  bool all = false, per_box = false;
  MachineArgs machine;
};

// The same table on a CLI::App and on a ToolApp (pmu-raw's kinds of options: repeatable, with a
// validator, flags with two names, a positional, the machine options added through CLI::App&).
template <typename AppT>
void add_table(AppT& app, Values& v) {
  add_machine_options(app, v.machine);
  app.add_option("-e,--event", v.events, "Event(s)")->type_name("EVENT");
  app.add_flag("-a,--all-cpus", v.all, "System-wide");
  app.add_option("-I,--interval-print", v.interval, "Every MS")->type_name("MS")->check(whole_number_in(1, 3600000));
  app.add_flag("--per-box,--no-merge", v.per_box, "One line per box");
  app.add_option("-o,--output", v.output, "Write to FILE")->type_name("FILE");
  app.add_option("command", v.command, "The workload");
  app.set_version_flag("-V,--version", "t 1");
}

TEST(ToolApp, BuildsTheTableCli11Builds) {
  CLI::App plain{"about", "t"};
  ToolApp fast{"about", "t"};
  Values pv, fv;
  add_table(plain, pv);
  add_table(fast, fv);
  EXPECT_EQ(fast.help(), plain.help());
  ASSERT_EQ(fast.get_options().size(), plain.get_options().size());
  for (std::size_t i = 0; i < plain.get_options().size(); ++i)
    EXPECT_EQ(fast.get_options()[i]->get_name(), plain.get_options()[i]->get_name()) << i;

  std::vector<std::string> args{"-e", "a", "--event=b", "-aI", "10", "--no-merge", "-o", "f", "--snapshot", "/", "w"};
  std::vector<std::string> rev(args.rbegin(), args.rend());  // CLI11 parses a reversed vector
  auto rev2 = rev;
  plain.parse(rev);
  fast.parse(rev2);
  EXPECT_EQ(fv.events, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(fv.events, pv.events);
  EXPECT_EQ(fv.interval, 10u);
  EXPECT_TRUE(fv.all && fv.per_box);
  EXPECT_EQ(fv.output, "f");
  EXPECT_EQ(fv.machine.snapshot, "/");
  EXPECT_EQ(fv.command, pv.command);
}

TEST(ToolApp, RefusesANameTakenBefore) {
  Values v;
  ToolApp app{"about", "t"};
  add_table(app, v);
  bool other = false;
  // Taken by an option added through ToolApp, through CLI::App& (add_machine_options) and by
  // CLI11 itself (-h, -V).
  for (const char* name : {"-e", "--event", "--no-merge", "-O", "--snapshot", "-h", "--help", "-V", "--version"}) {
    std::size_t before = app.get_options().size();
    EXPECT_THROW(app.add_flag(std::string(name) + ",--fresh-name", other, "x"), CLI::OptionAlreadyAdded) << name;
    EXPECT_EQ(app.get_options().size(), before) << name;  // the refused option is not left behind
  }
  try {
    app.add_option("-z,--output", v.output, "again");
    FAIL() << "--output added twice";
  } catch (const CLI::OptionAlreadyAdded& e) {
    EXPECT_NE(std::string(e.what()).find("output"), std::string::npos) << e.what();
  }
  // A short and a long name with the same letters are different names, as in CLI11.
  EXPECT_NO_THROW(app.add_flag("-x,--e", other, "x"));
  EXPECT_EQ(app.get_option("--e"), app.get_option("-x"));
}

}  // namespace
}  // namespace pmukit::tools
