#include "launcher/output_printer.h"

#include <sys/time.h>

#include <ctime>
#include <filesystem>

#include "common/error.h"

namespace hvd::launcher {

OutputPrinter::OutputPrinter(std::string output_dir, bool prefix_timestamp)
    : output_dir_(std::move(output_dir)), prefix_timestamp_(prefix_timestamp) {}

OutputPrinter::~OutputPrinter() {
  flush();
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
  if (!file) throw Error("cannot write " + path.string() + " for --output-filename: check the directory");
  files_[key] = file;
  return file;
}

void OutputPrinter::line(int rank, bool is_stderr, const std::string& text) {
  std::string out = "[" + std::to_string(rank) + "]<" + (is_stderr ? "stderr" : "stdout") + ">:";
  if (prefix_timestamp_) {
    timeval tv{};
    ::gettimeofday(&tv, nullptr);
    std::tm tm{};
    ::localtime_r(&tv.tv_sec, &tm);
    char stamp[64];
    std::snprintf(stamp, sizeof stamp, "%04d-%02d-%02d %02d:%02d:%02d.%06ld ", tm.tm_year + 1900, tm.tm_mon + 1,
                  tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<long>(tv.tv_usec));
    out = stamp + out;
  }
  out += text;
  out += '\n';
  // One fwrite per line on a fully buffered stream: a line is never split between two writes' worth of
  // another stream's data, and the flush after each batch keeps latency low.
  std::FILE* stream = is_stderr ? stderr : stdout;
  std::fwrite(out.data(), 1, out.size(), stream);
  if (!output_dir_.empty()) {
    std::FILE* file = file_for(rank, is_stderr);
    std::fwrite(text.data(), 1, text.size(), file);
    std::fputc('\n', file);
  }
}

void OutputPrinter::flush() {
  std::fflush(stdout);
  std::fflush(stderr);
  for (auto& [key, file] : files_) std::fflush(file);
}

}  // namespace hvd::launcher
