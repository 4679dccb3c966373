#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The repository stands alone: no source, script, build file or document refers to files
# outside it (the team's shared folder next to the checkout, absolute paths of a development
# machine). What the code needs from there lives in docs/reference/ and tools/tcp-oracle/.
# .git is a directory in a clone and a file naming the repository in a git worktree.
set -euo pipefail
src=${1:?usage: check_standalone.sh SOURCE_DIR}
cd "$src"
hits=$(grep -rInE '\.\./shared|/work/(shared|main|wt)\b' \
  --exclude-dir=.git --exclude=.git --exclude-dir='build*' --exclude-dir=Testing . || true)
if [ -n "$hits" ]; then
  echo "references outside the repository:" >&2
  echo "$hits" >&2
  exit 1
fi
echo "no reference outside the repository"
