#include "launcher/flags/shell_words.h"

#include <doctest/doctest.h>

#include "common/error.h"

using hvd::UsageError;
using hvd::launcher::shell_quote;
using hvd::launcher::split_shell_words;
using Words = std::vector<std::string>;

TEST_CASE("split_shell_words splits on blanks and keeps quoted text whole") {
  CHECK(split_shell_words("", "--mpi-args") == Words{});
  CHECK(split_shell_words("  -x  BAZ=qux\t--report-bindings ", "--mpi-args") ==
        Words{"-x", "BAZ=qux", "--report-bindings"});
  CHECK(split_shell_words(R"(-mca plm_rsh_args "-p 2222 -o X=y")", "--mpi-args") ==
        Words{"-mca", "plm_rsh_args", "-p 2222 -o X=y"});
  CHECK(split_shell_words(R"(-x 'A=b c' -x B="d \"e\" \$f")", "--mpi-args") ==
        Words{"-x", "A=b c", "-x", R"(B=d "e" $f)"});
  CHECK(split_shell_words(R"(a\ b '' x"y"'z')", "--mpi-args") == Words{"a b", "", "xyz"});
  CHECK(split_shell_words(R"("a\nb")", "--mpi-args") == Words{R"(a\nb)"});  // only \" \\ \$ \` escape in "..."
}

TEST_CASE("split_shell_words: an unclosed quote is a UsageError naming the flag and the text") {
  CHECK_THROWS_WITH_AS(split_shell_words("-x 'A=b", "--mpi-args"),
                       doctest::Contains("--mpi-args '-x 'A=b': a ' is not closed"), UsageError);
  CHECK_THROWS_WITH_AS(split_shell_words(R"(-x "A=b)", "--mpi-args"), doctest::Contains(R"(a " is not closed)"),
                       UsageError);
  CHECK_THROWS_WITH_AS(split_shell_words("-x A\\", "--mpi-args"), doctest::Contains("lone backslash"), UsageError);
}

TEST_CASE("shell_quote quotes only what a shell would change, and splits back to the same words") {
  const Words words{"mpirun", "-x", "A=b c", "it's", "", "-H", "h1:2,h2:2", "$HOME"};
  CHECK(shell_quote(words) == R"(mpirun -x 'A=b c' 'it'\''s' '' -H h1:2,h2:2 '$HOME')");
  CHECK(split_shell_words(shell_quote(words), "test") == words);
}
