// Prints workers' output lines as `[rank]<stdout>:line` (Horovod's format), stdout lines on hvdrun's stdout and
// stderr lines on its stderr, optionally with a timestamp, and copies them to DIR/rank.<r>/{stdout,stderr}
// when --output-filename is set. Lines arrive whole from the agents and are written whole: never torn.
#pragma once

#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <utility>

namespace hvd::launcher {

class OutputPrinter {
 public:
  OutputPrinter(std::string output_dir, bool prefix_timestamp);
  ~OutputPrinter();
  OutputPrinter(const OutputPrinter&) = delete;
  OutputPrinter& operator=(const OutputPrinter&) = delete;

  void line(int rank, bool is_stderr, const std::string& text);
  void flush();

 private:
  std::FILE* file_for(int rank, bool is_stderr);

  std::string output_dir_;
  bool prefix_timestamp_;
  std::map<std::pair<int, bool>, std::FILE*> files_;
};

}  // namespace hvd::launcher
