\ pForth training workload for the PGO benchmark (pforth), another program than eval.fth: recursion,
\ nested DO loops with integer arithmetic, a linear congruential generator, VALUEs and VARIABLEs,
\ string building with MOVE/COMPARE, BEGIN/WHILE loops, floating point.
decimal
: fib ( n -- f ) dup 2 < if exit then dup 1- recurse swap 2 - recurse + ;
: gcd ( a b -- g ) begin dup while tuck mod repeat drop ;
variable seed  12345 seed !
: rnd ( -- u ) seed @ 1103515245 * 12345 + 2147483647 and dup seed ! ;
: gcds ( n -- s ) 0 swap 0 do rnd 10000 mod 1+ rnd 10000 mod 1+ gcd + loop ;
: tri ( n -- s ) 0 swap 0 do i 0 ?do i j xor + loop loop ;
0 value hits
: collatz ( n -- steps ) 0 swap begin dup 1 > while dup 1 and if 3 * 1+ else 2/ then swap 1+ swap repeat drop ;
: collatzes ( n -- m ) 0 swap 1 do i collatz max loop ;
create buf 256 allot
create name$ 8 allot  s" abcdefgh" name$ swap move
: strs ( n -- c ) 0 swap 0 do name$ i 8 mod 1+ buf swap move buf 8 name$ 8 compare 0= if 1+ then loop ;
: fsum ( n -- ) ( F: -- r ) 0e 0 ?do i s>f 1e f+ 1e fswap f/ f+ loop ;
: round1 ( -- )
  24 fib .
  200000 gcds .
  700 tri .
  100000 collatzes .
  300000 strs .
  200000 fsum f. cr ;
: train ( n -- ) 0 ?do round1 loop ;
4 train
bye
