//! The grasp study's machinery (`implicit-contact study grasp`): the same files on any number
//! of threads, shards merged byte for byte, merges that refuse what is not one study, draws
//! that depend on (seed, cell, trial) alone, and errors that name the file and the field.
//!
//! Real trials only on a 3 × 3 grid with one trial per cell (about 0.1 s a trial); the rest
//! uses a stand-in trial function, instantaneous and a pure function of the trial.

use implicit_contact::study::grasp::{GraspError, GraspModel, GraspOutcome, GraspTrial};
use implicit_contact::study::grasp_study::{
    self, ClaimStatus, GraspStudy, GraspStudyConfig, Grid, STUDY_FILE, SUCCESS_FILE, Shard,
    TRIALS_FILE, TrialEnd, TrialOutcome, draw, merge, read_study, run_study, run_study_with,
};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

/// A fresh, empty directory, unique per process and call.
fn fresh(label: &str) -> PathBuf {
    static COUNTER: AtomicUsize = AtomicUsize::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!(
        "implicit-contact-grasp-study-{}-{n}-{label}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The tiny real study: 3 × 3 cells 10 mm apart over the paper's box, one trial each.
fn tiny(threads: usize, shard: Shard) -> GraspStudyConfig {
    GraspStudyConfig {
        grid: Grid {
            step_mm: 10.0,
            ..Grid::default()
        },
        trials: 1,
        seed: 7,
        threads,
        shard,
        ..GraspStudyConfig::default()
    }
}

/// The tiny study on one thread, written once for all tests.
fn reference() -> &'static (GraspStudy, PathBuf) {
    static REFERENCE: OnceLock<(GraspStudy, PathBuf)> = OnceLock::new();
    REFERENCE.get_or_init(|| {
        let study = run_study(&tiny(1, Shard::ALL), |_, _| {}).unwrap();
        let dir = fresh("reference");
        study.write(&dir).unwrap();
        (study, dir)
    })
}

fn bytes(dir: &Path, name: &str) -> Vec<u8> {
    std::fs::read(dir.join(name)).unwrap_or_else(|e| panic!("{}: {e}", dir.join(name).display()))
}

/// The files that must be identical: both tables and the figure.
const SAME: [&str; 4] = [
    SUCCESS_FILE,
    TRIALS_FILE,
    "fig10b_grasp_success.svg",
    "fig10b_grasp_success.png",
];

#[test]
fn one_and_two_threads_write_identical_files() {
    let (one, one_dir) = reference();
    let two = run_study(&tiny(2, Shard::ALL), |_, _| {}).unwrap();
    assert_eq!(two.info.threads, 2);
    let two_dir = fresh("two-threads");
    two.write(&two_dir).unwrap();
    for name in SAME {
        assert!(
            bytes(one_dir, name) == bytes(&two_dir, name),
            "{name} differs between 1 and 2 threads"
        );
    }
    assert_eq!(one.cells, two.cells);
    assert_eq!(one.info.totals, two.info.totals);
    // The table's contract.
    let table = String::from_utf8(bytes(one_dir, SUCCESS_FILE)).unwrap();
    let mut lines = table.lines();
    assert_eq!(
        lines.next(),
        Some("x_mm,y_mm,trials,successes,solver_failures")
    );
    assert_eq!(
        lines.next(),
        Some(
            format!(
                "-10,-20,1,{},{}",
                one.cells[0].successes, one.cells[0].solver_failures
            )
            .as_str()
        )
    );
    assert_eq!(table.lines().count(), 10);
    let summary: serde_json::Value = serde_json::from_slice(&bytes(one_dir, STUDY_FILE)).unwrap();
    assert_eq!(summary["seed"], 7);
    assert_eq!(summary["cells"], 9);
    assert_eq!(summary["shard"]["count"], 1);
    assert_eq!(summary["model"]["jaw_force"], 2.0);
}

#[test]
fn shards_merged_equal_the_unsharded_run() {
    let (whole, whole_dir) = reference();
    let mut dirs = Vec::new();
    for index in [1, 0] {
        let shard = run_study(&tiny(1, Shard { index, count: 2 }), |_, _| {}).unwrap();
        assert_eq!(shard.cells.len(), if index == 0 { 5 } else { 4 });
        let dir = fresh(&format!("shard{index}"));
        shard.write(&dir).unwrap();
        dirs.push(dir);
    }
    let merged = merge(&dirs).unwrap();
    assert_eq!(merged.info.merged_shards, Some(2));
    assert_eq!(merged.info.totals, whole.info.totals);
    let out = fresh("merged");
    merged.write(&out).unwrap();
    for name in SAME {
        assert!(
            bytes(whole_dir, name) == bytes(&out, name),
            "{name}: merged shards differ from the unsharded run"
        );
    }
}

/// A stand-in trial: the outcome a pure function of the trial; a solver failure (with a
/// message that needs quoting) when μ_s > 0.26.
fn fake(t: &GraspTrial) -> Result<TrialEnd, GraspError> {
    if t.mu_support > 0.26 {
        return Err(GraspError::Solver {
            step: 12,
            time: 0.012,
            reason: "residual 1e-3, \"stalled\"\nafter 50 iterations".into(),
        });
    }
    let outcome = if t.y < -0.005 && t.mu_gripper > 0.15 {
        GraspOutcome::Success
    } else if t.x > 0.0 {
        GraspOutcome::Closed
    } else {
        GraspOutcome::WrongHold
    };
    Ok(TrialEnd {
        outcome,
        time: 0.25 + t.mu_gripper,
        steps: 250,
    })
}

fn fake_config(shard: Shard, seed: u64) -> GraspStudyConfig {
    GraspStudyConfig {
        grid: Grid {
            step_mm: 5.0,
            ..Grid::default()
        },
        trials: 3,
        seed,
        threads: 2,
        shard,
        ..GraspStudyConfig::default()
    }
}

/// The fake study's shards `0..count` written to fresh directories.
fn fake_shards(count: usize, seed: u64, label: &str) -> Vec<PathBuf> {
    (0..count)
        .map(|index| {
            let study = run_study_with(&fake_config(Shard { index, count }, seed), fake, |_, _| {})
                .unwrap();
            let dir = fresh(&format!("{label}-{index}"));
            study.write(&dir).unwrap();
            dir
        })
        .collect()
}

#[test]
fn failures_are_counted_apart_and_their_messages_survive_a_merge() {
    let study = run_study_with(&fake_config(Shard::ALL, 3), fake, |_, _| {}).unwrap();
    let t = study.info.totals;
    assert_eq!(t.trials, 25 * 3);
    assert!(t.solver_failures > 0 && t.successes > 0, "{t:?}");
    assert_eq!(
        t.successes + t.wrong_holds + t.closed + t.timeouts + t.solver_failures,
        t.trials
    );
    for c in &study.cells {
        let trials: Vec<_> = study.trials.iter().filter(|r| r.cell == c.cell).collect();
        assert_eq!(c.trials, 3);
        let failures = trials
            .iter()
            .filter(|r| r.outcome == TrialOutcome::SolverFailure)
            .count() as u64;
        assert_eq!(c.solver_failures, failures);
        if let Some(p) = c.success_rate() {
            assert_eq!(p, c.successes as f64 / (3 - failures) as f64);
        }
    }
    let failed = study
        .trials
        .iter()
        .find(|r| r.outcome == TrialOutcome::SolverFailure)
        .unwrap();
    assert_eq!((failed.time_s, failed.steps), (Some(0.012), Some(12)));
    assert!(failed.error.contains("\"stalled\"\n"));
    let dir = fresh("failures");
    study.write(&dir).unwrap();
    let text = String::from_utf8(bytes(&dir, TRIALS_FILE)).unwrap();
    assert!(
        text.contains(",solver_failure,0.012,12,\"step 12"),
        "{text}"
    );
    assert!(text.contains("\"\"stalled\"\""));
    // Read back (quotes, line breaks and all) and merged as a study of one shard: the same.
    assert_eq!(read_study(&dir).unwrap().trials, study.trials);
    let out = fresh("failures-merged");
    merge(std::slice::from_ref(&dir))
        .unwrap()
        .write(&out)
        .unwrap();
    for name in SAME {
        assert!(bytes(&dir, name) == bytes(&out, name), "{name}");
    }
}

#[test]
fn draws_depend_on_seed_cell_and_trial_alone() {
    let model = GraspModel::default();
    let whole = run_study_with(&fake_config(Shard::ALL, 11), fake, |_, _| {}).unwrap();
    let one_thread = GraspStudyConfig {
        threads: 1,
        ..fake_config(Shard { index: 2, count: 3 }, 11)
    };
    let part = run_study_with(&one_thread, fake, |_, _| {}).unwrap();
    assert!(!part.trials.is_empty());
    for t in whole.trials.iter().chain(&part.trials) {
        assert_eq!(
            (t.mu_support, t.mu_gripper),
            draw(&model, 11, t.cell, t.trial)
        );
        assert!((0.1..0.3).contains(&t.mu_support) && (0.1..0.3).contains(&t.mu_gripper));
    }
    for t in &part.trials {
        assert_eq!(t.cell % 3, 2);
        let same = whole
            .trials
            .iter()
            .find(|w| (w.cell, w.trial) == (t.cell, t.trial))
            .unwrap();
        assert_eq!(same, t);
    }
    // Another seed, other draws.
    assert_ne!(draw(&model, 12, 0, 0), draw(&model, 11, 0, 0));
}

fn merge_error(dirs: &[PathBuf]) -> String {
    match merge(dirs) {
        Ok(_) => panic!("the merge of {dirs:?} was accepted"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn merge_refuses_missing_duplicate_and_foreign_shards() {
    let shards = fake_shards(3, 5, "merge");
    assert!(merge(&shards).is_ok());
    // Missing: named.
    let e = merge_error(&shards[..2]);
    assert!(e.contains("missing shard 2 of 3"), "{e}");
    let e = merge_error(&shards[1..2]);
    assert!(e.contains("missing shards 0, 2 of 3"), "{e}");
    // Twice the same shard.
    let e = merge_error(&[shards[0].clone(), shards[1].clone(), shards[0].clone()]);
    assert!(e.contains("are both shard 0/3"), "{e}");
    // A shard of another study (another seed): the file and the field.
    let foreign = fake_shards(3, 6, "foreign");
    let e = merge_error(&[shards[0].clone(), foreign[1].clone(), shards[2].clone()]);
    let file = foreign[1].join(STUDY_FILE).display().to_string();
    assert!(e.starts_with(&format!("{file}: field `seed`: is 6")), "{e}");
    // Another model.
    let model = GraspModel {
        jaw_force: 3.0,
        ..GraspModel::default()
    };
    let other = run_study_with(
        &GraspStudyConfig {
            model,
            ..fake_config(Shard { index: 1, count: 3 }, 5)
        },
        fake,
        |_, _| {},
    )
    .unwrap();
    let other_dir = fresh("other-model");
    other.write(&other_dir).unwrap();
    let e = merge_error(&[shards[0].clone(), other_dir, shards[2].clone()]);
    assert!(e.contains("field `model.jaw_force`: is 3.0"), "{e}");
    // A shard that did not finish has no summary.
    let unfinished = fresh("unfinished");
    std::fs::copy(shards[1].join(SUCCESS_FILE), unfinished.join(SUCCESS_FILE)).unwrap();
    let e = merge_error(&[shards[0].clone(), unfinished.clone(), shards[2].clone()]);
    assert!(
        e.starts_with(&unfinished.join(STUDY_FILE).display().to_string()),
        "{e}"
    );
}

/// A copy of shard `dir` whose `file` has `edit` applied to line `line` (1-based).
fn edited(
    dir: &Path,
    file: &str,
    line: usize,
    edit: impl Fn(&str) -> String,
    label: &str,
) -> PathBuf {
    let copy = fresh(label);
    for entry in std::fs::read_dir(dir).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), copy.join(entry.file_name())).unwrap();
    }
    let text = std::fs::read_to_string(copy.join(file)).unwrap();
    let lines: Vec<String> = text
        .lines()
        .enumerate()
        .map(|(k, l)| {
            if k + 1 == line {
                edit(l)
            } else {
                l.to_string()
            }
        })
        .collect();
    std::fs::write(copy.join(file), lines.join("\n") + "\n").unwrap();
    copy
}

#[test]
fn merge_names_the_file_line_and_field_of_a_bad_row() {
    let shards = fake_shards(2, 9, "rows");
    // A friction coefficient that is not the seed's draw.
    let bad = edited(
        &shards[1],
        TRIALS_FILE,
        3,
        |l| {
            let mut f: Vec<String> = l.split(',').map(str::to_string).collect();
            f[4] = "0.2".into();
            f.join(",")
        },
        "bad-mu",
    );
    let e = merge_error(&[shards[0].clone(), bad.clone()]);
    let file = bad.join(TRIALS_FILE).display().to_string();
    assert!(
        e.starts_with(&format!("{file}:3: field `mu_support`: is 0.2")),
        "{e}"
    );
    // A count that is not a number.
    let bad = edited(
        &shards[0],
        SUCCESS_FILE,
        2,
        |l| l.replacen(",3,", ",three,", 1),
        "bad-count",
    );
    let e = merge_error(&[bad.clone(), shards[1].clone()]);
    let file = bad.join(SUCCESS_FILE).display().to_string();
    assert!(
        e.starts_with(&format!("{file}:2: field `trials`: `three` is not a count")),
        "{e}"
    );
    // A count that disagrees with the trials.
    let bad = edited(
        &shards[0],
        SUCCESS_FILE,
        2,
        |l| {
            let mut f: Vec<String> = l.split(',').map(str::to_string).collect();
            f[4] = (f[4].parse::<u64>().unwrap() ^ 1).to_string();
            f.join(",")
        },
        "bad-failures",
    );
    let e = merge_error(&[bad, shards[1].clone()]);
    assert!(e.contains(":2: field `solver_failures`: is "), "{e}");
}

#[test]
fn model_file_errors_name_the_file_and_the_field() {
    let dir = fresh("model");
    let path = dir.join("gripper.toml");
    std::fs::write(&path, "jaw_force = 3.0\ngear_mas = 0.05\n").unwrap();
    let e = grasp_study::load_model(&path).unwrap_err().to_string();
    assert!(
        e.starts_with(&format!(
            "{}:2: field `gear_mas`: unknown field",
            path.display()
        )),
        "{e}"
    );
    std::fs::write(&path, "jaw_force = 3.0\nmu_gripper = [0.2, 0.4]\n").unwrap();
    let m = grasp_study::load_model(&path).unwrap();
    assert_eq!((m.jaw_force, m.mu_gripper), (3.0, [0.2, 0.4]));
}

#[test]
fn paper_grasp_draws_from_an_existing_table() {
    let out = fresh("paper");
    let study = run_study_with(&fake_config(Shard::ALL, 2), fake, |_, _| {}).unwrap();
    study.write(&out.join("grasp")).unwrap();
    let plots = out.join("plots");
    let done = grasp_study::paper(&out, &plots, 1, |_, _| panic!("nothing to run")).unwrap();
    assert!(done.ran.is_none());
    assert_eq!(done.cells, study.cells);
    assert_eq!(done.claims, study.claims());
    assert_eq!(done.figures.len(), 2);
    // The figure is the study's own.
    assert_eq!(
        bytes(&plots, "fig10b_grasp_success.svg"),
        bytes(&out.join("grasp"), "fig10b_grasp_success.svg")
    );
    // Without its summary the grid is read off the table.
    std::fs::remove_file(out.join("grasp").join(STUDY_FILE)).unwrap();
    let again = grasp_study::paper(&out, &plots, 1, |_, _| panic!("nothing to run")).unwrap();
    assert_eq!(again.grid, study.grid());
    assert_eq!(again.claims, study.claims());
    // A shard's claims are not run where the shard lacks some of their cells: shard 1 of 3
    // lacks the plateau's one cell (index 12) and a cell of every mirror pair, row and column.
    let shard = run_study_with(
        &fake_config(Shard { index: 1, count: 3 }, 2),
        fake,
        |_, _| {},
    )
    .unwrap();
    for claim in shard.claims() {
        assert_eq!(claim.status, ClaimStatus::NotRun, "{claim:?}");
    }
}

fn cli(args: &[&str], dir: &Path) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_implicit-contact"))
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn the_command_line_runs_one_cell_and_refuses_misplaced_flags() {
    let dir = fresh("cli");
    // One cell, one trial; negative ranges parse as values.
    let (ok, stdout, stderr) = cli(
        &[
            "study",
            "grasp",
            "--step-mm",
            "10",
            "--x-range-mm",
            "0,0",
            "--y-range-mm",
            "-10,-10",
            "--trials",
            "1",
            "--seed",
            "3",
            "--out",
            "one",
        ],
        &dir,
    );
    assert!(ok, "{stderr}");
    assert!(
        stdout.contains("grasp study: 1 cell × 1 trial = 1 trial"),
        "{stdout}"
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("one").join(SUCCESS_FILE))
            .unwrap()
            .lines()
            .count(),
        2
    );
    let (ok, _, stderr) = cli(&["study", "rolling-disc", "--step-mm", "2"], &dir);
    assert!(
        !ok && stderr.contains("--step-mm applies only to `study grasp`"),
        "{stderr}"
    );
    let (ok, _, stderr) = cli(
        &["study", "grasp", "--merge", "a", "b", "--trials", "3"],
        &dir,
    );
    assert!(!ok && stderr.contains("drop --trials"), "{stderr}");
    let (ok, _, stderr) = cli(&["study", "grasp", "--shard", "4/4"], &dir);
    assert!(!ok && stderr.contains("must be below"), "{stderr}");
    std::fs::write(dir.join("m.toml"), "jaw_force = -2\n").unwrap();
    let (ok, _, stderr) = cli(&["study", "grasp", "--model", "m.toml"], &dir);
    assert!(
        !ok && stderr.contains("m.toml:1: field `jaw_force`"),
        "{stderr}"
    );
    assert!(!dir.join("runs").exists());
}
