# Generates JSON lines (one order per line) for the jq benchmark (the PGO benchmark). Deterministic for
# every awk: the Park-Miller generator. Variables: N orders, S seed.
function rnd(m) { S = (S * 16807) % 2147483647; return int(S / 64) % m }
BEGIN {
	split("ana bo chen dmitri eve farah gus hana ivan jun kofi lea mo nia omar", user, " ")
	split("Berlin Lisbon Oslo Lima Osaka Quito Accra Perth Dublin Porto", city, " ")
	split("new paid shipped shipped shipped delivered returned", status, " ")
	split("gift express fragile bulk promo eco", tag, " ")
	for (i = 0; i < N; i++) {
		printf "{\"id\":%d,\"user\":\"%s\",\"status\":\"%s\",\"ts\":%d,\"address\":{\"city\":\"%s\",\"zip\":\"%05d\"},\"items\":[",
			i, user[rnd(15) + 1], status[rnd(7) + 1], 1600000000 + rnd(30000000), city[rnd(10) + 1], rnd(100000)
		n = rnd(5) + 1
		for (j = 0; j < n; j++)
			printf "%s{\"sku\":\"SKU-%04d\",\"qty\":%d,\"price\":%d.%02d}", j ? "," : "", rnd(3000), rnd(4) + 1, rnd(200), rnd(100)
		printf "],\"tags\":["
		n = rnd(3)
		for (j = 0; j < n; j++)
			printf "%s\"%s\"", j ? "," : "", tag[rnd(6) + 1]
		printf "],\"note\":%s}\n", rnd(4) ? "null" : "\"call before delivery\""
	}
}
