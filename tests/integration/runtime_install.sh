# `cmake --install` gives a user hvdrun, hvd-agent, libhvd, the headers, a CMake package and a pkg-config file:
# a program built out of tree against the installed package (both ways) runs under the installed hvdrun; the
# CMake target makes its users C++20 (the headers need it); a pkg-config build starts without LD_LIBRARY_PATH
# (hvd.pc carries the rpath); with LibTorch, hvd_torch is installed too and a LibTorch program builds with
# find_package(hvd COMPONENTS torch) -> hvd::hvd_torch and runs.
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

# pkg-config, and no LD_LIBRARY_PATH: the rpath in hvd.pc's Libs finds libhvd in the prefix.
# shellcheck disable=SC2046
c++ -std=c++20 "$HVD_SOURCE/tests/install_project/train.cc" -o "$TEST_TMP/train_pc" \
  $(PKG_CONFIG_PATH="$pcdir" pkg-config --cflags --libs hvd) || fail "building with pkg-config hvd"
# Captured first: `ldd | grep -q` under pipefail fails when grep exits before ldd has written all (SIGPIPE).
linked=$(unset LD_LIBRARY_PATH; ldd "$TEST_TMP/train_pc")
grep -q "libhvd.so.0 => $prefix" <<<"$linked" || { echo "$linked"; fail "the pkg-config program does not find libhvd in $prefix by itself"; }
saved_ld=$LD_LIBRARY_PATH
unset LD_LIBRARY_PATH
run_hvdrun 120 -np 2 "$TEST_TMP/train_pc"
expect_rc 0 "user program (pkg-config, no LD_LIBRARY_PATH) under the installed hvdrun"
export LD_LIBRARY_PATH=$saved_ld
pass "pkg-config hvd program starts and runs without LD_LIBRARY_PATH"

if ! grep -qF '[X] LibTorch' <<<"$("$HVD_BIN/hvdrun" --check-build)"; then
  echo "skip: this build has no hvd_torch (LibTorch not found); the LibTorch install checks are skipped"
  exit 0
fi
[ -e "$prefix/include/hvd/torch.h" ] || fail "installed tree lacks include/hvd/torch.h"
ls "$prefix"/lib*/libhvd_torch.so >/dev/null || fail "installed tree lacks libhvd_torch.so"
ls "$prefix"/lib*/cmake/hvd/hvdTorchTargets.cmake >/dev/null || fail "the CMake package lacks hvd::hvd_torch"
cmake -S "$HVD_SOURCE/tests/install_project_torch" -B "$TEST_TMP/torch_build" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" \
  >"$TEST_TMP/torch.log" 2>&1 && ninja -C "$TEST_TMP/torch_build" >>"$TEST_TMP/torch.log" 2>&1 \
  || { cat "$TEST_TMP/torch.log"; fail "building a LibTorch project with find_package(hvd COMPONENTS torch)"; }
run_hvdrun 120 -np 2 "$TEST_TMP/torch_build/train_torch"
expect_rc 0 "LibTorch user program under the installed hvdrun"
[ "$(grep -c 'torch allreduce ok' <<<"$OUT")" -eq 2 ] || fail "not every rank reported: $OUT"
pass "find_package(hvd COMPONENTS torch) -> hvd::hvd_torch program runs under the installed hvdrun at -np 2"
