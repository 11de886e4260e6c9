//! `run --animate`: a GIF of the bodies' outlines over time, with contact points and normals.
//!
//! An [`AnimationRecorder`] keeps the bodies' poses and the contacts at evenly spaced steps (at
//! most [`MAX_FRAMES`] frames, so a long run stays quick to encode); [`AnimationRecorder::write_gif`]
//! draws them.
//!
//! Outlines come from the zero level sets of the convex parts: for a bounded part (one with an
//! interior point and a bounding radius) rays from the interior point are bisected to the
//! boundary once, in the body frame, and the points are moved with the body; an unbounded part
//! (a half-plane, a half-space) is intersected with the view box and sampled in the world frame.
//! The outline drawn is the convex hull of the projected boundary points — exact for a convex
//! part, and in 3D the silhouette of the part seen along the dropped axis. In 3D the view looks
//! along the world axis over which the bodies' positions spread least (the title says which).
//!
//! Colours: fixed bodies grey, moving bodies blue with a radius drawn along their body x axis
//! (so rolling shows), a contact that pushes (`p_n > 0`) as a red dot with an arrow along the
//! normal in the direction of the force on the moving body of the pair, a separated pair's
//! closest points as grey dots joined by a thin line. Frames are played in real time where the
//! GIF format allows (at least 20 ms per frame).

use super::PlotError;
use super::style::{self, FAMILY};
use crate::geometry::{ConvexPart, Pose, Space, world_eval};
use crate::model::{Dynamics, Scene};
use crate::stepper::TimeStepper;
use plotters::prelude::*;
use std::path::Path;

/// The most frames an animation has.
pub const MAX_FRAMES: usize = 150;

const CANVAS_WIDTH: u32 = 720;
const CAPTION_HEIGHT: u32 = 34;
const MARGIN: u32 = 10;
const RAYS_2D: usize = 160;
const RAYS_3D: usize = 2000;
const BISECTIONS: usize = 42;

#[derive(Debug, Clone)]
struct FrameContact {
    a1: [f64; 3],
    a2: [f64; 3],
    /// Direction of the arrow: the normal, oriented as the force on the pair's moving body.
    arrow: [f64; 3],
    active: bool,
}

#[derive(Debug, Clone)]
struct Frame<S: Space> {
    t: f64,
    poses: Vec<Pose<S>>,
    contacts: Vec<FrameContact>,
}

/// Records frames of a run for [`write_gif`](Self::write_gif).
#[derive(Debug, Clone)]
pub struct AnimationRecorder<S: Dynamics> {
    stride: usize,
    steps: usize,
    time_step: f64,
    frames: Vec<Frame<S>>,
}

fn to3<S: Space>(v: &S::Vector) -> [f64; 3] {
    let mut out = [0.0; 3];
    for (k, o) in out.iter_mut().enumerate().take(S::DIM) {
        *o = v[k];
    }
    out
}

fn slice3(v: &[f64]) -> [f64; 3] {
    let mut out = [0.0; 3];
    for (o, x) in out.iter_mut().zip(v) {
        *o = *x;
    }
    out
}

impl<S: Dynamics> AnimationRecorder<S> {
    /// A recorder for a run of `steps` steps of `time_step`: it keeps step 0, every
    /// `⌈steps / (MAX_FRAMES − 1)⌉`-th step and the last.
    pub fn new(steps: usize, time_step: f64) -> Self {
        let stride = steps.div_ceil(MAX_FRAMES - 1).max(1);
        Self {
            stride,
            steps,
            time_step,
            frames: Vec::new(),
        }
    }

    /// Frames recorded so far.
    pub fn frame_count(&self) -> usize {
        self.frames.len()
    }

    /// Records the stepper's state after step `step` (0: the initial state) if it is a frame.
    pub fn record<T: TimeStepper<S>>(&mut self, step: usize, stepper: &T) {
        if !step.is_multiple_of(self.stride) && step != self.steps {
            return;
        }
        let scene = stepper.scene();
        let contacts = stepper
            .contacts()
            .iter()
            .map(|c| {
                let b1 = &scene.bodies[c.body1];
                let p = S::vector_from_fn(|k| c.a1[k]);
                let n = normal_at(b1.shape.parts(), &b1.pose, &p);
                // n points from body 1 towards body 2; body 1 receives −p_n n.
                let sign = if !b1.fixed { -1.0 } else { 1.0 };
                FrameContact {
                    a1: slice3(&c.a1),
                    a2: slice3(&c.a2),
                    arrow: [sign * n[0], sign * n[1], sign * n[2]],
                    active: c.normal_impulse > 1e-12,
                }
            })
            .collect();
        self.frames.push(Frame {
            t: stepper.time(),
            poses: scene.bodies.iter().map(|b| b.pose).collect(),
            contacts,
        });
    }

    /// Draws the recorded frames of `scene` (the same scene, any state: only its shapes and
    /// which bodies are fixed are used) into the GIF `path`.
    pub fn write_gif(&self, scene: &Scene<S>, path: &Path) -> Result<(), PlotError> {
        style::ensure_font();
        if self.frames.is_empty() {
            return Err(PlotError::draw(path, "no frames were recorded"));
        }
        let axes = view_axes::<S>(&self.frames);
        let bounded: Vec<Vec<Option<Vec<S::Vector>>>> = scene
            .bodies
            .iter()
            .map(|b| b.shape.parts().iter().map(bounded_samples).collect())
            .collect();
        // The view: every bounded outline in every frame, and every contact point.
        let mut bb = BBox::default();
        for f in &self.frames {
            for (b, parts) in bounded.iter().enumerate() {
                for samples in parts.iter().flatten() {
                    for s in samples {
                        bb.add(project(&to3::<S>(&f.poses[b].transform_point(s)), axes));
                    }
                }
            }
            for c in &f.contacts {
                bb.add(project(&c.a1, axes));
                bb.add(project(&c.a2, axes));
            }
        }
        let (view, size) = bb.view();
        let depth = depth_range::<S>(&self.frames, axes, &view);
        let delay_ms = ((self.stride as f64 * self.time_step * 1000.0).round() as u32).max(20);
        let arrow_len = 0.08 * (view.x1 - view.x0).max(view.y1 - view.y0);
        let title_axes = if S::DIM == 3 {
            let names = ["x", "y", "z"];
            format!(
                " (view along {}, {}–{} plane)",
                names[axes.2], names[axes.0], names[axes.1]
            )
        } else {
            String::new()
        };
        let file = std::fs::File::create(path)
            .map_err(|e| PlotError::io(path, "create the animation", e))?;
        let gif_err = |e: gif::EncodingError| PlotError::draw(path, format!("GIF: {e}"));
        let palette = Palette::new();
        let mut encoder = gif::Encoder::new(
            std::io::BufWriter::new(file),
            size.0 as u16,
            size.1 as u16,
            &palette.bytes(),
        )
        .map_err(gif_err)?;
        encoder.set_repeat(gif::Repeat::Infinite).map_err(gif_err)?;
        let mut rgb = vec![0u8; size.0 as usize * size.1 as usize * 3];
        let mut cache = std::collections::HashMap::new();
        for f in &self.frames {
            {
                let root = BitMapBackend::with_buffer(&mut rgb, size).into_drawing_area();
                let caption = format!("{}{title_axes}   t = {:.3} s", scene.name, f.t);
                let scene_view = SceneView {
                    scene,
                    bounded: &bounded,
                    axes,
                    view,
                    depth,
                    arrow_len,
                };
                draw_frame(&root, &scene_view, f, &caption)
                    .map_err(|e| PlotError::draw(path, e))?;
                root.present().map_err(|e| PlotError::draw(path, e))?;
            }
            let indices: Vec<u8> = rgb
                .chunks_exact(3)
                .map(|p| palette.index(&mut cache, [p[0], p[1], p[2]]))
                .collect();
            let mut frame =
                gif::Frame::from_indexed_pixels(size.0 as u16, size.1 as u16, &indices, None);
            frame.delay = (delay_ms.div_ceil(10)).min(u16::MAX as u32) as u16;
            encoder.write_frame(&frame).map_err(gif_err)?;
        }
        drop(encoder);
        Ok(())
    }
}

/// What every frame shares.
struct SceneView<'a, S: Dynamics> {
    scene: &'a Scene<S>,
    bounded: &'a [Vec<Option<Vec<S::Vector>>>],
    axes: (usize, usize, usize),
    view: View,
    depth: (f64, f64),
    arrow_len: f64,
}

fn draw_frame<DB: DrawingBackend, S: Dynamics>(
    root: &DrawingArea<DB, plotters::coord::Shift>,
    sv: &SceneView<'_, S>,
    f: &Frame<S>,
    caption: &str,
) -> Result<(), String> {
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    let (view, axes) = (sv.view, sv.axes);
    root.fill(&WHITE).map_err(err)?;
    let mut chart = ChartBuilder::on(root)
        .margin(MARGIN)
        .caption(caption, (FAMILY, 18.0).into_font())
        .build_cartesian_2d(view.x0..view.x1, view.y0..view.y1)
        .map_err(err)?;
    // Fixed bodies first, moving ones over them (in a 3D projection they may overlap).
    let order = sv
        .scene
        .bodies
        .iter()
        .enumerate()
        .filter(|(_, b)| b.fixed)
        .chain(sv.scene.bodies.iter().enumerate().filter(|(_, b)| !b.fixed));
    for (b, body) in order {
        let (fill, stroke) = if body.fixed {
            (FIXED_FILL, FIXED_STROKE)
        } else {
            (MOVING_FILL, style::color(0))
        };
        for (p, part) in body.shape.parts().iter().enumerate() {
            let world: Vec<[f64; 3]> = match &sv.bounded[b][p] {
                Some(samples) => samples
                    .iter()
                    .map(|s| to3::<S>(&f.poses[b].transform_point(s)))
                    .collect(),
                None => clipped_samples(part, &f.poses[b], axes, &view, sv.depth),
            };
            let hull = convex_hull(world.iter().map(|w| project(w, axes)).collect());
            if hull.len() < 3 {
                continue;
            }
            chart
                .draw_series(std::iter::once(Polygon::new(hull.clone(), fill.filled())))
                .map_err(err)?;
            let mut closed = hull;
            closed.push(closed[0]);
            chart
                .draw_series(std::iter::once(PathElement::new(
                    closed,
                    stroke.stroke_width(2),
                )))
                .map_err(err)?;
        }
        if !body.fixed
            && let Some(r) = body.shape.parts()[0].bounding_radius()
        {
            // A body-fixed radius: shows the rotation of round bodies.
            let c = project(&to3::<S>(&f.poses[b].position), axes);
            let tip = f.poses[b].transform_point(&(S::unit_vector(0) * (0.9 * r)));
            let tip = project(&to3::<S>(&tip), axes);
            chart
                .draw_series(std::iter::once(PathElement::new(
                    vec![c, tip],
                    stroke.stroke_width(2),
                )))
                .map_err(err)?;
        }
    }
    for c in &f.contacts {
        let (p1, p2) = (project(&c.a1, axes), project(&c.a2, axes));
        if c.active {
            let red = style::color(1);
            let a = project(&c.arrow, axes);
            let tip = (p2.0 + sv.arrow_len * a.0, p2.1 + sv.arrow_len * a.1);
            let head = arrow_head(p2, tip, 0.3 * sv.arrow_len);
            chart
                .draw_series([
                    PathElement::new(vec![p2, tip], red.stroke_width(2)),
                    PathElement::new(head, red.stroke_width(2)),
                ])
                .map_err(err)?;
            chart
                .draw_series(std::iter::once(Circle::new(p2, 4, red.filled())))
                .map_err(err)?;
        } else {
            chart
                .draw_series(std::iter::once(PathElement::new(vec![p1, p2], SEPARATED)))
                .map_err(err)?;
            chart
                .draw_series([
                    Circle::new(p1, 3, SEPARATED.filled()),
                    Circle::new(p2, 3, SEPARATED.filled()),
                ])
                .map_err(err)?;
        }
    }
    Ok(())
}

const FIXED_FILL: RGBColor = RGBColor(225, 225, 225);
const FIXED_STROKE: RGBColor = RGBColor(110, 110, 110);
const MOVING_FILL: RGBColor = RGBColor(200, 225, 245);
const SEPARATED: RGBColor = RGBColor(150, 150, 150);

/// A fixed GIF palette: the animation's own colours, the blends that anti-aliasing makes
/// between them and white, and a grey ramp. Each pixel maps to its nearest entry (cached per
/// colour): fast, and the same picture always gives the same file, unlike a quantiser that
/// learns a palette per frame.
struct Palette {
    colors: Vec<[u8; 3]>,
}

impl Palette {
    fn new() -> Self {
        let mut base: Vec<[u8; 3]> = vec![
            [255, 255, 255],
            [0, 0, 0],
            [FIXED_FILL.0, FIXED_FILL.1, FIXED_FILL.2],
            [FIXED_STROKE.0, FIXED_STROKE.1, FIXED_STROKE.2],
            [MOVING_FILL.0, MOVING_FILL.1, MOVING_FILL.2],
            [SEPARATED.0, SEPARATED.1, SEPARATED.2],
        ];
        for c in style::PALETTE.iter().take(2) {
            base.push([c.0, c.1, c.2]);
        }
        let mut colors: Vec<[u8; 3]> = Vec::with_capacity(256);
        for g in 0..32u32 {
            let v = (g * 255 / 31) as u8;
            colors.push([v, v, v]);
        }
        // Seven blends between every pair of base colours.
        for i in 0..base.len() {
            colors.push(base[i]);
            for j in i + 1..base.len() {
                for k in 1..8u32 {
                    let mix = |a: u8, b: u8| ((a as u32 * (8 - k) + b as u32 * k) / 8) as u8;
                    let (a, b) = (base[i], base[j]);
                    colors.push([mix(a[0], b[0]), mix(a[1], b[1]), mix(a[2], b[2])]);
                }
            }
        }
        colors.truncate(256);
        Self { colors }
    }

    fn bytes(&self) -> Vec<u8> {
        let mut out: Vec<u8> = self.colors.iter().flatten().copied().collect();
        // GIF palettes have a power-of-two size.
        out.resize(256 * 3, 0);
        out
    }

    fn index(&self, cache: &mut std::collections::HashMap<[u8; 3], u8>, c: [u8; 3]) -> u8 {
        *cache.entry(c).or_insert_with(|| {
            let d = |p: &[u8; 3]| {
                (0..3)
                    .map(|k| (p[k] as i32 - c[k] as i32).pow(2))
                    .sum::<i32>()
            };
            let mut best = (i32::MAX, 0usize);
            for (i, p) in self.colors.iter().enumerate() {
                let di = d(p);
                if di < best.0 {
                    best = (di, i);
                }
            }
            best.1 as u8
        })
    }
}

/// The unit normal of `parts` at the world point `p` on the body at `pose`: the gradient of the
/// function that is largest at `p` in the part whose value is nearest zero (the part touching).
fn normal_at<S: Space>(parts: &[ConvexPart<S>], pose: &Pose<S>, p: &S::Vector) -> [f64; 3] {
    let mut best: Option<(f64, usize, usize)> = None;
    for (pi, part) in parts.iter().enumerate() {
        let mut top = (f64::NEG_INFINITY, 0);
        for (fi, f) in part.functions().iter().enumerate() {
            let v = world_eval(f, pose, p).value;
            if v > top.0 {
                top = (v, fi);
            }
        }
        if best.is_none_or(|b| top.0.abs() < b.0) {
            best = Some((top.0.abs(), pi, top.1));
        }
    }
    let Some((_, pi, fi)) = best else {
        return [0.0; 3];
    };
    let g = to3::<S>(&world_eval(&parts[pi].functions()[fi], pose, p).gradient);
    let n = (g[0] * g[0] + g[1] * g[1] + g[2] * g[2]).sqrt();
    if n > 0.0 && n.is_finite() {
        [g[0] / n, g[1] / n, g[2] / n]
    } else {
        [0.0; 3]
    }
}

/// Ray directions: evenly spaced angles in 2D, a Fibonacci sphere in 3D.
fn directions<S: Space>() -> Vec<S::Vector> {
    if S::DIM == 2 {
        (0..RAYS_2D)
            .map(|k| {
                let a = std::f64::consts::TAU * k as f64 / RAYS_2D as f64;
                S::vector_from_fn(|i| if i == 0 { a.cos() } else { a.sin() })
            })
            .collect()
    } else {
        let golden = std::f64::consts::PI * (3.0 - 5f64.sqrt());
        (0..RAYS_3D)
            .map(|k| {
                let z = 1.0 - 2.0 * (k as f64 + 0.5) / RAYS_3D as f64;
                let r = (1.0 - z * z).sqrt();
                let a = golden * k as f64;
                let d = [r * a.cos(), r * a.sin(), z];
                S::vector_from_fn(|i| d[i])
            })
            .collect()
    }
}

/// Boundary points along rays from `c` (where `inside` holds) out to `reach` (where it does not).
fn ray_samples<S: Space>(
    c: &S::Vector,
    reach: f64,
    inside: impl Fn(&S::Vector) -> bool,
) -> Vec<S::Vector> {
    directions::<S>()
        .into_iter()
        .map(|d| {
            let (mut lo, mut hi) = (0.0, reach);
            for _ in 0..BISECTIONS {
                let mid = 0.5 * (lo + hi);
                if inside(&(*c + d * mid)) {
                    lo = mid;
                } else {
                    hi = mid;
                }
            }
            *c + d * lo
        })
        .collect()
}

/// Boundary points of a bounded part in its body frame; `None` for an unbounded part.
fn bounded_samples<S: Space>(part: &ConvexPart<S>) -> Option<Vec<S::Vector>> {
    let c = part.interior_point()?;
    let r = part.bounding_radius()?;
    Some(ray_samples::<S>(&c, 1.02 * r + 1e-9, |x| {
        part.value(x) <= 0.0
    }))
}

/// Boundary points of `part ∩ view box` in the world frame (for unbounded parts); empty if the
/// part does not reach into the view.
fn clipped_samples<S: Space>(
    part: &ConvexPart<S>,
    pose: &Pose<S>,
    axes: (usize, usize, usize),
    view: &View,
    depth: (f64, f64),
) -> Vec<[f64; 3]> {
    let lo = {
        let mut l = [0.0; 3];
        l[axes.0] = view.x0;
        l[axes.1] = view.y0;
        l[axes.2] = depth.0;
        l
    };
    let hi = {
        let mut h = [0.0; 3];
        h[axes.0] = view.x1;
        h[axes.1] = view.y1;
        h[axes.2] = depth.1;
        h
    };
    let box_value = |p: &S::Vector| {
        (0..S::DIM)
            .map(|k| {
                let (c, half) = (0.5 * (lo[k] + hi[k]), 0.5 * (hi[k] - lo[k]));
                (p[k] - c).abs() - half
            })
            .fold(f64::NEG_INFINITY, f64::max)
    };
    let g = |p: &S::Vector| part.world_value(pose, p).max(box_value(p));
    // A point inside both: the best of a grid over the box.
    let n: usize = if S::DIM == 2 { 41 } else { 17 };
    let mut best = (f64::INFINITY, S::zero_vector());
    let total = n.pow(S::DIM as u32);
    for idx in 0..total {
        let mut rest = idx;
        let p = S::vector_from_fn(|k| {
            let i = rest % n;
            rest /= n;
            lo[k] + (hi[k] - lo[k]) * (i as f64 + 0.5) / n as f64
        });
        let v = g(&p);
        if v < best.0 {
            best = (v, p);
        }
    }
    if best.0 >= 0.0 {
        return Vec::new();
    }
    let diag = (0..S::DIM)
        .map(|k| (hi[k] - lo[k]).powi(2))
        .sum::<f64>()
        .sqrt();
    let mut out: Vec<[f64; 3]> = ray_samples::<S>(&best.1, 1.01 * diag, |x| g(x) <= 0.0)
        .iter()
        .map(to3::<S>)
        .collect();
    // Rays miss the vertices of the clipped set: the box's corners inside the part and the
    // points where the part's boundary crosses the box's edges. Add them exactly (for a
    // half-space these are all the vertices).
    let corner = |c: usize| S::vector_from_fn(|k| if c >> k & 1 == 1 { hi[k] } else { lo[k] });
    let inside = |p: &S::Vector| part.world_value(pose, p) <= 0.0;
    for c in 0..(1usize << S::DIM) {
        let p = corner(c);
        if inside(&p) {
            out.push(to3::<S>(&p));
        }
        for k in 0..S::DIM {
            let d = c | (1 << k);
            if d == c {
                continue;
            }
            let q = corner(d);
            if inside(&p) == inside(&q) {
                continue;
            }
            let (mut a, mut b) = if inside(&p) { (p, q) } else { (q, p) };
            for _ in 0..BISECTIONS {
                let m = (a + b) * 0.5;
                if inside(&m) {
                    a = m;
                } else {
                    b = m;
                }
            }
            out.push(to3::<S>(&a));
        }
    }
    out
}

/// The two shown axes and the dropped one: `(0, 1, 2)` in 2D; in 3D the axis over which the
/// bodies' positions (all frames) spread least is dropped.
fn view_axes<S: Space>(frames: &[Frame<S>]) -> (usize, usize, usize) {
    if S::DIM == 2 {
        return (0, 1, 2);
    }
    let mut lo = [f64::INFINITY; 3];
    let mut hi = [f64::NEG_INFINITY; 3];
    for f in frames {
        for p in &f.poses {
            let c = to3::<S>(&p.position);
            for k in 0..3 {
                lo[k] = lo[k].min(c[k]);
                hi[k] = hi[k].max(c[k]);
            }
        }
    }
    let mut order = [0, 1, 2];
    // Ties keep the lower axis dropped first, so the choice is deterministic.
    order.sort_by(|&a, &b| (hi[a] - lo[a]).total_cmp(&(hi[b] - lo[b])));
    let drop = order[0];
    let mut shown = [0, 1, 2].into_iter().filter(|&k| k != drop);
    let (a, b) = (shown.next().unwrap_or(0), shown.next().unwrap_or(1));
    (a, b, drop)
}

/// The depth range (along the dropped axis) that unbounded parts are clipped to: the bodies'
/// positions, widened by the view's size.
fn depth_range<S: Space>(
    frames: &[Frame<S>],
    axes: (usize, usize, usize),
    view: &View,
) -> (f64, f64) {
    if S::DIM == 2 {
        return (-1.0, 1.0);
    }
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for f in frames {
        for p in &f.poses {
            let d = to3::<S>(&p.position)[axes.2];
            lo = lo.min(d);
            hi = hi.max(d);
        }
    }
    let pad = (view.x1 - view.x0).max(view.y1 - view.y0);
    (lo - pad, hi + pad)
}

fn project(p: &[f64; 3], axes: (usize, usize, usize)) -> (f64, f64) {
    (p[axes.0], p[axes.1])
}

fn arrow_head(from: (f64, f64), tip: (f64, f64), len: f64) -> Vec<(f64, f64)> {
    let (dx, dy) = (tip.0 - from.0, tip.1 - from.1);
    let n = (dx * dx + dy * dy).sqrt();
    if n == 0.0 {
        return vec![tip];
    }
    let (ux, uy) = (dx / n, dy / n);
    let back = (tip.0 - len * ux, tip.1 - len * uy);
    let side = (-uy * 0.5 * len, ux * 0.5 * len);
    vec![
        (back.0 + side.0, back.1 + side.1),
        tip,
        (back.0 - side.0, back.1 - side.1),
    ]
}

/// Andrew's monotone chain; counter-clockwise, no repeated first point.
fn convex_hull(mut pts: Vec<(f64, f64)>) -> Vec<(f64, f64)> {
    pts.retain(|p| p.0.is_finite() && p.1.is_finite());
    pts.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)));
    pts.dedup();
    if pts.len() < 3 {
        return pts;
    }
    let cross = |o: (f64, f64), a: (f64, f64), b: (f64, f64)| {
        (a.0 - o.0) * (b.1 - o.1) - (a.1 - o.1) * (b.0 - o.0)
    };
    let mut hull: Vec<(f64, f64)> = Vec::with_capacity(pts.len() * 2);
    for pass in 0..2 {
        let start = hull.len();
        let iter: Box<dyn Iterator<Item = &(f64, f64)>> = if pass == 0 {
            Box::new(pts.iter())
        } else {
            Box::new(pts.iter().rev())
        };
        for &p in iter {
            while hull.len() >= start + 2
                && cross(hull[hull.len() - 2], hull[hull.len() - 1], p) <= 0.0
            {
                hull.pop();
            }
            hull.push(p);
        }
        hull.pop();
    }
    hull
}

#[derive(Debug, Clone, Copy)]
struct View {
    x0: f64,
    x1: f64,
    y0: f64,
    y1: f64,
}

#[derive(Debug, Clone, Copy)]
struct BBox {
    x0: f64,
    x1: f64,
    y0: f64,
    y1: f64,
}

impl Default for BBox {
    fn default() -> Self {
        Self {
            x0: f64::INFINITY,
            x1: f64::NEG_INFINITY,
            y0: f64::INFINITY,
            y1: f64::NEG_INFINITY,
        }
    }
}

impl BBox {
    fn add(&mut self, (x, y): (f64, f64)) {
        if x.is_finite() && y.is_finite() {
            self.x0 = self.x0.min(x);
            self.x1 = self.x1.max(x);
            self.y0 = self.y0.min(y);
            self.y1 = self.y1.max(y);
        }
    }

    /// A padded view with equal scales on both axes, and the canvas size that fits it.
    fn view(&self) -> (View, (u32, u32)) {
        let (mut x0, mut x1, mut y0, mut y1) = if self.x0 <= self.x1 {
            (self.x0, self.x1, self.y0, self.y1)
        } else {
            (-1.0, 1.0, -1.0, 1.0)
        };
        let size = (x1 - x0).max(y1 - y0).max(1e-9);
        let pad = 0.08 * size;
        x0 -= pad;
        x1 += pad;
        y0 -= pad;
        y1 += pad;
        let (w, h) = ((x1 - x0).max(1e-9), (y1 - y0).max(1e-9));
        let plot_w = (CANVAS_WIDTH - 2 * MARGIN) as f64;
        let plot_h = (plot_w * h / w).clamp(200.0, 560.0).round();
        // Equal scales: widen the short side about its centre.
        let scale = (plot_w / w).min(plot_h / h);
        let (w2, h2) = (plot_w / scale, plot_h / scale);
        let (cx, cy) = (0.5 * (x0 + x1), 0.5 * (y0 + y1));
        let view = View {
            x0: cx - 0.5 * w2,
            x1: cx + 0.5 * w2,
            y0: cy - 0.5 * h2,
            y1: cy + 0.5 * h2,
        };
        let height = plot_h as u32 + 2 * MARGIN + CAPTION_HEIGHT;
        (view, (CANVAS_WIDTH, height))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::{Circle, Planar, Spatial, Sphere};

    #[test]
    fn hull_of_a_square_with_inner_points() {
        let pts = vec![
            (0.0, 0.0),
            (1.0, 0.0),
            (1.0, 1.0),
            (0.0, 1.0),
            (0.5, 0.5),
            (0.2, 0.7),
        ];
        let hull = convex_hull(pts);
        assert_eq!(hull, vec![(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)]);
    }

    #[test]
    fn sampled_outlines_lie_on_the_zero_level_set() {
        let disc = ConvexPart::<Planar>::single("disc", Circle::new(1.5).unwrap()).unwrap();
        let pts = bounded_samples(&disc).unwrap();
        assert_eq!(pts.len(), RAYS_2D);
        for p in &pts {
            assert!((Planar::norm(p) - 1.5).abs() < 1e-9, "{p:?}");
        }
        let ball = ConvexPart::<Spatial>::single("ball", Sphere::new(2.0).unwrap()).unwrap();
        for p in bounded_samples(&ball).unwrap() {
            assert!((Spatial::norm(&p) - 2.0).abs() < 1e-9, "{p:?}");
        }
    }
}
