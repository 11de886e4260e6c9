//! Proximity-query timings (criterion): closest points, distance and contact state of two convex
//! parts (`geometry::proximity`, two MCP solves at most), for sphere–sphere, circle–circle,
//! ellipsoid–ellipsoid (distinct semi-axes, rotated), superellipsoid (p = 4)–box and the paper's
//! gear tooth (superellipse p = 4, semi-axes 2.3 and 1.1)–rectangle. Each pair is timed
//! separated, near-touching (gap `1e-3`) and touching. Timings are reported, never asserted.
//!
//! Before each timed query it is run once and a line is printed to stderr with the pair, the
//! configuration, the state, the distance (and depth), and the MCP solves' major iterations and
//! pivots, so that times can be quoted with iteration counts.
//!
//! The near-touching and touching poses of the curved pairs are derived from the separated one:
//! part `B` is translated along the computed normal by `−(d − gap)`, which keeps the closest
//! points and brings them `gap` apart (convex sets, pure translation).
//!
//! `cargo bench --bench geometry` (all), `cargo bench --bench geometry -- ellipsoid` (a subset).

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use implicit_contact::geometry::{
    Circle, ConvexPart, Ellipsoid, Planar, Pose, Proximity, ProximitySettings, Space, Spatial,
    Sphere, Superellipse, Superellipsoid, proximity,
};
use implicit_contact::mcp::SolveReport;
use nalgebra::{Vector2, Vector3};
use std::hint::black_box;
use std::time::Duration;

/// Gap of the near-touching configuration (world units).
const NEAR_GAP: f64 = 1e-3;

/// A pair of parts and the configurations (label, pose of `A`, pose of `B`) to time.
struct Pair<S: Space> {
    name: &'static str,
    a: ConvexPart<S>,
    b: ConvexPart<S>,
    configs: Vec<(&'static str, Pose<S>, Pose<S>)>,
}

fn solve_summary(r: &SolveReport) -> String {
    format!(
        "{} by {}, {} major it ({} crash), {} pivots, residual {:.1e}",
        r.status, r.solver, r.major_iterations, r.crash_iterations, r.pivots, r.residual
    )
}

fn summary<S: Space>(p: &Proximity<S>) -> String {
    let mut s = format!(
        "{:?}, distance {:.6e}, distance solve: {}",
        p.state,
        p.distance,
        solve_summary(&p.distance_report)
    );
    if let (Some(depth), Some(r)) = (p.depth, &p.depth_report) {
        s += &format!("; depth {depth:.3e}, depth solve: {}", solve_summary(r));
    }
    s
}

/// Separated at `pose_b`, then near-touching and touching: `B` moved along the computed normal.
fn derived_configs<S: Space>(
    a: &ConvexPart<S>,
    pose_a: Pose<S>,
    b: &ConvexPart<S>,
    pose_b: Pose<S>,
) -> Vec<(&'static str, Pose<S>, Pose<S>)> {
    let sep = proximity(a, &pose_a, b, &pose_b, &ProximitySettings::default())
        .unwrap_or_else(|e| panic!("separated configuration of {}–{}: {e}", a.name(), b.name()));
    let shifted = |gap: f64| Pose {
        position: pose_b.position - sep.normal * (sep.distance - gap),
        rotation: pose_b.rotation,
    };
    vec![
        ("separated", pose_a, pose_b),
        ("near", pose_a, shifted(NEAR_GAP)),
        ("touching", pose_a, shifted(0.0)),
    ]
}

fn bench_pair<S: Space>(c: &mut Criterion, pair: &Pair<S>) {
    let mut g = c.benchmark_group(format!("proximity/{}", pair.name));
    let settings = ProximitySettings::default();
    for (label, pose_a, pose_b) in &pair.configs {
        match proximity(&pair.a, pose_a, &pair.b, pose_b, &settings) {
            Ok(p) => eprintln!("{} {label}: {}", pair.name, summary(&p)),
            Err(e) => eprintln!("{} {label}: FAILED: {e}", pair.name),
        }
        g.bench_function(BenchmarkId::from_parameter(label), |bch| {
            bch.iter(|| {
                black_box(proximity(
                    black_box(&pair.a),
                    black_box(pose_a),
                    black_box(&pair.b),
                    black_box(pose_b),
                    &settings,
                ))
            })
        });
    }
    g.finish();
}

fn rotated3(position: Vector3<f64>, axis_angle: Vector3<f64>) -> Pose<Spatial> {
    Pose::<Spatial>::identity().perturbed(&position, &axis_angle)
}

fn spheres(c: &mut Criterion) {
    let a = ConvexPart::single("sphere", Sphere::new(1.0).unwrap()).unwrap();
    let b = ConvexPart::single("sphere", Sphere::new(0.5).unwrap()).unwrap();
    let pose_a = Pose::from_translation(Vector3::new(0.1, -0.2, 0.3));
    let dir = Vector3::new(1.0, 0.5, -0.3).normalize();
    let at = |gap: f64| Pose::from_translation(pose_a.position + dir * (1.5 + gap));
    let pair = Pair {
        name: "sphere-sphere",
        a,
        b,
        configs: vec![
            ("separated", pose_a, at(1.0)),
            ("near", pose_a, at(NEAR_GAP)),
            ("touching", pose_a, at(0.0)),
        ],
    };
    bench_pair(c, &pair);
}

fn circles(c: &mut Criterion) {
    let a = ConvexPart::single("circle", Circle::new(1.0).unwrap()).unwrap();
    let b = ConvexPart::single("circle", Circle::new(0.5).unwrap()).unwrap();
    let pose_a = Pose::<Planar>::planar(0.1, -0.2, 0.0, "a").unwrap();
    let dir = Vector2::new(1.0, 0.5).normalize();
    let at = |gap: f64| {
        let p = pose_a.position + dir * (1.5 + gap);
        Pose::<Planar>::planar(p.x, p.y, 0.0, "b").unwrap()
    };
    let pair = Pair {
        name: "circle-circle",
        a,
        b,
        configs: vec![
            ("separated", pose_a, at(1.0)),
            ("near", pose_a, at(NEAR_GAP)),
            ("touching", pose_a, at(0.0)),
        ],
    };
    bench_pair(c, &pair);
}

fn ellipsoids(c: &mut Criterion) {
    let a = ConvexPart::single(
        "ellipsoid",
        Ellipsoid::<Spatial>::new(Vector3::new(1.5, 1.0, 0.6)).unwrap(),
    )
    .unwrap();
    let b = ConvexPart::single(
        "ellipsoid",
        Ellipsoid::<Spatial>::new(Vector3::new(0.8, 1.2, 0.5)).unwrap(),
    )
    .unwrap();
    let pose_a = rotated3(Vector3::new(0.1, 0.2, -0.1), Vector3::new(0.3, -0.2, 0.5));
    let pose_b = rotated3(Vector3::new(3.2, 0.9, 0.4), Vector3::new(-0.4, 0.7, 0.2));
    let configs = derived_configs(&a, pose_a, &b, pose_b);
    bench_pair(
        c,
        &Pair {
            name: "ellipsoid-ellipsoid",
            a,
            b,
            configs,
        },
    );
}

fn superellipsoid_box(c: &mut Criterion) {
    let a = ConvexPart::single(
        "superellipsoid",
        Superellipsoid::<Spatial>::new(Vector3::new(1.2, 0.8, 0.6), 4.0).unwrap(),
    )
    .unwrap();
    let b = ConvexPart::cuboid(Vector3::new(0.5, 0.4, 0.3)).unwrap();
    let pose_a = rotated3(Vector3::new(0.0, 0.0, 0.0), Vector3::new(0.2, 0.1, -0.3));
    let pose_b = rotated3(Vector3::new(2.6, 0.7, 0.3), Vector3::new(0.5, -0.3, 0.4));
    let configs = derived_configs(&a, pose_a, &b, pose_b);
    bench_pair(
        c,
        &Pair {
            name: "superellipsoid-box",
            a,
            b,
            configs,
        },
    );
}

fn gear_tooth_rectangle(c: &mut Criterion) {
    // The paper's gear tooth (§6.4, eq. 57): exponent 4, semi-axes 2.3 and 1.1.
    let a = ConvexPart::single(
        "superellipse",
        Superellipse::new(Vector2::new(2.3, 1.1), 4.0).unwrap(),
    )
    .unwrap();
    let b = ConvexPart::cuboid(Vector2::new(0.6, 0.4)).unwrap();
    let pose_a = Pose::<Planar>::planar(0.0, 0.0, 0.3, "tooth").unwrap();
    let pose_b = Pose::<Planar>::planar(1.5, 2.8, -0.5, "rectangle").unwrap();
    let configs = derived_configs(&a, pose_a, &b, pose_b);
    bench_pair(
        c,
        &Pair {
            name: "superellipse-rectangle",
            a,
            b,
            configs,
        },
    );
}

fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1))
        .sample_size(30)
}

criterion_group! {
    name = benches;
    config = config();
    targets = spheres, circles, ellipsoids, superellipsoid_box, gear_tooth_rectangle
}
criterion_main!(benches);
