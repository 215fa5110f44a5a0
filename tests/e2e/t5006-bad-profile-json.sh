#!/usr/bin/env bash
# The profile JSON bad-input catalogue, end to end, for both readers: pgo gate compare and
# pgo convert --to folded. Every case: exit 2, a message naming the file, no crash (no
# sanitizer report when the suite runs under SANITIZE), no output file or temp file left.
. "$(dirname "$0")/lib.sh"
SYNTH=$PGO_HELPERS/gate-synth

command -v python3 >/dev/null || { skip_all "needs python3"; test_done; }

test_expect_success 'setup: a good profile and one damaged copy per case' '
	"$SYNTH" --seed 11 -o good.json &&
	"$SYNTH" --seed 12 -o good2.json &&
	python3 - <<-\PY
	import copy, json
	txt = open("good.json").read()
	g = json.loads(txt)
	k = next(iter(g["runs"][0]["cpu"]))
	def w(name, text): open(name, "w").write(text)
	def mod(name, f):
	    c = copy.deepcopy(g); f(c); w(name, json.dumps(c))
	w("empty.json", "")
	w("trunc.json", txt[: len(txt) // 2])
	mod("format.json", lambda c: c.update(format="pgo-verdict"))
	mod("major.json", lambda c: c.update(version=2))
	mod("strweight.json", lambda c: c["runs"][0]["cpu"].update({k: "12"}))
	mod("negweight.json", lambda c: c["runs"][0]["cpu"].update({k: -5}))
	mod("arraycpu.json", lambda c: c["runs"][0].update(cpu=[1, 2]))
	mod("twoto64.json", lambda c: c["runs"][0]["cpu"].update({k: 2**64}))
	mod("nocpu.json", lambda c: c["runs"][1].pop("cpu"))
	mod("duprun.json", lambda c: c["runs"][1].update(run=c["runs"][0]["run"]))
	mod("longname.json", lambda c: c["runs"][0]["cpu"].update({"main;" + "x" * (10 << 20): 1000}))
	c = copy.deepcopy(g); c["runs"][0]["cpu"][k] = 12345
	w("huge.json", json.dumps(c).replace("12345", "1e400", 1))
	w("nested.json", "{\"format\":\"pgo-profile\",\"version\":1,\"unit\":\"ns\",\"runs\":" + "[" * 100000)
	PY
'

# check_err FILE: the message names FILE, is an error, and no sanitizer spoke.
check_err() {
	test_grep "error: .*'$1'" err &&
	test_grep -v "runtime error|AddressSanitizer|LeakSanitizer" err
}
# no_output: nothing written, not even a temp file.
no_output() {
	test -z "$(ls -A | grep -E "^(v\.json|out\.folded)$|\.tmp\.")"
}

for f in empty trunc format major strweight negweight arraycpu huge twoto64 nocpu duprun longname nested; do
	test_expect_success "$f.json: gate compare exits 2 naming the file" '
		test_expect_code 2 pgo gate compare '$f'.json good2.json --json v.json 2>err >out &&
		check_err '$f'.json && no_output &&
		test_expect_code 2 pgo gate compare good2.json '$f'.json 2>err >out &&
		check_err '$f'.json
	'
	test_expect_success "$f.json: convert --to folded exits 2 naming the file" '
		test_expect_code 2 pgo convert --to folded -i '$f'.json -o out.folded 2>err &&
		check_err '$f'.json && no_output
	'
done
test_expect_success 'the good profiles pass both readers (the cases above are not vacuous)' '
	test_expect_code 0 pgo gate compare good.json good2.json --json v.json >out &&
	test -s v.json &&
	pgo convert --to folded -i good.json -o out.folded && test -s out.folded
'
test_done
