#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Opt-in (not in ctest: valgrind is slow and not installed by scripts/install-deps):
# the leak cycles of test_conc_leak under valgrind's memcheck, on a normal build.
#   tests/concurrency/valgrind.sh [BUILD_DIR (build)] [CYCLES (1000)]
# Fails on any definite/indirect leak or memory error. --smc-check=all because the JIT
# writes new code where freed code was: valgrind must retranslate it.
set -euo pipefail
cd "$(dirname "$0")/../.."
dir=${1:-build}
cycles=${2:-1000}
command -v valgrind >/dev/null || { echo "valgrind not found (apt-get install valgrind)" >&2; exit 2; }
bin=$dir/tests/concurrency/test_conc_leak
[ -x "$bin" ] || { echo "$bin not built (scripts/build $dir)" >&2; exit 2; }
KBPF_LEAK_CYCLES=$cycles exec valgrind --quiet --leak-check=full --show-leak-kinds=definite,indirect \
  --errors-for-leak-kinds=definite,indirect --error-exitcode=1 --smc-check=all "$bin"
