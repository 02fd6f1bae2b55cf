//! Golden draws: seeded draws for the golden case table equal `golden/`.

use crate::{Ctx, Outcome, Sampler};

pub(super) fn golden_draws(_: &Ctx, _: &dyn Sampler) -> Outcome {
    Outcome::violated("golden table not wired yet")
}
