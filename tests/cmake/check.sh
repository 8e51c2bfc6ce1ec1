#!/bin/sh
# The CMake package (cmake/Tile2cuConfig.cmake), without a GPU:
#  1. configure and build examples/cmake_host against the source tree's cmake/
#     dir and build/tile2cu (build only: there may be no GPU);
#  2. an up-to-date build does nothing, and a .cu older than its .tl is regenerated;
#  3. `make install DESTDIR=build/stage` installs a package that find_package finds,
#     with its include dir inside the staged prefix;
#  4. the package version equals TILE2CU_VERSION.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
B=$root/build
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
CMAKE=${CMAKE:-cmake}
fail() { echo "cmake-example: FAIL: $*"; exit 1; }
command -v "$CMAKE" > /dev/null || fail "cmake is not installed"

version=$(sed -n 's/^#define TILE2CU_VERSION "\(.*\)"/\1/p' translator/t2c.h)
grep -q "set(PACKAGE_VERSION \"$version\")" cmake/Tile2cuConfigVersion.cmake ||
  fail "cmake/Tile2cuConfigVersion.cmake does not say PACKAGE_VERSION \"$version\""

out=$B/cmake_host
"$CMAKE" -S examples/cmake_host -B "$out" -DTile2cu_DIR="$root/cmake" \
  -DTILE2CU_EXECUTABLE="$B/tile2cu" -DCMAKE_CUDA_COMPILER="$NVCC" > "$out.log" 2>&1 ||
  { cat "$out.log"; fail "configuring examples/cmake_host"; }
"$CMAKE" --build "$out" > "$out.log" 2>&1 || { cat "$out.log"; fail "building examples/cmake_host"; }
[ -x "$out/squares_host" ] || fail "no squares_host"
[ -f "$out/tile2cu/include/squares.h" ] || fail "HOST did not write tile2cu/include/squares.h"
grep -q 'configs/sm_90.yaml' "$out/tile2cu/squares.cu.d" || fail "the depfile does not name the target config"

# Up to date: nothing to do. A .cu older than the .tl: regenerated and rebuilt.
"$CMAKE" --build "$out" 2>&1 | grep -q 'tile2cu squares.tl' && fail "an up-to-date build reran tile2cu"
touch -d '2001-01-01 00:00' "$out/tile2cu/squares.cu"
"$CMAKE" --build "$out" 2>&1 | grep -q 'tile2cu squares.tl' || fail "a stale squares.cu was not regenerated"

# The installed package.
stage=$B/stage
rm -rf "$stage"
prefix=/usr/local
make -s install DESTDIR="$stage" PREFIX=$prefix > /dev/null
for f in lib/cmake/Tile2cu/Tile2cuConfig.cmake lib/cmake/Tile2cu/Tile2cuConfigVersion.cmake \
         share/man/man1/tile2cu.1 bin/tile2cu include/tile2cu/rt.cuh; do
  [ -f "$stage$prefix/$f" ] || fail "make install did not install $prefix/$f"
done
probe=$B/cmake_probe
rm -rf "$probe" && mkdir -p "$probe/src"
cat > "$probe/src/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.20)
project(probe NONE)
find_package(Tile2cu 0.1 REQUIRED)
message(STATUS "T2C_EXE=${TILE2CU_EXECUTABLE}")
message(STATUS "T2C_INC=${Tile2cu_INCLUDE_DIR}")
CM
"$CMAKE" -S "$probe/src" -B "$probe/b" -DCMAKE_PREFIX_PATH="$stage$prefix" > "$probe/log" 2>&1 ||
  { cat "$probe/log"; fail "find_package(Tile2cu) on the staged install"; }
grep -q "T2C_EXE=$stage$prefix/bin/tile2cu" "$probe/log" || { cat "$probe/log"; fail "the staged package found another tile2cu"; }
grep -q "T2C_INC=$stage$prefix/include\$" "$probe/log" || { cat "$probe/log"; fail "the staged include dir is wrong"; }
echo "cmake-example: examples/cmake_host configured and built; staged install found by find_package"
