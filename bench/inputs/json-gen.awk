# Generates one JSON document for the cjson benchmark (the PGO benchmark), prefixed by the two flag
# characters its fuzzing/afl.c driver reads (F: "bf" buffered and formatted, "uu" unbuffered and
# unformatted). Deterministic for every awk: the Park-Miller generator. Variables: N features,
# S seed; a GeoJSON-like collection: nested coordinate arrays of floats, properties with escaped
# and \u strings, booleans, nulls and integers.
function rnd(m) { S = (S * 16807) % 2147483647; return int(S / 64) % m }
function fl() { return sprintf("%s%d.%06d", rnd(2) ? "-" : "", rnd(180), rnd(1000000)) }
BEGIN {
	nw = split("north south river hill \\\"old\\\" new caf\\u00e9 stra\\u00dfe line\\nbreak tab\\tstop", w, " ")
	printf "%s{\"type\":\"FeatureCollection\",\"features\":[", F
	for (i = 0; i < N; i++) {
		printf "%s{\"type\":\"Feature\",\"id\":%d,\"geometry\":{\"type\":\"Polygon\",\"coordinates\":[[", i ? "," : "", i
		n = 3 + rnd(12)
		for (j = 0; j < n; j++)
			printf "%s[%s,%s]", j ? "," : "", fl(), fl()
		printf "]]},\"properties\":{\"name\":\"%s %s\",\"visible\":%s,\"layer\":%s,\"rank\":%d,\"area\":%se%d}}", \
			w[rnd(nw) + 1], w[rnd(nw) + 1], rnd(2) ? "true" : "false", rnd(3) ? rnd(20) : "null", rnd(1000), fl(), rnd(9)
	}
	print "]}"
}
