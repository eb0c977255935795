#!/usr/bin/env bash
# Structure rules that a compiler cannot see, checked over the sources (CI runs it as the ctest entry
# structure_check). Exit 0 when the tree keeps them; else 1, listing each offending line and the rule.
#
# Rule 1: the environment is read and parsed in one module, common/env.{h,cc} (runtime/config.cc names the
# runtime's variables on top of it). Elsewhere in hvd's own code: no getenv, no unchecked C parsing (atoi, atol,
# strtol, ...), and no std::sto* on a line that reads the environment.
set -euo pipefail
cd "${1:-$(dirname "$0")/..}"

# Product code only. Not scanned, with the reason:
#   tests/     workers and unit tests play user programs and set up their own environment;
#   examples/  user programs that show how to call hvd, free to read their own variables.
product_dirs=(common runtime launcher agent include python)
allowed_files=(common/env.cc)  # the env module itself

banned_calls='\b(secure_getenv|getenv|atoi|atol|atoll|strtol|strtoll|strtoul|strtoull|strtod|strtof)\s*\('
sto_on_env='\bsto(i|l|ll|ul|ull|f|d)\s*\(.*\b(getenv|env|env_var|environ)\b'

status=0
while IFS= read -r file; do
  for allowed in "${allowed_files[@]}"; do [ "$file" = "$allowed" ] && continue 2; done
  # Comments do not count: "getenv" may be named in prose.
  hits=$(sed 's://.*$::' "$file" | grep -nP "$banned_calls|$sto_on_env" || true)
  [ -z "$hits" ] && continue
  while IFS= read -r hit; do
    echo "$file:$hit"
    status=1
  done <<<"$hits"
done < <(find "${product_dirs[@]}" -type f \( -name '*.cc' -o -name '*.h' -o -name '*.cpp' \) 2>/dev/null | sort)

if [ "$status" -ne 0 ]; then
  echo "check-structure: the lines above read or parse the environment outside common/env.{h,cc};" \
       "use env_var::text/integer/flag/required (common/env.h) or add a field to runtime/config.h" >&2
fi
exit "$status"
