# jimtcl training workload (the PGO benchmark; eval.tcl is different): word frequencies with dicts,
# string operations, list sorting, recursive procs and integer expr.
proc fib {n} { if {$n < 2} { return $n }; expr {[fib [expr {$n - 1}]] + [fib [expr {$n - 2}]]} }
set words {alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma}
set acc 0
for {set r 0} {$r < [lindex $argv 0]} {incr r} {
	incr acc [fib 17]
	set freq [dict create]
	for {set i 0} {$i < 20000} {incr i} {
		set w [lindex $words [expr {($i * 7 + $r) % [llength $words]}]]
		dict incr freq [string toupper [string range $w 0 2]]
	}
	dict for {k v} $freq { incr acc [expr {$v * [string length $k]}] }
	set l {}
	for {set i 0} {$i < 5000} {incr i} { lappend l [expr {($i * 7919) % 10007}] }
	set l [lsort -integer $l]
	incr acc [lindex $l 100]
	set s [join $l ","]
	incr acc [llength [split $s ","]]
	incr acc [string first "5000," $s]
	regsub -all {[0-9]+7,} $s {x,} s2
	incr acc [string length $s2]
}
puts $acc
