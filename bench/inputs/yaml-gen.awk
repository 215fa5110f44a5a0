# Generates YAML for the libyaml benchmark (the PGO benchmark). Deterministic for every awk: the
# Park-Miller generator. Variables: N records, S seed, M shape: "config" (block style: nested
# mappings, sequences, quoted and plain scalars, literal blocks, comments) or "records" (one
# document per record: flow mappings and sequences, anchors and aliases, tags, folded scalars).
function rnd(m) { S = (S * 16807) % 2147483647; return int(S / 64) % m }
function words(n,    s, i) { s = w[rnd(nw) + 1]; for (i = 1; i < n; i++) s = s " " w[rnd(nw) + 1]; return s }
BEGIN {
	nw = split("lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut " \
		"labore et dolore magna aliqua enim ad minim veniam quis nostrud exercitation ullamco", w, " ")
	if (M == "config") {
		print "# generated service configuration"
		print "services:"
		for (i = 0; i < N; i++) {
			printf "  svc-%d:\n    image: \"registry.example/%s:%d.%d\"\n", i, w[rnd(nw) + 1], rnd(9), rnd(30)
			printf "    replicas: %d\n    enabled: %s\n", rnd(12), rnd(2) ? "true" : "false"
			printf "    env:\n      - name: %s_%d\n        value: '%s'\n", toupper(w[rnd(nw) + 1]), rnd(100), words(3)
			printf "      - name: LEVEL\n        value: %s\n", words(1)
			if (rnd(3) == 0)
				printf "    # %s\n", words(5)
			printf "    ports: [%d, %d]\n", 1000 + rnd(9000), 1000 + rnd(9000)
			printf "    command: |\n      %s\n      %s --flag=%d\n", words(6), words(2), rnd(50)
		}
	} else {
		for (i = 0; i < N; i++) {
			print "--- !record"
			printf "id: %d\nowner: &o%d {name: %s, roles: [%s, %s], weight: %d.%02d}\n", i, i, words(1), words(1), words(1), rnd(100), rnd(100)
			printf "reviewer: *o%d\n", i
			printf "tags: !!set {%s, %s, %s}\n", w[rnd(nw) + 1], w[rnd(nw) + 1], w[rnd(nw) + 1]
			printf "summary: >\n  %s\n  %s\n", words(9), words(7)
			printf "points: [[%d, %d], [%d, %d], {x: %d, y: %d}]\n", rnd(99), rnd(99), rnd(99), rnd(99), rnd(99), rnd(99)
			printf "note: \"%s \\t %s\"\n", words(4), words(2)
		}
	}
}
