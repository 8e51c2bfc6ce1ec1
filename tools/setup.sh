#!/bin/sh
# setup.sh: the README's first command. Installs what is missing (as root),
# builds tile2cu, translates examples/squares.tl and compiles it with nvcc.
set -eu
cd "$(dirname "$0")/.."
need=""
dpkg -s libyaml-dev >/dev/null 2>&1 || need="$need libyaml-dev"
dpkg -s libcriterion-dev >/dev/null 2>&1 || need="$need libcriterion-dev"
dpkg -s libssl-dev >/dev/null 2>&1 || need="$need libssl-dev"
command -v cmake >/dev/null 2>&1 || need="$need cmake"
# the Python package's tests (make python-test): python3 -m venv needs ensurepip
command -v python3 >/dev/null 2>&1 || need="$need python3"
python3 -c 'import ensurepip' >/dev/null 2>&1 || need="$need python3-venv"
# libFuzzer and the sanitizer runtimes, for make test's fuzz pass and make test-asan
command -v clang >/dev/null 2>&1 || need="$need clang"
ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1 || need="$need libclang-rt-dev"
if [ -n "$need" ]; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq || true
    # shellcheck disable=SC2086
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $need
  else
    echo "setup: please install:$need (sudo apt-get install$need)" >&2
    exit 1
  fi
fi
export PATH="/usr/local/cuda/bin:$PATH"
make -j2
mkdir -p build/example
./build/tile2cu examples/squares.tl -o build/example/squares.cu
nvcc -arch=sm_90 -Xptxas -v $(./build/tile2cu --includes) -c build/example/squares.cu -o build/example/squares.o
echo "setup: build/example/squares.cu compiled to build/example/squares.o"
