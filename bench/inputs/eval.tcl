# jimtcl evaluation workload (the PGO benchmark), unlike train.tcl: a sieve over a list, string building
# with append and format, arrays, a heapsort written in Tcl, and float expr.
# Arguments: rounds, size factor (the training runs it with another factor).
proc sieve {n} {
	set flags [lrepeat [expr {$n + 1}] 1]
	set count 0
	for {set i 2} {$i <= $n} {incr i} {
		if {[lindex $flags $i]} {
			incr count
			for {set k [expr {$i + $i}]} {$k <= $n} {incr k $i} { lset flags $k 0 }
		}
	}
	return $count
}
proc heapsort {lname} {
	upvar $lname a
	set n [llength $a]
	for {set start [expr {$n / 2 - 1}]} {$start >= -$n + 1} {incr start -1} {
		if {$start >= 0} { set root $start; set end $n } else { set end [expr {$n + $start}]
			set t [lindex $a 0]; lset a 0 [lindex $a $end]; lset a $end $t; set root 0 }
		while {[set child [expr {2 * $root + 1}]] < $end} {
			if {$child + 1 < $end && [lindex $a $child] < [lindex $a [expr {$child + 1}]]} { incr child }
			if {[lindex $a $root] >= [lindex $a $child]} break
			set t [lindex $a $root]; lset a $root [lindex $a $child]; lset a $child $t
			set root $child
		}
	}
}
set acc 0
set m [lindex $argv 1]
for {set r 0} {$r < [lindex $argv 0]} {incr r} {
	incr acc [sieve [expr {10000 * $m}]]
	set a {}
	for {set i 0} {$i < 1000 * $m} {incr i} { lappend a [expr {($i * 104729 + $r) % 65521}] }
	heapsort a
	incr acc [lindex $a 500]
	set out ""
	for {set i 0} {$i < 2000 * $m} {incr i} { append out [format "%05d:%s;" $i [string repeat x [expr {$i % 7}]]] }
	incr acc [string length $out]
	for {set i 0} {$i < 2000 * $m} {incr i} { set arr(k[expr {$i % 500}]) $i }
	foreach k [array names arr] { incr acc [string length $k] }
	set x 0.0
	for {set i 0} {$i < 7000 * $m} {incr i} { set x [expr {$x * 0.999 + 1.5 / ($i + 1)}] }
	incr acc [expr {int($x)}]
}
puts $acc
