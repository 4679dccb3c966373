#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# bash completion (tools/kbpf/kbpf.bash-completion, installed with the command): commands,
# each command's options, program types for --type (Linux's and libbpf's SEC() names),
# and that `cmake --install` puts it where bash-completion looks.
# usage: completion.sh KBPF_BINARY SOURCE_DIR BUILD_DIR
set -u
kbpf=$1 src=$2 build=$3
source "$(dirname "$0")/lib.sh"

# complete WORDS...: the candidates for the last word
complete_words() {
  bash -c '
    source "$1"; shift
    COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
    _kbpf
    printf "%s\n" "${COMPREPLY[@]}"' _ "$src/tools/kbpf/kbpf.bash-completion" "$@"
}
check() { # check PATTERN WORDS...
  local pat=$1; shift
  local out
  out=$(complete_words "$@")
  if grep -Eq -- "$pat" <<<"$out"; then ok; else bad "completing '$*': no /$pat/ in: $(head -c 300 <<<"$out")"; fi
}
check '^verify$' "$kbpf" ve
check '^gen$' "$kbpf" ""
check '^--show-globals$' "$kbpf" run --sh
check '^--set$' "$kbpf" run --se
check '^--log-level$' "$kbpf" verify --log
check '^--host$' "$kbpf" kfuncs --ho
check '^sched_cls$' "$kbpf" verify --type sch
check '^classifier$' "$kbpf" verify --type cla
check '^tc$' "$kbpf" run --type t
check '^skeleton$' "$kbpf" gen sk
check '^dump$' "$kbpf" prog d
out=$(complete_words "$kbpf" verify --type zzz)
[ -z "$out" ] && ok || bad "--type zzz completes to $out"

# installed with the command
if cmake --install "$build" --prefix "$tmp/prefix" --component Unspecified >"$tmp/install.log" 2>&1 &&
   [ -f "$tmp/prefix/share/bash-completion/completions/kbpf" ] && [ -x "$tmp/prefix/bin/kbpf" ]; then
  ok
else
  bad "cmake --install: $(tail -c 500 "$tmp/install.log"); $(find "$tmp/prefix" -type f | head)"
fi

finish
