# Training workload of the POSIX awk benchmarks: a traffic report over an access log (counts per
# status, bytes per page, regular-expression classes of requests, gsub of query strings).
{
	st[$9]++
	bytes += $10
	path = $7
	if (path ~ /\.(png|jpg|ico|css|js)$/)
		static++
	else if (path ~ /^\/api\//)
		api[$6 " " path]++
	n = gsub(/[?&][a-z]+=/, " ", path)
	params += n
	perpage[path] += $10
	split($4, t, ":")
	hour[t[2]]++
}
END {
	for (s in st)
		printf "status %s %d\n", s, st[s]
	for (p in perpage)
		if (perpage[p] > bytes / 100)
			printf "page %s %d\n", p, perpage[p]
	for (a in api)
		printf "api %s %d\n", a, api[a]
	for (h in hour)
		printf "hour %s %d\n", h, hour[h]
	printf "%d static, %d params, %.0f bytes\n", static, params, bytes
}
