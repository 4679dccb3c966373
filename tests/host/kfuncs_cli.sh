#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# End-to-end tests of `kbpf kfuncs`, run as a user would: auditing the example host's
# plugin (examples/kfunc-host, shop-kfuncs.so), as text and JSON, by program type, and the
# errors a user can meet.
# usage: kfuncs_cli.sh KBPF_BINARY PLUGIN_SO
set -u
kbpf=$1
plugin=$2
. "$(dirname "$0")/../cli/lib.sh"

# the host's exports, with prototypes from its BTF
expect 0 '^/\* program type checkout \*/$' -- kfuncs --host "$plugin"
expect 0 '^uint32_t shop_discount\(uint32_t price_cents, uint8_t percent\); /\* set shop, btf_id [0-9]+ \*/$' -- kfuncs --host "$plugin"
expect 0 '^uint64_t shop_ring_up\(struct till \*till, uint32_t price_cents\);' -- kfuncs --host "$plugin"
expect 0 'shop_ring_up' -- kfuncs --host "$plugin" --type checkout
# deny by default: another type gets nothing ('tc' is libbpf's name for sched_cls). A
# name no type has is a usage error, not "no kfuncs" (a typo read as "nothing callable")
expect 0 '^/\* program type sched_cls: no kfuncs' -- kfuncs --host "$plugin" --type tc
expect_error 2 "^kbpf kfuncs: --type: 'checkou' is no program type" -- kfuncs --host "$plugin" --json --type checkou
# kbpf's own host: a type with only Linux's common kfuncs (kbpf's own BTF has them)
out=$("$kbpf" kfuncs --type sched_cls 2>&1)
if [ "$(grep -c ';' <<<"$out")" = 2 ] && grep -q '^void \*bpf_cast_to_kern_ctx(void \*obj); /\* set common_kfunc_set' <<<"$out" &&
   grep -q '^void \*bpf_rdonly_cast(const void \*obj__ign, uint32_t btf_id__k);' <<<"$out"; then ok; else bad "--type sched_cls: $out"; fi
# every type's listing: the common kfuncs once, first, then only tcp_congestion_ops' own
out=$("$kbpf" kfuncs 2>&1)
if head -1 <<<"$out" | grep -q '^/\* every program type ([0-9]*): ' && [ "$(grep -c 'bpf_cast_to_kern_ctx' <<<"$out")" = 1 ] &&
   [ "$(grep -c '^/\* program type' <<<"$out")" = 1 ]; then ok; else bad "kfuncs (all types): $(head -c 600 <<<"$out")"; fi
# the kbpf command's own host: the TCP host's kfuncs, which 'kbpf run' and 'tcp-sim'
# programs may call; the listing without --type said "no kfuncs registered" while
# --type tcp_congestion_ops listed them
expect 0 '^/\* program type tcp_congestion_ops \*/$' -- kfuncs
expect 0 ' tcp_slow_start\(' -- kfuncs
# JSON: valid, and says the same
if "$kbpf" kfuncs --host "$plugin" --json >"$tmp/out.json" 2>&1; then
  if python3 - "$tmp/out.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
t = d["prog_types"]
assert len(t) == 1 and t[0]["prog_type"] == "checkout", t
names = sorted(k["name"] for k in t[0]["kfuncs"])
assert names == ["shop_discount", "shop_ring_up"], names
k = [k for k in t[0]["kfuncs"] if k["name"] == "shop_discount"][0]
assert k["prototype"] == "uint32_t shop_discount(uint32_t price_cents, uint8_t percent)", k
assert k["flags"] == [] and k["set"] == "shop" and k["btf_id"] > 0, k
PY
  then ok; else bad "kfuncs --json: $(head -c 800 "$tmp/out.json")"; fi
else
  bad "kfuncs --json failed: $(head -c 500 "$tmp/out.json")"
fi
if "$kbpf" kfuncs --json >"$tmp/own.json" 2>&1 && python3 - "$tmp/own.json" <<'PY'; then
import json, sys
d = json.load(open(sys.argv[1]))
assert d["host"] is None, d["host"]
t = {t["prog_type"]: sorted(k["name"] for k in t["kfuncs"]) for t in d["prog_types"]}
# JSON stays complete: every type with its kfuncs, the common ones in each
assert t["sched_cls"] == ["bpf_cast_to_kern_ctx", "bpf_rdonly_cast"], t["sched_cls"]
assert "tcp_slow_start" in t["tcp_congestion_ops"] and "bpf_rdonly_cast" in t["tcp_congestion_ops"], t
assert all("bpf_cast_to_kern_ctx" in v for v in t.values()), t
PY
  ok
else
  bad "kfuncs --json without a host: $(head -c 500 "$tmp/own.json")"
fi
# errors: one line, exit 1; usage errors exit 2
expect_error 1 'kbpf kfuncs: cannot open /nonexistent/x.so: No such file or directory' -- kfuncs --host /nonexistent/x.so
printf 'not an elf' >"$tmp/junk.so"
expect_error 1 "kbpf kfuncs: $tmp/junk.so: neither an ELF file nor raw BTF" -- kfuncs --host "$tmp/junk.so"
expect 2 'unexpected argument' -- kfuncs extra
expect 2 '' -- kfuncs --bogus
expect 0 'usage: kbpf kfuncs' -- kfuncs --help
expect 0 'kfuncs +list the host functions' -- --help

finish
