// Evaluation workload for mujs: object trees, prototype method calls, property hashing, float math.
function bottomUp(d) { return d === 0 ? {} : { l: bottomUp(d - 1), r: bottomUp(d - 1) }; }
function check(t) { return t.l ? 1 + check(t.l) + check(t.r) : 1; }
function Point(x, y) { this.x = x; this.y = y; }
Point.prototype.add = function (o) { return new Point(this.x + o.x, this.y + o.y); };
Point.prototype.norm2 = function () { return this.x * this.x + this.y * this.y; };
var acc = 0;
for (var r = 0; r < 4; r++) {
  for (var d = 4; d <= 12; d += 2) acc += check(bottomUp(d));
  var p = new Point(0, 0), q = new Point(0.5, 0.25);
  for (var i = 0; i < 60000; i++) { p = p.add(q); if (p.norm2() > 1e6) p = new Point(0, 0); }
  acc += Math.floor(p.x);
  var h = {};
  for (var i = 0; i < 30000; i++) { var k = "k" + (i % 3000); h[k] = (h[k] || 0) + i; }
  for (var k in h) acc = (acc + k.length + h[k]) % 1000003;
  var s = 0.0;
  for (var i = 0; i < 200000; i++) s += Math.sin(i) * 0.5;
  acc += Math.floor(s);
}
print(acc);
