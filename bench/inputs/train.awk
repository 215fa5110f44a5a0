# gawk training workload (the PGO benchmark): records built with sprintf, split into fields, counted in
# an associative array, filtered by regular expressions, edited with gsub.
BEGIN {
	srand(1)
	for (i = 0; i < N; i++) {
		line = sprintf("%d %s %05.2f key%d", i, substr("abcdefghijklmnopqrstuvwxyz", i % 19 + 1, 5), rand() * 100, i % 997)
		n = split(line, f, " ")
		cnt[f[4]]++
		sum += f[3]
		if (f[2] ~ /^[a-f]+g?$/)
			m++
		gsub(/e/, "E", line)
		len += length(line)
	}
	for (k in cnt)
		t += cnt[k]
	printf "%d %d %.2f %d %d\n", t, m, sum, len, length(cnt)
}
