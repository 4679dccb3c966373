#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# --json (issue 19, item 8): verify, run, prog list/dump and map dump print one JSON
# document with the keys docs/loader.md ("JSON output") documents; kfuncs --json is
# tested in tests/host/kfuncs_cli.sh. Each document is parsed and its keys checked.
# usage: json.sh KBPF_BINARY TEST_BPF_DIR
set -u
kbpf=$1
objs=$2
source "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || { echo "python3 not found: skipped"; exit 0; }

# json_check EXIT PYTHON-ASSERTIONS -- ARGS: the output parses, d is the document
json_check() {
  local code=$1 py=$2
  shift 3
  "$kbpf" "$@" >"$tmp/out.json" 2>"$tmp/err"
  local rc=$?
  if [ "$rc" != "$code" ]; then bad "kbpf $* exited $rc: $(cat "$tmp/err")"; return; fi
  if python3 -c "import json,sys
d = json.load(open(sys.argv[1]))
$py" "$tmp/out.json" 2>"$tmp/py.err"; then ok; else bad "kbpf $*: $(head -c 600 "$tmp/out.json") / $(tail -2 "$tmp/py.err")"; fi
}

printf 'r0 = 7\nexit\n' >"$tmp/r7.s"
printf 'r0 = *(u64 *)(r1 + 0)\nexit\n' >"$tmp/bad.s"
# verify
json_check 0 'assert d["file"].endswith("globals.bpf.o")
p = d["programs"]; assert [x["name"] for x in p] == ["globals", "sum_big"], p
assert all(x["verdict"] == "safe" and x["type"] == "sched_cls" and x["error"] is None for x in p), p
assert "processed" in p[0]["log"]' -- verify --json "$objs/globals.bpf.o"
json_check 1 'p = d["programs"][0]
assert p["verdict"] == "rejected" and p["error"] == "Permission denied", p
assert "invalid bpf_context access off=0 size=8" in p["log"], p' -- verify --json "$tmp/bad.s"
json_check 1 'p = d["programs"][0]
assert p["verdict"] == "rejected" and "<invalid CO-RE relocation>" in p["log"], p' -- verify --json "$objs/core_host.bpf.o" read_flow
# run
json_check 0 'assert d == {"retval": 7}, d' -- run --json --trusted-unverified "$tmp/r7.s"
json_check 0 'assert d["retval"] == 7 and d["insns_executed"] == 2 and d["runs"] == 3 and d["duration_ns"] >= 0, d' -- \
  run --json --checked --repeat 3 "$tmp/r7.s"
json_check 0 'assert d["retval"] == 5, d
g = d["globals"]
assert g[".rodata"]["mode"] == "MODE_SLOW" and g[".rodata"]["limits"] == {"lo": 1, "hi": 2, "bias": -3}, g
assert g[".bss"] == {"hits": 1} and g[".data"] == {"last": 107}, g  # "n" - 3
assert d["packet_out"] == "00" * 14, d' -- run --json "$objs/config.bpf.o" --set mode=MODE_SLOW --show-globals
# prog list / dump
json_check 0 'p = d["programs"]
assert [(x["name"], x["section"], x["type"], x["autoload"]) for x in p][:2] == [("globals", "tc", "sched_cls", True), ("sum_big", "tc", "sched_cls", True)], p
assert all(isinstance(x["insns"], int) and x["insns"] > 0 for x in p)' -- prog list --json "$objs/globals.bpf.o"
json_check 0 'p = d["programs"]; assert len(p) == 1 and p[0]["name"] == "globals", p
i = p[0]["insns"]
assert i[0]["index"] == 0 and i[0]["map"] == ".bss" and i[0]["source"]["line"] > 0, i[0]
assert i[-1]["text"] == "exit" and i[-1]["code"] == 0x95, i[-1]' -- prog dump --json "$objs/globals.bpf.o" globals
# map dump
json_check 0 'm = {x["name"]: x for x in d["maps"]}
assert m[".data"]["entries"][0]["value"] == {"data_var": 10, "str": "hello", "big": [1, 2, 3, 4]}, m[".data"]
assert m[".rodata"]["frozen"] is True and m[".rodata"]["type"] == "array" and m[".rodata"]["value_size"] == 4, m[".rodata"]' -- \
  map dump --json "$objs/globals.bpf.o"
json_check 0 'm = {x["name"]: x for x in d["maps"]}
assert m["jmp"]["entries"] is None and m["rb"]["entries"] is None, m
assert [e["key"] for e in m["array"]["entries"]] == [0, 1, 2, 3], m["array"]
assert all(len(e["values"]) >= 1 for e in m["pcpu_array"]["entries"]), m["pcpu_array"]' -- map dump --json "$objs/maps.bpf.o"
# usage errors stay one line, nothing on stdout
expect_error 2 "--json goes with 'list' and 'dump'" -- prog load --json "$objs/globals.bpf.o"

finish
