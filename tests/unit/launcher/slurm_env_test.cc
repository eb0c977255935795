#include "launcher/slurm/slurm_env.h"

#include <doctest/doctest.h>

#include "common/error.h"
#include "tests/unit/error_of.h"

using hvd::UsageError;
using hvd::launcher::check_against_allocation;
using hvd::launcher::expand_slurm_nodelist;
using hvd::launcher::expand_slurm_tasks_per_node;
using hvd::launcher::HostSpec;
using hvd::launcher::slurm_allocation;
using Names = std::vector<std::string>;

namespace {

std::string error_of(auto&& call) { return hvd::test::error_of<UsageError>(call); }

}  // namespace

TEST_CASE("a node list expands plain names, ranges, lists and padding") {
  CHECK(expand_slurm_nodelist("h1") == Names{"h1"});
  CHECK(expand_slurm_nodelist("h1,h2,gpu") == Names{"h1", "h2", "gpu"});
  CHECK(expand_slurm_nodelist("h[1-3,7]") == Names{"h1", "h2", "h3", "h7"});
  CHECK(expand_slurm_nodelist("pre[08-10]suf") == Names{"pre08suf", "pre09suf", "pre10suf"});
  CHECK(expand_slurm_nodelist("n[001-002],login,h[5]") == Names{"n001", "n002", "login", "h5"});
  CHECK(expand_slurm_nodelist("r[1-2]n[1-2]") == Names{"r1n1", "r1n2", "r2n1", "r2n2"});
  CHECK(expand_slurm_nodelist("a-b[9-10]") == Names{"a-b9", "a-b10"});
}

TEST_CASE("a malformed node list names the variable and the value") {
  CHECK(error_of([] { expand_slurm_nodelist("h[1-3"); }).find("SLURM_JOB_NODELIST='h[1-3'") != std::string::npos);
  CHECK(error_of([] { expand_slurm_nodelist("h[3-1]"); }).find("runs backwards") != std::string::npos);
  CHECK(error_of([] { expand_slurm_nodelist("h[a-b]"); }).find("'a-b' is not N or N-M") != std::string::npos);
  CHECK(error_of([] { expand_slurm_nodelist("h1,,h2"); }).find("empty item") != std::string::npos);
  CHECK(error_of([] { expand_slurm_nodelist("h1]"); }).find("without its '['") != std::string::npos);
  CHECK(error_of([] { expand_slurm_nodelist("h[1-99999999]"); }).find("too large") != std::string::npos);
}

TEST_CASE("tasks per node expand counts and repeats") {
  CHECK(expand_slurm_tasks_per_node("4") == std::vector<int>{4});
  CHECK(expand_slurm_tasks_per_node("2(x3),1") == std::vector<int>{2, 2, 2, 1});
  CHECK(expand_slurm_tasks_per_node("1,3(x2)") == std::vector<int>{1, 3, 3});
  CHECK(error_of([] { expand_slurm_tasks_per_node("2(x3"); }).find("SLURM_TASKS_PER_NODE='2(x3'") != std::string::npos);
  CHECK(error_of([] { expand_slurm_tasks_per_node("0"); }).find("at least 1") != std::string::npos);
  CHECK(error_of([] { expand_slurm_tasks_per_node("2(xy)"); }).find("not N or N(xM)") != std::string::npos);
}

TEST_CASE("an allocation is read from the environment, or is absent") {
  const char* none[] = {"PATH=/bin", nullptr};
  CHECK_FALSE(slurm_allocation(none).has_value());
  const char* empty[] = {"SLURM_JOB_ID=", "SLURM_JOB_NODELIST=", nullptr};
  CHECK_FALSE(slurm_allocation(empty).has_value());
  const char* env[] = {"SLURM_JOB_ID=42", "SLURM_JOB_NODELIST=h[1-2],h7", "SLURM_TASKS_PER_NODE=2(x2),1", nullptr};
  const auto allocation = slurm_allocation(env);
  REQUIRE(allocation.has_value());
  CHECK(allocation->job_id == "42");
  CHECK(allocation->hosts == std::vector<HostSpec>{{"", "h1", 2}, {"", "h2", 2}, {"", "h7", 1}});
  const char* no_tasks[] = {"SLURM_JOB_ID=1", "SLURM_NODELIST=a,b", nullptr};
  CHECK(slurm_allocation(no_tasks)->hosts == std::vector<HostSpec>{{"", "a", 1}, {"", "b", 1}});
  const char* mismatch[] = {"SLURM_JOB_ID=1", "SLURM_JOB_NODELIST=a,b", "SLURM_TASKS_PER_NODE=2", nullptr};
  CHECK(error_of([&] { slurm_allocation(mismatch); }).find("gives 1 nodes but SLURM_JOB_NODELIST='a,b' names 2") !=
        std::string::npos);
}

TEST_CASE("hosts and -np given inside an allocation must fit it") {
  const hvd::launcher::SlurmAllocation allocation{"7", {{"", "h1", 2}, {"", "h2", 2}}};
  CHECK_NOTHROW(check_against_allocation({{"", "h2", 2}}, 2, allocation));
  CHECK_NOTHROW(check_against_allocation(allocation.hosts, 4, allocation));
  CHECK(error_of([&] {
          check_against_allocation({{"", "h5", 1}}, 1, allocation);
        }) ==
        "-H h5:1: h5 is not a node of Slurm job 7 (h1:2, h2:2); name its nodes, drop -H to use them all, or use "
        "--launcher ssh");
  CHECK(error_of([&] {
          check_against_allocation({{"", "h1", 3}}, 3, allocation);
        }).find("has 2 tasks on h1") != std::string::npos);
  CHECK(error_of([&] { check_against_allocation(allocation.hosts, 8, allocation); }) ==
        "-np 8 but Slurm job 7 (h1:2, h2:2) has 4 tasks; lower -np or ask Slurm for more (salloc/sbatch -N, "
        "--ntasks-per-node)");
}
