# SPDX-License-Identifier: MIT
# Random 3-SAT in DIMACS CNF: -v N=variables -v R=clauses per variable (4.26: the phase
# transition, where about half the instances are satisfiable and they are hardest) -v S=seed.
# Three distinct variables per clause, each negated with probability 1/2.
BEGIN {
	srand(S); m = int(R * N + 0.5)
	printf "c random 3-SAT n=%d ratio=%s seed=%d\np cnf %d %d\n", N, R, S, N, m
	for (i = 0; i < m; i++) {
		a = int(rand() * N) + 1
		do b = int(rand() * N) + 1; while (b == a)
		do c = int(rand() * N) + 1; while (c == a || c == b)
		printf "%d %d %d 0\n", rand() < 0.5 ? -a : a, rand() < 0.5 ? -b : b, rand() < 0.5 ? -c : c
	}
}
