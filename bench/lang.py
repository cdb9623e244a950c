# The language benchmarks of bench/KCSBench/LanguageBench.swift, in Python, timed the same way
# (best of 5, runs per second), for the ratio `make bench` prints. Run with /usr/bin/python3.
import time

def loop():
    i = 0
    s = 0
    while i < 1000000:
        s = s + i
        i = i + 1

def fib(n):
    if n < 2:
        return n
    return fib(n - 1) + fib(n - 2)

def interp():
    n = 0
    for i in range(100000):
        t = f"item {i} of {n}"

for name, fn in [("lang_loop", loop), ("lang_fib", lambda: fib(25)), ("lang_interp", interp)]:
    best = float("inf")
    for _ in range(5):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    print(f"{name} {1 / best:.3f}")
