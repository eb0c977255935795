// A file with the given text in its own temporary directory, removed with the object (RAII), for tests that hand
// a path to the code under test (hostfiles, option files).
#pragma once

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace hvd::test {

class TempFile {
 public:
  explicit TempFile(const std::string& text, const std::string& name = "file")
      : dir_(std::filesystem::temp_directory_path() /
             ("hvd_test." + std::to_string(::getpid()) + "." + std::to_string(counter_++))),
        name_(name) {
    std::filesystem::create_directories(dir_);
    std::ofstream(path()) << text;
  }
  ~TempFile() { std::filesystem::remove_all(dir_); }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  std::string path() const { return (dir_ / name_).string(); }

 private:
  static inline int counter_ = 0;
  std::filesystem::path dir_;
  std::string name_;
};

}  // namespace hvd::test
