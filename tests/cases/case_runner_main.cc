// hvd_case_runner --expect FILE RANK SIZE DIR: writes what RANK must pass and get, for the framework runners
// (expectation_dump.h), without starting libhvd.
// hvd_case_runner FILE: runs the collective cases of FILE (one per line, tests/cases/case_spec.h), in order, on
// every rank of an hvdrun job started as the cases' job part says. Each rank prints, per case,
//   CASE <index> ok        or        CASE <index> FAIL <what failed>   (one line per failure)
// and "CASES <n> failed <m>" at the end; exits 1 when any case failed on this rank. Line numbers count from 0,
// blank and '#' lines excluded. tests/cases/fuzz_collectives.py writes the files and reads the lines.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "hvd/hvd.h"
#include "tests/cases/case_spec.h"
#include "tests/cases/execute.h"
#include "tests/cases/expectation_dump.h"

int main(int argc, char** argv) {
  using namespace hvd::cases;
  const bool expect = argc == 6 && std::string(argv[1]) == "--expect";
  if (argc != 2 && !expect) {
    std::fprintf(stderr, "usage: hvd_case_runner CASE_FILE | hvd_case_runner --expect CASE_FILE RANK SIZE DIR\n");
    return 2;
  }
  const char* path = argv[expect ? 2 : 1];
  std::ifstream file(path);
  if (!file) {
    std::fprintf(stderr, "hvd_case_runner: cannot read '%s'\n", path);
    return 2;
  }
  std::vector<CaseSpec> cases;
  for (std::string line; std::getline(file, line);) {
    if (line.empty() || line[0] == '#') continue;
    cases.push_back(parse_case(line));
  }
  if (expect) {
    write_expectations(cases, std::atoi(argv[3]), std::atoi(argv[4]), argv[5]);
    return 0;
  }
  const char* size_text = std::getenv("HOROVOD_SIZE");
  const int size = size_text ? std::atoi(size_text) : 1;
  hvd::init(process_sets_of(cases, size));
  RunContext context;
  context.rank = hvd::rank();
  context.size = hvd::size();
  for (const auto& set : hvd::process_sets()) {
    if (set.id() != 0) context.set_ids[set.ranks()] = set.id();
  }
  int failed = 0;
  for (std::size_t k = 0; k < cases.size(); ++k) {
    context.case_index = static_cast<int>(k);
    const auto failures = run_case(cases[k], context);
    if (failures.empty()) {
      std::printf("CASE %zu ok\n", k);
    } else {
      ++failed;
      for (const auto& f : failures) std::printf("CASE %zu FAIL %s\n", k, f.c_str());
    }
    std::fflush(stdout);
  }
  std::printf("CASES %zu failed %d\n", cases.size(), failed);
  hvd::shutdown();
  return failed ? 1 : 0;
}
