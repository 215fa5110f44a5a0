#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The test compilers: Debian chroots with the gcc versions the convert tests run against, built
# with mmdebstrap and cached outside the tree, in $PGO_COMPILERS_DIR (default
# /var/cache/pgo-compilers):
#   trixie  gcc-13, gcc-14 (Debian 13)
#   sid     gcc-15, gcc-16
# Usage: tests/tools/compilers.sh [SUITE...]   (default: trixie sid)
# Idempotent: a chroot whose stamp lists the same packages is kept as it is. A chroot is built
# beside its final place and renamed into it, so a failed or interrupted build leaves none.
# tests/e2e/afdo-lib.sh finds them there (PGO_TEST_GCC=gcc-14 and so on).
set -euo pipefail

dir=${PGO_COMPILERS_DIR:-/var/cache/pgo-compilers}
mirror=${PGO_COMPILERS_MIRROR:-http://deb.debian.org/debian}

packages() {
	case "$1" in
	trixie) echo gcc-13 g++-13 gcc-14 g++-14 libc6-dev ;;
	sid) echo gcc-15 g++-15 gcc-16 g++-16 libc6-dev ;;
	*) echo "compilers.sh: unknown suite '$1' (trixie, sid)" >&2; return 1 ;;
	esac
}

build() {
	local suite=$1 pkgs root opts=()
	pkgs=$(packages "$suite")
	root=$dir/$suite
	if [ -f "$root/.pgo-compilers" ] && [ "$(cat "$root/.pgo-compilers")" = "$pkgs" ]; then
		echo "compilers: $root is up to date ($pkgs)"
		return 0
	fi
	command -v mmdebstrap >/dev/null || {
		echo "compilers.sh: mmdebstrap is missing (apt-get install mmdebstrap)" >&2; return 1; }
	# sid's Release file on some mirrors is past its Valid-Until date
	[ "$suite" = sid ] && opts+=(--aptopt='Acquire::Check-Valid-Until "false"')
	mkdir -p "$dir"
	rm -rf "$root.new"
	echo "compilers: building $root ($pkgs)"
	mmdebstrap --variant=apt --include="${pkgs// /,}" "${opts[@]}" "$suite" "$root.new" "$mirror"
	echo "$pkgs" >"$root.new/.pgo-compilers"
	rm -rf "$root.old"
	[ ! -e "$root" ] || mv "$root" "$root.old"
	mv "$root.new" "$root"
	rm -rf "$root.old"
	chroot "$root" sh -c 'for c in gcc-13 gcc-14 gcc-15 gcc-16; do
		command -v $c >/dev/null && $c --version | head -1; done; true'
}

[ $# -gt 0 ] || set -- trixie sid
for s in "$@"; do
	build "$s"
done
