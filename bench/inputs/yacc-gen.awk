# SPDX-License-Identifier: MIT
# Large grammars for bison: -v K=kind -v N=size -v S=seed. No actions' semantics (empty or
# $$ = $1 style), conflicts are allowed (bison resolves them by default and counts them).
#   K=random  N nonterminals, each with 1-4 alternatives of 0-6 symbols drawn from 60 tokens
#             and later nonterminals (every nonterminal is reachable from the start symbol),
#             comma-separated lists, some left recursion
#   K=lang    a programming language: N statement forms (keyword, expressions, blocks,
#             argument lists), an expression grammar with N/4 precedence levels declared by
#             %left/%right/%nonassoc, and N/2 declaration forms with nested type specifiers
BEGIN {
	srand(S)
	if (K == "random") random()
	else if (K == "lang") lang()
	else { print "yacc-gen.awk: K must be random or lang" > "/dev/stderr"; exit 1 }
}
function pick(n) { return int(rand() * n) }
function random(   i, j, k, a, na, len, sym, parent) {
	printf "%%token"
	for (i = 0; i < 60; i++) printf " T%d", i
	print "\n%start n0\n%%"
	for (i = 1; i < N; i++) { parent[i] = pick(i) }
	for (i = 0; i < N; i++) {
		printf "n%d:", i
		na = 1 + pick(4)
		for (a = 0; a < na; a++) {
			if (a) printf "\n  |"
			len = pick(7)
			if (a == 0 && pick(5) == 0) { printf " n%d T%d n%d", i, pick(60), (i + 1 < N ? i + 1 + pick(N - i - 1) : i); continue }
			for (k = 0; k < len; k++) {
				if (i + 1 < N && pick(3) == 0) printf " n%d", i + 1 + pick(N - i - 1)
				else printf " T%d", pick(60)
			}
			if (len == 0) printf " %%empty"
		}
		for (j = i + 1; j < N; j++) if (parent[j] == i) printf "\n  | T%d n%d", pick(60), j
		if (pick(4) == 0) printf "\n  | n%d_list T%d", i, pick(60)
		print "\n  ;"
		if (index(listed, " " i " ") == 0) { printf "n%d_list: n%d | n%d_list ',' n%d ;\n", i, i, i, i; listed = listed " " i " " }
	}
}
function lang(   i, j, L, ops, nops) {
	L = int(N / 4) + 2
	printf "%%token ID NUM STR"
	for (i = 0; i < N; i++) printf " KW%d", i
	for (i = 0; i < N / 2; i++) printf " TY%d", i
	print ""
	nops = 0
	for (i = 0; i < L; i++) {
		printf "%s", (i % 3 == 0 ? "%left" : i % 3 == 1 ? "%right" : "%nonassoc")
		for (j = 0; j < 2 + pick(3); j++) { printf " OP%d", nops; ops[i, j] = nops++; }
		ops[i, "n"] = j
		print ""
	}
	print "%start program\n%%"
	print "program: %empty | program item ;"
	print "item: stmt | decl ;"
	print "block: '{' stmts '}' ;\nstmts: %empty | stmts stmt ;"
	print "args: %empty | arglist ;\narglist: expr | arglist ',' expr ;"
	printf "stmt: expr ';' | block"
	for (i = 0; i < N; i++) {
		j = pick(6)
		if (j == 0) printf "\n  | KW%d expr ';'", i
		else if (j == 1) printf "\n  | KW%d '(' args ')' block", i
		else if (j == 2) printf "\n  | KW%d '(' expr ')' stmt KW%d stmt", i, pick(N)
		else if (j == 3) printf "\n  | KW%d ID '=' expr ';'", i
		else if (j == 4) printf "\n  | KW%d block KW%d '(' expr ')' ';'", i, pick(N)
		else printf "\n  | KW%d '(' stmt expr ';' expr ')' stmt", i
	}
	print "\n  ;"
	printf "expr: primary"
	for (i = 0; i < L; i++)
		for (j = 0; j < ops[i, "n"]; j++) printf "\n  | expr OP%d expr", ops[i, j]
	print "\n  ;"
	print "primary: ID | NUM | STR | '(' expr ')' | ID '(' args ')' | primary '[' expr ']' | primary '.' ID ;"
	printf "decl: type declarators ';'"
	for (i = 0; i < N / 2; i++) printf "\n  | TY%d ID '{' members '}' ';'", i
	print "\n  ;"
	printf "type: ID"
	for (i = 0; i < N / 2; i++) printf " | TY%d%s", i, (pick(3) == 0 ? " '<' typelist '>'" : "")
	print " ;"
	print "typelist: type | typelist ',' type ;"
	print "members: %empty | members type declarators ';' ;"
	print "declarators: declarator | declarators ',' declarator ;"
	print "declarator: ID | '*' declarator | declarator '[' expr ']' | declarator '(' params ')' | '(' declarator ')' | declarator '=' expr ;"
	print "params: %empty | paramlist ;\nparamlist: type declarator | paramlist ',' type declarator ;"
}
