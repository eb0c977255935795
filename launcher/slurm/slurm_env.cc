#include "launcher/slurm/slurm_env.h"

#include <algorithm>
#include <charconv>

#include "common/env.h"
#include "common/error.h"

namespace hvd::launcher {
namespace {

constexpr std::string_view kNodelistVar = "SLURM_JOB_NODELIST";
constexpr std::string_view kTasksVar = "SLURM_TASKS_PER_NODE";
// Far above any real cluster; stops "h[1-999999999]" from eating the memory.
constexpr long kMaxNodes = 1'000'000;

[[noreturn]] void bad(std::string_view var, std::string_view text, std::string_view why) {
  throw UsageError(std::string{var} + "='" + std::string{text} + "': " + std::string{why} +
                   "; run hvdrun inside a Slurm allocation untouched, or use --launcher ssh with -H");
}

std::optional<long> to_number(std::string_view digits) {
  long value = 0;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (digits.empty() || error != std::errc{} || end != digits.data() + digits.size() || value < 0) return std::nullopt;
  return value;
}

// Splits at commas outside brackets: "a[1,2],b" -> "a[1,2]", "b".
std::vector<std::string_view> split_top_level(std::string_view text, std::string_view var) {
  std::vector<std::string_view> items;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i <= text.size(); ++i) {
    if (i == text.size() || (text[i] == ',' && depth == 0)) {
      if (i == start) bad(var, text, "an empty item");
      items.push_back(text.substr(start, i - start));
      start = i + 1;
    } else if (text[i] == '[') {
      if (++depth > 1) bad(var, text, "nested brackets");
    } else if (text[i] == ']') {
      if (--depth < 0) bad(var, text, "a ']' without its '['");
    }
  }
  if (depth != 0) bad(var, text, "a '[' without its ']'");
  return items;
}

// "1-3,7" -> "1","2","3","7" with the lower bound's width.
std::vector<std::string> expand_ranges(std::string_view ranges, std::string_view text) {
  std::vector<std::string> values;
  size_t start = 0;
  while (start <= ranges.size()) {
    const size_t comma = std::min(ranges.find(',', start), ranges.size());
    const std::string_view range = ranges.substr(start, comma - start);
    const size_t dash = range.find('-');
    const std::string_view low_text = range.substr(0, dash);
    const std::string_view high_text = dash == std::string_view::npos ? low_text : range.substr(dash + 1);
    const auto low = to_number(low_text), high = to_number(high_text);
    if (!low || !high) bad(kNodelistVar, text, "'" + std::string{range} + "' is not N or N-M");
    if (*high < *low) bad(kNodelistVar, text, "the range '" + std::string{range} + "' runs backwards");
    if (*high - *low >= kMaxNodes) bad(kNodelistVar, text, "the range '" + std::string{range} + "' is too large");
    for (long v = *low; v <= *high; ++v) {
      std::string digits = std::to_string(v);
      if (digits.size() < low_text.size()) digits.insert(0, low_text.size() - digits.size(), '0');
      values.push_back(std::move(digits));
    }
    start = comma + 1;
  }
  return values;
}

// One item, with any number of bracket groups: "r[1-2]n[1-2]" -> r1n1 r1n2 r2n1 r2n2.
void expand_item(std::string_view item, std::string_view text, std::vector<std::string>& out) {
  std::vector<std::string> names{""};
  size_t pos = 0;
  while (pos < item.size()) {
    const size_t open = item.find('[', pos);
    const std::string_view literal = item.substr(pos, open - pos);
    for (auto& n : names) n += literal;
    if (open == std::string_view::npos) break;
    const size_t close = item.find(']', open);
    const auto values = expand_ranges(item.substr(open + 1, close - open - 1), text);
    std::vector<std::string> product;
    for (const auto& n : names) {
      for (const auto& v : values) product.push_back(n + v);
    }
    if (static_cast<long>(product.size()) > kMaxNodes) bad(kNodelistVar, text, "too many nodes");
    names = std::move(product);
    pos = close + 1;
  }
  if (names.size() == 1 && names.front().empty()) bad(kNodelistVar, text, "an empty node name");
  out.insert(out.end(), names.begin(), names.end());
}

std::optional<std::string> lookup(const char* const* environ_, std::string_view name) {
  return env_var::from_entries(environ_)(std::string{name});
}

}  // namespace

std::vector<std::string> expand_slurm_nodelist(std::string_view text) {
  std::vector<std::string> names;
  for (auto item : split_top_level(text, kNodelistVar)) expand_item(item, text, names);
  return names;
}

std::vector<int> expand_slurm_tasks_per_node(std::string_view text) {
  std::vector<int> tasks;
  for (auto item : split_top_level(text, kTasksVar)) {
    const size_t paren = item.find("(x");
    const auto count = to_number(item.substr(0, paren));
    std::optional<long> repeat = 1;
    if (paren != std::string_view::npos) {
      if (!item.ends_with(')')) bad(kTasksVar, text, "'" + std::string{item} + "' is not N or N(xM)");
      repeat = to_number(item.substr(paren + 2, item.size() - paren - 3));
    }
    if (!count || !repeat || *count < 1 || *repeat < 1) {
      bad(kTasksVar, text, "'" + std::string{item} + "' is not N or N(xM) with N, M at least 1");
    }
    if (*repeat + static_cast<long>(tasks.size()) > kMaxNodes) bad(kTasksVar, text, "too many nodes");
    tasks.insert(tasks.end(), *repeat, static_cast<int>(*count));
  }
  return tasks;
}

std::optional<SlurmAllocation> slurm_allocation(const char* const* environ_) {
  auto job_id = lookup(environ_, "SLURM_JOB_ID");
  auto nodelist = lookup(environ_, kNodelistVar);
  if (!nodelist || nodelist->empty()) nodelist = lookup(environ_, "SLURM_NODELIST");
  if (!job_id || job_id->empty() || !nodelist || nodelist->empty()) return std::nullopt;  // set empty: unset
  SlurmAllocation allocation{*job_id, {}};
  const auto names = expand_slurm_nodelist(*nodelist);
  // Without a task count (salloc -N2 alone gives "1(x2)"; some setups drop it) each node has one slot.
  const auto tasks_text = lookup(environ_, kTasksVar);
  const auto tasks = tasks_text ? expand_slurm_tasks_per_node(*tasks_text) : std::vector<int>(names.size(), 1);
  if (tasks.size() != names.size()) {
    bad(kTasksVar, tasks_text.value_or(""),
        "gives " + std::to_string(tasks.size()) + " nodes but " + std::string{kNodelistVar} + "='" + *nodelist +
            "' names " + std::to_string(names.size()));
  }
  for (size_t i = 0; i < names.size(); ++i) allocation.hosts.push_back(HostSpec{"", names[i], tasks[i]});
  return allocation;
}

void check_against_allocation(const std::vector<HostSpec>& hosts, int np, const SlurmAllocation& allocation) {
  const std::string job = "Slurm job " + allocation.job_id + " (" + describe_hosts(allocation.hosts) + ")";
  for (const auto& host : hosts) {
    auto node = std::find_if(allocation.hosts.begin(), allocation.hosts.end(),
                             [&](const HostSpec& h) { return h.name == host.name; });
    if (node == allocation.hosts.end()) {
      throw UsageError("-H " + host.display() + ": " + host.name + " is not a node of " + job +
                       "; name its nodes, drop -H to use them all, or use --launcher ssh");
    }
    if (host.slots > node->slots) {
      throw UsageError("-H " + host.display() + ": " + job + " has " + std::to_string(node->slots) + " task" +
                       (node->slots == 1 ? "" : "s") + " on " + host.name +
                       "; give at most that many slots, or ask Slurm for more (--ntasks-per-node)");
    }
  }
  const int offered = total_slots(allocation.hosts);
  if (np > offered) {
    throw UsageError("-np " + std::to_string(np) + " but " + job + " has " + std::to_string(offered) +
                     " tasks; lower -np or ask Slurm for more (salloc/sbatch -N, --ntasks-per-node)");
  }
}

}  // namespace hvd::launcher
