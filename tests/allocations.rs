//! The step loop allocates nothing once its workspaces are sized (issue 19): every paper case,
//! under both integrators, is stepped to its end with a counting allocator, and no step after
//! the first three touches the heap. The first steps may: the solver's buffers grow to the
//! step MCP's size on first use, and the stepper keeps the last step's closest points and the
//! quasi-rigid layers' history from the first step that has them. A scene whose MCP grows
//! (a new contact) may allocate again in that step; the paper cases keep their size.
//!
//! The count is per thread, so the tests of this file can run in parallel.

use implicit_contact::model::{Dynamics, Integrator, Scene};
use implicit_contact::scenario::{self, AnyScene};
use implicit_contact::stepper::{ImplicitStepper, StepperSettings};
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::path::Path;

struct Counting;

thread_local! {
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

fn count_one() {
    // `try_with`: the allocator also runs while a thread's locals are being destroyed.
    let _ = ALLOCATIONS.try_with(|c| c.set(c.get() + 1));
}

fn allocations() -> usize {
    ALLOCATIONS.with(Cell::get)
}

// SAFETY: every call is forwarded unchanged to the system allocator; counting touches only a
// `const`-initialised thread-local cell, which never allocates.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count_one();
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count_one();
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count_one();
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static COUNTING: Counting = Counting;

/// Steps allowed to allocate while the workspaces are sized.
const WARM_UP: usize = 3;

/// Steps `scene` to its end under `integrator`; returns the steps after the warm-up that
/// allocated, with their allocation counts.
fn allocating_steps<S: Dynamics>(scene: Scene<S>, integrator: Integrator) -> Vec<(usize, usize)> {
    let steps = (scene.duration / scene.time_step).round() as usize;
    let settings = StepperSettings {
        integrator,
        ..StepperSettings::default()
    };
    let mut stepper = ImplicitStepper::new(scene, settings).expect("the paper case sets up");
    let mut allocating = Vec::with_capacity(steps);
    for step in 0..steps {
        let before = allocations();
        let report = stepper.step();
        let count = allocations() - before;
        assert!(report.converged, "step {step}: {}", report.solve);
        if step >= WARM_UP && count > 0 {
            allocating.push((step, count));
        }
    }
    assert!(
        steps > 10 * WARM_UP,
        "the run is long enough to mean something"
    );
    allocating
}

fn check(file: &str, integrators: &[Integrator]) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("paper_cases")
        .join(file);
    let scene = scenario::load(&path).expect("the paper case loads").scene;
    for &integrator in integrators {
        let allocating = match scene.clone() {
            AnyScene::Planar(s) => allocating_steps(s, integrator),
            AnyScene::Spatial(s) => allocating_steps(s, integrator),
        };
        assert!(
            allocating.is_empty(),
            "{file} under {integrator:?}: {} steps after the warm-up allocated; the first \
             (step, allocations): {:?}",
            allocating.len(),
            &allocating[..allocating.len().min(8)]
        );
    }
}

#[test]
fn example_1_the_disc_steps_without_allocating() {
    check(
        "disc_on_plane.toml",
        &[Integrator::Euler, Integrator::Rattle],
    );
}

#[test]
fn example_2_the_sphere_on_two_spheres_steps_without_allocating() {
    check(
        "sphere_on_two_spheres.toml",
        &[Integrator::Euler, Integrator::Rattle],
    );
}

#[test]
fn example_3_the_quasi_rigid_disc_steps_without_allocating() {
    for file in [
        "quasi_rigid_disc_core_impact.toml",
        "quasi_rigid_disc_no_core_impact.toml",
    ] {
        check(
            file,
            &[Integrator::Euler, Integrator::Midpoint, Integrator::Rattle],
        );
    }
}

#[test]
fn the_count_sees_an_allocation() {
    let before = allocations();
    let v: Vec<u64> = std::hint::black_box(Vec::with_capacity(4));
    assert_eq!(allocations() - before, 1);
    drop(v);
}
