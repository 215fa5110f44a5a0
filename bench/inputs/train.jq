# jq training workload (the PGO benchmark, with --slurp; eval.jq is different): revenue per user of the
# shipped orders, grouped, summed and sorted; item counts per city.
[.[] | select(.status == "shipped" or .status == "delivered")
     | {user, city: .address.city, total: ([.items[] | .qty * .price] | add)}]
| (group_by(.user) | map({user: .[0].user, n: length, sum: (map(.total) | add)}) | sort_by(-.sum)),
  (group_by(.city) | map({key: .[0].city, value: length}) | from_entries)
