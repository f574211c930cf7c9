#!/usr/bin/env python3
"""The benchmark bicycle on contact wheels (bicycle:wheels=cylinder|ellipsoid) in the peer engines
and our contact methods at v = 5 m/s: the weave eigenvalue each one's motion shows (eig_err's fit,
docs/metrics.md) beside the published -0.775 +- 4.465i, eig_err, and whether the lean decays
(|lean| at 10 s below 0.3 of |lean| at 1 s). Prints the Markdown table of docs/findings.md.
Usage: scripts/bicycle-peers.py [MBBENCH]   (default build/release/mbbench; about 1 minute)"""
import json
import math
import os
import subprocess
import sys
import tempfile

MB = sys.argv[1] if len(sys.argv) > 1 else "build/release/mbbench"
MODEL = "bicycle:v=5,lean0=1e-6,steer_rate0=1e-5,wheels={}"
WEAVE = complex(-0.775341882195850, 4.46486771378823)  # meijaard2007 Table 2 (b), v = 5
# (wheels, method, h): every engine on the shapes it takes, at h = 1 ms and where a change helps
CASES = [
    ("ellipsoid", "mujoco", 0.001),
    ("ellipsoid", "mujoco:contact_timeconst=0.004", 0.001),
    ("ellipsoid", "mujoco:contact_timeconst=0.001", 0.0005),
    ("cylinder", "mujoco", 0.001),
    ("cylinder", "ode", 0.001),
    ("cylinder", "bullet", 0.001),
    ("cylinder", "bullet", 0.0005),
    ("ellipsoid", "dart", 0.001),
    ("ellipsoid", "dart:collision=primitive", 0.001),
    ("cylinder", "dart", 0.001),
    ("cylinder", "dart:collision=primitive", 0.001),
    ("ellipsoid", "simbody", 0.001),
    ("ellipsoid", "iterative", 0.001),
    ("cylinder", "iterative", 0.001),
    ("ellipsoid", "gc-contact", 0.001),
    ("ellipsoid", "gc-contact", 0.0005),
]


def lean(q):
    """the rear frame's lean from its orientation (w, x, y, z): asin of its y axis' z"""
    w, x, y, z = q
    return math.asin(max(-1.0, min(1.0, 2 * (y * z + w * x))))


def run(wheels, method, h, out):
    cmd = [MB, "run", MODEL.format(wheels), method, "--h", str(h), "--duration", "10", "--samples", "1,10", "--no-ref",
           "--out", out]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        why = p.stderr.strip().splitlines()[-1].split(";")[0].replace("mbbench: error: ", "")
        return None, why.split(": ")[1] if why.count(": ") >= 2 else why  # without the method's name and the detail
    return json.load(open(out)), None


def row(wheels, method, h, out):
    r, refused = run(wheels, method, h, out)
    head = f"| `{method}` | {wheels} | {h * 1000:g} |"
    if r is None:
        return head + f" - | - | - | - | refused: {refused} |"
    m = r["metrics"]
    f = r.get("failure") or {}
    note = "ok" if r["status"] == "ok" else f"failed at t = {f.get('t', 0):.3g} s: {f.get('reason', '').split(';')[0]}"
    if not isinstance(m.get("eig_err"), (int, float)):
        return head + f" - | - | - | - | {note} |"
    e = [complex(m[f"eig_re_{k}"], m[f"eig_im_{k}"]) for k in range(1, 5)]
    pairs = [x for x in e if x.imag > 0]
    weave = min(pairs, key=lambda x: abs(x - WEAVE)) if pairs else None
    s = r.get("samples", [])
    decays = "-"
    if len(s) == 2:
        l1, l10 = abs(lean(s[0]["orientations"][1])), abs(lean(s[1]["orientations"][1]))
        decays = f"{'yes' if l10 < 0.3 * l1 else 'no'} ({l1:.1e} -> {l10:.1e})"
    w = f"{weave.real:.3f} | {weave.imag:.3f}" if weave else "no pair | no pair"
    fit = "" if m["eig_err"] < 1 else "; no linear modes"
    return head + f" {w} | {m['eig_err']:.2g} | {decays} | {note}{fit} |"


def main():
    print(f"published weave at v = 5: {WEAVE.real:.3f} +- {WEAVE.imag:.3f}i")
    print("| method | wheels | h [ms] | weave re | weave im | eig_err | lean decays (1 s -> 10 s) | run |")
    print("|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as d:
        for wheels, method, h in CASES:
            print(row(wheels, method, h, os.path.join(d, "r.json")), flush=True)


if __name__ == "__main__":
    main()
