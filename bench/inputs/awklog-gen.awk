# Generates a web-server access log for the POSIX awk benchmarks (the PGO benchmark: mawk, original-awk).
# Deterministic for every awk: the Park-Miller generator (exact in double arithmetic).
# Variables: N lines, S seed.
function rnd(m) { S = (S * 16807) % 2147483647; return int(S / 64) % m }
BEGIN {
	split("GET GET GET GET POST HEAD PUT DELETE", meth, " ")
	split("index.html about.html img/logo.png css/site.css js/app.js api/items api/users/42 blog/2023/post-1 " \
		"blog/2023/post-2 search download/file.tar.gz img/photo.jpg favicon.ico robots.txt", page, " ")
	split("200 200 200 200 200 304 301 404 500 403", status, " ")
	split("Mozilla/5.0 curl/7.88 Wget/1.21 python-requests/2.28 Googlebot/2.1", agent, " ")
	split("Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec", mon, " ")
	for (i = 0; i < N; i++) {
		q = rnd(4) == 0 ? "?q=" rnd(1000) "&page=" rnd(20) : ""
		printf "10.%d.%d.%d - - [%02d/%s/2023:%02d:%02d:%02d +0000] \"%s /%s%s HTTP/1.1\" %s %d \"-\" \"%s\" %d.%03d\n",
			rnd(4), rnd(32), rnd(256), rnd(28) + 1, mon[rnd(12) + 1], rnd(24), rnd(60), rnd(60),
			meth[rnd(8) + 1], page[rnd(14) + 1], q, status[rnd(10) + 1], rnd(50000) + 100 * rnd(3),
			agent[rnd(5) + 1], rnd(3), rnd(1000)
	}
}
