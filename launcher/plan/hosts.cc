#include "launcher/plan/hosts.h"

#include <arpa/inet.h>
#include <net/if.h>

#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/error.h"

namespace hvd::launcher {
namespace {

constexpr std::string_view kTokenForm = "write NAME, NAME:SLOTS or USER@NAME:SLOTS, e.g. h1:4";

[[noreturn]] void fail(std::string_view where, std::string_view token, std::string_view what, std::string_view fix) {
  std::string message{where};
  message += " '";
  message += token;
  message += "': ";
  message += what;
  message += "; ";
  message += fix;
  throw UsageError(message);
}

// Host names as RFC 1123 has them (letters, digits, '-' inside labels; labels of 1-63 characters, 253 in all),
// plus '_', which SSH config aliases and some internal DNS use. An all-digit name must be a dotted-quad IPv4 address.
constexpr std::size_t kMaxNameLength = 253;
constexpr std::size_t kMaxLabelLength = 63;
constexpr std::size_t kMaxUserLength = 32;  // useradd's limit

bool is_label_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
}

// Empty when `name` is a valid host name or IPv4 address, else why not.
std::string host_name_problem(std::string_view name) {
  if (name.size() > kMaxNameLength) {
    return "a host name has at most " + std::to_string(kMaxNameLength) + " characters, this one " +
           std::to_string(name.size());
  }
  if (name.find_first_not_of("0123456789.") == std::string_view::npos) {
    in_addr address{};
    if (::inet_pton(AF_INET, std::string{name}.c_str(), &address) != 1) {
      return "'" + std::string{name} + "' is not an IPv4 address (four numbers 0-255 joined by '.')";
    }
    return {};
  }
  std::size_t begin = 0;
  while (true) {
    const auto dot = name.find('.', begin);
    const auto label = name.substr(begin, dot == std::string_view::npos ? std::string_view::npos : dot - begin);
    if (label.empty()) return "'" + std::string{name} + "' has an empty label (two dots, or a dot at an end)";
    if (label.size() > kMaxLabelLength) {
      return "label '" + std::string{label.substr(0, 20)} + "...' has " + std::to_string(label.size()) +
             " characters; a label has at most " + std::to_string(kMaxLabelLength);
    }
    for (char c : label) {
      if (!is_label_char(c)) {
        const bool printable = std::isprint(static_cast<unsigned char>(c));
        return "'" + std::string{name} + "' has " +
               (printable ? "'" + std::string(1, c) + "'" : "byte " + std::to_string(static_cast<unsigned char>(c))) +
               ", which a host name cannot have (letters, digits, '-', '_' and '.' between labels)";
      }
    }
    if (label.front() == '-' || label.back() == '-') {
      return "label '" + std::string{label} + "' starts or ends with '-'";
    }
    if (dot == std::string_view::npos) return {};
    begin = dot + 1;
  }
}

// POSIX-portable user names, as useradd takes them.
bool is_user_name(std::string_view text) {
  if (text.empty() || text.size() > kMaxUserLength || text.front() == '-') return false;
  for (char c : text) {
    if (!is_label_char(c) && c != '.') return false;
  }
  return true;
}

// An interface name after '%' in a link-local IPv6 address.
bool is_zone(std::string_view text) {
  if (text.empty() || text.size() >= IF_NAMESIZE) return false;
  for (char c : text) {
    if (!is_label_char(c) && c != '.') return false;
  }
  return true;
}

// Inside brackets: an IPv6 address (as inet_pton reads it) and an optional "%zone".
bool is_ipv6_literal(std::string_view text) {
  const auto zone = text.find('%');
  in6_addr address{};
  if (::inet_pton(AF_INET6, std::string{text.substr(0, zone)}.c_str(), &address) != 1) return false;
  return zone == std::string_view::npos || is_zone(text.substr(zone + 1));
}

std::string lowercase(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

std::string trim(std::string_view text) {
  const auto begin = text.find_first_not_of(" \t\r");
  if (begin == std::string_view::npos) return {};
  const auto end = text.find_last_not_of(" \t\r");
  return std::string{text.substr(begin, end - begin + 1)};
}

int parse_slots(std::string_view text, std::string_view where, std::string_view token) {
  int value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc{} || end != text.data() + text.size()) {
    fail(where, token, "slots '" + std::string{text} + "' is not a whole number", kTokenForm);
  }
  if (value < 1) fail(where, token, "slots must be at least 1", "drop the host or give it 1 or more slots");
  return value;
}

}  // namespace

std::string HostSpec::display() const {
  const bool bracket = name.find(':') != std::string::npos;
  return (user.empty() ? "" : user + "@") + (bracket ? "[" + name + "]" : name) + ":" + std::to_string(slots);
}

std::string HostSpec::target() const { return user.empty() ? name : user + "@" + name; }

HostSpec parse_host_token(std::string_view token, std::string_view where) {
  HostSpec host;
  std::string_view rest = token;
  if (const auto at = rest.find('@'); at != std::string_view::npos) {
    host.user = std::string{rest.substr(0, at)};
    rest = rest.substr(at + 1);
    if (!is_user_name(host.user)) {
      fail(where, token, "'" + host.user + "' before '@' is not a user name (1-32 letters, digits, '.', '_', '-')",
           kTokenForm);
    }
  }
  std::string_view slots_text;
  bool has_slots = false;
  if (!rest.empty() && rest.front() == '[') {
    const auto close = rest.find(']');
    if (close == std::string_view::npos) fail(where, token, "missing ']'", "write IPv6 addresses as [::1]:4");
    host.name = std::string{rest.substr(1, close - 1)};
    if (!is_ipv6_literal(host.name)) fail(where, token, "not an IPv6 address in brackets", "write e.g. [::1]:4");
    const auto after = rest.substr(close + 1);
    if (!after.empty() && after.front() != ':') fail(where, token, "unexpected text after ']'", "write [::1]:4");
    has_slots = !after.empty();
    if (has_slots) slots_text = after.substr(1);
  } else {
    const auto colon = rest.find(':');
    if (colon != std::string_view::npos && rest.find(':', colon + 1) != std::string_view::npos) {
      fail(where, token, "too many ':'", "write an IPv6 address in brackets, e.g. [::1]:4");
    }
    host.name = std::string{rest.substr(0, colon)};
    has_slots = colon != std::string_view::npos;
    if (has_slots) slots_text = rest.substr(colon + 1);
    if (host.name.empty()) fail(where, token, "no host name", kTokenForm);
    if (const auto problem = host_name_problem(host.name); !problem.empty()) {
      fail(where, token.size() > 80 ? std::string{token.substr(0, 60)} + "..." : std::string{token}, problem,
           "give a host name, an IPv4 address or [IPv6 address], e.g. h1:4, 10.0.0.2:4 or [::1]:4");
    }
  }
  if (has_slots) host.slots = parse_slots(slots_text, where, token);
  return host;
}

std::vector<HostSpec> parse_host_list(std::string_view text) {
  std::vector<HostSpec> hosts;
  std::vector<std::string> seen;  // lowercase names: "H1" and "h1" are one machine
  if (text.empty()) fail("-H", text, "no hosts", "give hosts like -H h1:4,h2:4");
  std::size_t begin = 0;
  for (int entry = 1;; ++entry) {
    const auto comma = text.find(',', begin);
    const auto token = text.substr(begin, comma == std::string_view::npos ? std::string_view::npos : comma - begin);
    if (token.empty()) {
      fail("-H", text, "entry " + std::to_string(entry) + " is empty", "remove the extra comma");
    }
    HostSpec host = parse_host_token(token, "-H");
    const auto key = lowercase(host.name);
    for (std::size_t i = 0; i < seen.size(); ++i) {
      if (seen[i] == key) {
        fail("-H", text, "host '" + host.name + "' is listed twice",
             "list it once with all its slots (" + host.name + ":" + std::to_string(hosts[i].slots + host.slots) + ")");
      }
    }
    seen.push_back(key);
    hosts.push_back(std::move(host));
    if (comma == std::string_view::npos) break;
    begin = comma + 1;
  }
  return hosts;
}

std::vector<HostSpec> parse_hostfile(const std::string& path) {
  const std::string where = "--hostfile";
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) fail(where, path, "is a directory", "give the hostfile's path");
  std::ifstream in(path);
  if (!in) fail(where, path, std::string{"cannot read it ("} + std::strerror(errno) + ")", "check the path");

  std::vector<HostSpec> hosts;
  std::vector<std::pair<std::string, int>> seen;  // lowercase name, line
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    const auto text = trim(std::string_view{line}.substr(0, line.find('#')));
    if (text.empty()) continue;
    const std::string at = path + ":" + std::to_string(number);
    std::istringstream words(text);
    std::string token;
    words >> token;
    HostSpec host = parse_host_token(token, at);
    bool has_slots = token.find(':') != std::string::npos && token.back() != ']';
    for (std::string word; words >> word;) {
      if (word.rfind("slots=", 0) != 0) {
        fail(at, text, "unexpected '" + word + "'", "write 'HOST slots=N', 'HOST:N' or 'HOST'");
      }
      if (has_slots) fail(at, text, "slots given twice", "write 'HOST slots=N' or 'HOST:N', not both");
      host.slots = parse_slots(std::string_view{word}.substr(6), at, text);
      has_slots = true;
    }
    const auto key = lowercase(host.name);
    for (const auto& [name, first_line] : seen) {
      if (name == key) {
        fail(at, text, "host '" + host.name + "' is listed twice (first on line " + std::to_string(first_line) + ")",
             "list it once with all its slots");
      }
    }
    seen.emplace_back(key, number);
    hosts.push_back(std::move(host));
  }
  if (in.bad()) fail(where, path, std::string{"read failed ("} + std::strerror(errno) + ")", "check the file");
  if (hosts.empty()) fail(where, path, "lists no hosts", "add lines like 'h1 slots=4'");
  return hosts;
}

int total_slots(const std::vector<HostSpec>& hosts) {
  int total = 0;
  for (const auto& host : hosts) total += host.slots;
  return total;
}

std::string describe_hosts(const std::vector<HostSpec>& hosts) {
  std::string text;
  for (const auto& host : hosts) {
    if (!text.empty()) text += ", ";
    text += host.display();
  }
  return text;
}

}  // namespace hvd::launcher
