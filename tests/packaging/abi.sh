#!/usr/bin/env bash
# abi.sh SRCDIR BINDIR LIBWAGGLE_SO CC CXX - the public API is what leaves
# the shared library, and nothing else (STYLE 17, waggle/export.h):
#   a) every function prototype in include/waggle/**/*.h carries WG_EXTERN;
#   b) `nm -D --defined-only libwaggle.so` lists only wg_* names, and exactly
#      the WG_EXTERN ones (an internal name leaking out, or a public
#      prototype with no definition, both fail);
#   c) every public header has extern "C" guards, includes waggle/export.h
#      and compiles alone, as C11 and as C++11, warnings as errors;
#   d) the version has one source (project() in CMakeLists.txt): the
#      generated waggle/version.h, waggle.pc, `waggled --version` and the
#      newest release heading of CHANGELOG.md agree.
set -euo pipefail
src=$1 bin=$2 lib=$3 cc=$4 cxx=$5
gen=$bin/generated
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

mapfile -t headers < <(cd "$src/include" && find waggle -name '*.h' | sort)
headers+=(waggle/version.h)   # generated from cmake/version.h.in
path_of() { [ "$1" = waggle/version.h ] && echo "$gen/$1" || echo "$src/include/$1"; }
files=()
for h in "${headers[@]}"; do files+=("$(path_of "$h")"); done

echo "== a) WG_EXTERN on every public prototype (${#headers[@]} headers)"
python3 "$src/tests/packaging/abi_protos.py" "${files[@]}" || fail=1
grep -rn 'WG_EXTERN' "$src/src" | sed 's/^/WG_EXTERN outside include\/waggle: /' | grep . && fail=1

echo "== b) the shared library exports the public API only"
nm -D --defined-only "$lib" | awk '{print $NF}' | sort -u > "$tmp/exported"
grep -v '^wg_' "$tmp/exported" | sed 's/^/exported, not wg_*: /' | grep . && fail=1
python3 -c '
import sys, importlib.util
spec = importlib.util.spec_from_file_location("p", sys.argv[1])
p = importlib.util.module_from_spec(spec); spec.loader.exec_module(p)
names = set()
for path in sys.argv[2:]:
    names.update(name for _, name, _ in p.prototypes(open(path, encoding="utf-8").read()))
print("\n".join(sorted(names)))
' "$src/tests/packaging/abi_protos.py" "${files[@]}" > "$tmp/declared"
grep '__' "$tmp/declared" | sed 's/^/a public name with the internal "__": /' | grep . && fail=1
comm -13 "$tmp/declared" "$tmp/exported" | sed 's/^/exported but not a public prototype: /' | grep . && fail=1
comm -23 "$tmp/declared" "$tmp/exported" | sed 's/^/declared WG_EXTERN but not exported (no definition?): /' | grep . && fail=1
echo "$(wc -l < "$tmp/exported") symbols exported, $(wc -l < "$tmp/declared") public prototypes"

echo "== c) each public header alone: extern \"C\", C11, C++11"
for h in "${headers[@]}"; do
  f=$(path_of "$h")
  if [ "$h" != waggle/waggle.h ] && [ "$h" != waggle/export.h ]; then
    grep -q 'extern "C"' "$f" || { echo "$h: no extern \"C\" guard"; fail=1; }
  fi
  [ "$h" = waggle/export.h ] || grep -q '#include "waggle/export.h"' "$f" ||
    { echo "$h: does not include waggle/export.h"; fail=1; }
  printf '#include <%s>\n#include <%s>\nint main(void) { return 0; }\n' "$h" "$h" > "$tmp/one.c"
  cp "$tmp/one.c" "$tmp/one.cpp"
  "$cc" -std=c11 -Wall -Wextra -Werror -pedantic -I"$src/include" -I"$gen" $(pkg-config --cflags jansson) \
    -fsyntax-only "$tmp/one.c" 2> "$tmp/err" || { echo "$h: does not compile alone as C11"; cat "$tmp/err"; fail=1; }
  "$cxx" -std=c++11 -Wall -Wextra -Werror -I"$src/include" -I"$gen" $(pkg-config --cflags jansson) \
    -fsyntax-only "$tmp/one.cpp" 2> "$tmp/err" || { echo "$h: does not compile alone as C++11"; cat "$tmp/err"; fail=1; }
done

echo "== d) one version"
v=$(sed -n 's/^#define WG_VERSION_STRING "\(.*\)"$/\1/p' "$gen/waggle/version.h")
pc=$(sed -n 's/^Version: //p' "$bin/waggle.pc")
cli=$("$bin/waggled" --version | awk '{print $2}')
log=$(grep -m1 -o '^## \[[0-9][^]]*\]' "$src/CHANGELOG.md" | tr -d '#[] ')
echo "version.h=$v waggle.pc=$pc waggled=$cli CHANGELOG=$log"
[ -n "$v" ] && [ "$v" = "$pc" ] && [ "$v" = "$cli" ] && [ "$v" = "$log" ] ||
  { echo "the version differs between them"; fail=1; }
[ ! -e "$src/include/waggle/version.h" ] ||
  { echo "include/waggle/version.h is hand-written: it is generated from cmake/version.h.in"; fail=1; }

[ $fail -eq 0 ] && echo "abi: ok" || echo "abi: FAILED"
exit $fail
