#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The Debian package (make deb, make deb-check).
#   tests/tools/deb.sh build   copy the tree (git's tracked and untracked, not ignored, files) to
#                              build/deb/pgo-VERSION, dpkg-buildpackage -us -uc -b there (the
#                              .deb lands in build/deb), then lintian: errors and warnings fail
#   tests/tools/deb.sh check   in a clean Debian 12 chroot: apt install ./pgo_*.deb (dependencies
#                              from the mirror), pgo --version, man pgo-collect, and the README's
#                              collect -> convert -> gcc -fauto-profile example
# The chroot (mmdebstrap --variant=apt bookworm, with man-db, gcc, libc6-dev, bash-completion) is cached in
# $PGO_DEB_CHECK_DIR (default /var/cache/pgo-deb-check) with its apt lists (refreshed when a day
# old) and the downloaded .debs; every check runs on a throw-away overlay of it, in a private mount
# namespace with the host's /proc, /sys and /dev (perf_event_open, BPF) mounted.
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
out=$root/build/deb
version=$(sed -n 's/^VERSION *:= *//p' "$root/Makefile")
arch=$(dpkg --print-architecture)
deb=$out/pgo_${version}_${arch}.deb
dir=${PGO_DEB_CHECK_DIR:-/var/cache/pgo-deb-check}
mirror=${PGO_DEB_CHECK_MIRROR:-http://deb.debian.org/debian}
security=${PGO_DEB_CHECK_SECURITY:-http://deb.debian.org/debian-security}
base_pkgs="man-db gcc libc6-dev bash-completion"

die() { echo "deb.sh: $*" >&2; exit 2; }

# the Makefile's DEB_BUILD list and debian/control's Build-Depends must name the same packages
check_build_depends() {
	local make_list ctl_list
	make_list=$(make -s --no-print-directory -C "$root" -pn print-sonames 2>/dev/null |
		sed -n 's/^DEB_BUILD := //p' | tr ' ' '\n' |
		grep -vxE 'build-essential|linux-perf|git|' | sort -u)
	ctl_list=$(sed -n '/^Build-Depends:/,/^[A-Z]/p' "$root/debian/control" | grep -v '^#' |
		sed -e 's/^Build-Depends://' -e '/^[A-Z]/d' | tr ',' '\n' | sed -e 's/(.*)//' -e 's/ //g' |
		grep -vxE 'debhelper-compat|' | sort -u)
	[ "$make_list" = "$ctl_list" ] || {
		diff <(echo "$make_list") <(echo "$ctl_list") >&2 || true
		die "the Makefile's DEB_BUILD (<) and debian/control's Build-Depends (>) differ"
	}
}

build() {
	local src=$out/pgo-$version t0=$SECONDS
	command -v dpkg-buildpackage >/dev/null && command -v dh >/dev/null ||
		die "dpkg-buildpackage or debhelper missing (make deps)"
	check_build_depends
	[ "$(cd "$root" && dpkg-parsechangelog -S Version)" = "$version" ] ||
		die "debian/changelog's version is not the Makefile's VERSION ($version)"
	rm -rf "$out"
	mkdir -p "$src"
	(cd "$root" && git ls-files -co --exclude-standard -z |
		while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
		tar --null -T - -cf -) | tar -C "$src" -xf -
	echo "  DEB     $deb (dpkg-buildpackage, log in $out/build.log)"
	(cd "$src" && dpkg-buildpackage -us -uc -b) >"$out/build.log" 2>&1 || {
		tail -40 "$out/build.log" >&2; die "dpkg-buildpackage failed"; }
	[ -f "$deb" ] || die "no $deb"
	rm -rf "$src"
	echo "  LINTIAN $deb"
	# as an unprivileged user where possible (lintian warns against running as root)
	local as=()
	[ "$(id -u)" != 0 ] || ! runuser -u nobody -- test -r "$deb" 2>/dev/null || as=(runuser -u nobody --)
	"${as[@]}" lintian --fail-on error,warning "$deb"
	echo "  LINTIAN no errors, no warnings ($(lintian --version))"
	echo "  DEB     built and checked in $((SECONDS - t0)) s: $(du -k "$deb" | cut -f1) KiB"
}

# the cached chroot: built once, its apt lists refreshed when a day old
base() {
	local b=$dir/bookworm
	if [ ! -f "$b/.pgo-deb-check" ] || [ "$(cat "$b/.pgo-deb-check")" != "$base_pkgs" ]; then
		command -v mmdebstrap >/dev/null || die "mmdebstrap is missing (make deps)"
		mkdir -p "$dir"
		rm -rf "$b.new"
		echo "  CHROOT  building $b ($base_pkgs)"
		mmdebstrap --quiet --variant=apt --include="${base_pkgs// /,}" bookworm "$b.new" \
			"deb $mirror bookworm main" "deb $mirror bookworm-updates main" \
			"deb $security bookworm-security main"
		echo "$base_pkgs" >"$b.new/.pgo-deb-check"
		rm -rf "$b.old"
		[ ! -e "$b" ] || mv "$b" "$b.old"
		mv "$b.new" "$b"
		rm -rf "$b.old"
	fi
	if [ -z "$(find "$b/var/lib/apt/lists" -maxdepth 1 -name '*_Packages*' -mtime -1 2>/dev/null)" ]; then
		echo "  CHROOT  apt-get update in $b"
		cp /etc/resolv.conf "$b/etc/resolv.conf"
		chroot "$b" apt-get update -q >/dev/null
	fi
}

check() {
	local t0=$SECONDS run
	[ -f "$deb" ] || die "no $deb (make deb)"
	[ "$(id -u)" = 0 ] || die "deb-check needs root (chroot, mounts)"
	base
	mkdir -p "$dir/archives/partial"
	run=$(mktemp -d "$dir/run.XXXXXX")
	# shellcheck disable=SC2064
	trap "rm -rf '$run'" EXIT
	mkdir -p "$run/upper" "$run/work" "$run/root"
	cp "$deb" "$root/examples/shares.c" "$run/"
	unshare -m --propagation private bash -euo pipefail -c '
		dir=$1 run=$2 deb=$3
		r=$run/root
		mount -t overlay overlay -o "lowerdir=$dir/bookworm,upperdir=$run/upper,workdir=$run/work" "$r"
		for m in proc sys dev; do mount --rbind "/$m" "$r/$m"; done
		mount --bind "$dir/archives" "$r/var/cache/apt/archives"
		cp /etc/resolv.conf "$r/etc/resolv.conf"
		mkdir -p "$r/check" && cp "$run/$deb" "$run/shares.c" "$r/check/"
		inch() { chroot "$r" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LC_ALL=C.UTF-8 "$@"; }
		echo "  APT     apt install ./$deb"
		inch sh -c "cd /check && DEBIAN_FRONTEND=noninteractive apt-get install -y -q ./$deb" >"$run/apt.log" 2>&1 ||
			{ tail -20 "$run/apt.log"; exit 1; }
		grep -E "^(Get|Setting up|Unpacking)" "$run/apt.log" | sed "s/^/          /" | grep -E "pgo|libgit2|libzydis|libbpf" || true
		echo "  RUN     pgo --version"
		inch pgo --version
		echo "  RUN     man pgo-collect"
		inch sh -c "MANPAGER=cat MANWIDTH=80 man pgo-collect" >"$run/man.txt"
		grep -q "^ *pgo-collect - run a benchmark" "$run/man.txt" || { head "$run/man.txt"; exit 1; }
		grep -qE "^ *-F, --freq HZ" "$run/man.txt" || exit 1
		inch bash -c ". /usr/share/bash-completion/bash_completion 2>/dev/null; __load_completion pgo && complete -p pgo" |
			grep -q "_pgo pgo" || { echo "no bash completion for pgo"; exit 1; }
		echo "  RUN     the README example: collect -> convert -> gcc -fauto-profile"
		inch sh -exc "cd /check && cp shares.c bench.c && gcc -O2 -g -o bench bench.c &&
			pgo collect -F 4999 ./bench 20 >bench.out &&
			pgo-convert --to autofdo &&
			pgo convert --dump bench.afdo >dump.txt &&
			gcc -O2 -fauto-profile=bench.afdo -o bench bench.c && ./bench 1 >/dev/null"
		# the hottest function by the benchmark'\''s own clock is the hottest in the profile
		hot=$(sort -k3 -rn "$r/check/bench.out" | awk "/^share/ { print \$2; exit }")
		grep -q "$hot" "$r/check/dump.txt" || { echo "$hot is not in the AutoFDO profile"; exit 1; }
		echo "          bench.afdo: $(stat -c %s "$r/check/bench.afdo") bytes; the hottest function by the benchmark'\''s clock: $hot"
	' deb-check "$dir" "$run" "$(basename "$deb")"
	echo "  DEB     deb-check passed in $((SECONDS - t0)) s"
}

case "${1:-}" in
build) build ;;
check) check ;;
*) echo "usage: deb.sh build|check" >&2; exit 64 ;;
esac
