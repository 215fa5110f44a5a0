# Generates a flex scanner specification for the flex benchmark (the PGO benchmark). Deterministic for
# every awk: the Park-Miller generator. Variables: N rules, S seed, M shape: "keywords" (N
# literal keywords of a language, then identifiers, numbers, strings, comments) or "patterns" (N
# rules of character classes, alternations, bounded repetitions and trailing context).
function rnd(m) { S = (S * 16807) % 2147483647; return int(S / 64) % m }
function word(n,    s, i) { s = ""; for (i = 0; i < n; i++) s = s substr("abcdefghijklmnopqrstuvwxyz", rnd(26) + 1, 1); return s }
function cls(    a, b) { a = rnd(20); b = a + 2 + rnd(5); return "[" substr("abcdefghijklmnopqrstuvwxyz", a + 1, 1) "-" substr("abcdefghijklmnopqrstuvwxyz", b + 1, 1) substr("0123456789", rnd(10) + 1, 1) "]" }
BEGIN {
	print "%option noyywrap nounput noinput"
	print "%%"
	if (M == "keywords") {
		for (i = 0; i < N; i++) {
			k = word(3 + rnd(8))
			if (k in seen) continue
			seen[k] = 1
			printf "\"%s\"\t{ return %d; }\n", k, i + 1
		}
		print "[a-zA-Z_][a-zA-Z0-9_]*\t{ return -1; }"
		print "[0-9]+(\\.[0-9]+)?([eE][-+]?[0-9]+)?\t{ return -2; }"
		print "\\\"([^\"\\\\\\n]|\\\\.)*\\\"\t{ return -3; }"
		print "\"/*\"([^*]|\"*\"+[^*/])*\"*\"+\"/\"\t{ }"
	} else {
		for (i = 0; i < N; i++) {
			r = rnd(4)
			if (r == 0) p = cls() "{" 1 + rnd(3) "," 4 + rnd(4) "}" word(2)
			else if (r == 1) p = "(" word(2 + rnd(3)) "|" word(2 + rnd(3)) "|" cls() "+)" word(1 + rnd(2))
			else if (r == 2) p = word(2) cls() "*" word(1) "/" cls()
			else p = "(" cls() word(1) ")+" "[^" word(3) "\\n]?" word(2)
			printf "%s\t{ return %d; }\n", p, i + 1
		}
		print "[ \\t\\n]+\t{ }"
		print ".\t{ return 0; }"
	}
	print "%%"
}
