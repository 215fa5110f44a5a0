# jq evaluation workload (the PGO benchmark), unlike train.jq: every order rewritten as a CSV row (jq -r)
# with string functions, a regular expression, dates and a reduce over the items.
[.id, (.user | ascii_upcase), .address.city, (.address.zip | tonumber % 97),
 (.tags | join(";")), (.items | length),
 (reduce .items[] as $i (0; . + $i.qty * $i.price) | floor),
 ([.items[].sku | select(test("-0[0-9]+$"))] | length),
 (.ts | todate | split("T")[0]), (.note // "" | length)]
| @csv
