#!/usr/bin/env bash
# pgo convert --to folded|svg|json from a profile JSON: output formats, a flame graph that
# parses as XML and whose script runs in headless Chromium, and errors that leave no file.
. "$(dirname "$0")/lib.sh"

cat >profile.json <<'JSON'
{"format": "pgo-profile", "version": 1, "unit": "ns", "tool": "pgo test",
 "views": ["cpu", "offcpu"],
 "runs": [
  {"run": 0, "pid": 10, "cpu": {"main;process;hash_block": 600, "main;parse_line": 300,
   "main;std::vector<A&>::operator<;leaf\"x'": 100},
   "offcpu": {"main;wait;[sleep]": 5000}},
  {"run": 1, "pid": 11, "cpu": {"main;process;hash_block": 400, "main;process;work": 100}}]}
JSON

chromium_dump() { # file.svg?query -> DOM on stdout
	local prof
	prof=$(mktemp -d "$TRASH/chromium.XXXXXX")
	timeout 90 chromium --headless --no-sandbox --disable-gpu --disable-background-networking \
		--disable-component-update --disable-sync --no-first-run --user-data-dir="$prof" \
		--dump-dom "file://$TRASH/$1" 2>/dev/null
}

test_expect_success 'folded: one sorted line per stack, runs summed' '
	pgo convert --to folded -i profile.json >out &&
	cat >expect <<-\EOF &&
	main;parse_line 300
	main;process;hash_block 1000
	main;process;work 100
	main;std::vector<A&>::operator<;leaf"x'"'"' 100
	EOF
	test_cmp expect out
'
test_expect_success 'folded: --view offcpu, --run, --header' '
	pgo convert --to folded --view offcpu -i profile.json >out &&
	echo "main;wait;[sleep] 5000" >expect && test_cmp expect out &&
	pgo convert --to folded --run 1 --header -i profile.json >out &&
	printf "# pgo folded stacks: view=cpu unit=ns runs=one\nmain;process;hash_block 400\nmain;process;work 100\n" >expect &&
	test_cmp expect out
'
test_expect_success 'json: normalized output reads back to the same bytes' '
	pgo convert --to json -i profile.json -o a.json &&
	pgo convert --to json -i a.json -o b.json &&
	test_cmp a.json b.json &&
	test_grep "\"cpu_ns\": 1000" a.json
'
test_expect_success 'svg: well-formed XML with escaped names' '
	pgo convert --to svg --title "cpu <test>" -i profile.json -o out.svg &&
	xmllint --noout out.svg &&
	test_grep "std::vector&lt;A&amp;&gt;::operator&lt;" out.svg &&
	test_grep ">cpu &lt;test&gt;</text>" out.svg &&
	test_grep "id=\"subtitle\"[^>]*>on-CPU time, 2 runs</text>" out.svg &&
	test $(grep -c "<g class=\"f\"" out.svg) = 8
'
test_expect_success CHROMIUM 'svg: the viewer script runs in Chromium without errors' '
	pgo convert --to svg -i profile.json -o out.svg &&
	chromium_dump out.svg >dom &&
	test_grep "data-pgo-ready=\"1\"" dom &&
	test_grep -v "data-pgo-error=" dom &&
	test_grep -v "data-pgo-matched=" dom
'
test_expect_success CHROMIUM 'svg: ?s=REGEX searches and reports the matched share' '
	pgo convert --to svg -i profile.json -o out.svg &&
	chromium_dump "out.svg?s=^process\$" >dom &&
	test_grep "data-pgo-matched=\"73.3\"" dom &&
	test_grep "data-pgo-hits=\"1\"" dom &&
	chromium_dump "out.svg?s=hash|work" >dom &&
	test_grep "data-pgo-matched=\"73.3\"" dom &&
	test_grep "data-pgo-hits=\"2\"" dom &&
	chromium_dump "out.svg?s=operator%3C" >dom &&
	test_grep "data-pgo-matched=\"6.7\"" dom &&
	test_grep "style=\"fill: rgb\(230, 0, 230\);\"" dom
'
test_expect_success CHROMIUM 'svg: ?z=NAME zooms: the frame fills the width, others hide' '
	pgo convert --to svg -i profile.json -o out.svg &&
	chromium_dump "out.svg?z=process" >dom &&
	test_grep "data-pgo-zoomed=\"process\"" dom &&
	tr "\n" " " <dom | sed "s/<g /\n<g /g" >frames &&
	grep "<title>process" frames | test_grep "<rect x=\"10.00\" y=\"[0-9.]*\" width=\"1180.00\"" - &&
	grep "<title>work" frames | test_grep "width=\"107.2[6-9]\"" - &&
	grep "<title>parse_line" frames | test_grep "class=\"f hide\"" - &&
	grep "<title>main" frames | test_grep "class=\"f parent\"" -
'
test_expect_success CHROMIUM 'the gate differential SVG: classes, base values, script runs' '
	pgo convert --to json -i profile.json -o a.json &&
	pgo gate compare a.json a.json --svg diff.svg >/dev/null &&
	xmllint --noout diff.svg &&
	test_grep "data-pgo=\"flamegraph-diff\"" diff.svg &&
	test_grep "<g class=\"f unflagged\" data-v=\"550\" data-b=\"550\"><title>process" diff.svg &&
	chromium_dump "diff.svg?s=process" >dom &&
	test_grep "data-pgo-ready=\"1\"" dom && test_grep "data-pgo-matched=\"73.3\"" dom &&
	test_grep -v "data-pgo-error=" dom
'
test_expect_success 'bad input: exit 2, message names the file, no output file' '
	echo "{\"format\": \"pgo-profile\", \"version\": 7, \"unit\": \"ns\", \"runs\": []}" >v7.json &&
	test_expect_code 2 pgo convert --to svg -i v7.json -o out7.svg 2>err &&
	test_grep "v7.json.*version 7" err && test ! -e out7.svg &&
	head -c 100 profile.json >cut.json &&
	test_expect_code 2 pgo convert --to folded -i cut.json -o cut.folded 2>err &&
	test_grep "cut.json" err && test ! -e cut.folded &&
	test_expect_code 2 pgo convert --to json -i missing.json -o m.json 2>err &&
	test_grep "missing.json" err && test ! -e m.json &&
	test -z "$(ls -A | grep tmp)"
'
test_expect_success 'a failed write keeps the old output file' '
	echo old >keep.svg &&
	test_expect_code 2 pgo convert --to svg -i v7.json -o keep.svg 2>err &&
	echo old >expect && test_cmp expect keep.svg
'
test_expect_success 'usage errors exit 64' '
	test_expect_code 64 pgo convert --to svg --view nap -i profile.json 2>err &&
	test_grep "view" err &&
	test_expect_code 64 pgo convert --to svg --minwidth x -i profile.json 2>err &&
	test_expect_code 64 pgo convert --to png -i profile.json 2>err &&
	test_grep "unknown format" err &&
	test_expect_code 64 pgo convert --to svg -Z -i profile.json 2>err &&
	test_grep "^pgo convert: error: unknown option .-Z." err &&
	test_expect_code 64 pgo convert --to svg --zork -i profile.json 2>err &&
	test_grep "^pgo convert: error: unknown option .--zork." err &&
	test_expect_code 64 pgo convert --to svg -i 2>err &&
	test_grep "^pgo convert: error: missing value for option .-i." err
'
test_expect_success 'unknown --run is an error' '
	test_expect_code 2 pgo convert --to folded --run 5 -i profile.json 2>err &&
	test_grep "no run 5" err
'
test_expect_success 'several profile JSON inputs merge, runs renumbered' '
	pgo convert --to json -i profile.json -i profile.json -o two.json &&
	test $(grep -c "\"run\": " two.json) = 4 &&
	test_grep "\"run\": 3" two.json &&
	pgo convert --to folded -i two.json >out &&
	test_grep "^main;process;hash_block 2000$" out
'
test_done
