// Tests of docs/options.md's generated tables (options_page.hpp): every row of the tables the parsers read is
// on the page, escaped for Markdown, and only the part between the markers is rewritten. That the committed
// page is the one the tables make: ctest Docs.OptionsPageMatchesTheTables (tools/options_doc.cpp --check).
#include "fmwork/cli/options_page.hpp"

#include <gtest/gtest.h>

#include "fmwork/base/error.hpp"
#include "fmwork/cli/fixed_options.hpp"
#include "fmwork/cli/options.hpp"
#include "fmwork/cli/option_sets.hpp"
#include "support/text_lines.hpp"

namespace fmwork {
namespace {

// A table row is a line.
const auto row_starting = test_support::line_starting;

TEST(OptionsPage, HasARowForEveryFixedOption) {
  const std::string page = options_reference_markdown();
  for (const Option* sweep_row : options_of(Command::sweep)) {
    const Option& option = *sweep_row;
    SCOPED_TRACE(option.name);
    const bool flag = option.flag();
    const std::string row =
        row_starting(page, std::string("| `--") + option.name + (flag ? "" : std::string(" ") + option.value_name) + "` |");
    ASSERT_NE(row, "");
    EXPECT_NE(row.find(option.upstream() ? "| upstream's |" : "| ours |"), std::string::npos) << row;
    EXPECT_EQ(row.find("| yes |") != std::string::npos, option.required_by(Command::sweep)) << row;
    if (std::string(option.help).find_first_of("<>|") == std::string::npos)
      EXPECT_NE(row.find(option.help), std::string::npos) << row;
  }
}

TEST(OptionsPage, HasARowForEveryKeyOfEverySet) {
  const std::string page = options_reference_markdown();
  std::vector<OptionSetDoc> sets = option_set_docs();
  sets.insert(sets.end(), torch_setting_docs().begin(), torch_setting_docs().end());
  for (const OptionSetDoc& set : sets) {
    EXPECT_NE(page.find("### `--" + set.set + ":`\n"), std::string::npos) << set.set;
    for (const OptionKeyDoc& key : set.keys) {
      const std::string row = row_starting(page, "| `" + key.key + "`");
      ASSERT_NE(row, "") << key.key;
      EXPECT_NE(row.find("`" + key.example + "`"), std::string::npos) << row;
      EXPECT_NE(row.find(key.help), std::string::npos) << row;
      for (const std::string& alias : key.aliases) EXPECT_NE(row.find("(also `" + alias + "`)"), std::string::npos) << row;
    }
  }
  for (const OptionKeyDoc& key : ignored_model_keys())
    EXPECT_NE(page.find("| `" + key.key + "` | " + key.help + " | " + (key.secret ? "yes" : "") + " |\n"),
              std::string::npos) << key.key;
}

// "<input>x<batch>.safetensors" in a help line would be an HTML tag in Markdown; a `|` would end the cell.
TEST(OptionsPage, EscapesWhatMarkdownWouldRead) {
  const std::string page = options_reference_markdown();
  EXPECT_NE(page.find("&lt;input&gt;x&lt;batch&gt;.safetensors"), std::string::npos);
  EXPECT_EQ(page.find('<'), std::string::npos);
  EXPECT_EQ(page.find('>'), std::string::npos);
}

TEST(OptionsPage, RewritesOnlyTheGeneratedPart) {
  const std::string begin = std::string(kGeneratedBegin) + "\n", end = std::string(kGeneratedEnd) + "\n";
  const std::string page = "# Title\n\nby hand\n" + begin + "old tables\n" + end + "\nmore by hand\n";
  EXPECT_EQ(with_generated_part(page, "new tables\n"),
            "# Title\n\nby hand\n" + begin + "\nnew tables\n\n" + end + "\nmore by hand\n");
  const std::string again = with_generated_part(page, "new tables\n");
  EXPECT_EQ(with_generated_part(again, "new tables\n"), again) << "writing twice changes nothing";
}

TEST(OptionsPage, RefusesAPageWithoutBothMarkers) {
  const std::string begin = std::string(kGeneratedBegin) + "\n", end = std::string(kGeneratedEnd) + "\n";
  for (const std::string& page : {std::string("# no markers\n"), "# only the first\n" + begin,
                                  "# reversed\n" + end + begin}) {
    try {
      with_generated_part(page, "tables\n");
      ADD_FAILURE() << page;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("the page has no generated part"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace fmwork
