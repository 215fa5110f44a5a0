// Training workload for mujs (eval.js is different): recursion, string building, array sort, closures.
function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
var acc = 0;
for (var r = 0; r < 20; r++) {
  acc += fib(22);
  var a = [];
  for (var i = 0; i < 20000; i++) a.push((i * 7919) % 100003);
  a.sort(function (x, y) { return x - y; });
  acc += a[1000];
  var parts = [];
  for (var i = 0; i < 20000; i++) parts.push(i + ":" + (i * 3));
  var s = parts.join(",");
  acc += s.split(",").length + s.indexOf("1999:");
  var mk = function (k) { return function (x) { return x * k + 1; }; };
  var f = mk(3);
  for (var i = 0; i < 100000; i++) acc = (acc + f(i)) % 1000003;
}
print(acc);
