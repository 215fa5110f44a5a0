# Evaluation workload of the POSIX awk benchmarks (unlike awklog-train.awk): sessions per client
# with times parsed from the date field, response-time statistics per user agent, a line rewritten
# to CSV for every request, and the slowest clients ranked with an insertion sort.
function secs(d,    t) {
	split(d, t, /[\/:]/)
	return ((t[1] * 24 + t[4]) * 60 + t[5]) * 60 + t[6]
}
{
	ip = $1
	s = secs(substr($4, 2))
	if (!(ip in last) || s - last[ip] > 1800)
		sessions[ip]++
	last[ip] = s
	ua = $12
	gsub(/"/, "", ua)
	sub(/\/.*/, "", ua)
	rt = $NF + 0
	tot[ua] += rt
	cnt[ua]++
	if (rt > mx[ua])
		mx[ua] = rt
	slow[ip] += rt
	line = tolower(ua) "," ip "," $9 "," length($7) "," index($7, "?")
	csv += length(line)
}
END {
	for (u in tot)
		printf "%s %d %.3f %.3f\n", u, cnt[u], tot[u] / cnt[u], mx[u]
	n = 0
	for (ip in slow) {
		v = slow[ip]
		for (j = n; j > 0 && rank[j] < v; j--)
			rank[j + 1] = rank[j]
		rank[j + 1] = v
		if (n < 50)
			n++
	}
	for (ip in sessions)
		ns += sessions[ip]
	printf "%d sessions, top %.3f, csv %d\n", ns, rank[1], csv
}
