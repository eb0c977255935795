#include "runtime/api/uncaught_exception.h"

#include <cxxabi.h>

#include <atomic>
#include <cstdlib>
#include <exception>
#include <memory>
#include <mutex>

#include "hvd/error.h"
#include "runtime/engine/failure/record_rule.h"

namespace hvd::detail {
namespace {

std::mutex g_mutex;
std::string* g_error_file = nullptr;  // guarded by g_mutex; leaked: the handler may run during static destruction
std::atomic<int> g_rank{-1};
std::terminate_handler g_previous = nullptr;

std::string current_type_name() {
  const std::type_info* type = abi::__cxa_current_exception_type();
  if (!type) return "an exception";
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> name(abi::__cxa_demangle(type->name(), nullptr, nullptr, &status), std::free);
  return status == 0 && name ? name.get() : type->name();
}

UncaughtException describe(const std::string& type, const std::string& what, const Error* hvd_error = nullptr) {
  UncaughtException e{.source = "c++", .type = type, .message = what};
  if (hvd_error) {
    e.hvd_error = true;
    e.peer = hvd_error->context().peer;
    e.tensor = hvd_error->context().tensor;
  }
  return e;
}

void record_current_exception() {
  std::string file;
  {
    std::lock_guard lock(g_mutex);
    if (g_error_file) file = *g_error_file;
  }
  if (file.empty()) return;
  const std::string type = current_type_name();
  const int rank = g_rank.load();
  std::exception_ptr thrown = std::current_exception();
  if (!thrown) return record_uncaught(file, rank, describe("std::terminate", "called without an exception"));
  try {
    std::rethrow_exception(thrown);
  } catch (const Error& e) {
    record_uncaught(file, rank, describe(type, e.what(), &e));
  } catch (const std::exception& e) {
    record_uncaught(file, rank, describe(type, e.what()));
  } catch (...) {
    record_uncaught(file, rank, describe(type, "(not a std::exception)"));
  }
}

[[noreturn]] void on_terminate() {
  static std::atomic<bool> once{false};
  if (!once.exchange(true)) {
    try {
      record_current_exception();
    } catch (...) {
    }
  }
  if (g_previous) g_previous();
  std::abort();
}

}  // namespace

void install_uncaught_exception_handler(const std::string& error_file, int rank) {
  if (error_file.empty()) return;
  std::lock_guard lock(g_mutex);
  if (!g_error_file) {
    g_error_file = new std::string(error_file);
    g_previous = std::set_terminate(on_terminate);
  } else {
    *g_error_file = error_file;
  }
  g_rank.store(rank);
}

void record_foreign_exception(const std::string& error_file, const UncaughtException& e) noexcept {
  record_uncaught(error_file, g_rank.load(), e);
}

}  // namespace hvd::detail
