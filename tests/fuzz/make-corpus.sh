#!/usr/bin/env bash
# Regenerate the seed corpora in tests/fuzz/corpus/ from real files:
# perf.data from perf record and pgo collect, the .afdo and profile JSON pgo convert makes of them,
# the callstacks binary with its DWARF and stripped with a .gnu_debuglink (symtab).
# Needs a built tree (make) and perf. Seeds are kept small so fuzzing stays fast.
set -eu
cd "$(dirname "$0")/../.."
PGO=$PWD/build/bin/pgo
CS=$PWD/build/tests/helpers/callstacks
out=$PWD/tests/fuzz/corpus
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$out/pdread" "$out/afdo" "$out/profile-json" "$out/gate-profile" "$out/symtab"
cd "$tmp"
perf record -q -e task-clock -F 499 -o perf-flat.data "$CS" 5 >/dev/null
perf record -q -g -e task-clock -F 499 -o perf-g.data "$CS" 5 >/dev/null
"$PGO" collect -q -F 499 -r 2 --no-off-cpu -o pgo.data -- "$CS" 3 >/dev/null
perf record -q -z -m 1 -e task-clock -F 499 -o perf-z.data "$CS" 3 >/dev/null
"$PGO" collect -q -z -F 499 --no-off-cpu -o pgo-z.data -- "$CS" 3 >/dev/null
cp perf-flat.data "$out/pdread/perf-record-flat"
cp perf-g.data "$out/pdread/perf-record-g"
cp pgo.data "$out/pdread/pgo-collect-r2"
cp perf-z.data "$out/pdread/perf-record-z"
cp pgo-z.data "$out/pdread/pgo-collect-z"
mkdir -p "$out/convert-stacks" && cp "$out"/pdread/* "$out/convert-stacks/"
"$PGO" convert --to autofdo -i perf-g.data -b "$CS" -o "$out/afdo/callstacks.afdo-seed" 2>/dev/null
"$PGO" convert --to autofdo --gcc 16 -i perf-g.data -b "$CS" -o "$out/afdo/callstacks-gcc16.afdo-seed" 2>/dev/null
"$PGO" convert --to json -i pgo.data -o "$out/profile-json/pgo-collect-r2.json" 2>/dev/null
cp "$out/profile-json/pgo-collect-r2.json" "$out/gate-profile/"
# gcno: the notes of the gcov route's test program (tests/e2e/gcov), as gcc -ftest-coverage writes them
mkdir -p "$out/gcno"
for u in main proc tab; do
	gcc -O2 -g -ftest-coverage -c "$OLDPWD/tests/e2e/gcov/$u.c" -o "$u.o" && cp "$u.gcno" "$out/gcno/$u.gcno"
done
# symtab: the binary, and stripped copies whose .gnu_debuglink names hot.debug (the name
# fuzz-symtab gives a second copy of its input, so the debug-file checks run too)
cp "$CS" "$out/symtab/callstacks"
objcopy --only-keep-debug "$CS" hot.debug
strip --strip-debug -o "$out/symtab/callstacks-debuglink" "$CS"
strip --strip-all -o "$out/symtab/callstacks-stripped-debuglink" "$CS"
objcopy --add-gnu-debuglink=hot.debug "$out/symtab/callstacks-debuglink"
objcopy --add-gnu-debuglink=hot.debug "$out/symtab/callstacks-stripped-debuglink"
ls -l "$out"/*
# pprof: pgo's own (plain protobuf, so mutations reach the decoder), and gperftools' CPU
# profile of callstacks turned into pprof by go tool pprof, symbolized and not
if command -v go >/dev/null && [ -e /usr/lib/x86_64-linux-gnu/libprofiler.so.0 ]; then
	mkdir -p "$out/pprof"
	"$PGO" collect -q -F 499 -r 2 -o pgo-off.data -- "${CS%/callstacks}/offcpu-sleep" 2 10 >/dev/null 2>&1 ||
		"$PGO" collect -q -F 499 -r 2 --no-off-cpu -o pgo-off.data -- "$CS" 3 >/dev/null
	"$PGO" convert -q --to pprof -i pgo-off.data -o pgo.pb.gz && zcat pgo.pb.gz >"$out/pprof/pgo-offcpu-r2.pb"
	CPUPROFILE=cs.prof CPUPROFILE_FREQUENCY=1000 LD_PRELOAD=/usr/lib/x86_64-linux-gnu/libprofiler.so.0 "$CS" 40 >/dev/null
	HOME=$tmp go tool pprof -proto "$CS" cs.prof >"$out/pprof/gperftools-via-go-pprof.pb.gz" 2>/dev/null
	HOME=$tmp go tool pprof -proto -symbolize=none "$CS" cs.prof >"$out/pprof/gperftools-unsymbolized.pb.gz" 2>/dev/null
	zcat "$out/pprof/gperftools-unsymbolized.pb.gz" >"$out/pprof/gperftools-unsymbolized.pb"
fi
