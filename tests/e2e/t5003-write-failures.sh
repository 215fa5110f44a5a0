#!/usr/bin/env bash
# Write failures while pgo convert writes folded, svg or json: a file-size limit makes
# write() fail with EFBIG part-way (as a full disk would with ENOSPC), and stdout on
# /dev/full. Each: exit 2, a message, no file under the output name, an old file intact.
. "$(dirname "$0")/lib.sh"

if ! command -v prlimit >/dev/null; then skip_all "needs prlimit (util-linux)"; test_done; fi

# A profile whose outputs are all far above the 8 KiB limit below.
python3 - <<-\PY || { skip_all "needs python3"; test_done; }
import json
cpu = {"main;f%d;g%d" % (i, i % 7): 1000 + i for i in range(3000)}
json.dump({"format": "pgo-profile", "version": 1, "unit": "ns",
           "runs": [{"run": 0, "cpu": cpu}]}, open("big.json", "w"))
PY

# limited CMD...: run with an 8 KiB file-size limit; SIGXFSZ ignored so write() fails.
limited() { (trap "" XFSZ; exec prlimit --fsize=8192 "$@"); }

for fmt in folded svg json; do
	test_expect_success "--to $fmt: a failing write is exit 2 and leaves no file" '
		test_expect_code 2 limited pgo convert --to '$fmt' -i big.json -o out.'$fmt' 2>err &&
		cat err && test_grep "error: cannot write .out\.'$fmt'.: File too large" err &&
		test ! -e out.'$fmt' && test -z "$(ls -A | grep "\.tmp\.")"
	'
	test_expect_success "--to $fmt: the old output file survives a failing write" '
		echo old >keep.'$fmt' &&
		test_expect_code 2 limited pgo convert --to '$fmt' -i big.json -o keep.'$fmt' 2>err &&
		echo old >expect && test_cmp expect keep.'$fmt'
	'
done
test_expect_success DEV_FULL 'stdout on a full device: exit 2' '
	test_expect_code 2 pgo convert --to folded -i big.json >/dev/full 2>err &&
	test_grep "error" err
'
test_expect_success 'the same conversions succeed without the limit' '
	pgo convert --to svg -i big.json -o ok.svg && test $(wc -c <ok.svg) -gt 8192
'
test_expect_success 'SIGKILL at random moments never leaves a partial file (50 runs)' '
	pgo convert --to svg -i big.json -o ref.svg &&
	pgo convert --to json -i big.json -o ref.json &&
	done=0 &&
	for i in $(seq 50); do
		fmt=svg && if [ $((i % 2)) = 0 ]; then fmt=json; fi &&
		pgo convert --to $fmt -i big.json -o killed.$fmt 2>/dev/null &
		pid=$! &&
		sleep 0.0$((RANDOM % 10))$((RANDOM % 10)) &&
		# the conversion may end before the kill, and then wait gives its status, not 137:
		# whether a file exists, and is whole, is what this test checks
		{ kill -9 $pid 2>/dev/null || :; } &&
		{ wait $pid 2>/dev/null || :; } &&
		if [ -e killed.$fmt ]; then
			cmp -s killed.$fmt ref.$fmt || { echo "run $i: partial killed.$fmt"; exit 1; }
			rm killed.$fmt &&
			done=$((done + 1))
		fi &&
		rm -f .killed.$fmt.tmp.* || exit 1
	done &&
	echo "$done of 50 conversions finished before the kill"
'
test_done
