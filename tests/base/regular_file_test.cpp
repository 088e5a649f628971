// Tests of refuse_special_file (a FIFO, a directory or a dangling symbolic link given as a file is a
// one-line usage error before anything opens it: a FIFO would block open() forever), of the bounded reader,
// and of the writers: atomic for results, write_output_file for what a user names with --out.
#include "fmwork/base/regular_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <thread>

#include "fmwork/base/error.hpp"
#include "support/temp_dir.hpp"

namespace fmwork {
namespace {

std::string slurp_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::string usage_message(const std::string& path) {
  try {
    refuse_special_file(path);
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::usage);
    return e.what();
  }
  return "";
}

TEST(RegularFile, RefusesFifoDirectoryAndDanglingLink) {
  TempDir tmp("fmwork-regular-test");
  const std::string fifo = tmp.path() + "/model.pt";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_EQ(usage_message(fifo), fifo + " is a FIFO, not a file; give the path of a regular file");
  const std::string via_link = tmp.path() + "/link.pt";
  ASSERT_EQ(::symlink(fifo.c_str(), via_link.c_str()), 0);
  EXPECT_EQ(usage_message(via_link), via_link + " is a FIFO, not a file; give the path of a regular file");
  EXPECT_EQ(usage_message(tmp.path()), tmp.path() + " is a directory, not a file; give the path of a regular file");
  const std::string dangling = tmp.path() + "/config.json";
  ASSERT_EQ(::symlink("gone.json", dangling.c_str()), 0);
  EXPECT_EQ(usage_message(dangling),
            dangling + " is a dangling symbolic link to gone.json; point it at an existing file");
}

TEST(RegularFile, RegularFilesAndMissingPathsPass) {
  TempDir tmp("fmwork-regular-test");
  EXPECT_EQ(usage_message(tmp.write("config.json", "{}")), "");
  EXPECT_EQ(usage_message(tmp.path() + "/absent.json"), "");  // the caller says what is missing
}

// Whole or not at all: the new text replaces the old; a failure leaves the old file and no .tmp behind.
TEST(RegularFile, WritesAtomicallyOrLeavesTheFileAlone) {
  TempDir tmp;
  const std::string file = tmp.write("plan.json", "old");
  write_file_atomically(file, "new text\n");
  std::ifstream in(file);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), "new text\n");
  EXPECT_EQ(::access((file + ".tmp").c_str(), F_OK), -1);
  const std::string missing = tmp.path() + "/no/folder/x";
  try {
    write_file_atomically(missing, "x");
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::runtime);
    EXPECT_EQ(std::string(e.what()), missing + ": cannot create its .tmp file (No such file or directory)");
  }
  ::mkdir((tmp.path() + "/dir").c_str(), 0755);
  tmp.write("dir/inside", "");
  try {
    write_file_atomically(tmp.path() + "/dir", "x");
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("/dir: cannot rename its .tmp file into place ("), std::string::npos) << e.what();
  }
  EXPECT_EQ(::access((tmp.path() + "/dir.tmp").c_str(), F_OK), -1);
}

std::string read_error(const std::string& path, size_t max_bytes, const std::string& name = "") {
  try {
    read_file(path, max_bytes, name);
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::runtime);
    return e.what();
  }
  return "";
}

TEST(RegularFile, ReadsAWholeFileWithinItsBound) {
  TempDir tmp;
  const std::string text(100000, 'x');  // more than one read()
  EXPECT_EQ(read_file(tmp.write("a.log", text), 100000), text);
  EXPECT_EQ(read_file(tmp.write("empty.log", ""), 0), "");
}

TEST(RegularFile, ReadErrorsNameTheFileAndTheReason) {
  TempDir tmp;
  const std::string absent = tmp.path() + "/absent.log";
  EXPECT_EQ(read_error(absent, 1 << 20), absent + ": cannot open (No such file or directory)");
  EXPECT_EQ(read_error(absent, 1 << 20, "--path x.log"), "--path x.log: cannot open (No such file or directory)");
  EXPECT_EQ(read_error(tmp.path(), 1 << 20), tmp.path() + ": cannot open (Is a directory)");
  const std::string big = tmp.write("big.json", std::string(3 << 20, ' '));
  EXPECT_EQ(read_error(big, 2 << 20),
            big + ": 3.0 MiB is more than the 2 MiB this program reads from a file of its kind; is it the right file?");
  // A bound also ends what has no end.
  EXPECT_EQ(read_error("/dev/zero", 1 << 20),
            "/dev/zero: more than the 1 MiB this program reads from a file of its kind; is it the right file?");
}

// An output written in pieces (process writes one log at a time): a regular file takes its new text whole
// at commit(); an Error on the way (no commit) leaves it as it was and no .tmp file behind.
TEST(RegularFile, AnOutputFileWrittenInPiecesIsWholeOrUntouched) {
  TempDir tmp;
  const std::string file = tmp.write("out.json", "old");
  {
    OutputFile out(file);
    out.write("[");
    out.write("1]\n");
    EXPECT_EQ(slurp_file(file), "old");  // nothing seen before commit()
    out.commit();
  }
  EXPECT_EQ(slurp_file(file), "[1]\n");
  OutputFile(file).write("half");  // a temporary, destroyed without commit()
  EXPECT_EQ(slurp_file(file), "[1]\n");
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(tmp.path()), std::filesystem::directory_iterator()), 1);
}

// std::filesystem's "filesystem error: cannot create directories: Not a directory [...]" never reaches a
// user: one line naming the folder and the reason.
TEST(RegularFile, AFolderThatCannotBeMadeIsOneLine) {
  TempDir tmp;
  const std::string file = tmp.write("logs", "a file where a folder should be");
  try {
    make_folders(file + "/x");
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::runtime);
    EXPECT_EQ(std::string(e.what()), file + "/x: cannot make the folder (Not a directory)");
  }
  make_folders(tmp.path() + "/a/b");
  make_folders(tmp.path() + "/a/b");  // one that exists is fine
  EXPECT_TRUE(std::filesystem::is_directory(tmp.path() + "/a/b"));
}

// ---- write_output_file: what the user named is written into, never replaced unless a regular file ----

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

Error output_error(const std::string& path, const std::string& text) {
  try {
    write_output_file(path, text);
  } catch (const Error& e) {
    return e;
  }
  ADD_FAILURE() << "no error";
  return runtime_error("");
}

// A FIFO and a link to one are written as streams: the reader gets the text, the FIFO and the link stay.
TEST(RegularFile, OutputIntoAFifoIsAStreamAndTheFifoStays) {
  TempDir tmp;
  const std::string fifo = tmp.file("out.fifo"), link = tmp.file("link");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  ASSERT_EQ(::symlink(fifo.c_str(), link.c_str()), 0);
  for (const std::string& path : {fifo, link}) {
    std::string got;
    std::thread reader([&] { got = slurp(fifo); });
    write_output_file(path, "the report\n");
    reader.join();
    EXPECT_EQ(got, "the report\n") << path;
    struct stat st {};
    ASSERT_EQ(::lstat(fifo.c_str(), &st), 0);
    EXPECT_TRUE(S_ISFIFO(st.st_mode));
    ASSERT_EQ(::lstat(link.c_str(), &st), 0);
    EXPECT_TRUE(S_ISLNK(st.st_mode));
  }
  write_output_file("/dev/null", "into a character device\n");  // opened and written, not renamed over
  struct stat st {};
  ASSERT_EQ(::stat("/dev/null", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
}

// A reader that leaves early is an Error naming the file, not a SIGPIPE that kills the process.
TEST(RegularFile, OutputIntoAFifoWhoseReaderLeftIsAnError) {
  TempDir tmp;
  const std::string fifo = tmp.file("out.fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::thread reader([&] { ::close(::open(fifo.c_str(), O_RDONLY)); });
  const Error e = output_error(fifo, std::string(4 << 20, 'x'));  // more than a pipe holds: the write waits
  reader.join();
  EXPECT_EQ(e.exit_code(), 1);
  EXPECT_EQ(std::string(e.what()), fifo + ": cannot write (Broken pipe)");
}

// A link to a regular file: the file it leads to is replaced whole, the link stays a link. A directory and a
// dangling link are refused in one usage line.
TEST(RegularFile, OutputThroughALinkKeepsTheLinkAndRefusesWhatIsNoFile) {
  TempDir tmp;
  const std::string file = tmp.write("report.json", "old"), link = tmp.file("latest.json");
  ASSERT_EQ(::symlink("report.json", link.c_str()), 0);
  write_output_file(link, "new\n");
  EXPECT_EQ(slurp(file), "new\n");
  struct stat st {};
  ASSERT_EQ(::lstat(link.c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode));
  Error e = output_error(tmp.path(), "x");
  EXPECT_EQ(e.exit_code(), 2);
  EXPECT_EQ(std::string(e.what()), tmp.path() + " is a directory; name a regular file, a FIFO or a character device");
  const std::string dangling = tmp.file("dangling");
  ASSERT_EQ(::symlink("gone/x.json", dangling.c_str()), 0);
  e = output_error(dangling, "x");
  EXPECT_EQ(e.exit_code(), 2);
  EXPECT_EQ(std::string(e.what()),
            dangling + " is a dangling symbolic link to gone/x.json; name a regular file, a FIFO or a character device");
}

// A .tmp name someone left as a link to another file is neither followed nor truncated.
TEST(RegularFile, AtomicWriteNeverFollowsALeftoverTmpLink) {
  TempDir tmp;
  const std::string victim = tmp.write("victim", "keep me"), file = tmp.file("out.json");
  ASSERT_EQ(::symlink(victim.c_str(), (file + ".tmp").c_str()), 0);
  write_file_atomically(file, "report");
  EXPECT_EQ(slurp(victim), "keep me");
  EXPECT_EQ(slurp(file), "report");
}

TEST(RegularFile, FileIdFollowsLinks) {
  TempDir tmp;
  const std::string file = tmp.write("a.log", "x"), link = tmp.file("b.log");
  ASSERT_EQ(::symlink(file.c_str(), link.c_str()), 0);
  EXPECT_TRUE(file_id(file).has_value());
  EXPECT_EQ(file_id(file), file_id(link));
  EXPECT_FALSE(file_id(tmp.file("absent")).has_value());
}

}  // namespace
}  // namespace fmwork
