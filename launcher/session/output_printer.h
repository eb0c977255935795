// Prints workers' output lines as `[rank]<stdout>:line` (Horovod's format), stdout lines on hvdrun's stdout and
// stderr lines on its stderr, optionally with a timestamp, and copies them to DIR/rank.<r>/{stdout,stderr}
// when --output-filename is set. Lines arrive whole from the agents and are written whole: never torn.
// Writing never blocks the event loop (OutputSink): a batch's credit goes back to its owner (the agent that
// sent it) once the batch is out, which is what bounds the output hvdrun holds.
#pragma once

#include <asio.hpp>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "launcher/session/output_sink.h"

namespace hvd::launcher {

class OutputPrinter {
 public:
  OutputPrinter(asio::io_context& io, std::string output_dir, bool prefix_timestamp,
                OutputSink::WrittenHandler on_written);
  ~OutputPrinter();
  OutputPrinter(const OutputPrinter&) = delete;
  OutputPrinter& operator=(const OutputPrinter&) = delete;

  // One batch of a rank's lines; `credit` goes back to `owner` once written out.
  void lines(int rank, bool is_stderr, const std::vector<std::string>& lines, int owner, std::size_t credit);
  // hvdrun's own message line, on stderr after the workers' lines that came before it.
  void message(const std::string& text);
  std::size_t buffered() const { return stdout_.buffered() + stderr_.buffered(); }
  // Called once everything queued on both streams is written (or discarded because the reader is gone).
  void when_drained(std::function<void()> on_drained);

 private:
  void append_line(std::string& out, int rank, bool is_stderr, const std::string& text);
  std::FILE* file_for(int rank, bool is_stderr);

  std::string output_dir_;
  bool prefix_timestamp_;
  std::map<std::pair<int, bool>, std::FILE*> files_;
  OutputSink stdout_, stderr_;
};

}  // namespace hvd::launcher
