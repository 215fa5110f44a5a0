# SPDX-License-Identifier: MIT
# Graphs in the DOT language for graphviz's dot: -v K=kind -v N=nodes per graph -v G=graphs
# (default 1; dot lays out each graph of a file in turn) -v S=seed.
#   K=dag      a layered build-dependency DAG: boxes with two-line labels, edges to the next
#              one to three layers, some with labels and colours (top to bottom)
#   K=cluster  modules as (sometimes nested) clusters of nodes with HTML-like table labels,
#              edges inside and across clusters, rankdir=LR (record shapes instead made
#              graphviz 2.42 fail with "lost edge" on flat edges between clusters)
#   K=callgraph a call graph with cycles (recursion, back edges), ellipses of varied widths,
#              weights and constraint=false edges, same-rank groups, edge heads/tails labels
BEGIN {
	srand(S)
	if (G == "") G = 1
	for (g = 0; g < G; g++)
		if (K == "dag") dag()
		else if (K == "cluster") cluster()
		else if (K == "callgraph") callgraph()
		else { print "dot-gen.awk: K must be dag, cluster or callgraph" > "/dev/stderr"; exit 1 }
}
function pick(n) { return int(rand() * n) }
function word(   n, s, i) {
	n = 3 + pick(8); s = ""
	for (i = 0; i < n; i++) s = s substr("abcdefghijklmnopqrstuvwxyz_", 1 + pick(27), 1)
	return s
}
function dag(   L, per, l, i, j, k, t, n, col) {
	L = int(sqrt(N) * 1.2) + 2; per = int(N / L) + 1
	split("black red blue darkgreen gray40 orange", col, " ")
	print "digraph deps {\n\tnode [shape=box, fontsize=10];\n\tedge [arrowsize=0.7];"
	for (l = 0; l < L; l++)
		for (i = 0; i < per; i++)
			printf "\tn%d_%d [label=\"%s\\nv%d.%d\"];\n", l, i, word(), pick(9), pick(30)
	for (l = 0; l < L - 1; l++)
		for (i = 0; i < per; i++) {
			n = 1 + pick(3)
			for (k = 0; k < n; k++) {
				t = l + 1 + pick(3); if (t >= L) t = L - 1
				j = i + pick(7) - 3; if (j < 0) j = 0; if (j >= per) j = per - 1
				printf "\tn%d_%d -> n%d_%d", l, i, t, j
				if (pick(8) == 0) printf " [label=\"%s\", color=%s]", word(), col[1 + pick(6)]
				printf ";\n"
			}
		}
	print "}"
}
function cluster(   M, m, i, n, base, a, b, id, nn, inner) {
	M = int(N / 12) + 1
	print "digraph modules {\n\trankdir=LR;\n\tnode [shape=plaintext, fontsize=9];"
	id = 0
	for (m = 0; m < M; m++) {
		printf "\tsubgraph cluster_m%d {\n\t\tlabel=\"%s\"; style=rounded;\n", m, word()
		inner = pick(3) == 0
		if (inner) printf "\t\tsubgraph cluster_m%d_in {\n\t\t\tlabel=\"%s\"; color=blue;\n", m, word()
		n = 6 + pick(13); base[m] = id; nn[m] = n
		for (i = 0; i < n; i++) {
			printf "\t\tr%d [label=<<TABLE BORDER=\"0\" CELLBORDER=\"1\" CELLSPACING=\"0\"><TR><TD COLSPAN=\"2\"><B>%s</B></TD></TR><TR><TD>%s</TD><TD>%s</TD></TR><TR><TD COLSPAN=\"2\"><FONT POINT-SIZE=\"7\">%d</FONT></TD></TR></TABLE>>];\n", id, word(), word(), word(), pick(1000)
			id++
		}
		printf "%s\t}\n", (inner ? "\t\t}\n" : "")
	}
	for (m = 0; m < M; m++)
		for (i = 0; i < nn[m]; i++) {
			a = base[m] + i
			b = base[m] + pick(nn[m])
			if (b != a) printf "\tr%d -> r%d;\n", a, b
			if (pick(3) == 0) {
				b = pick(id)
				printf "\tr%d -> r%d [color=gray40];\n", a, b
			}
		}
	print "}"
}
function callgraph(   i, j, n, k, w) {
	print "digraph calls {\n\tnode [shape=ellipse, fontsize=11];\n\tedge [fontsize=8];"
	for (i = 0; i < N; i++) {
		w = word(); if (pick(4) == 0) w = w "_" word() "_" word()
		printf "\tf%d [label=\"%s\"%s];\n", i, w, (pick(10) == 0 ? ", style=filled, fillcolor=lightyellow" : "")
	}
	for (i = 0; i < N; i++) {
		n = pick(5)
		for (k = 0; k < n; k++) {
			j = i + 1 + pick(8); if (j >= N) j = pick(N)
			printf "\tf%d -> f%d", i, j
			if (pick(6) == 0) printf " [weight=%d, headlabel=\"%d\"]", 1 + pick(5), pick(100)
			else if (pick(9) == 0) printf " [constraint=false, style=dashed]"
			printf ";\n"
		}
		if (pick(15) == 0) printf "\tf%d -> f%d [color=red];\n", i, (i > 12 ? i - pick(12) : pick(i + 1))
	}
	for (i = 0; i + 3 < N; i += 17 + pick(20)) printf "\t{ rank=same; f%d; f%d; }\n", i, i + 2
	print "}"
}
