# SPDX-License-Identifier: MIT
# Evaluation workload for miniperl (the PGO benchmark, perl), a different program from train.pl:
# a tokenizer and recursive-descent evaluator of arithmetic, n-queens by backtracking, an LRU
# cache on a hash and an array, a Schwartzian-transform sort, a shape hierarchy with
# polymorphic methods, a sieve, string building with substr/index/reverse.
# Usage: miniperl eval.pl ROUNDS
my $rounds = shift || 10;

sub tokenize {
	my ($s) = @_;
	my @t;
	while ($s =~ /\G\s*(?:(\d+(?:\.\d+)?)|([-+*\/()%])|([a-z]+))/gc) {
		push @t, defined $1 ? [ 'n', $1 ] : defined $2 ? [ 'o', $2 ] : [ 'v', $3 ];
	}
	return \@t;
}

my ($toks, $pos, %vars);
sub peek { $pos < @$toks ? $toks->[$pos] : [ 'e', '' ] }
sub expr {
	my $v = term();
	while (peek()->[0] eq 'o' && peek()->[1] =~ /^[-+]$/) {
		my $op = $toks->[ $pos++ ][1];
		my $r = term();
		$v = $op eq '+' ? $v + $r : $v - $r;
	}
	return $v;
}
sub term {
	my $v = factor();
	while (peek()->[0] eq 'o' && peek()->[1] =~ m{^[*/%]$}) {
		my $op = $toks->[ $pos++ ][1];
		my $r = factor();
		$v = $op eq '*' ? $v * $r : $op eq '/' ? ($r ? $v / $r : 0) : ($r ? $v % $r : 0);
	}
	return $v;
}
sub factor {
	my $t = $toks->[ $pos++ ];
	return $t->[1] if $t->[0] eq 'n';
	return $vars{ $t->[1] } // 0 if $t->[0] eq 'v';
	if ($t->[1] eq '(') { my $v = expr(); $pos++; return $v; }
	if ($t->[1] eq '-') { return -factor(); }
	return 0;
}
sub calc { ($toks, $pos) = (tokenize($_[0]), 0); return expr(); }

sub queens {
	my ($n) = @_;
	my $count = 0;
	my (@col, @d1, @d2);
	my $place;
	$place = sub {
		my $r = shift;
		if ($r == $n) { $count++; return; }
		for my $c (0 .. $n - 1) {
			next if $col[$c] || $d1[ $r + $c ] || $d2[ $r - $c + $n ];
			$col[$c] = $d1[ $r + $c ] = $d2[ $r - $c + $n ] = 1;
			$place->($r + 1);
			$col[$c] = $d1[ $r + $c ] = $d2[ $r - $c + $n ] = 0;
		}
	};
	$place->(0);
	return $count;
}

sub lru {
	my ($cap, $n) = @_;
	my (%cache, @order);
	my ($hit, $miss) = (0, 0);
	my $x = 7;
	for my $i (1 .. $n) {
		$x = ($x * 31 + 11) % 1009;
		my $k = "k" . ($x % ($cap * 2));
		if (exists $cache{$k}) {
			$hit++;
			@order = ((grep { $_ ne $k } @order), $k) if $i % 4 == 0;
		} else {
			$miss++;
			$cache{$k} = $x;
			push @order, $k;
			delete $cache{ shift @order } if @order > $cap;
		}
	}
	return "$hit/$miss";
}

package Shape;
sub new { my ($c, @a) = @_; my $s = bless {}, $c; $s->init(@a); return $s; }
sub describe { my $s = shift; return sprintf("%s(%.1f)", ref $s, $s->area); }
package Circle;
our @ISA = ('Shape');
sub init { $_[0]{r} = $_[1] }
sub area { 3.14159265 * $_[0]{r} ** 2 }
package Rect;
our @ISA = ('Shape');
sub init { @{ $_[0] }{qw(w h)} = @_[ 1, 2 ] }
sub area { $_[0]{w} * $_[0]{h} }
package Square;
our @ISA = ('Rect');
sub init { $_[0]->SUPER::init($_[1], $_[1]) }
package main;

sub shapes {
	my @s;
	for my $i (1 .. 600) {
		push @s, $i % 3 == 0 ? Circle->new($i % 17) : $i % 3 == 1 ? Rect->new($i % 13, $i % 7 + 1) : Square->new($i % 11);
	}
	my @sorted = map { $_->[1] } sort { $a->[0] <=> $b->[0] } map { [ $_->area, $_ ] } @s;
	my $d = join ';', map { $_->describe } @sorted[ 0 .. 20 ];
	return length($d) + int($sorted[-1]->area);
}

sub sieve {
	my $n = shift;
	my @is = (1) x ($n + 1);
	@is[ 0, 1 ] = (0, 0);
	for (my $i = 2; $i * $i <= $n; $i++) {
		next unless $is[$i];
		for (my $j = $i * $i; $j <= $n; $j += $i) { $is[$j] = 0 }
	}
	return scalar grep { $_ } @is;
}

sub strings {
	my $s = '';
	for my $i (1 .. 1500) { $s .= chr(97 + $i * 7 % 26) x ($i % 3 + 1); }
	my $n = 0;
	my $p = 0;
	while (($p = index($s, 'ab', $p)) >= 0) { $n++; $p++; }
	my $r = reverse $s;
	for my $i (0 .. 400) { $n += ord(substr($r, $i * 3, 1)) }
	my %h;
	$h{ substr($s, $_, 3) }++ for 0 .. length($s) - 3;
	return $n + scalar keys %h;
}

my @exprs = ('1 + 2 * 3 - 4 / 2', '(a + b) * (a - b) % 7', '-(3 + x) * 2 + y / 3', '((1+2)*(3+4)*(5+6)) - a*b*x');
my $total = 0;
for my $r (1 .. $rounds) {
	%vars = (a => $r, b => 3, x => $r % 5, y => 12);
	for my $i (1 .. 300) { $total += calc($exprs[ $i % 4 ]) }
	$total += queens(7);
	my $l = lru(40, 3000);
	$total += shapes();
	$total += sieve(20000);
	$total += strings();
	$total = int($total) % 1000000007;
	print "$r $l\n" if $r == $rounds;
}
print "total $total\n";
