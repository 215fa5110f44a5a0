\ pForth evaluation workload for the PGO benchmark (pforth), another program than train.fth: a sieve
\ of Eratosthenes in a byte array, an insertion sort of a cell array, the Ackermann function,
\ a CASE dispatcher, a Mandelbrot set in floating point.
decimal
8190 constant size
create flags size allot
: sieve ( -- n ) flags size 1 fill 0 size 0 do flags i + c@ if i dup + 3 + dup i +
  begin dup size < while 0 over flags + c! over + repeat drop drop 1+ then loop ;
: sieves ( n -- c ) 0 swap 0 do drop sieve loop ;
2000 constant n
create arr n cells allot
: fill-arr ( -- ) n 0 do i 7919 * 10007 mod arr i cells + ! loop ;
: a@ ( i -- x ) cells arr + @ ;
: a! ( x i -- ) cells arr + ! ;
: isort ( -- ) n 1 do i a@ i begin dup 0> if over over 1- a@ < else 0 then
  while dup 1- a@ over a! 1- repeat a! loop ;
: ack ( m n -- a ) over 0= if nip 1+ exit then dup 0= if drop 1- 1 recurse exit then
  over swap 1- recurse swap 1- swap recurse ;
: op ( a b k -- c ) case 0 of + endof 1 of - endof 2 of * endof 3 of xor endof nip endcase ;
: dispatch ( n -- x ) 1 swap 0 do i 5 mod i swap op 65535 and loop ;
fvariable cre  fvariable cim  fvariable zr  fvariable zi
: iter ( -- n ) 0e zr f! 0e zi f! 0 begin dup 50 < zr f@ fdup f* zi f@ fdup f* f+ 4e f< and while
  zr f@ fdup f* zi f@ fdup f* f- cre f@ f+  zr f@ zi f@ f* 2e f* cim f@ f+ zi f! zr f! 1+ repeat ;
: mandel ( -- count ) 0 60 0 do 80 0 do i s>f 40e f/ 2e f- cre f! j s>f 30e f/ 1e f- cim f!
  iter 50 = if 1+ then loop loop ;
: eval1 ( -- )
  60 sieves .
  fill-arr isort arr @ .
  0 160 0 do 3 5 ack + loop .
  300000 dispatch .
  mandel .
  cr ;
: evaluate-all 3 0 do eval1 loop ;
evaluate-all
bye
