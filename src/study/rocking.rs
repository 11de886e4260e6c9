//! The energy study of issue 8: smooth rigid contact motion (rocking and rolling bodies on a
//! plane) under the paper's Euler scheme and the second-order RATTLE integrator
//! ([`Integrator::Rattle`]): energy against time, and the trajectory error against a fine-step
//! reference.
//!
//! Bodies (3D, the ground `z ≤ 0`, `μ = 1`, `g = 9.81`, mass 1, each placed exactly touching
//! the plane at rest or with a rolling twist):
//!
//! * `spheroid`: a flattened spheroid, semi-axes `(0.4, 0.4, 0.2)`, tilted by 0.2 rad about
//!   `x` and released at rest: it rocks without slip (period ≈ 0.8 s).
//! * `ellipsoid`: semi-axes `(0.4, 0.25, 0.2)`, rolling about its long axis `x` at 6 rad/s: the
//!   height of its centre changes as it rolls over its two short axes.
//! * `superellipsoid`: the `p = 4` superellipsoid with the spheroid's semi-axes, tilted and
//!   released like it.

use crate::geometry::{
    BodyShape, ConvexPart, Ellipsoid, HalfSpace, Placed, Pose, Spatial, Superellipsoid,
};
use crate::model::{Friction, Integrator, RigidBody, Scene, Twist};
use crate::stepper::{ImplicitStepper, StepperSettings};
use nalgebra::{Matrix3, UnitQuaternion, Vector3};

/// The bodies of the study.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// Flattened spheroid, rocking.
    Spheroid,
    /// Triaxial ellipsoid, rolling.
    Ellipsoid,
    /// `p = 4` superellipsoid, rocking.
    Superellipsoid,
}

impl Shape {
    /// All shapes, in the study's order.
    pub const ALL: [Shape; 3] = [Shape::Spheroid, Shape::Ellipsoid, Shape::Superellipsoid];

    /// The name in files.
    pub fn name(&self) -> &'static str {
        match self {
            Shape::Spheroid => "spheroid",
            Shape::Ellipsoid => "ellipsoid",
            Shape::Superellipsoid => "superellipsoid",
        }
    }

    fn semi_axes(&self) -> Vector3<f64> {
        match self {
            Shape::Ellipsoid => Vector3::new(0.4, 0.25, 0.2),
            _ => Vector3::new(0.4, 0.4, 0.2),
        }
    }

    fn exponent(&self) -> f64 {
        match self {
            Shape::Superellipsoid => 4.0,
            _ => 2.0,
        }
    }
}

/// The scene of `shape` with time step `h` and duration `duration`.
pub fn scene(shape: Shape, h: f64, duration: f64) -> Scene<Spatial> {
    scene_with_friction(shape, h, duration, 1.0)
}

/// [`scene`] with friction coefficient `mu` (0: frictionless, the body slides).
pub fn scene_with_friction(shape: Shape, h: f64, duration: f64, mu: f64) -> Scene<Spatial> {
    let a = shape.semi_axes();
    let p = shape.exponent();
    let f = if p == 2.0 {
        Placed::at_origin(Ellipsoid::<Spatial>::new(a).expect("valid semi-axes"))
    } else {
        Placed::at_origin(Superellipsoid::<Spatial>::new(a, p).expect("valid superellipsoid"))
    };
    let part = ConvexPart::single(shape.name(), f).expect("one function");
    let body_shape = BodyShape::new(shape.name(), vec![part]).expect("one part");
    // Inertia of the solid ellipsoid (the superellipsoid uses the same: the study compares
    // integrators, not shapes).
    let m = 1.0;
    let inertia = Matrix3::from_diagonal(&Vector3::new(
        m * (a.y * a.y + a.z * a.z) / 5.0,
        m * (a.x * a.x + a.z * a.z) / 5.0,
        m * (a.x * a.x + a.y * a.y) / 5.0,
    ));
    let (tilt, spin) = match shape {
        Shape::Ellipsoid => (0.0, 6.0),
        _ => (0.2, 0.0),
    };
    let rotation = UnitQuaternion::from_axis_angle(&Vector3::x_axis(), tilt);
    // Height of the centre touching z = 0: the support function of the body in −z, the dual
    // norm (q = p/(p−1)) of the semi-axes times the world z in the body frame.
    let d = rotation.inverse() * Vector3::z();
    let q = p / (p - 1.0);
    let height = (0..3)
        .map(|i| (a[i] * d[i]).abs().powf(q))
        .sum::<f64>()
        .powf(1.0 / q);
    let pose =
        Pose::new(Vector3::new(0.0, 0.0, height), rotation, shape.name()).expect("a valid pose");
    // Rolling about x without slip: v = ω × (c − contact) = (0, ω·height, 0)... with the
    // contact below the centre, v_y = −ω_x · (−height) sign: u(contact) = v + ω × (−h e_z) = 0.
    let twist = Twist::new(
        Vector3::new(0.0, spin * height, 0.0),
        Vector3::new(-spin, 0.0, 0.0),
    );
    let body = RigidBody::<Spatial>::new(shape.name(), m, inertia, body_shape, pose)
        .expect("valid body")
        .with_twist(twist)
        .expect("finite twist");
    let ground_f =
        Placed::at_origin(HalfSpace::<Spatial>::new(Vector3::z(), 0.0).expect("unit normal"));
    let ground_shape = BodyShape::new(
        "ground",
        vec![ConvexPart::single("ground", ground_f).expect("one function")],
    )
    .expect("one part");
    let ground = RigidBody::<Spatial>::fixed("ground", ground_shape, Pose::identity())
        .expect("valid ground");
    Scene::new(
        shape.name(),
        Vector3::new(0.0, 0.0, -9.81),
        Friction::coulomb(mu),
        h,
        duration,
    )
    .expect("valid scene")
    .with_body(body)
    .expect("one body")
    .with_body(ground)
    .expect("the ground")
}

/// One run: the total energy after every step and the pose at every sample time.
#[derive(Debug, Clone, PartialEq)]
pub struct Run {
    /// `t_k = k h`, from 0.
    pub times: Vec<f64>,
    /// Kinetic plus potential energy at `t_k`.
    pub energy: Vec<f64>,
    /// The body's pose every `sample` seconds (from 0).
    pub samples: Vec<Pose<Spatial>>,
}

impl Run {
    /// The largest relative deviation `|E(t) − E(0)| / E_ref` over the run, `E_ref` the
    /// kinetic energy scale `max(E) − min(E)` of the exact motion at the start — taken as the
    /// energy above the resting state, `E(0) − E_rest` (`E_rest = m g c_min`).
    pub fn drift_relative(&self, reference: f64) -> f64 {
        let e0 = self.energy[0];
        self.energy
            .iter()
            .map(|e| (e - e0).abs())
            .fold(0.0, f64::max)
            / reference
    }

    /// The largest distance between the sampled poses and `reference`'s (centre distance plus
    /// rotation angle times the body's largest semi-axis).
    pub fn trajectory_error(&self, reference: &Run, length: f64) -> f64 {
        self.samples
            .iter()
            .zip(&reference.samples)
            .map(|(p, r)| {
                (p.position - r.position).norm() + length * p.rotation.angle_to(&r.rotation)
            })
            .fold(0.0, f64::max)
    }
}

/// The energy scale of a shape's motion: its energy above rest (`m g` times the centre's
/// height above its lowest resting height, the smallest semi-axis, plus the initial kinetic
/// energy).
pub fn energy_scale(shape: Shape) -> f64 {
    let s = scene(shape, 1e-3, 0.0);
    let b = &s.bodies[0];
    let rest = shape.semi_axes().min();
    s.kinetic_energy() + 9.81 * b.mass * (b.pose.position.z - rest)
}

/// Runs `shape` (`μ = 1`) under `integrator` with step `h` for `duration`, sampling the pose
/// every `sample` seconds (a multiple of `h`). Errors name the step that failed.
pub fn run(
    shape: Shape,
    integrator: Integrator,
    h: f64,
    duration: f64,
    sample: f64,
) -> Result<Run, String> {
    run_with_friction(shape, integrator, h, duration, sample, 1.0)
}

/// [`run`] with friction coefficient `mu`.
pub fn run_with_friction(
    shape: Shape,
    integrator: Integrator,
    h: f64,
    duration: f64,
    sample: f64,
    mu: f64,
) -> Result<Run, String> {
    let settings = StepperSettings {
        integrator,
        ..StepperSettings::default()
    };
    run_with(shape, settings, h, duration, sample, mu)
}

/// [`run_with_friction`] under the stepper `settings` (their integrator, their energy
/// projection).
pub fn run_with(
    shape: Shape,
    settings: StepperSettings,
    h: f64,
    duration: f64,
    sample: f64,
    mu: f64,
) -> Result<Run, String> {
    let integrator = settings.integrator;
    let mut stepper = ImplicitStepper::new(scene_with_friction(shape, h, duration, mu), settings)
        .map_err(|e| format!("{}: {e}", shape.name()))?;
    let steps = (duration / h).round() as usize;
    let stride = ((sample / h).round() as usize).max(1);
    let energy_of =
        |s: &ImplicitStepper<Spatial>| s.scene.kinetic_energy() + s.scene.potential_energy();
    let mut out = Run {
        times: vec![0.0],
        energy: vec![energy_of(&stepper)],
        samples: vec![stepper.scene.bodies[0].pose],
    };
    for k in 1..=steps {
        let report = stepper.step();
        if !report.converged {
            return Err(format!(
                "{} ({}, h = {h}): step {k} failed: {:?}",
                shape.name(),
                integrator.as_str(),
                report
                    .failure
                    .unwrap_or_else(|| format!("{:?}", report.solve.status))
            ));
        }
        out.times.push(k as f64 * h);
        out.energy.push(energy_of(&stepper));
        if k % stride == 0 {
            out.samples.push(stepper.scene.bodies[0].pose);
        }
    }
    Ok(out)
}

/// A time integrator of the study: the integrator and, under RATTLE, whether the energy
/// projection is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Scheme {
    /// The integrator.
    pub integrator: Integrator,
    /// RATTLE's energy projection ([`StepperSettings::energy_projection`]).
    pub energy_projection: bool,
}

impl Scheme {
    /// The paper's scheme.
    pub const EULER: Scheme = Scheme {
        integrator: Integrator::Euler,
        energy_projection: false,
    };
    /// RATTLE as scenarios get it by default: with the energy projection.
    pub const RATTLE: Scheme = Scheme {
        integrator: Integrator::Rattle,
        energy_projection: true,
    };
    /// RATTLE without the energy projection: the bare second-order scheme.
    pub const RATTLE_UNPROJECTED: Scheme = Scheme {
        integrator: Integrator::Rattle,
        energy_projection: false,
    };
    /// The schemes of the study, in its order.
    pub const ALL: [Scheme; 3] = [Scheme::EULER, Scheme::RATTLE_UNPROJECTED, Scheme::RATTLE];

    /// The name in `rocking_energy.csv`'s `integrator` column and the figures.
    pub fn name(&self) -> &'static str {
        match (self.integrator, self.energy_projection) {
            (Integrator::Rattle, false) => "rattle_unprojected",
            (i, _) => i.as_str(),
        }
    }

    /// The stepper's settings.
    pub fn settings(&self) -> StepperSettings {
        StepperSettings {
            integrator: self.integrator,
            energy_projection: self.energy_projection,
            ..StepperSettings::default()
        }
    }
}

/// One row of `rocking_energy.csv`.
#[derive(Debug, Clone, PartialEq)]
pub struct StudyRow {
    /// The body.
    pub shape: Shape,
    /// The integrator.
    pub scheme: Scheme,
    /// `h`.
    pub time_step: f64,
    /// `max |E(t) − E(0)|` over the run, relative to [`energy_scale`].
    pub energy_drift_relative: f64,
    /// [`Run::trajectory_error`] over the first second against `h` = 2.5e-4 (RATTLE).
    pub trajectory_error: f64,
}

/// The time steps of the study.
pub const TIME_STEPS: [f64; 4] = [1e-2, 5e-3, 2.5e-3, 1e-3];

/// Runs the study (`duration`: the energy runs' length, 10 s for the CSV's column) and writes
/// `rocking_energy.csv`, `rocking_energy_<shape>.svg|png` and
/// `rocking_convergence_<shape>.svg|png` into `out`. Returns the rows.
pub fn study(out: &std::path::Path, duration: f64) -> Result<Vec<StudyRow>, String> {
    use crate::plot::{Figure, Legend, Panel, Series, save};
    std::fs::create_dir_all(out).map_err(|e| format!("{}: {e}", out.display()))?;
    let mut rows = Vec::new();
    for shape in Shape::ALL {
        let scale = energy_scale(shape);
        let reference = run(shape, Integrator::Rattle, 2.5e-4, 1.0, 0.1)?;
        // The projected scheme's deviation is orders of magnitude below the others': a panel
        // of its own, on its own scale.
        let mut energy_panel = Panel::new("(E − E₀) / Eₘ")
            .subtitle("Eₘ: the motion's energy above rest")
            .legend(Legend::Outside);
        let mut projected_panel = Panel::new("(E − E₀) / Eₘ, rattle").legend(Legend::Outside);
        let mut conv = Panel::new("trajectory error over 1 s")
            .legend(Legend::Outside)
            .log_y();
        for (c, &scheme) in Scheme::ALL.iter().enumerate() {
            let mut errors = Vec::new();
            for &h in &TIME_STEPS {
                let long = run_with(shape, scheme.settings(), h, duration, 0.1, 1.0)?;
                let short = run_with(shape, scheme.settings(), h, 1.0, 0.1, 1.0)?;
                let error = short.trajectory_error(&reference, 0.4);
                errors.push((h, error));
                rows.push(StudyRow {
                    shape,
                    scheme,
                    time_step: h,
                    energy_drift_relative: long.drift_relative(scale),
                    trajectory_error: error,
                });
                if h == 1e-2 || h == 1e-3 {
                    let stride = ((1e-2 / h).round() as usize).max(1);
                    let points = long
                        .times
                        .iter()
                        .zip(&long.energy)
                        .step_by(stride)
                        .map(|(t, e)| (*t, (e - long.energy[0]) / scale))
                        .collect();
                    let label = format!("{} h = {h}", scheme.name());
                    let series = if h == 1e-2 {
                        Series::line(label, points)
                    } else {
                        Series::dashed(label, points)
                    };
                    if scheme == Scheme::RATTLE {
                        projected_panel = projected_panel.series(series.with_color(c));
                    } else {
                        energy_panel = energy_panel.series(series.with_color(c));
                    }
                }
            }
            conv = conv.series(Series::points(scheme.name(), errors.clone()).with_color(c));
        }
        // Slopes 1 and 2 through the Euler and RATTLE errors at the largest step.
        let first = |scheme: Scheme| {
            rows.iter()
                .find(|r| r.shape == shape && r.scheme == scheme)
                .map_or(1.0, |r| r.trajectory_error)
        };
        for (slope, scheme, i) in [(1.0, Scheme::EULER, 0), (2.0, Scheme::RATTLE, 1)] {
            let e0 = first(scheme);
            let h0 = TIME_STEPS[0];
            let pts = TIME_STEPS
                .iter()
                .map(|&h| (h, e0 * (h / h0).powf(slope)))
                .collect();
            conv = conv.series(Series::dashed(format!("slope {slope}"), pts).with_color(3 + i));
        }
        let name = shape.name();
        let fig = Figure::new(format!("{name}: energy over {duration} s"))
            .x_label("t (s)")
            .panel(energy_panel)
            .panel(projected_panel);
        let fig = crate::plot::paper_figures::for_print(fig);
        save(&fig, out, &format!("rocking_energy_{name}")).map_err(|e| e.to_string())?;
        let fig = Figure::new(format!("{name}: convergence"))
            .x_label("h (s)")
            .log_x()
            .panel(conv);
        let fig = crate::plot::paper_figures::for_print(fig);
        save(&fig, out, &format!("rocking_convergence_{name}")).map_err(|e| e.to_string())?;
    }
    let mut csv =
        String::from("shape,integrator,time_step,energy_drift_relative_10s,trajectory_error\n");
    for r in &rows {
        csv += &format!(
            "{},{},{},{:e},{:e}\n",
            r.shape.name(),
            r.scheme.name(),
            r.time_step,
            r.energy_drift_relative,
            r.trajectory_error
        );
    }
    let path = out.join("rocking_energy.csv");
    std::fs::write(&path, csv).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(rows)
}
