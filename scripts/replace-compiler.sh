#!/usr/bin/env bash
# A CXX_COMPILER_LAUNCHER that runs a compile command with another compiler (CMakeLists.txt
# builds the C++ tests with clang this way). CMake calls it as
#   replace-compiler.sh [LAUNCHER...] COMPILER -- PROJECT_COMPILER ARGS...
# and it runs "[LAUNCHER...] COMPILER ARGS...".
set -euo pipefail
prefix=()
while [[ $1 != -- ]]; do prefix+=("$1"); shift; done
shift 2  # "--" and the project's compiler
# CMake builds a precompiled header GCC's way: "-x c++-header -include H -o H.gch". clang's
# -include also reads H.gch when it exists, so an outdated one must go before it is rebuilt.
if [[ " $* " == *" -x c++-header "* ]]; then
  args=("$@")
  for ((i = 0; i + 1 < ${#args[@]}; ++i)); do
    [[ ${args[i]} == -o ]] && rm -f -- "${args[i + 1]}"
  done
fi
exec "${prefix[@]}" "$@"
