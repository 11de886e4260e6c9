//! The geometrically implicit stepper on the paper's examples and on analytic cases.

use implicit_contact::geometry::{
    BodyShape, Circle, ConvexPart, HalfSpace, Placed, Planar, Pose, Space, Spatial, Sphere,
};
use implicit_contact::model::{Friction, RigidBody, Scene, Twist, Wrench};
use implicit_contact::stepper::{ImplicitStepper, StepperSettings};
use nalgebra::{Matrix3, Quaternion, Vector1, Vector2, Vector3};

fn single<S: Space>(name: &str, f: Placed<S>) -> BodyShape<S> {
    BodyShape::new(name, vec![ConvexPart::single(name, f).unwrap()]).unwrap()
}

/// Paper Example 1 (§6.1): unit disc, m = 1, I = 0.5, μ = 0.4, q0 = [0, 1, 0],
/// ν0 = [−3, 0, 3], h = 0.01, on the ground y ≤ 0.
fn disc_on_plane() -> Scene<Planar> {
    let disc = RigidBody::<Planar>::new(
        "disc",
        1.0,
        0.5,
        single("disc", Placed::at_origin(Circle::new(1.0).unwrap())),
        Pose::planar(0.0, 1.0, 0.0, "disc").unwrap(),
    )
    .unwrap()
    .with_twist(Twist::new(Vector2::new(-3.0, 0.0), Vector1::new(3.0)))
    .unwrap();
    let ground = RigidBody::<Planar>::fixed(
        "ground",
        single(
            "ground",
            Placed::at_origin(HalfSpace::<Planar>::new(Vector2::new(0.0, 1.0), 0.0).unwrap()),
        ),
        Pose::planar(0.0, 0.0, 0.0, "ground").unwrap(),
    )
    .unwrap();
    Scene::new(
        "disc_on_plane",
        Vector2::new(0.0, -9.81),
        Friction::coulomb(0.4),
        0.01,
        5.0,
    )
    .unwrap()
    .with_body(disc)
    .unwrap()
    .with_body(ground)
    .unwrap()
}

/// Example 1: the paper claims kinetic energy constant to its solver tolerance 1e-6 over 5 s;
/// the contact height never changes and the disc rolls, so the exact discrete solution keeps it
/// to rounding. We assert 1e-12 relative (500 steps of ~1e-16 rounding each, with margin) and
/// no penetration beyond the MCP tolerance 1e-10.
#[test]
fn example_1_disc_rolls_on_the_plane_without_losing_energy() {
    let mut stepper = ImplicitStepper::new(disc_on_plane(), StepperSettings::default()).unwrap();
    assert_eq!(stepper.contact_count(), 1);
    let ke0 = stepper.scene.kinetic_energy();
    let mut worst = 0.0f64;
    for _ in 0..500 {
        let report = stepper.step();
        assert!(report.converged, "{:?}", report.solve);
        assert!(report.residual <= 1e-10);
        let ke = stepper.scene.kinetic_energy();
        worst = worst.max(((ke - ke0) / ke0).abs());
        let c = &stepper.contacts()[0];
        assert!(c.penetration <= 1e-10, "penetration {}", c.penetration);
        // Rolling: σ = 0 and the friction impulse inside the cone.
        assert!(c.friction_impulse <= 0.4 * c.normal_impulse + 1e-12);
    }
    assert!(worst <= 1e-12, "kinetic energy drift {worst:e}");
    let disc = &stepper.scene.bodies[0];
    // Rolling without slip at v = −3: x(5 s) = −15, y stays 1.
    assert!(
        (disc.pose.position[0] + 15.0).abs() < 1e-9,
        "{:?}",
        disc.pose.position
    );
    assert!((disc.pose.position[1] - 1.0).abs() < 1e-12);
}

fn sphere(name: &str, radius: f64) -> BodyShape<Spatial> {
    single(name, Placed::at_origin(Sphere::new(radius).unwrap()))
}

fn spatial_at(name: &str, x: f64, y: f64, z: f64) -> Pose<Spatial> {
    Pose::spatial(
        Vector3::new(x, y, z),
        Quaternion::new(1.0, 0.0, 0.0, 0.0),
        name,
    )
    .unwrap()
}

/// Paper Example 2 (§6.2): a unit sphere pushed by λ_app = [1, 2.6, −9.81, 0, 0, 0] against a
/// fixed sphere of radius 10 at the origin (contact 1) and one of radius 9 at (0, 11.4, 0)
/// (contact 2); μ = 0.2, e_t = e_o = 1, e_r = 0.3, h = 0.01. The paper does not give the small
/// sphere's mass and inertia: m = 1 and a solid sphere's 0.4 m r².
fn sphere_on_two_spheres() -> Scene<Spatial> {
    let ball = RigidBody::<Spatial>::new(
        "ball",
        1.0,
        Matrix3::identity() * 0.4,
        sphere("ball", 1.0),
        spatial_at("ball", 0.0, 6.62105263157895, 8.78417110772903),
    )
    .unwrap()
    .with_external_wrench(Wrench::new(Vector3::new(1.0, 2.6, -9.81), Vector3::zeros()))
    .unwrap();
    let big =
        RigidBody::<Spatial>::fixed("big", sphere("big", 10.0), spatial_at("big", 0.0, 0.0, 0.0))
            .unwrap();
    let small = RigidBody::<Spatial>::fixed(
        "small",
        sphere("small", 9.0),
        spatial_at("small", 0.0, 11.4, 0.0),
    )
    .unwrap();
    Scene::new(
        "sphere_on_two_spheres",
        Vector3::zeros(),
        Friction::elliptic(0.2, 1.0, 1.0, 0.3),
        0.01,
        4.0,
    )
    .unwrap()
    .with_body(ball)
    .unwrap()
    .with_body(big)
    .unwrap()
    .with_body(small)
    .unwrap()
}

/// Example 2's transitions (paper §6.2, read off its Figure 5, "approximately"): contact 2
/// rolls until ≈ 3.0 s then slides, contact 1 separates at ≈ 3.2 s, contact 2 at ≈ 3.6 s. The
/// paper's mass and inertia of the small sphere are unknown, so we accept ±0.15 s (measured:
/// 2.94, 3.21, 3.70 s). At every step the elliptic friction law holds with the torsional term:
/// sliding (σ > 0) on the ellipsoid `p_t² + p_o² + (p_r/e_r)² = μ² p_n²`, rolling inside it;
/// both to 1e-10, the MCP's absolute tolerance on that row.
#[test]
fn example_2_sphere_on_two_spheres_shows_the_papers_transitions() {
    let mut stepper =
        ImplicitStepper::new(sphere_on_two_spheres(), StepperSettings::default()).unwrap();
    assert_eq!(stepper.contact_count(), 2);
    let (mut slide2, mut sep1, mut sep2) = (None, None, None);
    let mu = 0.2;
    let e_r = 0.3;
    while stepper.time < 4.0 - 1e-9 {
        let report = stepper.step();
        assert!(report.converged, "t = {}: {:?}", stepper.time, report.solve);
        let t = stepper.time;
        let c = stepper.contacts();
        for (k, contact) in c.iter().enumerate() {
            assert!(contact.penetration <= 1e-10, "contact {k} at t = {t}");
            let lhs = contact.friction_impulse.powi(2) + (contact.torsion_impulse / e_r).powi(2);
            let rhs = (mu * contact.normal_impulse).powi(2);
            assert!(
                lhs <= rhs + 1e-10,
                "contact {k} outside the friction ellipsoid at t = {t}"
            );
            if contact.sigma > 1e-9 && contact.normal_impulse > 1e-9 {
                assert!(
                    (lhs - rhs).abs() <= 1e-10,
                    "sliding contact {k} not on the ellipsoid, t = {t}"
                );
            }
        }
        // Contact 1 slides from the start while in contact.
        if c[0].normal_impulse > 1e-9 {
            assert!(c[0].sigma > 0.0, "contact 1 should slide at t = {t}");
        }
        if slide2.is_none() && c[1].sigma > 1e-9 && c[1].normal_impulse > 1e-9 {
            slide2 = Some(t);
        }
        if sep1.is_none() && c[0].normal_impulse <= 1e-12 {
            sep1 = Some(t);
        }
        if sep2.is_none() && c[1].normal_impulse <= 1e-12 {
            sep2 = Some(t);
        }
    }
    let near = |got: Option<f64>, paper: f64| got.is_some_and(|t| (t - paper).abs() <= 0.15);
    assert!(near(slide2, 3.0), "contact 2 starts sliding at {slide2:?}");
    assert!(near(sep1, 3.2), "contact 1 separates at {sep1:?}");
    assert!(near(sep2, 3.6), "contact 2 separates at {sep2:?}");
}
