#!/usr/bin/env bash
# Installs the Debian 12 (bookworm) packages that building and testing Ember need.
# Idempotent: silent and quick when everything is present (one dpkg-query); otherwise it
# refreshes the apt lists and installs what is missing, as root or through sudo.
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build ccache pkg-config git
  libopenblas-dev libopenblas-openmp-dev liblapacke-dev   # BLAS/LAPACK (OpenMP build)
  libdnnl-dev libsleef-dev                                # oneDNN, vectorized math
  libgtest-dev libbenchmark-dev                           # C++ tests and benchmarks
  clang-16                                                # compiles the C++ tests (CMakeLists.txt)
  pybind11-dev python3-dev python3-numpy python3-pytest python3-scipy python3-setuptools
  python3-torch libtorch-dev                              # PyTorch: the behavioural oracle
  libdlpack-dev valgrind
  nlohmann-json3-dev                                      # JSON (ember::save's headers)
  zlib1g-dev dataset-fashion-mnist                        # gzip IDX files; the demo's data and the tests'
)

installed=$(dpkg-query -W -f='${Package} ${db:Status-Status}\n' "${PACKAGES[@]}" 2>/dev/null |
            awk '$2 == "installed" { print $1 }' || true)
missing=()
for p in "${PACKAGES[@]}"; do
  grep -qx -- "$p" <<<"$installed" || missing+=("$p")
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

if [[ $(id -u) -eq 0 ]]; then
  SUDO=()
elif command -v sudo >/dev/null 2>&1; then
  SUDO=(sudo)
else
  echo "install-deps: missing ${missing[*]}, and neither root nor sudo is available" >&2
  exit 1
fi

echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
# Always refresh first: a fresh container ships with empty apt lists.
"${SUDO[@]}" apt-get update -qq
"${SUDO[@]}" apt-get install -y -qq "${missing[@]}"
