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

int main(int argc, char** argv) {
  using namespace hvd::cases;
  if (argc != 2) {
    std::fprintf(stderr, "usage: hvd_case_runner CASE_FILE\n");
    return 2;
  }
  std::ifstream file(argv[1]);
  if (!file) {
    std::fprintf(stderr, "hvd_case_runner: cannot read '%s'\n", argv[1]);
    return 2;
  }
  std::vector<CaseSpec> cases;
  for (std::string line; std::getline(file, line);) {
    if (line.empty() || line[0] == '#') continue;
    cases.push_back(parse_case(line));
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
