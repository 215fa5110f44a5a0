# Generates an XML document for the expat benchmark (the PGO benchmark). Deterministic for every awk:
# the Park-Miller generator. Variables: N records, S seed, M shape: "catalog" (nested elements with
# attributes, entity references, comments) or "feed" (namespaced Atom-like entries with long text,
# character references, CDATA sections and processing instructions).
function rnd(m) { S = (S * 16807) % 2147483647; return int(S / 64) % m }
function words(n,    s, i) { s = w[rnd(nw) + 1]; for (i = 1; i < n; i++) s = s " " w[rnd(nw) + 1]; return s }
BEGIN {
	nw = split("lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut " \
		"labore et dolore magna aliqua enim ad minim veniam quis nostrud exercitation ullamco", w, " ")
	print "<?xml version=\"1.0\" encoding=\"UTF-8\"?>"
	if (M == "catalog") {
		print "<!DOCTYPE catalog [ <!ENTITY co \"Example Components Ltd.\"> ]>"
		print "<catalog>"
		for (i = 0; i < N; i++) {
			printf "  <part id=\"p%d\" class=\"%s\" stock=\"%d\">\n", i, w[rnd(nw) + 1], rnd(1000)
			printf "    <name>%s</name>\n    <maker>&co; &amp; %s</maker>\n", words(3), words(1)
			printf "    <price currency=\"EUR\">%d.%02d</price>\n", rnd(500), rnd(100)
			if (rnd(3) == 0)
				printf "    <!-- %s -->\n", words(4)
			printf "    <dims w=\"%d\" h=\"%d\" d=\"%d\"/>\n  </part>\n", rnd(90), rnd(90), rnd(90)
		}
		print "</catalog>"
	} else {
		print "<feed xmlns=\"http://www.w3.org/2005/Atom\" xmlns:x=\"urn:example:ext\">"
		for (i = 0; i < N; i++) {
			printf "<entry><id>urn:uuid:%08x-%04x</id><title type=\"text\">%s &#x2014; %s</title>", rnd(2147483647), rnd(65536), words(5), words(2)
			printf "<x:meta x:rank=\"%d\" x:lang=\"%s\"/>", rnd(100), rnd(2) ? "en" : "la"
			if (rnd(4) == 0)
				printf "<?render mode=\"%s\"?>", words(1)
			printf "<content type=\"html\"><![CDATA[<p>%s</p>]]></content><summary>%s &lt;%d&gt;</summary></entry>\n", words(30), words(12), rnd(1000)
		}
		print "</feed>"
	}
}
