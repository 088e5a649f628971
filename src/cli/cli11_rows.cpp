// A CLI11 App set up from option rows (see cli11_rows.hpp).
#include "fmwork/cli/cli11_rows.hpp"

#include "fmwork/cli/parse_errors.hpp"

namespace fmwork {

void GivenOptions::add(CLI::App& app, const Cli11Option& row) {
  Words& w = words_[row.name];
  w.words = row.words;
  const std::string name = row.option();
  switch (row.words) {
    case OptionWords::flag:
      w.option = app.add_flag(name, w.flag, row.help);
      return;
    case OptionWords::one:
      w.option = app.add_option(name, w.text, row.help);
      break;
    case OptionWords::positional:
      w.option = app.add_option(row.name, w.text, row.help);
      break;
    case OptionWords::two:
      w.option = app.add_option(name, w.list, row.help)->expected(2);
      break;
    case OptionWords::each:
      // One value an occurrence: "--match dtype run.log" leaves run.log a positional word.
      w.option = app.add_option(name, w.list, row.help)
                     ->expected(1)
                     ->allow_extra_args(false)
                     ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
      break;
    case OptionWords::list:
      w.option = app.add_option(name + "," + row.positional, w.list, row.help);
      break;
  }
  if (row.choices) w.option->check(choice_of(name, row.choices()));
  w.option->type_name(row.value_name);
}

bool GivenOptions::given(const std::string& name) const {
  const Words& w = words_.at(name);
  return w.words == OptionWords::flag ? w.flag : w.option->count() > 0;  // --list=false: not given
}

std::vector<std::string> GivenOptions::values(const std::string& name) const {
  const Words& w = words_.at(name);
  switch (w.words) {
    case OptionWords::flag:
      return {};
    case OptionWords::one:
    case OptionWords::positional:
      return {w.text};
    default:
      return w.list;
  }
}

}  // namespace fmwork
