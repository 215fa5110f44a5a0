#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# The table of bench/gate.sh from its results directory (checks.tsv, json/, err/, sizes.txt,
# cost.tsv, own.txt): per mode, variant and cell, the failure rate (exit 1) with its 95%
# Clopper-Pearson interval, the stage-1 rate (before confirmation, when the gate confirmed),
# the right root cause named, any other / non-own root cause, the program-level flag and,
# if the gate's verdict JSON carries one, its power line. Reads the verdicts with .get():
# works with gate versions that add or drop keys.
import json
import math
import re
import os
import statistics
import sys

TARGET = "luaH_getshortstr"
CELLS = {"aa": "A/A (same source, separate builds)", "inj1": "+1% of total in " + TARGET,
         "inj2": "+2% of total in " + TARGET, "inj5": "+5% of total in " + TARGET}


def binom_cdf(k, n, p):
    if p <= 0:
        return 1.0
    if p >= 1:
        return 0.0 if k < n else 1.0
    lp, lq = math.log(p), math.log1p(-p)
    return min(1.0, sum(math.exp(math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1)
                                 + i * lp + (n - i) * lq) for i in range(0, k + 1)))


def bisect(f, target):
    """p in [0, 1] where the decreasing function f crosses target."""
    lo, hi = 0.0, 1.0
    for _ in range(60):
        mid = (lo + hi) / 2
        if f(mid) > target:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def cp_interval(k, n):
    """Clopper-Pearson 95%: P(X >= k | lo) = 0.025, P(X <= k | hi) = 0.025."""
    if n == 0:
        return float("nan"), float("nan")
    lo = 0.0 if k == 0 else bisect(lambda p: binom_cdf(k - 1, n, p), 0.975)
    hi = 1.0 if k == n else bisect(lambda p: binom_cdf(k, n, p), 0.025)
    return lo, hi


def betacf(a, b, x):
    """Continued fraction of the regularised incomplete beta (Numerical Recipes' betacf)."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1, a - 1
    c, d = 1.0, 1 - qab * x / qap
    d = 1 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 300):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1 + aa * d
        d = 1 / (d if abs(d) > tiny else tiny)
        c = 1 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1 + aa * d
        d = 1 / (d if abs(d) > tiny else tiny)
        c = 1 + aa / c
        c = c if abs(c) > tiny else tiny
        de = d * c
        h *= de
        if abs(de - 1) < 1e-14:
            break
    return h


def betai(a, b, x):
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    bt = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1) / (a + b + 2):
        return bt * betacf(a, b, x) / a
    return 1 - bt * betacf(b, a, 1 - x) / b


def t_upper_p(t, df):
    """P(T > t), T Student's t with df degrees of freedom (None/inf: normal), as gate_t_upper_p."""
    if df is None or math.isinf(df) or df > 1e7:
        return 0.5 * math.erfc(t / math.sqrt(2))
    tail = 0.5 * betai(df / 2, 0.5, df / (df + t * t))
    return tail if t > 0 else 1 - tail


def t_quantile(level, df):
    """Two-sided quantile, as gate_t_quantile: P(|T| <= q) = level."""
    p = (1 - level) / 2
    lo, hi = 0.0, 1e3
    for _ in range(200):
        mid = (lo + hi) / 2
        if t_upper_p(mid, df) > p:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def power_prob(m, share, delta):
    """gate_power_prob() (gate/power.c) from the verdict JSON's power.model."""
    total = m["total"]
    kb, kh = m["runs_base"], m["runs_head"]
    s02 = m["s0_sq"] if m.get("s0_sq") and m["s0_sq"] > 0 else 1.0
    d0 = math.inf if m.get("d0_infinite") or m.get("d0") is None else m["d0"]
    df = d0 + kb + kh - 2
    mean, d = share * total, delta * total

    phi = m.get("phi", 1.0)

    def se(alpha):
        m0 = mean + d / 2
        var = max(s02 * (phi * m0 + alpha * m0 * m0), min(m0, 1.0))
        return math.sqrt(var * (1 / kb + 1 / kh))
    level = m["q"] / (m["tests"] or 1)
    thr = max(t_quantile(1 - 2 * level, df) * se(m["alpha"]),
              m["abs_floor"] * total, m["rel_floor"] * mean)
    return t_upper_p((thr - d) / se(max(m["alpha"], m.get("alpha_spread", 0.0))), df)


def own_scale(res, v):
    """The target's own variance over the trend's (the verdict's noise_scale; for verdicts
    without it, from its standard error: delta / t)."""
    if res.get("noise_scale"):
        return res["noise_scale"]
    n, t, d = v.get("self_noise") or {}, res.get("t"), res.get("delta")
    kb, kh, total = v.get("base_runs"), v.get("head_runs"), v.get("base_total")
    if not (t and d and kb and kh and total and n.get("alpha") is not None):
        return None
    se = d / t * total
    m0 = (res["base_mean"] + res["head_mean"]) / 2
    v0 = n.get("phi", 1.0) * m0 + n["alpha"] * m0 * m0
    return se * se / (1 / kb + 1 / kh) / v0 if v0 > 0 else None


def injected_sizes(d):
    """{cell: size as a fraction of the total} from sizes.txt's 'from the probe' figures."""
    out = {}
    try:
        for l in open(os.path.join(d, "sizes.txt")):
            w = l.split()
            if w and w[0].startswith("inj") and "probe" in l:
                out[w[0]] = float(l.split("probe", 1)[1].split()[0].rstrip("%;")) / 100
    except OSError:
        pass
    return out


def find_power(v):
    """Any number under a key naming power or a minimum detectable effect (a newer gate)."""
    if isinstance(v, dict):
        for k, x in v.items():
            if any(w in k.lower() for w in ("power", "mde", "detectable")):
                if isinstance(x, (int, float)):
                    return k, x
                if isinstance(x, dict):
                    for k2, x2 in x.items():
                        if isinstance(x2, (int, float)) and not isinstance(x2, bool):
                            return k + "." + k2, x2
            r = find_power(x)
            if r:
                return r
    return None


def main(d):
    own = set()
    if os.path.exists(os.path.join(d, "own.txt")):
        own = set(l.strip() for l in open(os.path.join(d, "own.txt")) if l.strip())
    rows = {}
    gaps = {}
    inj_sizes = injected_sizes(d)
    stage1_runs = None
    global TARGET
    if os.path.exists(os.path.join(d, "config.txt")):
        config = open(os.path.join(d, "config.txt")).read()
        m = re.search(r" -r (\d+)", config)
        stage1_runs = int(m.group(1)) if m else None
        m = re.search(r"^target: (\w+)", config, re.M)
        TARGET = m.group(1) if m else TARGET
        for c, pct in (("inj1", 1), ("inj2", 2), ("inj5", 5)):
            CELLS[c] = "+%d%% of total in %s" % (pct, TARGET)
    loads = []
    if not os.path.exists(os.path.join(d, "checks.tsv")):
        print("no checks yet (%s/checks.tsv)" % d)
        print_cost(d)
        return
    for line in open(os.path.join(d, "checks.tsv")):
        f = line.rstrip("\n").split("\t")
        if len(f) < 9:
            continue
        mode, var, cell, trial, rc, wall, gap, load = f[0], f[1], f[2], f[3], int(f[4]), float(f[5]), f[6], f[7]
        loads.append(float(load))
        key = (mode, var, cell)
        r = rows.setdefault(key, {"n": 0, "fail": 0, "err": 0, "stage1": 0, "target": 0, "other": 0,
                                  "notown": 0, "prog": 0, "wall": [], "power": [], "names": {},
                                  "delta": [], "pred": [], "pred_own": [], "shares": [], "samples": [], "right1": 0})
        base = "%s-%s-%s-%s" % (mode, var, cell, trial)
        if rc >= 2:
            r["err"] += 1
            continue
        r["n"] += 1
        r["wall"].append(wall)
        if gap != "nan":
            gaps.setdefault((mode, var), []).append(float(gap))
        err = ""
        try:
            err = open(os.path.join(d, "err", base + ".txt")).read()
        except OSError:
            pass
        v = {}
        try:
            v = json.load(open(os.path.join(d, "json", base + ".json")))
        except (OSError, ValueError):
            pass
        roots = v.get("root_causes") or []
        if rc == 1:
            r["fail"] += 1
            if TARGET in roots:
                r["target"] += 1
            if any(x != TARGET for x in roots):
                r["other"] += 1
            if any((x not in own) for x in roots):
                r["notown"] += 1
            for x in roots:
                r["names"][x] = r["names"].get(x, 0) + 1
        if rc == 1 or "stage 1 flagged" in err:
            r["stage1"] += 1
        prog = v.get("program") or {}
        if prog.get("flagged"):
            r["prog"] += 1
        for res in v.get("results") or []:
            if res.get("function") == TARGET and res.get("kind") == "self" and res.get("delta") is not None:
                r["delta"].append(100 * res["delta"])
        p = find_power(v)
        if p:
            r["power"].append(p)
        model = (v.get("power") or {}).get("model")
        share = scale = None
        for res in v.get("results") or []:
            if res.get("function") == TARGET and res.get("kind") == "self" and res.get("base_pct") is not None:
                share = res["base_pct"] / 100
                scale = own_scale(res, v)
        if model and share:
            # A confirmed verdict's model holds both stages' runs, but the first stage,
            # on the configured runs alone, decides whether there is a confirmation: the
            # probability of a failure is that of the first stage's flag (a confirmation
            # of a real change on twice the runs nearly always follows).
            if stage1_runs and model.get("runs_base", 0) > stage1_runs:
                model = dict(model, runs_base=stage1_runs, runs_head=stage1_runs)
            r["pred"].append(power_prob(model, share, inj_sizes.get(cell, 0.0)))
            if scale:
                r["pred_own"].append(power_prob(dict(model, s0_sq=scale), share, inj_sizes.get(cell, 0.0)))
            r["shares"].append(share)
        r["samples"].append((v.get("power") or {}).get("samples_per_run", 0) * (v.get("base_runs") or 0))
    cfg = os.path.join(d, "config.txt")
    if os.path.exists(cfg):
        print(open(cfg).read().rstrip())
    sizes = os.path.join(d, "sizes.txt")
    if os.path.exists(sizes):
        print("injected sizes, measured by paired CPU time (median of ratios, bootstrap 95%):")
        for l in open(sizes):
            print("  " + l.rstrip())
    if loads:
        print("machine load (1-min average at each check): median %.1f, range %.1f-%.1f on %d cores"
              % (statistics.median(loads), min(loads), max(loads), os.cpu_count()))
    for (mode, var), g in sorted(gaps.items()):
        print("notes mode, %s: gap between the base's recording and the head's check: median %.1f min "
              "(%.1f-%.1f)" % (var, statistics.median(g) / 60, min(g) / 60, max(g) / 60))
    print()
    hdr = ("| mode | variant | cell | n | fails (exit 1) | 95% CI | stage 1 | right root cause | other root "
           "| non-own root | program flag | Δ̂ target (pp) | s/check |")
    print(hdr)
    print("|" + "---|" * 13)
    for mode in ("interleaved", "notes"):
        for var in ("quiet", "loaded"):
            for cell in ("aa", "inj1", "inj2", "inj5"):
                r = rows.get((mode, var, cell))
                if not r or not r["n"]:
                    continue
                n, k = r["n"], r["fail"]
                lo, hi = cp_interval(k, n)
                right = ("%d/%d" % (r["target"], k)) if k else "-"
                dl = ("%+.2f" % statistics.median(r["delta"])) if r["delta"] else "-"
                print("| %s | %s | %s | %d | %d (%.1f%%) | [%.1f%%, %.1f%%] | %d | %s | %d | %d | %d | %s | %.0f |%s"
                      % (mode, var, CELLS[cell], n, k, 100 * k / n, 100 * lo, 100 * hi, r["stage1"], right,
                         r["other"], r["notown"], r["prog"], dl, statistics.median(r["wall"]),
                         (" errors: %d" % r["err"]) if r["err"] else ""))
    print()
    for key, r in sorted(rows.items()):
        if r["names"] and key[2] == "aa":
            print("A/A false root causes, %s %s: %s" % (key[0], key[1], ", ".join(
                "%s x%d" % (x, c) for x, c in sorted(r["names"].items(), key=lambda t: -t[1]))))
        elif r["names"]:
            others = {x: c for x, c in r["names"].items() if x != TARGET}
            if others:
                print("other root causes, %s %s %s: %s" % (key[0], key[1], key[2], ", ".join(
                    "%s x%d" % (x, c) for x, c in sorted(others.items(), key=lambda t: -t[1]))))
    print()
    print("power line vs measurement: the predicted probability that the check fails on the injected "
          "change (gate_power_prob from each verdict's power.model, with the first stage's runs when "
          "the verdict was confirmed, at %s's share in that check's base "
          "and the injected size), averaged over the checks, against the measured rate of failures that "
          "name %s (and stage 1, any flag). \"predicted\" is the power line's model for a typical "
          "function at that share (the prior's s0^2); \"own noise\" puts %s's own spread beside "
          "the trend (the verdict's noise_scale) in its place:" % (TARGET, TARGET, TARGET))
    print()
    print("| mode | variant | cell | n | samples/side (median) | %s share | injected | predicted | own noise | measured "
          "(right root cause) | 95%% CI | stage 1 | measured - predicted |" % TARGET)
    print("|" + "---|" * 13)
    for mode in ("interleaved", "notes"):
        for var in ("quiet", "loaded"):
            for cell in ("aa", "inj1", "inj2", "inj5"):
                r = rows.get((mode, var, cell))
                if not r or not r["n"] or not r["pred"]:
                    continue
                n = r["n"]
                pred = statistics.mean(r["pred"])
                meas = r["target"] / n
                lo, hi = cp_interval(r["target"], n)
                own = "%.1f%%" % (100 * statistics.mean(r["pred_own"])) if r["pred_own"] else "-"
                print("| %s | %s | %s | %d | %.0f | %.1f%% | %+.2f%% | %.1f%% | %s | %d (%.1f%%) | [%.1f%%, %.1f%%] | "
                      "%.1f%% | %+.1f points |" % (
                          mode, var, cell, n, statistics.median(r["samples"]), 100 * statistics.median(r["shares"]),
                          100 * inj_sizes.get(cell, 0.0), 100 * pred, own, r["target"], 100 * meas, 100 * lo, 100 * hi,
                          100 * r["stage1"] / n, 100 * (meas - pred)))
    print_cost(d)


def print_cost(d):
    cost = os.path.join(d, "cost.tsv")
    if os.path.exists(cost):
        c = [list(map(float, l.split())) for l in open(cost) if l.strip()]
        if c:
            wall = statistics.median(g / b for b, _, g, _ in c)
            cpu = statistics.median(gc / bc for _, bc, _, gc in c)
            print("\ncost of interleaved mode (build excluded; %d paired rounds, medians): wall %.2fx, "
                  "CPU %.2fx the same runs bare (bare wall %.1f s, check %.1f s)"
                  % (len(c), wall, cpu, statistics.median(x[0] for x in c), statistics.median(x[2] for x in c)))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
