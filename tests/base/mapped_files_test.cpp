// Tests of the SIGBUS guard on a real mapping of a real file cut short after it was mapped: the lost pages
// read as zeros, check_mapped_files() names the file, and an unregistered mapping leaves no mark.
#include "fmwork/base/mapped_files.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <string>

#include "fmwork/base/error.hpp"
#include "support/temp_dir.hpp"

namespace fmwork {
namespace {

TEST(MappedFiles, PagesLostToATruncationReadAsZerosAndAreReported) {
  TempDir dir;
  const std::string path = dir.file("w.bin");
  const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE)), size = 8 * page;
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC, 0644);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::write(fd, std::string(size, 'w').data(), size), static_cast<ssize_t>(size));
  void* map = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
  ::close(fd);
  ASSERT_NE(map, MAP_FAILED);
  register_mapped_file(map, size, path);
  const auto* bytes = static_cast<const volatile char*>(map);
  EXPECT_EQ(bytes[0], 'w');
  check_mapped_files();
  ASSERT_EQ(::truncate(path.c_str(), static_cast<off_t>(2 * page)), 0);
  long sum = 0;
  for (size_t i = 0; i < size; i += 512) sum += bytes[i];  // without the guard: SIGBUS at page 2
  EXPECT_EQ(sum, static_cast<long>('w') * static_cast<long>(2 * page / 512));
  try {
    check_mapped_files();
    FAIL() << "the cut was not reported";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::runtime);
    EXPECT_EQ(std::string(e.what()), path + ": the file was cut short while the run read it in place (its missing "
                                            "pages read as zeros); restore it and run again");
  }
  unregister_mapped_file(map);
  ::munmap(map, size);
  check_mapped_files();
}

}  // namespace
}  // namespace fmwork
