//! Which joints' proximal centre may be extrapolated. The joints' warm start extrapolates their
//! multipliers from the last two steps; the proximal centre (the impulses the least-change
//! solution stays nearest) is kept at the last step's multipliers where the multipliers are not
//! unique: along the null space of redundant rows (two coaxial hinges) only the centre fixes
//! them, and an extrapolated centre would carry their split along at its last rate forever.
//! Where the rows are independent the solution is unique, the centre only regularises, and an
//! extrapolated centre (`O(h²)` from the solution on smooth motion) lets the first regularised
//! solve already solve the paper's rows: a swinging pendulum takes one solve a step, not two.
//!
//! Independence is decided per group of joints linked by shared moving bodies, once, at the
//! scene's initial poses: the group's equality rows, stacked as the columns `G_bᵀ` of their
//! impulses on the group's bodies, have full column rank (singular value ratio above
//! [`RANK_TOLERANCE`]). A group with limits or joint friction (rows that share directions with
//! each other) or larger than [`MAX_CHECKED_ROWS`] rows is treated as redundant, as is, in each
//! step, a group one of whose bodies has a contact in the step (joint and contact rows may be
//! redundant together: a pinned rod against a wall). Treating a group as redundant is always
//! safe: it is the behaviour of every joint before this check.

use crate::joint::JointBlock;
use crate::model::{Dynamics, VelocityLayout};
use nalgebra::DMatrix;

/// Smallest singular value, relative to the largest, of independent rows.
const RANK_TOLERANCE: f64 = 1e-8;
/// Groups with more rows are not checked (an SVD of their rows at build) and count as
/// redundant.
const MAX_CHECKED_ROWS: usize = 96;

/// The joints' groups and whether each group's rows are independent.
#[derive(Debug, Default, Clone)]
pub(super) struct JointGroups {
    /// Per joint, its group.
    group: Vec<usize>,
    /// Per group, whether its rows are independent (at the initial poses).
    independent: Vec<bool>,
    /// Per group, whether a body of it has a contact in the current step (scratch).
    touched: Vec<bool>,
    /// Per body, its group (`usize::MAX`: none).
    group_of_body: Vec<usize>,
}

impl JointGroups {
    /// The groups of `joints` (body 1 `None`: the world) on `body_count` bodies laid out as
    /// `layout` (fixed and driven bodies have no twist and link nothing), their rows' velocity
    /// directions taken at `poses` (the world at the identity).
    pub fn new<S: Dynamics>(
        joints: &[(&JointBlock<S>, [Option<usize>; 2])],
        layout: &VelocityLayout,
        body_count: usize,
        pose: impl Fn(Option<usize>) -> crate::geometry::Pose<S>,
    ) -> Self {
        // Union–find over the joints through their moving bodies.
        let n = joints.len();
        let mut parent: Vec<usize> = (0..n).collect();
        fn root(parent: &mut [usize], mut i: usize) -> usize {
            while parent[i] != i {
                parent[i] = parent[parent[i]];
                i = parent[i];
            }
            i
        }
        let mut owner = vec![usize::MAX; body_count];
        for (j, (_, bodies)) in joints.iter().enumerate() {
            for b in bodies.iter().flatten() {
                if layout.range(*b).is_none() {
                    continue;
                }
                if owner[*b] == usize::MAX {
                    owner[*b] = j;
                } else {
                    let (a, c) = (root(&mut parent, owner[*b]), root(&mut parent, j));
                    parent[a] = c;
                }
            }
        }
        let mut index = vec![usize::MAX; n];
        let mut group = vec![0; n];
        let mut count = 0;
        for j in 0..n {
            let r = root(&mut parent, j);
            if index[r] == usize::MAX {
                index[r] = count;
                count += 1;
            }
            group[j] = index[r];
        }
        let mut group_of_body = vec![usize::MAX; body_count];
        for (b, &j) in owner.iter().enumerate() {
            if j != usize::MAX {
                group_of_body[b] = group[j];
            }
        }
        let mut members = vec![Vec::new(); count];
        for (j, &g) in group.iter().enumerate() {
            members[g].push(j);
        }
        let independent = members
            .iter()
            .map(|m| independent_rows(joints, m, layout, &pose))
            .collect();
        Self {
            group,
            independent,
            touched: vec![false; count],
            group_of_body,
        }
    }

    /// Marks the groups of the bodies with a contact in this step (`pairs`: each contact's two
    /// bodies), after clearing the last step's marks.
    pub fn mark_contacts(&mut self, pairs: impl Iterator<Item = (usize, usize)>) {
        self.touched.fill(false);
        for (b1, b2) in pairs {
            for b in [b1, b2] {
                if let Some(&g) = self.group_of_body.get(b)
                    && g != usize::MAX
                {
                    self.touched[g] = true;
                }
            }
        }
    }

    /// Whether joint `j`'s proximal centre may be extrapolated in this step.
    pub fn extrapolate_centre(&self, j: usize) -> bool {
        let g = self.group[j];
        self.independent[g] && !self.touched[g]
    }
}

/// Whether the equality rows of the joints `members` are independent at the poses `pose`:
/// none has limits or friction, there are at most [`MAX_CHECKED_ROWS`] of them and no more
/// than the group's velocities, and their impulse directions on the group's bodies have full
/// column rank.
fn independent_rows<S: Dynamics>(
    joints: &[(&JointBlock<S>, [Option<usize>; 2])],
    members: &[usize],
    layout: &VelocityLayout,
    pose: &impl Fn(Option<usize>) -> crate::geometry::Pose<S>,
) -> bool {
    if members
        .iter()
        .any(|&j| joints[j].0.joint().has_inequality_rows())
    {
        return false;
    }
    let rows: usize = members.iter().map(|&j| joints[j].0.local_count()).sum();
    // The group's moving bodies, each with its place among the group's velocities.
    let mut local: Vec<(usize, usize)> = Vec::new();
    for &j in members {
        for b in joints[j].1.iter().flatten() {
            if layout.range(*b).is_some() && !local.iter().any(|&(c, _)| c == *b) {
                local.push((*b, local.len() * S::DOF));
            }
        }
    }
    let dof = local.len() * S::DOF;
    if rows > MAX_CHECKED_ROWS || rows > dof {
        return false;
    }
    let mut g = DMatrix::zeros(dof, rows);
    let mut col = 0;
    for &j in members {
        let (block, bodies) = &joints[j];
        block.velocity_rows(&pose(bodies[0]), &pose(bodies[1]), |i, rows| {
            for (side, b) in bodies.iter().enumerate() {
                let Some(&(_, offset)) = local.iter().find(|&&(c, _)| Some(c) == *b) else {
                    continue;
                };
                for k in 0..S::DOF {
                    g[(offset + k, col + i)] = rows[side][k];
                }
            }
        });
        col += block.local_count();
    }
    let sv = g.singular_values();
    let (max, min) = sv
        .iter()
        .fold((0.0_f64, f64::INFINITY), |(a, b), &s| (a.max(s), b.min(s)));
    max > 0.0 && min > RANK_TOLERANCE * max
}
