#include "launcher/session/output_printer.h"

#include <sys/time.h>
#include <unistd.h>

#include <ctime>
#include <filesystem>

#include "common/error.h"

namespace hvd::launcher {

OutputPrinter::OutputPrinter(asio::io_context& io, std::string output_dir, bool prefix_timestamp,
                             OutputSink::WrittenHandler on_written)
    : output_dir_(std::move(output_dir)),
      prefix_timestamp_(prefix_timestamp),
      stdout_(io, STDOUT_FILENO, "stdout", on_written),
      stderr_(io, STDERR_FILENO, "stderr", on_written) {}

OutputPrinter::~OutputPrinter() {
  for (auto& [key, file] : files_) std::fclose(file);
}

std::FILE* OutputPrinter::file_for(int rank, bool is_stderr) {
  auto key = std::make_pair(rank, is_stderr);
  if (auto it = files_.find(key); it != files_.end()) return it->second;
  auto dir = std::filesystem::path(output_dir_) / ("rank." + std::to_string(rank));
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  auto path = dir / (is_stderr ? "stderr" : "stdout");
  std::FILE* file = std::fopen(path.c_str(), "we");
  if (!file) throw Error(ErrorKind::kUsage, "cannot write " + path.string() + " for --output-filename: check the directory");
  files_[key] = file;
  return file;
}

void OutputPrinter::append_line(std::string& out, int rank, bool is_stderr, const std::string& text) {
  if (prefix_timestamp_) {
    timeval tv{};
    ::gettimeofday(&tv, nullptr);
    std::tm tm{};
    ::localtime_r(&tv.tv_sec, &tm);
    char stamp[64];
    std::snprintf(stamp, sizeof stamp, "%04d-%02d-%02d %02d:%02d:%02d.%06ld ", tm.tm_year + 1900, tm.tm_mon + 1,
                  tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<long>(tv.tv_usec));
    out += stamp;
  }
  out += '[';
  out += std::to_string(rank);
  out += is_stderr ? "]<stderr>:" : "]<stdout>:";
  out += text;
  out += '\n';
}

void OutputPrinter::lines(int rank, bool is_stderr, const std::vector<std::string>& lines, int owner,
                          std::size_t credit) {
  // The batch goes out as one chunk of whole lines: a line is never split by another stream's data.
  std::string out;
  std::FILE* file = output_dir_.empty() ? nullptr : file_for(rank, is_stderr);
  for (const auto& text : lines) {
    append_line(out, rank, is_stderr, text);
    if (file) {
      std::fwrite(text.data(), 1, text.size(), file);
      std::fputc('\n', file);
    }
  }
  if (file) std::fflush(file);
  (is_stderr ? stderr_ : stdout_).write(std::move(out), owner, credit);
}

void OutputPrinter::message(const std::string& text) { stderr_.write(text + "\n"); }

void OutputPrinter::when_drained(std::function<void()> on_drained) {
  stdout_.when_drained(
      [this, on_drained = std::move(on_drained)]() mutable { stderr_.when_drained(std::move(on_drained)); });
}

}  // namespace hvd::launcher
