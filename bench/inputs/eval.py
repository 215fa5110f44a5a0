# Python evaluation workload for the PGO benchmark (python3.11), another program than train.py: an
# n-body simulation in floats, a task scheduler in the style of the richards benchmark, a tokenizer
# and recursive-descent evaluator for arithmetic expressions, a sieve with slices and sets.
# Builtins only (no imports). Argument: rounds.
import sys


def nbody(steps):
    bodies = [[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 39.47],
              [4.84, -1.16, -0.10, 0.606, 2.81, -0.02, 0.037],
              [8.34, 4.12, -0.40, -1.01, 1.82, 0.008, 0.011],
              [12.89, -15.11, -0.22, 1.08, 0.868, -0.01, 0.0017],
              [15.37, -25.91, 0.179, 0.979, 0.594, -0.034, 0.002]]
    dt = 0.01
    pairs = [(bodies[i], bodies[j]) for i in range(5) for j in range(i + 1, 5)]
    for _ in range(steps):
        for b1, b2 in pairs:
            dx = b1[0] - b2[0]
            dy = b1[1] - b2[1]
            dz = b1[2] - b2[2]
            d2 = dx * dx + dy * dy + dz * dz
            mag = dt / (d2 * d2 ** 0.5)
            m1 = b1[6] * mag
            m2 = b2[6] * mag
            b1[3] -= dx * m2
            b1[4] -= dy * m2
            b1[5] -= dz * m2
            b2[3] += dx * m1
            b2[4] += dy * m1
            b2[5] += dz * m1
        for b in bodies:
            b[0] += dt * b[3]
            b[1] += dt * b[4]
            b[2] += dt * b[5]
    return sum(b[0] for b in bodies)


class Task:
    def __init__(self, ident, prio, work):
        self.ident = ident
        self.prio = prio
        self.work = work
        self.done = 0
        self.queue = []

    def run(self, sched):
        if self.queue:
            pkt = self.queue.pop()
            self.done += pkt
            if pkt > 1:
                sched.send((self.ident + 1) % len(sched.tasks), pkt - 1)
        else:
            self.work -= 1
            if self.work > 0:
                sched.send((self.ident + 2) % len(sched.tasks), 3)
        return self.work > 0 or bool(self.queue)


class Scheduler:
    def __init__(self, n):
        self.tasks = [Task(i, i % 4, 200 + i) for i in range(n)]

    def send(self, ident, pkt):
        self.tasks[ident].queue.append(pkt)

    def loop(self):
        steps = 0
        live = True
        while live:
            live = False
            for t in sorted(self.tasks, key=lambda t: t.prio):
                if t.run(self):
                    live = True
                steps += 1
        return steps + sum(t.done for t in self.tasks)


def tokenize(s):
    toks = []
    i = 0
    while i < len(s):
        c = s[i]
        if c.isdigit():
            j = i
            while j < len(s) and s[j].isdigit():
                j += 1
            toks.append(int(s[i:j]))
            i = j
        elif c in "+-*/()":
            toks.append(c)
            i += 1
        else:
            i += 1
    return toks


def evaluate(toks):
    pos = 0

    def expr():
        nonlocal pos
        v = term()
        while pos < len(toks) and toks[pos] in ("+", "-"):
            op = toks[pos]
            pos += 1
            v = v + term() if op == "+" else v - term()
        return v

    def term():
        nonlocal pos
        v = factor()
        while pos < len(toks) and toks[pos] in ("*", "/"):
            op = toks[pos]
            pos += 1
            rhs = factor()
            v = v * rhs if op == "*" else v // (rhs or 1)
        return v

    def factor():
        nonlocal pos
        t = toks[pos]
        pos += 1
        if t == "(":
            v = expr()
            pos += 1
            return v
        if t == "-":
            return -factor()
        return t

    return expr()


def sieve(n):
    flags = bytearray([1]) * (n + 1)
    flags[0:2] = b"\0\0"
    for i in range(2, int(n ** 0.5) + 1):
        if flags[i]:
            flags[i * i::i] = bytes(len(range(i * i, n + 1, i)))
    primes = {i for i, f in enumerate(flags) if f}
    return len(primes), len({p % 10 for p in primes}), sum(1 for p in primes if p + 2 in primes)


def one_round(r):
    total = nbody(12000 + r)
    total += Scheduler(40).loop()
    exprs = ["(%d+%d)*(%d-%d)/(%d+1)-%d*(%d+(%d*%d))" % tuple((i * k) % 97 for k in range(1, 10))
             for i in range(2500)]
    total += sum(evaluate(tokenize(e)) for e in exprs)
    total += sum(sieve(200000))
    return total


rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 1
for r in range(rounds):
    print(one_round(r))
