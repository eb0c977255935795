// spdlog and fmt compiled once for the whole project (SPDLOG_COMPILED_LIB, fmt not header-only): every other unit
// sees only their declarations, which halves the cost of a unit that logs. Debian ships them as shared libraries
// only, and loading libspdlog.so and libfmt.so costs hvdrun ~2 ms a launch, so they are built here, into
// hvd_common, and each program or library that logs carries its own copy (libhvd hides it: --exclude-libs).
// What is instantiated here is what the project uses: the registry's default sinks, stderr loggers, char formatting.
#ifndef SPDLOG_COMPILED_LIB
#error "hvd_common defines SPDLOG_COMPILED_LIB for every unit; this file supplies what that leaves undefined"
#endif

#include <fmt/format-inl.h>
#include <spdlog/common-inl.h>
#include <spdlog/details/backtracer-inl.h>
#include <spdlog/details/console_globals.h>
#include <spdlog/details/log_msg-inl.h>
#include <spdlog/details/log_msg_buffer-inl.h>
#include <spdlog/details/null_mutex.h>
#include <spdlog/details/os-inl.h>
#include <spdlog/details/periodic_worker-inl.h>
#include <spdlog/details/registry-inl.h>
#include <spdlog/logger-inl.h>
#include <spdlog/pattern_formatter-inl.h>
#include <spdlog/sinks/ansicolor_sink-inl.h>
#include <spdlog/sinks/base_sink-inl.h>
#include <spdlog/sinks/sink-inl.h>
#include <spdlog/sinks/stdout_sinks-inl.h>
#include <spdlog/spdlog-inl.h>

#include <mutex>

namespace spdlog {
using details::console_mutex;
using details::console_nullmutex;

template class sinks::base_sink<std::mutex>;
template class sinks::base_sink<details::null_mutex>;
// The registry's default logger writes to a colour sink on stdout; setup_logging() replaces it with stderr's.
template class sinks::ansicolor_sink<console_mutex>;
template class sinks::ansicolor_stdout_sink<console_mutex>;
template class sinks::ansicolor_stderr_sink<console_mutex>;
template class sinks::stdout_sink_base<console_mutex>;
template class sinks::stdout_sink_base<console_nullmutex>;
template class sinks::stdout_sink<console_mutex>;
template class sinks::stderr_sink<console_mutex>;
template std::shared_ptr<logger> stderr_logger_mt<synchronous_factory>(const std::string& logger_name);
}  // namespace spdlog

FMT_BEGIN_NAMESPACE
namespace detail {
template auto dragonbox::to_decimal(float x) noexcept -> dragonbox::decimal_fp<float>;
template auto dragonbox::to_decimal(double x) noexcept -> dragonbox::decimal_fp<double>;
template locale_ref::locale_ref(const std::locale& loc);
template auto locale_ref::get<std::locale>() const -> std::locale;
template auto thousands_sep_impl(locale_ref) -> thousands_sep_result<char>;
template auto decimal_point_impl(locale_ref) -> char;
template void buffer<char>::append(const char*, const char*);
template void vformat_to(buffer<char>&, string_view, basic_format_args<FMT_BUFFER_CONTEXT(char)>, locale_ref);
}  // namespace detail
FMT_END_NAMESPACE
