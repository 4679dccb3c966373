#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# usage: run.sh FUZZER CORPUS_DIR REGRESSIONS_DIR SECONDS
# Replays every regression input, then fuzzes for SECONDS from a scratch copy of the
# corpus (the committed corpus is not modified; grow it by hand with -merge=1).
# Findings land in ./fuzz-artifacts/ (the ctest build directory).
set -euo pipefail
fuzzer=$1 corpus=$2 regress=$3 seconds=$4
mkdir -p "$regress"
if compgen -G "$regress/*" >/dev/null; then
  "$fuzzer" -runs=0 "$regress"/*
fi
artifacts=$(pwd)/fuzz-artifacts/
mkdir -p "$artifacts"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
[ -d "$corpus" ] && cp -r "$corpus"/. "$work"/ 2>/dev/null || true
cd "$work"
# a dictionary next to the corpus (corpus/NAME.dict), if the target has one
dict=()
[ -f "${corpus%/}.dict" ] && dict=(-dict="${corpus%/}.dict")
"$fuzzer" -max_total_time="$seconds" -max_len=65536 -timeout=10 -rss_limit_mb=2048 "${dict[@]}" \
  -artifact_prefix="$artifacts" "$work" 2>&1 | tail -n 5
# a finding is kept in $artifacts: copy it into REGRESSIONS_DIR once fixed
