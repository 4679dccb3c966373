# SPDX-License-Identifier: Apache-2.0
# Shared by the end-to-end scripts of the kbpf command: source it after setting
# kbpf=BINARY. Gives $tmp (removed at exit), ok/bad counters, expect, expect_error and
# finish (prints "N passed, N failed" and fails if anything failed).
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0
# Set to 1 to also require that a failing command prints exactly one line on stderr.
one_line_errors=${one_line_errors:-0}

ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAIL: $*"; }

# expect CODE PATTERN -- ARGS...: exit code CODE and PATTERN (grep -E) in stdout+stderr.
expect() {
  local code=$1 pat=$2
  shift 3
  local out err rc
  out=$("$kbpf" "$@" 2>"$tmp/stderr")
  rc=$?
  err=$(cat "$tmp/stderr")
  if [ "$rc" != "$code" ]; then
    bad "kbpf $* exited $rc, expected $code: $(head -c 500 <<<"$out$err")"
  elif [ -n "$pat" ] && ! grep -Eq -- "$pat" <<<"$out$err"; then
    bad "kbpf $* output lacks /$pat/: $(head -c 500 <<<"$out$err")"
  elif [ "$one_line_errors" = 1 ] && [ "$rc" != 0 ] && [ "$(wc -l <"$tmp/stderr")" != 1 ]; then
    bad "kbpf $* printed $(wc -l <"$tmp/stderr") lines on stderr, expected one: $err"
  else
    ok
  fi
}

# expect_error CODE PATTERN -- ARGS...: exit code CODE, nothing on stdout, exactly one
# line on stderr, matching PATTERN.
expect_error() {
  local code=$1 pat=$2
  shift 3
  local out err rc
  out=$("$kbpf" "$@" 2>"$tmp/stderr")
  rc=$?
  err=$(cat "$tmp/stderr")
  if [ "$rc" != "$code" ]; then
    bad "kbpf $* exited $rc, expected $code: $err"
  elif [ -n "$out" ]; then
    bad "kbpf $* printed on stdout: $(head -c 300 <<<"$out")"
  elif [ "$(wc -l <"$tmp/stderr")" != 1 ]; then
    bad "kbpf $* printed $(wc -l <"$tmp/stderr") lines, not one: $err"
  elif ! grep -Eq -- "$pat" <<<"$err"; then
    bad "kbpf $* error lacks /$pat/: $err"
  else
    ok
  fi
}

# docs_workdir: for running documented commands as written: skip (exit 0) without
# clang, put `kbpf` ($kbpf) in $tmp/bin for PATH, and cd to an empty $tmp/work.
docs_workdir() {
  command -v clang >/dev/null || { echo "clang not found: skipped"; exit 0; }
  mkdir -p "$tmp/bin" "$tmp/work"
  ln -s "$(readlink -f "$kbpf")" "$tmp/bin/kbpf"
  cd "$tmp/work" || exit 1
}

finish() {
  echo "$passed passed, $failed failed"
  [ "$failed" -eq 0 ]
}
