#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Shared helpers of the bench/*.sh scripts: paths, Debian sources, the CPU-time runner, medians.
set -u
export LC_ALL=C
PGO_ROOT=${PGO_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
PGO_BUILD=${PGO_BUILD:-build}
case "$PGO_BUILD" in /*) ;; *) PGO_BUILD=$PGO_ROOT/$PGO_BUILD ;; esac
PGO=${PGO:-$PGO_BUILD/bin/pgo}
BENCH_WORK=${BENCH_WORK:-$PGO_ROOT/bench/work}
mkdir -p "$BENCH_WORK/src" "$BENCH_WORK/bin" "$BENCH_WORK/results"

say() { printf '%s\n' "$*" >&2; }
die() { printf 'bench: %s\n' "$*" >&2; exit 2; }

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

# need_pkgs PKG...: install missing Debian packages (a fresh machine has none of the bench tools).
need_pkgs() {
	local p missing=""
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing="$missing $p"
	done
	[ -z "$missing" ] && return 0
	say "installing:$missing"
	as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q $missing >/dev/null ||
		{ as_root apt-get update -q >/dev/null &&
		  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q $missing >/dev/null; } ||
		die "apt-get install failed for:$missing"
}

# Enable deb-src once: a copy of the deb822 entries with Types: deb-src (idempotent).
enable_deb_src() {
	local src=/etc/apt/sources.list.d/debian.sources dst=/etc/apt/sources.list.d/pgo-deb-src.sources
	if grep -rqsE '^(Types:.*deb-src|deb-src )' /etc/apt/sources.list /etc/apt/sources.list.d/; then
		return 0
	fi
	[ -r "$src" ] || die "no $src: add deb-src entries to the apt sources by hand"
	sed 's/^Types: deb$/Types: deb-src/' "$src" | as_root tee "$dst" >/dev/null
	as_root apt-get update -q >/dev/null || die "apt-get update failed after enabling deb-src"
}

# deb_source PKG [VERSION]: unpack the Debian source of PKG (that version if given) under
# $BENCH_WORK/src once; prints its directory.
deb_source() {
	local pkg=$1 spec=$1${2:+=$2} dir
	dir=$(ls -d "$BENCH_WORK/src/$pkg"-[0-9]*/ 2>/dev/null | head -1)
	if [ -z "$dir" ]; then
		need_pkgs dpkg-dev
		enable_deb_src
		(cd "$BENCH_WORK/src" && apt-get source -q "$spec" >/dev/null 2>&1) ||
			(cd "$BENCH_WORK/src" && apt-get source -q "$spec") >&2 || die "apt-get source $spec failed"
		dir=$(ls -d "$BENCH_WORK/src/$pkg"-[0-9]*/ 2>/dev/null | head -1)
		[ -n "$dir" ] || die "apt-get source $pkg left no $BENCH_WORK/src/$pkg-*/"
	fi
	printf '%s\n' "${dir%/}"
}

# The CPU-time runner (bench/cputime.c), built once.
CPUTIME=$BENCH_WORK/bin/cputime
if [ ! -x "$CPUTIME" ] || [ "$PGO_ROOT/bench/cputime.c" -nt "$CPUTIME" ]; then
	gcc -O2 -Wall -o "$CPUTIME" "$PGO_ROOT/bench/cputime.c" || die "cannot build bench/cputime.c"
fi

# AWK_MED: an awk function for the scripts' bootstrap intervals, put before an awk program
# ("$AWK_MED"'...'): med(v, n) sorts v[1..n] in place (insertion: a few dozen rounds, or 1000
# resampled medians) and returns their median.
AWK_MED='function med(v, n,   i, j, t) {
	for (i = 2; i <= n; i++) { t = v[i]; for (j = i - 1; j >= 1 && v[j] > t; j--) v[j + 1] = v[j]; v[j + 1] = t }
	return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
}'

# median: the median of the numbers on stdin (one per line).
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) { print "nan"; exit }
	if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# pgo_works CMD: true when `pgo CMD` is a real implementation in this build (not the placeholder).
pgo_works() {
	[ -x "$PGO" ] || return 1
	! "$PGO" "$1" --help 2>&1 | grep -q 'not built yet'
}
