# hvd's Debian packages (cmake/Package.cmake, scripts/package.sh) work outside the build tree: built with CPack,
# their Depends name Debian packages installed here, pinning the exact LibTorch and python3-torch releases; installed
# by dpkg into a temporary root, with the source and build trees hidden (a tmpfs over them), hvdrun -np 2 runs a
# program built against the unpacked headers and library, and `import hvd.torch` works from the unpacked Python
# package; every RPATH and hvd.__file__ point inside that root; removing the packages leaves none of their files.
source "$(dirname "$0")/lib.bash"
: "${HVD_SOURCE:?set HVD_SOURCE to the repository root}"
[ "$(id -u)" -eq 0 ] || fail "needs root: dpkg and the mount namespace that hides the build tree"
build="$(cd "$HVD_BIN/.." && pwd)"

(cd "$build" && cpack -G DEB -B "$TEST_TMP/debs" >"$TEST_TMP/cpack.log" 2>&1) || { cat "$TEST_TMP/cpack.log"; fail "cpack -G DEB"; }
debs=("$TEST_TMP"/debs/hvd_*.deb "$TEST_TMP"/debs/libhvd-torch_*.deb "$TEST_TMP"/debs/python3-hvd_*.deb)
for deb in "${debs[@]}"; do [ -f "$deb" ] || fail "cpack made no $(basename "$deb") (made: $(ls "$TEST_TMP/debs"))"; done
pass "cpack: hvd, libhvd-torch and python3-hvd"

# Every dependency is a Debian package installed here; the LibTorch and python3-torch ones at the exact version.
installed_version() { dpkg-query -W -f='${Version}' "$1" 2>/dev/null; }
for deb in "${debs[@]}"; do
  depends=$(dpkg-deb -f "$deb" Depends)
  [ -n "$depends" ] || fail "$(basename "$deb") has no Depends"
  while read -r name; do
    case "$name" in hvd | libhvd-torch) continue ;; esac
    [ -n "$(installed_version "$name")" ] || fail "$(basename "$deb") depends on '$name', which is not an installed Debian package"
  done < <(tr ',|' '\n\n' <<<"$depends" | sed 's/^ *//; s/ .*//' | grep .)
done
torch_pin=$(dpkg-deb -f "${debs[1]}" Depends)
grep -qF "libtorch1.13 (= $(installed_version libtorch1.13))" <<<"$torch_pin" || fail "libhvd-torch does not pin libtorch1.13 $(installed_version libtorch1.13): '$torch_pin'"
python_pin=$(dpkg-deb -f "${debs[2]}" Depends)
grep -qF "python3-torch (= $(installed_version python3-torch))" <<<"$python_pin" || fail "python3-hvd does not pin python3-torch $(installed_version python3-torch): '$python_pin'"
pass "Depends: Debian packages installed here; libtorch1.13 and python3-torch pinned to the versions built against"

# A root of its own with its own dpkg database: the machine's packages are not touched.
root="$TEST_TMP/root"
admin="$TEST_TMP/dpkg"
mkdir -p "$root" "$admin/info" "$admin/updates" && : >"$admin/status"
mydpkg() { dpkg --root="$root" --admindir="$admin" --force-depends --force-script-chrootless --log=/dev/null "$@"; }
mydpkg -i "${debs[@]}" >"$TEST_TMP/dpkg-install.log" 2>&1 || { cat "$TEST_TMP/dpkg-install.log"; fail "dpkg -i into $root"; }
usr="$root/usr"
[ -x "$usr/bin/hvdrun" ] && [ -x "$usr/bin/hvd-agent" ] && [ -f "$usr/share/man/man1/hvdrun.1" ] ||
  fail "the installed root lacks hvdrun, hvd-agent or hvdrun(1): $(find "$root" -maxdepth 3 | head)"

# A user's program, built against the unpacked headers and library (CMake's find_package(hvd)).
cp -r "$HVD_SOURCE/tests/install_project" "$TEST_TMP/user_src"
cmake -S "$TEST_TMP/user_src" -B "$TEST_TMP/user_build" -G Ninja -DCMAKE_PREFIX_PATH="$usr" >"$TEST_TMP/user.log" 2>&1 &&
  ninja -C "$TEST_TMP/user_build" >>"$TEST_TMP/user.log" 2>&1 || { cat "$TEST_TMP/user.log"; fail "building a program against $usr"; }
grep -q "$usr/include" "$TEST_TMP/user_build/compile_commands.json" 2>/dev/null ||
  grep -rq -- "-isystem $usr/include\|-I$usr/include" "$TEST_TMP/user_build/build.ninja" ||
  fail "the program was not compiled against $usr/include"

# runpaths FILE: the RUNPATH/RPATH entries of FILE, $ORIGIN resolved, one a line.
runpaths() {
  local dir; dir=$(dirname "$(realpath "$1")")
  readelf -d "$1" | sed -n 's/.*R\(UN\)\?PATH.*\[\(.*\)\]/\2/p' | tr ':' '\n' | grep . | sed "s|\$ORIGIN|$dir|" |
    while read -r p; do realpath -m "$p"; done
}
for file in "$TEST_TMP/user_build/train" "$usr"/lib/python3/dist-packages/hvd/torch/_C*.so "$usr/lib/libhvd_torch.so"; do
  paths=$(runpaths "$file")
  grep -q "^$usr/lib$" <<<"$paths" || fail "$(basename "$file")'s RPATH does not reach $usr/lib: $(tr '\n' ' ' <<<"$paths")"
  if grep -q "^$build\|^$HVD_SOURCE" <<<"$paths"; then fail "$(basename "$file")'s RPATH points into the build tree: $paths"; fi
done
pass "RPATHs of the program, the extension and libhvd_torch point inside $root"

# With the source and build trees hidden under a tmpfs: only the unpacked root can serve.
cat >"$TEST_TMP/hidden.sh" <<SCRIPT
set -u
mount -t tmpfs hidden "$HVD_SOURCE" && mount -t tmpfs hidden "$build" 2>/dev/null || true
[ -z "\$(ls -A "$HVD_SOURCE")" ] || { echo "source tree still visible"; exit 90; }
cd "$TEST_TMP"
timeout 120 "$usr/bin/hvdrun" -np 2 "$TEST_TMP/user_build/train" >job.out 2>job.err; echo "job rc=\$?"
PYTHONPATH="$usr/lib/python3/dist-packages" timeout 120 "$usr/bin/hvdrun" -np 2 /usr/bin/python3 -c '
import torch, hvd, hvd.torch as h
h.init()
t = h.allreduce(torch.tensor([float(h.rank() + 1)]), op=h.Sum)
print("file", hvd.__file__, "sum", int(t.item()))
' >py.out 2>py.err; echo "python rc=\$?"
SCRIPT
result=$(unshare --mount --propagation private bash "$TEST_TMP/hidden.sh" 2>&1)
grep -qx "job rc=0" <<<"$result" || { echo "$result"; cat "$TEST_TMP/job.out" "$TEST_TMP/job.err"; fail "hvdrun -np 2 from the package (trees hidden)"; }
[ "$(grep -c 'allreduce ok' "$TEST_TMP/job.out")" -eq 2 ] || { cat "$TEST_TMP/job.out"; fail "not both ranks of the packaged job reported"; }
grep -qx "python rc=0" <<<"$result" || { echo "$result"; cat "$TEST_TMP/py.out" "$TEST_TMP/py.err"; fail "import hvd.torch from the package (trees hidden)"; }
for r in 0 1; do
  grep -qx "\[$r\]<stdout>:file $usr/lib/python3/dist-packages/hvd/__init__.py sum 3" "$TEST_TMP/py.out" ||
    { cat "$TEST_TMP/py.out"; fail "rank $r: hvd.__file__ is not inside $root, or the allreduce is wrong"; }
done
pass "trees hidden: hvdrun -np 2 runs the program built against the package; hvd.torch imports from $root and allreduces"

mydpkg -r python3-hvd libhvd-torch hvd >"$TEST_TMP/dpkg-remove.log" 2>&1 || { cat "$TEST_TMP/dpkg-remove.log"; fail "dpkg -r"; }
left=$(find "$root" -not -type d)
[ -z "$left" ] || fail "removing the packages left files behind: $left"
pass "dpkg -r hvd libhvd-torch python3-hvd leaves no file of theirs"
