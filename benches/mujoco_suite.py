#!/usr/bin/env python3
"""MuJoCo on the 3D scenes of `implicit-contact suite`, for the README's side-by-side table.

Development only: needs `pip install mujoco` (never needed by the tests or the build). The
scenes are rebuilt here from the same numbers as `src/scenes.rs` (radii, masses, placements,
the same SplitMix64 draws for the piles), run with MuJoCo's default settings (soft contacts,
pyramidal cones, condim 3, Euler) at the same time step and duration, and timed over the
whole run with `mj_step` in a plain loop (no rendering, no Python work per step beyond the
call).

    python3 benches/mujoco_suite.py [SCENE ...]

prints, per scene, the steps, the wall time of the run, µs per step, the mean number of
contacts per step, and the lowest height of a sphere's centre over its radius (a soft
engine lets bodies sink into each other: how far is part of the comparison).
"""

import math
import sys
import time

import mujoco
import numpy as np

MASK = (1 << 64) - 1


class SceneRng:
    """`scenes::SceneRng`: SplitMix64 from `seed ^ 0x5DEE_CE66_D1CE_4E5B`."""

    def __init__(self, seed):
        self.state = (seed ^ 0x5DEECE66D1CE4E5B) & MASK

    def next_u64(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        return z ^ (z >> 31)

    def uniform(self, lo, hi):
        u = (self.next_u64() >> 11) / float(1 << 53)
        return lo + (hi - lo) * u


PACKING_CLEARANCE = 1e-9


def pyramid(layers):
    r = 0.1
    d = 2.0 * r * (1.0 + PACKING_CLEARANCE)
    layer_height = d * math.sqrt(2.0 / 3.0)
    spheres = []
    for level in range(layers):
        side = layers - level
        ox, oy = level * 0.5 * d, level * d / (2.0 * math.sqrt(3.0))
        for j in range(side):
            for i in range(side - j):
                x = ox + d * (i + 0.5 * j)
                y = oy + d * (j * math.sqrt(3.0) / 2.0)
                z = r * (1.0 + PACKING_CLEARANCE) + level * layer_height
                spheres.append((r, (x, y, z), (0, 0, 0), (0, 0, 0)))
    return spheres, 0.5, 0.01, 2.0


def stack(n):
    r = 0.1
    d = 2.0 * r * (1.0 + PACKING_CLEARANCE)
    spheres = [(r, (0.0, 0.0, r * (1.0 + PACKING_CLEARANCE) + k * d), (0, 0, 0), (0, 0, 0))
               for k in range(n)]
    return spheres, 0.5, 0.01, 2.0


def pile(n, seed=1):
    r = 0.5
    rng = SceneRng(seed)
    side = 1
    while side ** 3 < n:
        side += 1
    cell = 2.0 * r + 0.1
    per_layer = side * side
    spheres = []
    for k in range(n):
        layer, idx = divmod(k, per_layer)
        jitter = 0.04
        # The draws in the builder's order: x, y, then z.
        x = (idx % side) * cell + rng.uniform(-jitter, jitter)
        y = (idx // side) * cell + rng.uniform(-jitter, jitter)
        z = r + 0.05 + layer * cell + rng.uniform(0.0, jitter)
        spheres.append((r, (x, y, z), (0, 0, 0), (0, 0, 0)))
    return spheres, 0.5, 0.01, 1.0


def row(n, gap=0.0, speed=1.0):
    r = 0.5
    spheres = []
    for i in range(n):
        v = speed if i == 0 else 0.0
        spheres.append((r, (i * (2.0 * r + gap), 0.0, r), (v, 0, 0), (0, v / r, 0)))
    return spheres, 0.5, 0.01, 2.0


SCENES = {
    "pyramid_4": lambda: pyramid(2),
    "pyramid_10": lambda: pyramid(3),
    "pyramid_20": lambda: pyramid(4),
    "pyramid_35": lambda: pyramid(5),
    "stack_5": lambda: stack(5),
    "stack_10": lambda: stack(10),
    "pile_10": lambda: pile(10),
    "pile_50": lambda: pile(50),
    "pile_100": lambda: pile(100),
    "pile_300": lambda: pile(300),
    "row_50": lambda: row(50),
    "row_100": lambda: row(100),
}


def mjcf(spheres, mu, h):
    bodies = []
    for k, (r, (x, y, z), _, _) in enumerate(spheres):
        bodies.append(
            f'<body name="s{k}" pos="{x!r} {y!r} {z!r}"><freejoint/>'
            f'<geom type="sphere" size="{r!r}" mass="1" friction="{mu!r} 0.005 0.0001"/></body>'
        )
    return (
        f'<mujoco><option timestep="{h!r}" gravity="0 0 -9.81"/><worldbody>'
        f'<geom type="plane" size="0 0 1" friction="{mu!r} 0.005 0.0001"/>'
        + "".join(bodies)
        + "</worldbody></mujoco>"
    )


def run(name):
    spheres, mu, h, duration = SCENES[name]()
    model = mujoco.MjModel.from_xml_string(mjcf(spheres, mu, h))
    data = mujoco.MjData(model)
    for k, (_, _, v, w) in enumerate(spheres):
        # A free joint's velocity: linear (world), then angular (local; identity orientation).
        data.qvel[6 * k:6 * k + 3] = v
        data.qvel[6 * k + 3:6 * k + 6] = w
    steps = round(duration / h)
    contacts = 0
    lowest = math.inf
    radii = np.array([s[0] for s in spheres])
    start = time.perf_counter()
    for _ in range(steps):
        mujoco.mj_step(model, data)
        contacts += data.ncon
    wall = time.perf_counter() - start
    # Heights after the run (outside the timed loop).
    z = data.qpos.reshape(-1, 7)[:, 2]
    lowest = float(np.min(z / radii))
    print(
        f"{name:<12} {len(spheres):>4} bodies {steps:>4} steps {wall:>9.4f} s "
        f"{wall / steps * 1e6:>9.1f} µs/step {contacts / steps:>7.1f} contacts/step "
        f"lowest centre {lowest:.4f} r"
    )


def main():
    names = sys.argv[1:] or list(SCENES)
    print(f"MuJoCo {mujoco.__version__}, default settings")
    for n in names:
        if n not in SCENES:
            sys.exit(f"unknown scene {n}; known: {', '.join(SCENES)}")
        run(n)


if __name__ == "__main__":
    main()
