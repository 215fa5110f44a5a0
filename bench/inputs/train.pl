# SPDX-License-Identifier: MIT
# Training workload for miniperl (the PGO benchmark, perl): core language only, no modules.
# Word counting in hashes, regex matching and substitution, split/join/sprintf, sort with
# comparators, closures, recursion, OO through bless. Usage: miniperl train.pl ROUNDS
my $rounds = shift || 10;

my @words = qw(alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron
	pi rho sigma tau upsilon phi chi psi omega);

# A deterministic text generator (linear congruential).
my $seed = 12345;
sub rnd { $seed = ($seed * 1103515245 + 12345) % 2147483648; return $seed % $_[0]; }

sub make_text {
	my ($n) = @_;
	my @out;
	for my $i (1 .. $n) {
		my $w = $words[rnd(scalar @words)];
		$w = ucfirst $w if rnd(7) == 0;
		$w .= rnd(100) if rnd(5) == 0;
		push @out, $w;
		push @out, "\n" if rnd(12) == 0;
	}
	return join ' ', @out;
}

sub word_count {
	my ($text) = @_;
	my %count;
	for my $w (split /\s+/, $text) {
		next unless length $w;
		$count{lc $w}++;
	}
	my @top = sort { $count{$b} <=> $count{$a} || $a cmp $b } keys %count;
	return scalar(@top) . ':' . join(',', map { "$_=$count{$_}" } @top[0 .. 4]);
}

sub regex_work {
	my ($text) = @_;
	my $n = 0;
	while ($text =~ /\b([A-Z][a-z]+)(\d*)\b/g) { $n += length($1) + ($2 eq '' ? 0 : 1); }
	(my $t = $text) =~ s/(\w+?)(\d+)/$2$1/g;
	$t =~ tr/a-z/A-Z/;
	my @lines = grep { /ALPHA|OMEGA/ } split /\n/, $t;
	return $n + scalar(@lines);
}

sub fib { my $n = shift; return $n < 2 ? $n : fib($n - 1) + fib($n - 2); }

sub make_counter {
	my $c = shift;
	return { inc => sub { $c += shift }, get => sub { $c } };
}

package Account;
sub new { my ($class, %a) = @_; return bless { owner => $a{owner}, balance => 0, log => [] }, $class; }
sub deposit { my ($s, $v) = @_; $s->{balance} += $v; push @{ $s->{log} }, "+$v"; return $s; }
sub withdraw {
	my ($s, $v) = @_;
	return 0 if $v > $s->{balance};
	$s->{balance} -= $v;
	push @{ $s->{log} }, "-$v";
	return 1;
}
sub balance { $_[0]{balance} }

package Savings;
our @ISA = ('Account');
sub new { my ($class, %a) = @_; my $s = Account::new($class, %a); $s->{rate} = $a{rate}; return $s; }
sub accrue { my $s = shift; $s->deposit(int($s->{balance} * $s->{rate})); }

package main;

sub bank {
	my @acc;
	for my $i (0 .. 199) {
		push @acc, $i % 3 ? Account->new(owner => "o$i") : Savings->new(owner => "s$i", rate => 0.01);
	}
	for my $step (1 .. 3000) {
		my $a = $acc[rnd(200)];
		if (rnd(3)) { $a->deposit(rnd(500)) } else { $a->withdraw(rnd(300)) }
		$_->accrue for grep { $_->isa('Savings') && $_->balance > 1000 } @acc[0 .. 9];
	}
	my $sum = 0;
	$sum += $_->balance for @acc;
	return $sum;
}

sub records {
	my @rec;
	for my $i (1 .. 2000) {
		push @rec, sprintf("%05d|%s|%.2f|%s", rnd(99999), $words[rnd(24)], rnd(100000) / 100, rnd(2) ? 'y' : 'n');
	}
	my @parsed = map { [ split /\|/ ] } @rec;
	my @sorted = sort { $a->[1] cmp $b->[1] or $b->[2] <=> $a->[2] } @parsed;
	my %by;
	push @{ $by{ $_->[1] } }, $_->[2] for @sorted;
	my $s = 0;
	for my $k (sort keys %by) { my $t = 0; $t += $_ for @{ $by{$k} }; $s += int $t; }
	return $s;
}

my $total = 0;
for my $r (1 .. $rounds) {
	my $text = make_text(6000);
	my $wc = word_count($text);
	$total += regex_work($text);
	$total += fib(18);
	my @ctr = map { make_counter($_) } 1 .. 50;
	for my $i (1 .. 4000) { $ctr[$i % 50]{inc}->($i) }
	$total += $_->{get}->() for @ctr;
	$total += bank();
	$total += records();
	$total %= 1000000007;
	print "$r $wc\n" if $r == $rounds;
}
print "total $total\n";
