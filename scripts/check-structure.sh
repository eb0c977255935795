#!/usr/bin/env bash
# Structure rules that a compiler cannot see, checked over the sources (CI runs it as the ctest entry
# structure_check). Exit 0 when the tree keeps them; else 1, listing each offending line and the rule.
#
# Rule 1: the environment is read and parsed in one module, common/env.{h,cc} (runtime/comm/config.cc names the
# runtime's variables on top of it). Elsewhere in hvd's own code: no getenv, no unchecked C parsing (atoi, atol,
# strtol, ...), and no std::sto* on a line that reads the environment.
#
# Rule 2: includes point down the layers, never up (docs/architecture.md, "Layers"):
#   common <- store <- comm <- engine <- api <- glue (bindings/torch, python)
# and the programs launcher/ and agent/ use only common and store (and their own folder, not each other's), but
# for agent/agent_main.h: the agent's one entry point, which hvdrun runs in the local agent it forks without exec.
#
# Rule 3: the launcher's folders include one way: no two of launcher/*/ include each other (the allowed edges are
# listed in docs/architecture.md, "The launcher's folders").
#
# Rule 4: no function over $max_function_lines lines in the folders of $short_function_dirs
# (scripts/check-long-functions.py measures them).
#
# Rule 5: the runtime's libraries link only downward: in a CMakeLists.txt, target_link_libraries of a layer's
# library names only libraries of layers below it (hvd_common <- hvd_store <- hvd_comm <- hvd_engine <- hvd_api).
# Rule 6: every `throw Error(` names its kind (include/hvd/error.h): its first argument is an ErrorKind, or the kind
# of the error it wraps; at most $max_kindless_throws may not (an unnamed kind reads as kInternal, a broken invariant).
# Rule 7: only launcher/cli/ and launcher/main.cc know every flag: no other launcher file includes a header of
# launcher/cli/ (options.h, or folder_options.h, which carries it); each folder takes its own options value.
set -euo pipefail
cd "${1:-$(dirname "$0")/..}"

# Product code only. Not scanned, with the reason:
#   tests/     workers and unit tests play user programs and set up their own environment;
#   examples/  user programs that show how to call hvd, free to read their own variables.
product_dirs=()
for dir in common store runtime bindings launcher agent include python; do [ -d "$dir" ] && product_dirs+=("$dir"); done
product_files() {
  find "${product_dirs[@]}" -type f \( -name '*.cc' -o -name '*.h' -o -name '*.cpp' -o -name '*.c' \) | sort
}
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
done < <(product_files | xargs -r grep -lP "$banned_calls|$sto_on_env" || true)  # candidates; comments sorted out above

if [ "$status" -ne 0 ]; then
  echo "check-structure: the lines above read or parse the environment outside common/env.{h,cc};" \
       "use env_var::text/integer/flag/required (common/env.h) or add a field to runtime/comm/config.h" >&2
fi

# Rule 2, in one awk pass over every include line ("file:line:target"). A file's layer comes from its path; the
# first pattern that matches wins.
layering_report=$(
  product_files | xargs -r grep -HnoP '^\s*#\s*include\s*"\K[^"]+' |
    awk -F: '
      function layer(path) {
        if (path ~ /^common\//) return 0
        if (path ~ /^include\/hvd\/(export|types|shape|error)\.h$/) return 0  # the vocabulary every layer speaks
        if (path ~ /^store\//) return 1
        if (path ~ /^runtime\/(comm|reduce)\//) return 2
        if (path ~ /^runtime\/engine\//) return 3
        if (path ~ /^(bindings|python)\//) return 5
        if (path ~ /^(runtime|include\/hvd)\//) return 4  # the API: hvd::init, collectives, handles, C API
        if (path ~ /^launcher\//) return "launcher"
        if (path ~ /^agent\//) return "agent"
        return "other"
      }
      function name(l) { return l == "0" ? "common" : l == "1" ? "store" : l == "2" ? "comm" : \
                                l == "3" ? "engine" : l == "4" ? "api" : l == "5" ? "glue" : l }
      function allowed(from, to) {
        if (from == "launcher" || from == "agent") return to == from || to == "0" || to == "1"
        if (to == "launcher" || to == "agent") return 0
        if (from == "other" || to == "other") return 1
        return to + 0 <= from + 0
      }
      {
        file = $1; line = $2; target = $3
        if (target ~ /^hvd\//) path = "include/" target
        else if (target ~ /^(common|store|runtime|bindings|launcher|agent|python)\//) path = target
        else { path = file; sub(/[^\/]*$/, "", path); path = path target }  # beside the file: its own layer
        from = layer(file); to = layer(path)
        if (from == "launcher" && path == "agent/agent_main.h") next
        if (!allowed(from, to)) printf "%s:%s: includes %s (%s) from %s\n", file, line, target, name(to), name(from)
      }'
)
if [ -n "$layering_report" ]; then
  echo "$layering_report"
  echo "check-structure: the includes above point up the layers (common <- store <- comm <- engine <- api <- glue;" \
       "launcher/ and agent/ use common and store only); move the shared piece down, or pass it in from above" >&2
  status=1
fi

# Rule 3: "from to file:line" for every include from one launcher folder into another; a pair seen both ways fails.
launcher_pairs=$(
  find launcher -mindepth 2 -type f \( -name '*.cc' -o -name '*.h' \) | sort | xargs -r grep -HnoP '^\s*#\s*include\s*"launcher/\K[^/"]+(?=/)' |
    awk -F: '
      { split($1, parts, "/"); from = parts[2]; to = $3
        if (from != to && !((from, to) in seen)) seen[from, to] = $1 ":" $2 }
      END {
        for (key in seen) {
          split(key, ft, SUBSEP)
          if (ft[1] < ft[2] && ((ft[2], ft[1]) in seen)) {
            printf "launcher/%s and launcher/%s include each other: %s includes launcher/%s/, %s includes launcher/%s/\n",
                   ft[1], ft[2], seen[ft[1], ft[2]], ft[2], seen[ft[2], ft[1]], ft[1]
          }
        }
      }' | sort
)
if [ -n "$launcher_pairs" ]; then
  echo "$launcher_pairs"
  echo "check-structure: launcher folders include each other; keep the edges of docs/architecture.md (move the" \
       "shared piece down into the lower folder, or pass it in from above)" >&2
  status=1
fi

# Rule 7: "file:line: the include" for each launcher file outside cli/ (and main.cc) that includes launcher/cli/.
cli_includes=$(find launcher -type f \( -name '*.cc' -o -name '*.h' \) ! -path 'launcher/cli/*' ! -path launcher/main.cc |
                 sort | xargs -r grep -HnE '^\s*#\s*include\s*"launcher/cli/' || true)
if [ -n "$cli_includes" ]; then
  echo "$cli_includes"
  echo "check-structure: only launcher/cli/ and launcher/main.cc include launcher/cli/ (LaunchOptions knows every" \
       "flag); give the folder its own options value, filled in cli/folder_options.cc" >&2
  status=1
fi

# Rule 4, over all of hvd's own code but tests/ and examples/ (user programs).
max_function_lines=60
short_function_dirs=()
for dir in launcher agent common runtime include python bindings store; do [ -d "$dir" ] && short_function_dirs+=("$dir"); done
long_functions=$(find "${short_function_dirs[@]}" -type f \( -name '*.cc' -o -name '*.h' \) | sort |
                   xargs -r /usr/bin/python3 "$(dirname "$0")/check-long-functions.py" "$max_function_lines")
if [ -n "$long_functions" ]; then
  echo "$long_functions"
  echo "check-structure: split the functions above into named steps of at most $max_function_lines lines" >&2
  status=1
fi
# Rule 5, over every target_link_libraries(...) call (joined when it spans lines) of the product folders.
link_report=$(
  find "${product_dirs[@]}" -name CMakeLists.txt | sort | xargs -r awk '
    BEGIN { rank["hvd_common"] = 0; rank["hvd_store"] = 1; rank["hvd_comm"] = 2; rank["hvd_engine"] = 3
            rank["hvd_api"] = 4 }
    FNR == 1 { call = "" }
    call == "" && /^[[:space:]]*target_link_libraries[[:space:]]*\(/ { call = ""; start = FNR }
    call != "" || /^[[:space:]]*target_link_libraries[[:space:]]*\(/ {
      call = call " " $0
      if (call !~ /\)/) next
      sub(/#.*/, "", call); gsub(/[()]/, " ", call)
      n = split(call, words, /[[:space:]]+/)
      for (i = 1; i <= n && words[i] != "target_link_libraries"; i++) {}
      from = words[i + 1]
      if (from in rank) {
        for (j = i + 2; j <= n; j++) {
          if ((words[j] in rank) && rank[words[j]] >= rank[from]) {
            printf "%s:%d: %s links %s, a layer not below it\n", FILENAME, start, from, words[j]
          }
        }
      }
      call = ""
    }'
)
if [ -n "$link_report" ]; then
  echo "$link_report"
  echo "check-structure: the runtime's libraries link down only (hvd_common <- hvd_store <- hvd_comm <- hvd_engine" \
       "<- hvd_api); move the shared piece down instead" >&2
  status=1
fi
# Rule 6. A site's kind is what precedes the first comma after `throw Error(` (on its line or the next).
max_kindless_throws=0
kindless_throws=$(product_files | xargs -r awk '
  function judge(rest, where) {
    sub(/,.*/, "", rest)
    if (rest !~ /ErrorKind::|kind\(\)/) print where ": throw Error(...) without its ErrorKind"
  }
  FNR == 1 { pending = "" }
  pending != "" { judge($0, pending); pending = "" }
  /^[ \t]*\/\// { next }
  /throw[ \t]+(hvd::)?Error\(/ {
    rest = $0; sub(/.*throw[ \t]+(hvd::)?Error\(/, "", rest)
    if (rest ~ /^[ \t]*$/) pending = FILENAME ":" FNR
    else judge(rest, FILENAME ":" FNR)
  }')
if [ -n "$kindless_throws" ] && [ "$(wc -l <<<"$kindless_throws")" -gt "$max_kindless_throws" ]; then
  echo "$kindless_throws"
  echo "check-structure: more than $max_kindless_throws throw sites give no kind; pass the ErrorKind that says what" \
       "failed (usage, peer lost, mismatch, backend, membership; internal for a broken invariant only)" >&2
  status=1
fi
exit "$status"
