# gawk evaluation workload (the PGO benchmark), unlike train.awk: word statistics over generated
# sentences (index, toupper, substr, match, sub), numeric work in user functions, and a sort.
# W: the word list (the training run uses another one).
function score(w,    s, j) {
	s = 0
	for (j = 1; j <= length(w); j += 2)
		s = (s * 31 + index("etaoinshrdlucmfwyp", substr(w, j, 1))) % 65521
	return s
}
BEGIN {
	if (W == "")
		W = "the quick brown fox jumps over a lazy dog while seven wizards box and vex"
	split(W, words, " ")
	nw = length(words)
	for (i = 0; i < N; i++) {
		s = ""
		for (j = 0; j < 6; j++)
			s = s " " words[(i * 7 + j * 3) % nw + 1]
		if (match(s, /w[a-z]+/))
			hits[substr(s, RSTART, RLENGTH)]++
		u = toupper(s)
		sub(/ THE /, " the ", u)
		total += score(u)
		freq[length(u)]++
	}
	n = asorti(hits, keys)
	for (k = 1; k <= n; k++)
		out = out keys[k] "=" hits[keys[k]] " "
	printf "%d %s %d\n", total, out, length(freq)
}
