# Python training workload for the PGO benchmark (python3.11), another program than eval.py: recursion,
# dicts and lists, string building and methods, classes with properties and inheritance,
# generators, exceptions, sorting with keys, f-strings, integer and float arithmetic.
# Builtins only (no imports). Argument: rounds.
import sys


def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


class Shape:
    def __init__(self, name):
        self.name = name

    def area(self):
        raise NotImplementedError

    def describe(self):
        return f"{self.name}:{self.area():.2f}"


class Rect(Shape):
    def __init__(self, w, h):
        super().__init__("rect")
        self.w, self.h = w, h

    def area(self):
        return self.w * self.h


class Circle(Shape):
    def __init__(self, r):
        super().__init__("circle")
        self.r = r

    @property
    def diameter(self):
        return 2 * self.r

    def area(self):
        return 3.14159 * self.r * self.r


def words(n):
    vocab = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"]
    seed = 7
    out = []
    for _ in range(n):
        seed = (seed * 1103515245 + 12345) & 0x7FFFFFFF
        out.append(vocab[seed % len(vocab)] + str(seed % 97))
    return out


def word_stats(ws):
    counts = {}
    for w in ws:
        counts[w] = counts.get(w, 0) + 1
    top = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:10]
    joined = ",".join(w.upper() for w, _ in top)
    return len(counts), joined.count("A"), sum(len(w) for w in ws)


def gen_primes(limit):
    found = []
    for n in range(2, limit):
        for p in found:
            if p * p > n:
                found.append(n)
                yield n
                break
            if n % p == 0:
                break
        else:
            found.append(n)
            yield n


def parse_ints(items):
    good = bad = 0
    for s in items:
        try:
            good += int(s)
        except ValueError:
            bad += 1
    return good, bad


def one_round(r):
    total = fib(22 + r % 2)
    shapes = [Rect(i, i + 1) if i % 3 else Circle(i) for i in range(1, 3000)]
    total += int(sum(s.area() for s in shapes)) % 1000003
    total += sum(len(s.describe()) for s in shapes[:1000])
    total += sum(c.diameter for c in shapes if isinstance(c, Circle))
    n, a, l = word_stats(words(60000))
    total += n + a + l
    total += sum(gen_primes(30000)) % 1000
    g, b = parse_ints([str(i) if i % 5 else f"x{i}" for i in range(40000)])
    total += g % 1000 + b
    m = [[(i * j) % 7 for j in range(60)] for i in range(60)]
    total += sum(sum(row) for row in zip(*m))
    return total


rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 1
for r in range(rounds):
    print(one_round(r))
