// Tests of html_text: what a log says can only ever be text in the page, and numbers are never nan or inf.
#include "fmwork/report/html_text.hpp"

#include <cmath>
#include <limits>

#include <gtest/gtest.h>

namespace fmwork {
namespace {

TEST(HtmlText, EscapesMarkupAndQuotes) {
  EXPECT_EQ(html_escape("<script>alert(\"x\" & 'y')</script>"),
            "&lt;script&gt;alert(&quot;x&quot; &amp; &#39;y&#39;)&lt;/script&gt;");
  EXPECT_EQ(html_escape("mod\xc3\xa8le \xe2\x9c\x93"), "mod\xc3\xa8le \xe2\x9c\x93");  // UTF-8 kept
  EXPECT_EQ(html_escape("&amp;"), "&amp;amp;");  // escaped again: the log's text, not a reference
}

TEST(HtmlText, BadBytesAndControlCharactersBecomeReplacementCharacters) {
  const std::string fffd = "\xef\xbf\xbd";
  EXPECT_EQ(html_escape(std::string("a\xff" "b\xc3", 4)), "a" + fffd + "b" + fffd);
  EXPECT_EQ(html_escape(std::string("a\0b\x1b[31m\x7f", 9)), "a" + fffd + "b" + fffd + "[31m" + fffd);
  EXPECT_EQ(html_escape("\xed\xa0\x80"), fffd + fffd + fffd);  // an encoded surrogate is not UTF-8
  EXPECT_EQ(html_escape("tab\there\nline\r"), "tab\there\nline\r");
}

TEST(HtmlText, FixedNumbersAndNotANumber) {
  EXPECT_EQ(html_fixed(3.14159, 3), "3.142");
  EXPECT_EQ(html_fixed(-2, 1), "-2.0");
  EXPECT_EQ(html_fixed(std::nan(""), 3), "n/a");
  EXPECT_EQ(html_fixed(std::numeric_limits<double>::infinity(), 3), "n/a");
  EXPECT_EQ(html_fixed(-std::numeric_limits<double>::infinity(), 1), "n/a");
  EXPECT_EQ(html_fixed(1e308, 3).substr(0, 4), "1000");  // 309 digits and 3 decimals: still written whole
  EXPECT_EQ(html_fixed(1e308, 300), "1.000000e+308");     // past the buffer: the exponent form
}

}  // namespace
}  // namespace fmwork
