# SPDX-License-Identifier: MIT
# graphviz 2.42 (Debian): dot with only its core (renderers: svg, dot, ps...) and dot_layout
# plugins, linked in: the sources of the libraries those need (cdt cgraph common gvc pathplan xdot
# label pack ortho dotgen) as their CMakeLists.txt list them. The source has no configure script
# (Debian runs autoreconf): its CMake build is configured once, for config.h and the generated
# sources (the cgraph and HTML-label parsers and scanner, colortbl.h, ps_font_equiv.h, ps.h); no
# ltdl (plugins are the preloaded table below), expat and zlib as in Debian.
setup() {
	local d c=$BENCH_WORK/graphviz-cfg w x f inc
	d=$(deb_source graphviz) || exit 2
	w=$c/wrap
	if [ ! -s "$w/dot_builtins.c" ]; then
		need_pkgs cmake bison flex libexpat1-dev zlib1g-dev
		mkdir -p "$w"
		(cd "$c" && cmake -Denable_ltdl=OFF -Dwith_digcola=OFF -Dwith_sfdp=OFF -DLTDL_INCLUDE_DIR=/usr/include \
			-DLTDL_LIBRARY=m "$d" >cmake.log 2>&1 &&
			for f in lib/cgraph/grammar.c lib/cgraph/scan.c; do
				make -f lib/cgraph/CMakeFiles/cgraph.dir/build.make "$f" || exit 1
			done &&
			for f in lib/common/htmlparse.c lib/common/colortbl.h lib/common/ps_font_equiv.h; do
				make -f lib/common/CMakeFiles/common.dir/build.make "$f" || exit 1
			done &&
			make -f plugin/core/CMakeFiles/gvplugin_core.dir/build.make plugin/core/ps.h) >"$c/make.log" 2>&1 ||
			die "graphviz: cmake or its generated sources failed (see $c/*.log)"
		# The table of built-in plugins (cmd/dot/dot_builtins.c without neato, gd, pango, webp).
		printf '%s\n' '#include "config.h"' '#include "gvplugin.h"' \
			'extern gvplugin_library_t gvplugin_dot_layout_LTX_library;' \
			'extern gvplugin_library_t gvplugin_core_LTX_library;' \
			'lt_symlist_t lt_preloaded_symbols[] = {' \
			'	{ "gvplugin_dot_layout_LTX_library", (void *)&gvplugin_dot_layout_LTX_library },' \
			'	{ "gvplugin_core_LTX_library", (void *)&gvplugin_core_LTX_library },' \
			'	{ 0, 0 }' '};' >"$w/dot_builtins.c.tmp" && mv "$w/dot_builtins.c.tmp" "$w/dot_builtins.c" ||
			die "graphviz: cannot write $w/dot_builtins.c"
	fi
	SRCS=()
	for x in cdt cgraph common gvc pathplan xdot label pack ortho dotgen; do
		for f in $(grep -oE '[A-Za-z0-9_.]+\.c\b' "$d/lib/$x/CMakeLists.txt" | sort -u); do
			case $x/$f in
			cgraph/grammar.c | cgraph/scan.c | common/htmlparse.c) SRCS+=("$c/lib/$x/$f") ;;
			# Two libraries' files of one name (objects are named by basename): wrappers.
			label/node.c | label/index.c | common/utils.c | cgraph/utils.c)
				printf '#include "%s"\n' "$d/lib/$x/$f" >"$w/${x}_$f"
				SRCS+=("$w/${x}_$f") ;;
			*) SRCS+=("$d/lib/$x/$f") ;;
			esac
		done
	done
	for x in core dot_layout; do
		for f in $(grep -oE '[A-Za-z0-9_.]+\.c\b' "$d/plugin/$x/CMakeLists.txt" | sort -u); do SRCS+=("$d/plugin/$x/$f"); done
	done
	SRCS+=("$d/cmd/dot/dot.c" "$w/dot_builtins.c")
	inc="-I$c -I$c/lib/common -I$c/lib/cgraph -I$c/plugin/core"
	for x in cdt cgraph common gvc pathplan xdot label pack ortho dotgen fdpgen neatogen sparse; do inc="$inc -I$d/lib/$x"; done
	CPPFLAGS_P="-DORTHO -DDEMAND_LOADING=0 -D_BLD_gvc=1 -DGVLIBDIR=\"/nonexistent\" $inc" LDLIBS_P="-lexpat -lz -lm"
	# Generated graphs (bench/inputs/dot-gen.awk), several per file: training 12 layered
	# dependency DAGs of 180 nodes (seed 1) and 15 graphs of HTML-table nodes in nested clusters,
	# left to right (300 nodes, seed 3); evaluation another kind, 6 call graphs of 160 nodes with
	# cycles, same-rank groups, weights, head labels and constraint=false edges (seed 2).
	gen_input "$BENCH_WORK/dot-train-dag.dot" dot-gen.awk K=dag N=180 G=12 S=1
	gen_input "$BENCH_WORK/dot-train-cluster.dot" dot-gen.awk K=cluster N=300 G=15 S=3
	gen_input "$BENCH_WORK/dot-eval-callgraph.dot" dot-gen.awk K=callgraph N=160 G=6 S=2
}
# -Kdot: dot takes its layout engine from its program name (the builds are all named prog).
train() {
	local i
	for i in 1 2; do
		"$1" -Kdot -Tsvg "$BENCH_WORK/dot-train-dag.dot" >/dev/null &&
			"$1" -Kdot -Tsvg "$BENCH_WORK/dot-train-cluster.dot" >/dev/null || return 1
	done
}
evaluate() { echo "$1" -Kdot -Tsvg "$BENCH_WORK/dot-eval-callgraph.dot"; }
