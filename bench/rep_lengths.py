"""The C++ driver's per-rep request lengths, in Python: so that a Python bench runs the same batches.

The driver (src/workload/lengths.cpp, LengthSampler; src/sweep/rep_lengths.cpp, RepLengths) draws each
rep's lengths from a std::mt19937_64 seeded with --seed alone, one sampler per combination. Under
--batching padded, rep r (warm-up included, counted from 0) gets draws r*batch .. r*batch+batch-1, in that
order; under --batching sorted the combination's window (default batch x reps) is those same batch x reps
draws, sorted longest first. So reproducing the engine and each distribution's rule bit for bit gives a
Python driver the driver's exact batches, whatever the --input_lengths spec (file:PATH included, whose lines
the driver draws uniformly with replacement: the order of the file alone would not give its batches).

Mirrored exactly: mt19937_64 (the C++ standard's constants), below(n) (the same rejection test), the
log-normal's Box-Muller pair with its spare, std::round (half away from zero), and the spec syntax
(N, fixed:N, uniform:MIN,MAX, lognormal:MEDIAN,MAX[,SIGMA], file:PATH) with MEDIAN and SIGMA read digit by
digit as parse_decimal does. math.log/exp/sin/cos/sqrt are the same C library calls the driver makes; the
benches check the result anyway: a Python run's mean real and padded tokens per kept rep must equal the
driver's STAT (bench/lengths_bench.py refuses a mismatch).
"""

import math

MASK64 = (1 << 64) - 1
DEFAULT_SIGMA = 0.8  # kDefaultLognormalSigma in include/fmwork/workload/lengths.hpp
MAX_LENGTH = 1 << 24  # kMaxRequestLength


class MT19937_64:
    """std::mt19937_64: seeded from one 64-bit value as `std::mt19937_64 engine(seed)` is."""

    def __init__(self, seed):
        self.mt = [seed & MASK64]
        for i in range(1, 312):
            prev = self.mt[-1]
            self.mt.append((6364136223846793005 * (prev ^ (prev >> 62)) + i) & MASK64)
        self.index = 312

    def _twist(self):
        mt = self.mt
        for i in range(312):
            y = (mt[i] & 0xFFFFFFFF80000000) | (mt[(i + 1) % 312] & 0x7FFFFFFF)
            mt[i] = mt[(i + 156) % 312] ^ (y >> 1) ^ (0xB5026F5AA96619E9 if y & 1 else 0)
        self.index = 0

    def __call__(self):
        if self.index >= 312:
            self._twist()
        y = self.mt[self.index]
        self.index += 1
        y ^= (y >> 29) & 0x5555555555555555
        y ^= (y << 17) & 0x71D67FFFEDA60000
        y ^= (y << 37) & 0xFFF7EEE000000000
        y ^= y >> 43
        return y & MASK64


def parse_decimal(text):
    """DIGITS[.DIGITS] read digit by digit, as the driver's parse_decimal (the same double)."""
    whole, _, fraction = text.partition(".")
    if not (whole + fraction).isdigit() or ("." in text and not fraction):
        raise ValueError(f"'{text}' is no decimal number")
    value = 0.0
    for c in whole:
        value = value * 10 + (ord(c) - 48)
    scale, part = 1.0, 0
    for c in fraction:
        part, scale = part * 10 + (ord(c) - 48), scale * 10
    return value + part / scale


def parse_spec(text):
    """--input_lengths SPEC -> dict(kind, min, max, median, sigma, lengths); the driver's checks, shortly."""
    kind, colon, rest = text.partition(":")
    if not colon:
        kind, rest = "fixed", text
    spec = {"kind": kind, "median": 0.0, "sigma": DEFAULT_SIGMA, "lengths": None}
    if kind == "fixed":
        spec["min"] = spec["max"] = int(rest)
    elif kind == "uniform":
        spec["min"], spec["max"] = (int(x) for x in rest.split(","))
    elif kind == "lognormal":
        parts = rest.split(",")
        spec["median"], spec["min"], spec["max"] = parse_decimal(parts[0]), 1, int(parts[1])
        if len(parts) == 3:
            spec["sigma"] = parse_decimal(parts[2])
    elif kind == "file":
        with open(rest) as f:
            spec["lengths"] = [int(w) for w in (line.strip() for line in f) if w]
        spec["min"], spec["max"] = min(spec["lengths"]), max(spec["lengths"])
    else:
        raise ValueError(f"--input_lengths '{text}': give N, uniform:MIN,MAX, lognormal:MEDIAN,MAX[,SIGMA], file:PATH")
    if not 1 <= spec["min"] <= spec["max"] <= MAX_LENGTH:
        raise ValueError(f"--input_lengths '{text}': lengths are from 1 to {MAX_LENGTH}, MIN <= MAX")
    return spec


def round_half_away(x):
    """std::round for x >= 0: halves go up (Python's round() would go to even)."""
    f = math.floor(x)
    return f + 1 if x - f >= 0.5 else f


class LengthSampler:
    """LengthSampler::next() of src/workload/lengths.cpp, draw for draw."""

    def __init__(self, spec, seed):
        self.spec, self.engine, self.spare = spec, MT19937_64(seed), None

    def below(self, n):
        reject_from = ((1 << 64) - n) % n  # 2^64 mod n, as the driver computes it
        while True:
            x = self.engine()
            if x >= reject_from:
                return x % n

    def unit_open(self):
        return ((self.engine() >> 11) + 1) * 2.0 ** -53  # (0, 1]

    def normal(self):
        if self.spare is not None:
            value, self.spare = self.spare, None
            return value
        radius = math.sqrt(-2.0 * math.log(self.unit_open()))
        angle = 2.0 * 3.14159265358979323846 * self.unit_open()
        self.spare = radius * math.sin(angle)
        return radius * math.cos(angle)

    def next(self):
        s = self.spec
        if s["kind"] == "fixed":
            return s["max"]
        if s["kind"] == "uniform":
            return s["min"] + self.below(s["max"] - s["min"] + 1)
        if s["kind"] == "file":
            return s["lengths"][self.below(len(s["lengths"]))]
        mu = math.log(s["median"])
        for _ in range(1000):
            value = round_half_away(math.exp(mu + s["sigma"] * self.normal()))
            if 1 <= value <= s["max"]:
                return int(value)
        return s["max"]

    def draw(self, n):
        return [self.next() for _ in range(n)]


def padded_batches(spec_text, seed, batch, reps):
    """The driver's --batching padded batches of one combination: reps lists of `batch` lengths, rep order."""
    sampler = LengthSampler(parse_spec(spec_text), seed)
    return [sampler.draw(batch) for _ in range(reps)]


def self_check():
    """The C++ standard's check value: the 10000th output of a default-seeded (5489) mt19937_64."""
    engine = MT19937_64(5489)
    for _ in range(9999):
        engine()
    return engine() == 9981545732273789042


if __name__ == "__main__":
    print("mt19937_64 check:", "ok" if self_check() else "FAILED")
