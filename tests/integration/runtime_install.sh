# `cmake --install` gives a user hvdrun, hvd-agent, libhvd, the headers, a CMake package and a pkg-config file:
# a program built out of tree against the installed package (both ways) runs under the installed hvdrun.
source "$(dirname "$0")/lib.bash"
: "${HVD_SOURCE:?set HVD_SOURCE to the repository root}"

prefix="$TEST_TMP/prefix"
cmake --install "$HVD_BIN/.." --prefix "$prefix" >"$TEST_TMP/install.log" 2>&1 || { cat "$TEST_TMP/install.log"; fail "cmake --install"; }
for f in bin/hvdrun bin/hvd-agent include/hvd/hvd.h include/hvd/c_api.h; do
  [ -e "$prefix/$f" ] || fail "installed tree lacks $f"
done
ls "$prefix"/lib*/libhvd.so >/dev/null || fail "installed tree lacks libhvd.so"
ls "$prefix"/lib*/cmake/hvd/hvdConfig.cmake >/dev/null || fail "installed tree lacks the CMake package"
pcdir=$(dirname "$(ls "$prefix"/lib*/pkgconfig/hvd.pc)")

# Only the public API is exported: every strong symbol is hvd's (weak ones are libstdc++ template copies that the
# dynamic linker merges with the program's own).
lib=$(ls "$prefix"/lib*/libhvd.so)
strong=$(nm -D --defined-only "$lib" | awk '$2 ~ /^[TDBR]$/ {print $3}' | c++filt)
if grep -vE '^hvd::|^hvd_|^(typeinfo|vtable|typeinfo name) for hvd::|^_init$|^_fini$|^$' <<<"$strong" | grep -q .; then
  grep -vE '^hvd::|^hvd_' <<<"$strong" | head
  fail "libhvd exports symbols outside the hvd API"
fi
grep -q '^hvd::init()' <<<"$strong" || fail "libhvd does not export hvd::init()"
pass "installed: hvdrun, hvd-agent, libhvd (API symbols only), headers, CMake package, hvd.pc"

cmake -S "$HVD_SOURCE/tests/install_project" -B "$TEST_TMP/user_build" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" \
  >"$TEST_TMP/user.log" 2>&1 && ninja -C "$TEST_TMP/user_build" >>"$TEST_TMP/user.log" 2>&1 \
  || { cat "$TEST_TMP/user.log"; fail "building a user project with find_package(hvd)"; }
export LD_LIBRARY_PATH="$(dirname "$lib")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
HVDRUN="$prefix/bin/hvdrun"
run_hvdrun 120 -np 3 "$TEST_TMP/user_build/train"
expect_rc 0 "user program (CMake) under the installed hvdrun"
[ "$(grep -c 'allreduce ok' <<<"$OUT")" -eq 3 ] || fail "not every rank reported"
pass "find_package(hvd) -> hvd::hvd program runs under the installed hvdrun at -np 3"

# shellcheck disable=SC2046
c++ -std=c++17 "$HVD_SOURCE/tests/install_project/train.cc" -o "$TEST_TMP/train_pc" \
  $(PKG_CONFIG_PATH="$pcdir" pkg-config --cflags --libs hvd) || fail "building with pkg-config hvd"
run_hvdrun 120 -np 2 "$TEST_TMP/train_pc"
expect_rc 0 "user program (pkg-config) under the installed hvdrun"
pass "pkg-config hvd program runs"
