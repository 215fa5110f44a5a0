# SPDX-License-Identifier: MIT
# Random models in CPLEX LP format for glpsol --lp: -v K=family -v N=size -v M=size2 -v S=seed.
#   K=mkp        multidimensional 0-1 knapsack: N items, M capacity rows at half the row's weight
#   K=setcover   weighted set cover: N sets over M elements, each set covering 2-8 elements
#   K=transport  transportation LP: N sources, M sinks, random costs, supply = demand + slack
#   K=facility   capacitated facility location: N facilities (open y binary), M customers
#                (x continuous share of demand), fixed costs and capacities
function term(c, v) { line = line (c < 0 ? " - " : " + ") (c < 0 ? -c : c) " " v; if (++nt % 8 == 0) { print line; line = "" } }
function flush(tail) { print line tail; line = ""; nt = 0 }
function ri(a, b) { return a + int(rand() * (b - a + 1)) }
BEGIN {
	srand(S)
	if (K == "mkp") {
		print "Maximize"; line = " obj:"
		for (j = 1; j <= N; j++) term(ri(10, 100), "x" j)
		flush("")
		print "Subject To"
		for (i = 1; i <= M; i++) {
			line = " c" i ":"; t = 0
			for (j = 1; j <= N; j++) { w = ri(5, 60); t += w; term(w, "x" j) }
			flush(" <= " int(t / 2))
		}
		print "Binary"
		for (j = 1; j <= N; j++) print " x" j
	} else if (K == "setcover") {
		print "Minimize"; line = " obj:"
		for (j = 1; j <= N; j++) term(ri(1, 20), "s" j)
		flush("")
		for (j = 1; j <= N; j++) { n = ri(2, 8); for (k = 0; k < n; k++) cov[ri(1, M), j] = 1 }
		for (i = 1; i <= M; i++) cov[i, ri(1, N)] = 1
		print "Subject To"
		for (i = 1; i <= M; i++) {
			line = " e" i ":"
			for (j = 1; j <= N; j++) if ((i, j) in cov) term(1, "s" j)
			flush(" >= 1")
		}
		print "Binary"
		for (j = 1; j <= N; j++) print " s" j
	} else if (K == "transport") {
		for (j = 1; j <= M; j++) { d[j] = ri(10, 100); td += d[j] }
		print "Minimize"; line = " obj:"
		for (i = 1; i <= N; i++) for (j = 1; j <= M; j++) term(ri(1, 99), "t" i "_" j)
		flush("")
		print "Subject To"
		for (i = 1; i <= N; i++) {
			line = " sup" i ":"
			for (j = 1; j <= M; j++) term(1, "t" i "_" j)
			flush(" <= " int(1.2 * td / N) + 1)
		}
		for (j = 1; j <= M; j++) {
			line = " dem" j ":"
			for (i = 1; i <= N; i++) term(1, "t" i "_" j)
			flush(" >= " d[j])
		}
	} else if (K == "facility") {
		for (j = 1; j <= M; j++) { d[j] = ri(5, 35); td += d[j] }
		print "Minimize"; line = " obj:"
		for (i = 1; i <= N; i++) term(ri(300, 900), "y" i)
		for (i = 1; i <= N; i++) for (j = 1; j <= M; j++) term(d[j] * ri(1, 30), "x" i "_" j)
		flush("")
		print "Subject To"
		for (j = 1; j <= M; j++) {
			line = " serve" j ":"
			for (i = 1; i <= N; i++) term(1, "x" i "_" j)
			flush(" = 1")
		}
		for (i = 1; i <= N; i++) {
			line = " cap" i ":"
			for (j = 1; j <= M; j++) term(d[j], "x" i "_" j)
			term(-int(3 * td / N), "y" i)
			flush(" <= 0")
		}
		for (i = 1; i <= N; i++) for (j = 1; j <= M; j++) print " open" i "_" j ": x" i "_" j " - y" i " <= 0"
		print "Bounds"
		for (i = 1; i <= N; i++) for (j = 1; j <= M; j++) print " x" i "_" j " <= 1"
		print "Binary"
		for (i = 1; i <= N; i++) print " y" i
	}
	print "End"
}
