# SPDX-License-Identifier: MIT
# Messy HTML for tidy: -v N=sections -v S=seed -v K=kind. K=doc: an article page (headings,
# paragraphs left open, lists without </li>, <font> and <center>, misnested <b><i>, unquoted
# and duplicated attributes, bare & and named/numeric entities, images without alt, comments);
# K=table: a catalogue page (tables without <tbody>/</td>/</tr>, forms with inputs and selects,
# <br> runs, inline styles, javascript in <script>, <table> inside <p>); K=mix: both, interleaved.
function w(   n, s, i) {
	n = 1 + int(rand() * 9); s = ""
	for (i = 0; i < n; i++) s = s substr("abcdefghijklmnopqrstuvwxyz", 1 + int(rand() * 26), 1)
	return s
}
function words(n,   s, i, r) {
	s = w()
	for (i = 1; i < n; i++) {
		r = rand()
		if (r < 0.03) s = s " &amp; " w()
		else if (r < 0.05) s = s " & " w()
		else if (r < 0.07) s = s " &copy;&nbsp;" w()
		else if (r < 0.08) s = s " &#8212; " w()
		else if (r < 0.10) s = s " <b>" w() " <i>" w() "</b></i>"
		else if (r < 0.12) s = s " <a href=/" w() "/" w() ".html>" w() " " w() "</a>"
		else if (r < 0.13) s = s " <font color=red size=+1>" w() "</font>"
		else if (r < 0.14) s = s " <em>" w()
		else if (r < 0.15) s = s " <span class=\"" w() "\" class=\"" w() "\">" w() "</span>"
		else s = s " " w()
	}
	return s
}
function doc(   i, n) {
	printf "<h%d>%s</h3>\n", 1 + int(rand() * 3), words(4)
	n = 1 + int(rand() * 5)
	for (i = 0; i < n; i++) printf "<p>%s\n", words(20 + int(rand() * 60))
	if (rand() < 0.5) {
		printf "<ul>\n"
		n = 2 + int(rand() * 8)
		for (i = 0; i < n; i++) printf "<li>%s\n", words(3 + int(rand() * 10))
		printf "</ul>\n"
	}
	if (rand() < 0.3) printf "<center><img src=%s.png width=%d></center>\n", w(), 10 * int(rand() * 50)
	if (rand() < 0.3) printf "<!-- %s -->\n", words(6)
	if (rand() < 0.2) printf "<blockquote><p>%s</blockquote>\n", words(30)
}
function table(   i, j, n, m) {
	printf "<p>%s\n<table border=1 cellpadding=2 bgcolor=#eeeeee>\n<tr><th>%s<th>%s<th>%s\n", words(8), w(), w(), w()
	n = 3 + int(rand() * 12)
	for (i = 0; i < n; i++) {
		printf "<tr>"
		for (j = 0; j < 3; j++) printf "<td align=right style=\"color: #%06x\">%s", int(rand() * 16777215), words(1 + int(rand() * 4))
		printf "\n"
	}
	printf "</table>\n"
	if (rand() < 0.5) {
		printf "<form action=/%s method=post>\n", w()
		m = 1 + int(rand() * 4)
		for (i = 0; i < m; i++) printf "<label>%s</label> <input type=text name=%s value=\"%s\"><br><br>\n", w(), w(), words(2)
		printf "<select name=%s>", w()
		for (i = 0; i < 5; i++) printf "<option value=%d>%s", i, w()
		printf "</select>\n<input type=submit>\n</form>\n"
	}
	if (rand() < 0.2) printf "<script>var %s = %d; if (%s < 3 && %s > 1) { document.write('<b>%s</b>'); }</script>\n", "v", i, "v", "v", w()
}
BEGIN {
	srand(S)
	printf "<html>\n<head>\n<title>%s</title>\n<meta http-equiv=Content-Type content=\"text/html; charset=utf-8\">\n", words(5)
	printf "<body bgcolor=white>\n"
	for (k = 0; k < N; k++) {
		if (K == "doc") doc()
		else if (K == "table") table()
		else if (rand() < 0.5) doc()
		else table()
	}
	printf "</body>\n"
}
