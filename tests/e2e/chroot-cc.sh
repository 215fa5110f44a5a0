#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# chroot-cc.sh ROOT COMPILER ARGS...: run COMPILER (gcc-14, g++-16, ...) of the chroot ROOT
# (tests/tools/compilers.sh) on ARGS in the current directory. The directory tree the current
# directory is in (its first component: /tmp, /work, ...) is bind-mounted at the same path
# in a private mount namespace, so paths mean the same inside and out, and the mount goes
# away with the compiler. An executable it links gets ROOT's dynamic linker and libraries
# (absolute paths, DT_RPATH), so that it runs on the host against the libc it was built
# for, and perf and pgo collect record it like any other program.
set -eu
root=$1 cc=$2
shift 2
link=1 shared=0
for a in "$@"; do
	case $a in
	-c | -S | -E | -M | -MM | -v | --version | -dump* | -print-*) link=0 ;;
	-shared) shared=1 ;;
	-static | -static-pie) shared=1 ;;
	esac
done
extra=()
if [ $link = 1 ] && [ $shared = 0 ]; then
	extra=(-Wl,--dynamic-linker="$root/lib64/ld-linux-x86-64.so.2" -Wl,--disable-new-dtags
	       -Wl,-rpath,"$root/lib/x86_64-linux-gnu:$root/usr/lib/x86_64-linux-gnu")
fi
dir=$PWD
top=${dir#/}
top=/${top%%/*}
mkdir -p "$root$top"
exec unshare --mount --propagation private -- sh -c '
	root=$1 top=$2 dir=$3; shift 3
	mount --bind "$top" "$root$top" || exit 125
	mount -t proc proc "$root/proc" 2>/dev/null || :
	exec chroot "$root" sh -c "cd \"\$0\" && exec \"\$@\"" "$dir" "$@"
' sh "$root" "$top" "$dir" "$cc" "$@" "${extra[@]}"
