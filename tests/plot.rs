//! Figures end to end: `plot RUN_DIR` on short runs, the paper's figures, `run --animate`, and
//! clear errors for missing or malformed run directories.

use std::path::{Path, PathBuf};
use std::process::Output;

mod common;
use common::{bin, case, text};

fn run(args: &[&str]) -> Output {
    bin().args(args).output().unwrap()
}

/// Runs `scenario` for `duration` seconds into `out`; returns the run directory.
fn short_run(scenario: &str, duration: &str, out: &Path, extra: &[&str]) -> PathBuf {
    let scenario_file = case(&format!("{scenario}.toml"));
    let mut args: Vec<String> = vec![
        "run".into(),
        scenario_file.to_str().unwrap().into(),
        "--out".into(),
        out.to_str().unwrap().into(),
        "--duration".into(),
        duration.into(),
    ];
    args.extend(extra.iter().map(|s| s.to_string()));
    let o = bin().args(&args).output().unwrap();
    assert!(o.status.success(), "{}", text(&o.stderr));
    out.join(scenario)
}

/// Parses an SVG file as XML; returns the root's width and height attributes.
fn check_svg(path: &Path) -> (f64, f64) {
    let s = std::fs::read_to_string(path).unwrap();
    assert!(s.trim_start().starts_with("<svg"), "{}", path.display());
    let doc = roxmltree::Document::parse(&s)
        .unwrap_or_else(|e| panic!("{} is not well-formed XML: {e}", path.display()));
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "svg");
    let texts: Vec<&str> = doc
        .descendants()
        .filter(|n| n.has_tag_name("text"))
        .filter_map(|n| n.text())
        .collect();
    assert!(
        texts.iter().any(|t| t.contains("t (s)")),
        "{}: no axis label among {texts:?}",
        path.display()
    );
    let num = |a: &str| root.attribute(a).unwrap().parse::<f64>().unwrap();
    (num("width"), num("height"))
}

/// Decodes a PNG; returns its size and the number of dark pixels in the top 40 rows (the title:
/// text must actually be rasterised with the embedded font).
fn check_png(path: &Path) -> (u32, u32, usize) {
    let decoder = png::Decoder::new(std::fs::File::open(path).unwrap());
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    assert_eq!(info.color_type, png::ColorType::Rgb);
    let row = info.line_size;
    let dark = buf[..40 * row]
        .chunks_exact(3)
        .filter(|p| p.iter().all(|&c| c < 100))
        .count();
    (info.width, info.height, dark)
}

#[test]
fn plot_writes_the_standard_figures_as_svg_and_png() {
    let out = common::temp_dir("plot", "standard");
    let dir = short_run("sphere_on_two_spheres", "0.2", &out, &[]);
    let o = run(&["plot", dir.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let plots = dir.join("plots");
    for stem in [
        "energy",
        "velocity_small",
        "contact_0",
        "contact_1",
        "newton_iterations",
    ] {
        let (w, h) = check_svg(&plots.join(format!("{stem}.svg")));
        let (pw, ph, dark) = check_png(&plots.join(format!("{stem}.png")));
        assert_eq!((w, h), (pw as f64, ph as f64), "{stem}: SVG and PNG sizes");
        assert_eq!(pw, 900);
        assert!(ph >= 344, "{stem}: at least one panel");
        assert!(
            dark > 200,
            "{stem}: the title is not drawn ({dark} dark pixels)"
        );
    }
    // The contact figure draws μ·p_n from the summary's `contacts`.
    let svg = std::fs::read_to_string(plots.join("contact_0.svg")).unwrap();
    assert!(svg.contains("μ·pₙ (μ = 0.2)"), "no μ·p_n legend entry");
    // Real subscripts in the legends, as in the paper's figures.
    assert!(svg.contains("normal pₙ") && svg.contains("friction ‖pₜ‖"));
    assert!(!svg.contains("p_n") && !svg.contains("p_t"), "underscores");
}

#[test]
fn plotting_is_deterministic() {
    let out = common::temp_dir("plot", "determinism");
    let dir = short_run("disc_on_plane", "0.1", &out, &[]);
    let mut files = Vec::new();
    for _ in 0..2 {
        let o = run(&["plot", dir.to_str().unwrap()]);
        assert!(o.status.success(), "{}", text(&o.stderr));
        files.push(
            ["energy.svg", "energy.png", "contact_0.png"]
                .map(|f| std::fs::read(dir.join("plots").join(f)).unwrap()),
        );
    }
    assert!(files[0] == files[1], "two plots of one run differ");
}

#[test]
fn a_missing_run_directory_is_a_one_line_error() {
    let out = common::temp_dir("plot", "missing");
    let missing = out.join("no_such_run");
    let o = run(&["plot", missing.to_str().unwrap()]);
    assert!(!o.status.success());
    let err = text(&o.stderr);
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(
        err.contains("no_such_run") && err.contains("no such directory"),
        "{err}"
    );
    // A directory without the run's files names the file that is missing.
    let o = run(&["plot", out.to_str().unwrap()]);
    assert!(!o.status.success());
    let err = text(&o.stderr);
    assert!(
        err.contains("trajectory.csv") && err.contains("cannot open"),
        "{err}"
    );
}

#[test]
fn malformed_run_files_are_named_with_line_and_reason() {
    let out = common::temp_dir("plot", "malformed");
    let dir = short_run("disc_on_plane", "0.05", &out, &[]);
    let trajectory = dir.join("trajectory.csv");
    let good = std::fs::read_to_string(&trajectory).unwrap();
    let expect_error = |needles: &[&str]| {
        let o = run(&["plot", dir.to_str().unwrap()]);
        assert!(!o.status.success());
        let err = text(&o.stderr);
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        for n in needles {
            assert!(err.contains(n), "`{n}` not in: {err}");
        }
        assert!(!dir.join("plots").join("energy.svg").exists());
    };

    // A row cut short (an interrupted write).
    let mut lines: Vec<&str> = good.lines().collect();
    let cut = lines[3].rsplit_once(',').unwrap().0.to_string();
    lines[3] = &cut;
    std::fs::write(&trajectory, lines.join("\n")).unwrap();
    expect_error(&["trajectory.csv:4", "fields"]);

    // A number that is not one.
    std::fs::write(&trajectory, good.replacen("0.01,", "zero.zero-one,", 1)).unwrap();
    expect_error(&["trajectory.csv:", "column `t`", "not a number"]);

    // A missing column.
    std::fs::write(&trajectory, good.replacen("kinetic_energy", "kinetic", 1)).unwrap();
    expect_error(&["trajectory.csv", "no column `kinetic_energy`"]);

    // A summary that is not JSON.
    std::fs::write(&trajectory, &good).unwrap();
    std::fs::write(dir.join("summary.json"), "{ \"scenario\": ").unwrap();
    expect_error(&["summary.json"]);
}

#[test]
fn paper_figures_are_written_for_example_2() {
    let out = common::temp_dir("plot", "paper");
    let plots = out.join("plots");
    let o = run(&[
        "paper",
        "sphere_on_two_spheres",
        "--out",
        out.to_str().unwrap(),
        "--plots",
        plots.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    for stem in [
        "fig4b_sphere_velocity",
        "fig5a_contact1_forces",
        "fig5b_contact2_forces",
    ] {
        check_svg(&plots.join(format!("{stem}.svg")));
        let (_, _, dark) = check_png(&plots.join(format!("{stem}.png")));
        assert!(dark > 200, "{stem}: no title drawn");
    }
    let svg = std::fs::read_to_string(plots.join("fig5b_contact2_forces.svg")).unwrap();
    assert!(
        svg.contains("μ·λ₂ₙ (μ = 0.2)"),
        "Fig. 5b draws μ·λ over the friction"
    );
    assert!(!plots.join("fig1a_rolling_disc_energy.svg").exists());
}

#[test]
fn animate_writes_a_gif_with_bounded_frames() {
    let out = common::temp_dir("plot", "animate");
    let dir = short_run("disc_on_plane", "2.0", &out, &["--animate"]);
    let file = std::fs::File::open(dir.join("animation.gif")).unwrap();
    let mut options = gif::DecodeOptions::new();
    options.set_color_output(gif::ColorOutput::RGBA);
    let mut decoder = options.read_info(file).unwrap();
    let (w, h) = (decoder.width(), decoder.height());
    assert_eq!(w, 720);
    let mut frames = 0;
    let mut blue_first = 0;
    while let Some(frame) = decoder.read_next_frame().unwrap() {
        if frames == 0 {
            // The moving disc is drawn (its light blue fill).
            blue_first = frame
                .buffer
                .chunks_exact(4)
                .filter(|p| p[2] > 200 && p[0] < 215 && p[1] > 200)
                .count();
        }
        frames += 1;
    }
    // 200 steps of 0.01 s: every second step and the last, at most 150 frames.
    assert!((2..=150).contains(&frames), "{frames} frames");
    assert_eq!(frames, 101);
    assert!(
        blue_first > 1000,
        "no disc in the first frame ({blue_first} pixels)"
    );
    assert!(h > 200);
}

#[test]
fn the_same_run_gives_the_same_animation() {
    let (a, b) = (
        common::temp_dir("plot", "gif-a"),
        common::temp_dir("plot", "gif-b"),
    );
    let gifs: Vec<Vec<u8>> = [&a, &b]
        .iter()
        .map(|out| {
            let dir = short_run("sphere_on_two_spheres", "0.3", out, &["--animate"]);
            std::fs::read(dir.join("animation.gif")).unwrap()
        })
        .collect();
    assert!(gifs[0].len() > 1000);
    assert!(gifs[0] == gifs[1], "two animations of one run differ");
}

#[test]
fn the_rolling_disc_study_draws_fig_1a_and_1b() {
    let (a, b) = (
        common::temp_dir("plot", "study-a"),
        common::temp_dir("plot", "study-b"),
    );
    let mut bytes = Vec::new();
    for out in [&a, &b] {
        // A short version of the study (0.2 s instead of 5 s): the same configurations.
        let o = run(&[
            "study",
            "rolling-disc",
            "--duration",
            "0.2",
            "--threads",
            "2",
            "--out",
            out.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", text(&o.stderr));
        let stdout = text(&o.stdout);
        assert!(
            stdout.contains("N = 1000 and 10000 indistinguishable"),
            "{stdout}"
        );
        for stem in ["fig1a_rolling_disc_energy", "fig1b_rolling_disc_time_step"] {
            check_svg(&out.join(format!("{stem}.svg")));
            let (_, _, dark) = check_png(&out.join(format!("{stem}.png")));
            assert!(dark > 200, "{stem}: no title drawn");
        }
        bytes.push(
            [
                "fig1a_rolling_disc_energy.png",
                "fig1b_rolling_disc_time_step.svg",
            ]
            .map(|f| std::fs::read(out.join(f)).unwrap()),
        );
    }
    assert!(
        bytes[0] == bytes[1],
        "two runs of the study draw different figures"
    );
    // Fig. 1a holds the implicit circle and every polygon; Fig. 1b every time step.
    let svg = std::fs::read_to_string(a.join("fig1a_rolling_disc_energy.svg")).unwrap();
    for label in ["implicit circle", "N = 10", "N = 100", "N = 1000"] {
        assert!(
            svg.lines().any(|l| l.trim() == label),
            "Fig. 1a has no `{label}`"
        );
    }
    assert!(svg.contains("N = 10000"), "Fig. 1a has no `N = 10000`");
    let svg = std::fs::read_to_string(a.join("fig1b_rolling_disc_time_step.svg")).unwrap();
    for label in ["h = 0.01 s", "h = 0.0001 s"] {
        assert!(svg.contains(label), "Fig. 1b has no `{label}`");
    }
}

#[test]
fn paper_figures_7_and_8_are_written_for_example_3() {
    let out = common::temp_dir("plot", "paper-quasi");
    let plots = out.join("plots");
    let o = run(&[
        "paper",
        "quasi_rigid_disc",
        "--out",
        out.to_str().unwrap(),
        "--plots",
        plots.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    for stem in [
        "fig7a_core_force",
        "fig7b_spring_force",
        "fig7c_position",
        "fig7d_velocity",
        "fig7e_energy",
        "fig8a_energy",
        "fig8b_normal_force",
        "fig8c_position",
        "fig8d_velocity",
    ] {
        check_svg(&plots.join(format!("{stem}.svg")));
        let (_, _, dark) = check_png(&plots.join(format!("{stem}.png")));
        assert!(dark > 200, "{stem}: no title drawn");
    }
    // The energy figures show both integrators, the midpoint's as markers over the paper's
    // lines (they coincide within the line width), and say so.
    for stem in ["fig7e_energy", "fig8a_energy"] {
        let svg = std::fs::read_to_string(plots.join(format!("{stem}.svg"))).unwrap();
        assert!(
            svg.contains("lines: euler; markers: midpoint") && svg.contains("<circle"),
            "{stem}: both integrators"
        );
    }
    // Real subscripts in titles and legends, never a literal `_max` or `p_n`.
    for stem in ["fig7a_core_force", "fig7e_energy", "fig8b_normal_force"] {
        let svg = std::fs::read_to_string(plots.join(format!("{stem}.svg"))).unwrap();
        assert!(svg.contains("δₘₐₓ"), "{stem}: no δₘₐₓ");
        assert!(
            !svg.contains("_max") && !svg.contains("p_n"),
            "{stem}: underscores"
        );
    }
    // Printed one column wide: 1050 px at 300 dpi (3.5 in).
    let decoder = png::Decoder::new(std::fs::File::open(plots.join("fig7e_energy.png")).unwrap());
    let reader = decoder.read_info().unwrap();
    let info = reader.info();
    assert_eq!(info.width, 1050);
    let dims = info.pixel_dims.expect("a pHYs chunk");
    assert_eq!((dims.xppu, dims.unit), (11811, png::Unit::Meter), "300 dpi");
    assert!(!plots.join("fig1a_rolling_disc_energy.svg").exists());
}

/// An interrupted run is drawn from its complete rows: an empty `solver.csv` (killed before its
/// header), files cut mid-row, and no summary.
#[test]
fn an_interrupted_run_is_plotted_from_its_complete_rows() {
    let out = common::temp_dir("plot", "interrupted");
    let dir = short_run("sphere_on_two_spheres", "0.3", &out, &[]);
    std::fs::remove_file(dir.join("summary.json")).unwrap();
    std::fs::write(dir.join("solver.csv"), "").unwrap();
    for (file, keep) in [("trajectory.csv", 0.6), ("contacts.csv", 0.5)] {
        let path = dir.join(file);
        let bytes = std::fs::read(&path).unwrap();
        let mut cut = (bytes.len() as f64 * keep) as usize;
        while bytes[cut - 1] == b'\n' {
            cut += 1; // end inside a row, not at a line's end
        }
        std::fs::write(&path, &bytes[..cut]).unwrap();
    }
    let o = run(&["plot", dir.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let notes = text(&o.stderr);
    assert!(
        notes.contains("solver.csv") && notes.contains("no newton_iterations figure"),
        "{notes}"
    );
    let plots = dir.join("plots");
    for stem in ["energy", "velocity_small", "contact_0", "contact_1"] {
        check_svg(&plots.join(format!("{stem}.svg")));
    }
    assert!(!plots.join("newton_iterations.svg").exists());
    // A solver.csv cut inside its header likewise.
    std::fs::write(dir.join("solver.csv"), "step,t,sta").unwrap();
    let o = run(&["plot", dir.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o.stderr));
}

/// The energy is drawn signed (a gain is told from a loss) beside its size on a log axis;
/// torsion (N·m·s) has its own axis; a contact that never opens gets a labelled linear gap
/// panel, not an empty log one.
#[test]
fn energy_torsion_and_closed_gap_panels_say_what_they_show() {
    let out = common::temp_dir("plot", "panels");
    let dir = short_run("sphere_on_two_spheres", "0.2", &out, &[]);
    let o = run(&["plot", dir.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let read = |stem: &str| std::fs::read_to_string(dir.join("plots").join(stem)).unwrap();
    let energy = read("energy.svg");
    assert!(energy.contains("E − E₀ (J)") && energy.contains("|E − E₀| (J)"));
    assert!(energy.contains("&gt; 0 gained") || energy.contains("> 0 gained"));
    let contact = read("contact_1.svg");
    assert!(contact.contains("torsion (N·m·s)") && contact.contains("impulse (N·s)"));
    // Example 1's disc rolls on the ground: its gap is never above zero.
    let disc = short_run("disc_on_plane", "0.1", &out, &[]);
    let o = run(&["plot", disc.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let contact = std::fs::read_to_string(disc.join("plots/contact_0.svg")).unwrap();
    assert!(contact.contains("closed throughout"), "no closed-gap label");
    assert!(!contact.contains("torsion"), "2D: no torsion panel");
}

/// A rerun of `plot` replaces the previous figures: those of contacts that no longer exist go,
/// other files in `plots/` stay.
#[test]
fn plots_are_refreshed_on_rerun() {
    let out = common::temp_dir("plot", "refresh");
    let dir = short_run("disc_on_plane", "0.1", &out, &[]);
    let plots = dir.join("plots");
    std::fs::create_dir_all(&plots).unwrap();
    for stale in ["contact_7.svg", "contact_7.png", "velocity_gone.svg"] {
        std::fs::write(plots.join(stale), "stale").unwrap();
    }
    std::fs::write(plots.join("notes.txt"), "mine").unwrap();
    let o = run(&["plot", dir.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    for stale in ["contact_7.svg", "contact_7.png", "velocity_gone.svg"] {
        assert!(!plots.join(stale).exists(), "{stale} survived");
    }
    assert!(
        plots.join("notes.txt").exists(),
        "a user's file was removed"
    );
    assert!(plots.join("contact_0.svg").exists());
}

/// A rerun of `run` into the same directory removes the figures `plot` drew of the previous
/// run (they would look like this run's), and keeps other files in `plots/`.
#[test]
fn a_rerun_removes_the_previous_runs_figures() {
    let out = common::temp_dir("plot", "rerun");
    let dir = short_run("disc_on_plane", "0.1", &out, &[]);
    let o = run(&["plot", dir.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let plots = dir.join("plots");
    assert!(plots.join("energy.svg").exists() && plots.join("contact_0.png").exists());
    std::fs::write(plots.join("notes.txt"), "mine").unwrap();
    short_run("disc_on_plane", "0.1", &out, &[]);
    let left: Vec<String> = std::fs::read_dir(&plots)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(left, ["notes.txt"], "figures of the previous run survived");
}
