#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""alpha-sat.py — alpha(d), the most leaves of a spanning tree of Q_d, with a SAT solver.

Desprez-Fraigniaud-Tourancheau, Proposition 2 (doc/papers/desprez-fraigniaud-tourancheau.md):
any conflict-free successive broadcast on Q_d takes at least 2p - alpha(d) - 1 slots.
A spanning tree with L leaves has p - L internal vertices, which form a connected
dominating set; conversely a connected dominating set C gives a spanning tree with at
least p - |C| leaves (a spanning tree of C, every other vertex hung on a neighbour in C).
So alpha(d) = p - gamma_c(Q_d), gamma_c the size of a smallest connected dominating
set (for p > 2; alpha(1) = 2).

"Is there a connected dominating set of size <= s?" goes to the solver as CNF:
  x_v                 v is in the set;
  domination          x_v or x_u for some neighbour u, for every v;
  connectivity        r_{v,k}: v is reached from vertex 0 within k steps inside the set
                      (k = 0..s-1): r_{0,0}; not r_{v,0} for v != 0; r_{v,k} -> x_v;
                      r_{v,k} -> r_{v,k-1} or r_{u,k-1} for some neighbour u; x_v -> r_{v,s-1};
  cardinality         sum x_v <= s (Sinz's sequential counter);
  symmetry            x_0: Q_d is vertex-transitive (translations w -> w xor t), so some
                      smallest set contains 0; and (s >= 2) the coordinate permutations,
                      which fix 0, let the set's neighbours of 0 be e_1..e_j: x_(e_1) and
                      x_(e_(i+1)) -> x_(e_i).
gamma_c is the least s with a satisfiable formula: the script checks that s - 1 is
unsatisfiable and s satisfiable, and checks the set the solver returns (connected,
dominating, of size s) on its own.

Usage: scripts/alpha-sat.py D [--solver cadical|picosat] [--from S]
Prints one line per size tried and then "alpha(D) = ...".
"""
import argparse
import itertools
import os
import subprocess
import sys
import tempfile
import time


def cnf(d, s):
    p = 1 << d
    nv = 0

    def new():
        nonlocal nv
        nv += 1
        return nv

    x = [new() for _ in range(p)]
    r = [[new() for _ in range(s)] for _ in range(p)]
    cl = []
    nb = [[v ^ (1 << i) for i in range(d)] for v in range(p)]
    for v in range(p):
        cl.append([x[v]] + [x[u] for u in nb[v]])
    cl.append([x[0]])
    # Coordinate permutations fix vertex 0: a set of two or more vertices holds some
    # neighbours of 0, and they can be taken to be e_1..e_j (x[e_1], x[e_(i+1)] -> x[e_i]).
    if s >= 2:
        cl.append([x[1]])
        for i in range(1, d):
            cl.append([-x[1 << i], x[1 << (i - 1)]])
    cl.append([r[0][0]])
    for v in range(1, p):
        cl.append([-r[v][0]])
    for v in range(p):
        for k in range(s):
            cl.append([-r[v][k], x[v]])
            if k > 0:
                cl.append([-r[v][k], r[v][k - 1]] + [r[u][k - 1] for u in nb[v]])
        cl.append([-x[v], r[v][s - 1]])
    # Sinz: c[i][j] = at least j+1 of x[0..i] are true, j < s.
    c = [[new() for _ in range(s)] for _ in range(p)]
    for i in range(p):
        cl.append([-x[i], c[i][0]])
        if i > 0:
            for j in range(s):
                cl.append([-c[i - 1][j], c[i][j]])
            for j in range(1, s):
                cl.append([-x[i], -c[i - 1][j - 1], c[i][j]])
            cl.append([-x[i], -c[i - 1][s - 1]])
    return nv, cl, x


def solve(d, s, solver):
    nv, cl, x = cnf(d, s)
    with tempfile.NamedTemporaryFile("w", suffix=".cnf", delete=False) as f:
        f.write(f"p cnf {nv} {len(cl)}\n")
        for c in cl:
            f.write(" ".join(map(str, c)) + " 0\n")
        path = f.name
    t = time.time()
    out = subprocess.run([solver, path], capture_output=True, text=True).stdout
    os.unlink(path)
    sat = any(line.strip() == "s SATISFIABLE" for line in out.splitlines())
    unsat = any(line.strip() == "s UNSATISFIABLE" for line in out.splitlines())
    if not sat and not unsat:
        sys.exit(f"{solver}: no answer for d={d} s={s}")
    chosen = None
    if sat:
        val = set()
        for line in out.splitlines():
            if line.startswith("v "):
                val.update(int(t) for t in line.split()[1:] if int(t) > 0)
        chosen = [v for v in range(1 << d) if x[v] in val]
    return sat, chosen, time.time() - t, nv, len(cl)


def check(d, chosen):
    """Connected and dominating, checked without the solver."""
    p, sset = 1 << d, set(chosen)
    dom = all(v in sset or any(v ^ (1 << i) in sset for i in range(d)) for v in range(p))
    seen, todo = {chosen[0]}, [chosen[0]]
    while todo:
        v = todo.pop()
        for i in range(d):
            u = v ^ (1 << i)
            if u in sset and u not in seen:
                seen.add(u)
                todo.append(u)
    return dom and seen == sset


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("d", type=int)
    ap.add_argument("--solver", default="cadical")
    ap.add_argument("--from", dest="start", type=int, default=1)
    a = ap.parse_args()
    d, p = a.d, 1 << a.d
    if p <= 2:
        print(f"alpha({d}) = {p}")
        return
    for s in itertools.count(a.start):
        sat, chosen, secs, nv, ncl = solve(d, s, a.solver)
        print(f"d={d} s={s}: {'SAT' if sat else 'UNSAT'} ({nv} variables, {ncl} clauses, "
              f"{secs:.1f} s)", flush=True)
        if sat:
            if len(chosen) > s or not check(d, chosen):
                sys.exit(f"the solver's set {chosen} is not a connected dominating set")
            print(f"set: {sorted(chosen)} ({len(chosen)} vertices)")
            print(f"gamma_c(Q_{d}) = {len(chosen)}, alpha({d}) = {p - len(chosen)}"
                  + ("" if len(chosen) == s else " (the set is smaller than s: see s - 1)"))
            return


if __name__ == "__main__":
    main()
