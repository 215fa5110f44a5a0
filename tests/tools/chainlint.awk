# chainlint.awk: the checker behind tests/tools/chainlint.sh (read its header). Variables:
# NAME (file name in messages), whole=1 (the input is one body) or 0 (a test script).
function isin(w, set) { return index(" " set " ", " " w " ") > 0 }

# skip_sq(s, i): s[i] is a single quote; the index after its closing quote.
function skip_sq(s, i,   j) {
	j = index(substr(s, i + 1), "\047")
	return j ? i + j + 1 : length(s) + 1
}
# skip_dq(s, i): s[i] is a double quote; the index after its closing quote.
function skip_dq(s, i,   c, n) {
	n = length(s); i++
	while (i <= n) {
		c = substr(s, i, 1)
		if (c == "\\") { i += 2; continue }
		if (c == "\"") return i + 1
		if (c == "$" && substr(s, i + 1, 1) == "(") { i = skip_par(s, i + 1); continue }
		if (c == "$" && substr(s, i + 1, 1) == "{") { i = skip_brace(s, i + 1); continue }
		if (c == "`") { i = skip_bq(s, i); continue }
		i++
	}
	return i
}
function skip_bq(s, i,   c, n) {
	n = length(s); i++
	while (i <= n) {
		c = substr(s, i, 1)
		if (c == "\\") { i += 2; continue }
		if (c == "`") return i + 1
		i++
	}
	return i
}
# skip_par(s, i): s[i] is "("; the index after its matching ")", quotes and nesting honoured.
function skip_par(s, i,   c, n, d) {
	n = length(s); d = 0
	while (i <= n) {
		c = substr(s, i, 1)
		if (c == "\\") { i += 2; continue }
		if (c == "\047") { i = skip_sq(s, i); continue }
		if (c == "\"") { i = skip_dq(s, i); continue }
		if (c == "`") { i = skip_bq(s, i); continue }
		if (c == "#" && (i == 1 || substr(s, i - 1, 1) ~ /[ \t\n(]/)) {
			while (i <= n && substr(s, i, 1) != "\n") i++
			continue
		}
		if (c == "(") d++
		if (c == ")" && --d == 0) return i + 1
		i++
	}
	return i
}
function skip_brace(s, i,   c, n, d) {
	n = length(s); d = 0
	while (i <= n) {
		c = substr(s, i, 1)
		if (c == "\\") { i += 2; continue }
		if (c == "\047") { i = skip_sq(s, i); continue }
		if (c == "\"") { i = skip_dq(s, i); continue }
		if (c == "{") d++
		if (c == "}" && --d == 0) return i + 1
		i++
	}
	return i
}
function count_nl(s, a, b,   k, m) {
	m = 0
	for (k = a; k < b; k++) if (substr(s, k, 1) == "\n") m++
	return m
}

# tokenize(s): split body s into logical lines LN[1..nl]: tokens T[l, 1..NT[l]], OP[l, k] = 1 for
# operators, ENDL[l] the body line where line l ends.
function tokenize(s,   l, n, i, c, c2, line, nhd, hd, hdstrip, k, j, m, t, ln) {
	n = length(s); nl = 0; line = 1; nhd = 0; w = ""; inw = 0
	newline()
	i = 1
	while (i <= n) {
		c = substr(s, i, 1); c2 = substr(s, i, 2)
		if (c == " " || c == "\t") { flushw(); i++; continue }
		if (c == "\n") {
			flushw(); ENDL[nl] = line; line++; i++
			for (k = 1; k <= nhd; k++) {	# here-document bodies: skip to their delimiters
				while (i <= n) {
					j = index(substr(s, i), "\n"); if (!j) j = n - i + 2
					t = substr(s, i, j - 1); i += j; line++
					if (hdstrip[k]) sub(/^\t+/, "", t)
					if (t == hd[k]) break
				}
			}
			nhd = 0
			newline(); continue
		}
		if (c == "#" && !inw) { while (i <= n && substr(s, i, 1) != "\n") i++; continue }
		if (c2 == "\\\n") { line++; i += 2; continue }
		if (c == "\\") { w = w substr(s, i, 2); inw = 1; i += 2; continue }
		if (c == "\047") { j = skip_sq(s, i); line += count_nl(s, i, j); w = w substr(s, i, j - i); inw = 1; i = j; continue }
		if (c == "\"") { j = skip_dq(s, i); line += count_nl(s, i, j); w = w substr(s, i, j - i); inw = 1; i = j; continue }
		if (c == "`") { j = skip_bq(s, i); line += count_nl(s, i, j); w = w substr(s, i, j - i); inw = 1; i = j; continue }
		if (c2 == "$(" || c2 == "<(" || c2 == ">(" || c2 == "=(" || (c == "(" && inw)) {
			j = skip_par(s, c == "(" ? i : i + 1); line += count_nl(s, i, j)
			w = w substr(s, i, j - i); inw = 1; i = j; continue
		}
		if (c2 == "${") { j = skip_brace(s, i + 1); line += count_nl(s, i, j); w = w substr(s, i, j - i); inw = 1; i = j; continue }
		if (c2 == "((" && !inw) {	# arithmetic command
			j = skip_par(s, i); line += count_nl(s, i, j); w = substr(s, i, j - i); inw = 1; i = j; continue
		}
		if (c2 == "<<" && substr(s, i, 3) != "<<<") {	# here-document: remember its delimiter
			flushw(); i += 2; nhd++; hdstrip[nhd] = 0
			if (substr(s, i, 1) == "-") { hdstrip[nhd] = 1; i++ }
			while (substr(s, i, 1) ~ /[ \t]/) i++
			t = ""
			while (i <= n && substr(s, i, 1) !~ /[ \t\n;&|<>()]/) { t = t substr(s, i, 1); i++ }
			gsub(/[\047"\\]/, "", t); hd[nhd] = t
			addtok("<<" t, 0); continue
		}
		if (c2 == ">&" || c2 == "<&" || c2 == "&>") { w = w c2; inw = 1; i += 2; continue }
		if (c2 == "&&" || c2 == "||" || c2 == ";;" || c2 == "|&") { flushw(); addtok(c2, 1); i += 2; continue }
		if (c == "&" || c == "|" || c == ";" || c == "(" || c == ")") { flushw(); addtok(c, 1); i++; continue }
		w = w c; inw = 1; i++
	}
	flushw(); ENDL[nl] = line
	# drop empty logical lines
	m = 0
	for (l = 1; l <= nl; l++) {
		if (!NT[l]) continue
		m++
		if (m != l) {
			NT[m] = NT[l]; ENDL[m] = ENDL[l]
			for (k = 1; k <= NT[l]; k++) { T[m, k] = T[l, k]; OP[m, k] = OP[l, k] }
		}
	}
	nl = m
}
function newline() { nl++; NT[nl] = 0 }
function flushw() { if (inw) addtok(w, 0); w = ""; inw = 0 }
function addtok(t, op) { NT[nl]++; T[nl, NT[nl]] = t; OP[nl, NT[nl]] = op }

function report(l, what) {
	nbad++
	printf "%s:%d: %s: %s\n", NAME, BASE + ENDL[l] - 1, what, BL[ENDL[l]]
}

# the body s, whose first line is line BASE of file NAME
function lint(s,   l, k, t, nx, last, first, cased, d, pat, lo, nj) {
	split(s, BL, "\n")
	tokenize(s)
	cased = 0
	for (l = 1; l <= nl; l++) {
		first = T[l, 1]; last = T[l, NT[l]]
		pat = 0
		for (k = 1; k <= NT[l]; k++) {
			t = T[l, k]
			if (!OP[l, k] && (k == 1 || OP[l, k - 1] || isin(T[l, k - 1], "then do else { !"))) {
				if (t == "case") cased++
				if (t == "esac") cased--
			}
			if (OP[l, k] && t == ";" && k < NT[l] && !semi_ok(l, k))
				report(l, "\047;\047 in chain")
		}
		# a case pattern line: in a case, a ")" without its "("
		if (cased > 0) {
			d = 0
			for (k = 1; k <= NT[l]; k++) {
				if (OP[l, k] && T[l, k] == "(") d++
				if (OP[l, k] && T[l, k] == ")" && --d < 0) { pat = k; break }
			}
		}
		# the loop rule, at each "done": the loop body's last command list (lines joined
		# by a trailing && || |) must end in "|| exit|return", or be "CONDITION || break"
		for (k = 1; k <= NT[l]; k++) {
			if (T[l, k] != "done" || OP[l, k]) continue
			if (k > 1 && !(OP[l, k - 1] && T[l, k - 1] == ";")) continue
			lo = k > 1 ? l : l - 1
			nj = join_list(lo, k > 1 ? k - 2 : NT[lo])
			while (nj > 0 && JO[nj] && J[nj] == ";") nj--
			t = tail(nj)
			if (t != "exit" && t != "break1") report(lo, "loop without exit")
		}
		if (l == nl) break
		nx = T[l + 1, 1]
		if (isin(nx, "fi done esac } ) else elif then do ;;")) continue
		if (OP[l, NT[l]] && isin(last, "&& || | |& & ( ;;")) continue
		if (!OP[l, NT[l]] && isin(last, "{ do then else")) continue
		if (last == "in" && (first == "case" || first == "for")) continue
		if (pat == NT[l]) continue
		# a line that exits on failure, or a loop condition that breaks
		t = tail(join_list(l, NT[l]))
		if (t == "exit" || t == "break" || t == "break1") continue
		report(l, "broken &&-chain")
	}
}

# join_list(l, p): J[1..n] (JO: is an operator) = the tokens T[l, 1..p], after those of the
# lines before l that end in && || | (one command list); returns n.
function join_list(l, p,   lo, k, n) {
	for (lo = l; lo > 1 && OP[lo - 1, NT[lo - 1]] && isin(T[lo - 1, NT[lo - 1]], "&& || |"); lo--)
		;
	n = 0
	for (; lo <= l; lo++)
		for (k = 1; k <= (lo == l ? p : NT[lo]); k++) { n++; J[n] = T[lo, k]; JO[n] = OP[lo, k] }
	return n
}

# tail(n): how the command list J[1..n] ends: "exit" (|| exit N, || return N, || { ... exit N; }:
# a failure ends the test), "break1" (one command || break: a loop condition), "break"
# (&& break, || break after a chain: a retry), or "" (a failure may go unseen).
function tail(n,   k, d, op, t) {
	d = 0
	for (k = n; k >= 1; k--) {
		t = J[k]
		if (JO[k] && t == ")" || !JO[k] && t == "}") d++
		else if (JO[k] && t == "(" || !JO[k] && t == "{") { if (--d < 0) break }
		else if (d == 0 && JO[k] && isin(t, "&& || ; | & |&")) break
		else if (d == 0 && !JO[k] && isin(t, "do then else")) break
	}
	if (k < 1 || !JO[k] || !isin(J[k], "&& ||")) return ""
	op = J[k]
	if (k < n && J[k + 1] == "break") {
		if (op == "&&") return "break"
		for (k--; k >= 1; k--) {	# the condition: one command (or a || of them)
			if (JO[k] && isin(J[k], "&& | |& &")) return "break"
			if (JO[k] && isin(J[k], "; ( ;;") || !JO[k] && isin(J[k], "do then else {") && (k == 1 || JO[k - 1])) break
		}
		return "break1"
	}
	if (op != "||") return ""
	# what follows the ||: exit/return, or a { } group with an exit/return command in it
	if (k == n) return ""
	if (!JO[k + 1] && isin(J[k + 1], "exit return")) return k + 2 <= n && J[k + 2] == "0" ? "" : "exit"
	if (J[k + 1] != "{" || JO[k + 1]) return ""
	for (k += 2; k <= n; k++)
		if (!JO[k] && isin(J[k], "exit return") && (JO[k - 1] || J[k - 1] == "{"))
			return k < n && J[k + 1] == "0" ? "" : "exit"
	return ""
}

# semi_ok(l, k): the ";" T[l, k] only leads to a command list that ends the test anyway:
# "cat err; exit 1", "cat err off; false", or precedes a keyword (then do fi done ...).
function semi_ok(l, k,   e, d, s, n) {
	if (isin(T[l, k + 1], "then do fi done esac else elif } ) ;;")) return 1
	d = 0; s = k + 1
	for (e = k + 1; e <= NT[l]; e++) {
		if (OP[l, e] && T[l, e] == "(" || !OP[l, e] && T[l, e] == "{") d++
		else if (OP[l, e] && T[l, e] == ")" || !OP[l, e] && T[l, e] == "}") { if (--d < 0) break }
		else if (OP[l, e] && T[l, e] == ";;" && d == 0) break
		else if (d == 0 && OP[l, e] && isin(T[l, e], "&& || ; |") && e < NT[l] &&
			 !(T[l, e] == ";" && isin(T[l, e + 1], "} )"))) s = e + 1
	}
	return isin(T[l, s], "exit return false") && !OP[l, s]
}

# file mode: the last word of each test_expect_success command is its body.
function lint_file(s,   n, i, c, j, line, w, inw, wl, nw, bodyline, ls, rest) {
	n = length(s); i = 1; line = 1
	while (i <= n) {
		j = index(substr(s, i), "\n"); if (!j) j = n - i + 2
		ls = substr(s, i, j - 1)
		if (ls !~ /^[ \t]*test_expect_success[ \t]/) { i += j; line++; continue }
		i += index(ls, "test_expect_success") + length("test_expect_success") - 1
		nw = 0; w = ""; inw = 0; bodyline = line
		while (i <= n) {
			c = substr(s, i, 1)
			if (c == " " || c == "\t") { if (inw) { nw++; W = w; WL = wl }; w = ""; inw = 0; i++; continue }
			if (c == "\n" || c == ";" || c == "&" || c == "|") break
			if (!inw) { wl = line; inw = 1 }
			if (c == "\047") { j = skip_sq(s, i); w = w substr(s, i + 1, j - i - 2); line += count_nl(s, i, j); i = j; continue }
			if (c == "\"") { j = skip_dq(s, i); w = w substr(s, i + 1, j - i - 2); line += count_nl(s, i, j); i = j; continue }
			if (substr(s, i, 2) == "\\\n") { i += 2; line++; continue }
			if (c == "\\") { w = w substr(s, i + 1, 1); i += 2; continue }
			w = w c; i++
		}
		if (inw) { nw++; W = w; WL = wl }
		if (nw >= 2) { BASE = WL; lint(W) }
	}
}

BEGIN { nbad = 0 }
{ text = (NR == 1) ? $0 : text "\n" $0 }
END {
	if (whole) { BASE = 1; lint(text) } else lint_file(text)
	exit nbad ? 1 : 0
}
