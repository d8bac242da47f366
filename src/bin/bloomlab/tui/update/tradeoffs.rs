//! Trade-offs: ↑↓ control, ←→ / +- change it (n and p in 1-2-5 steps, the negative cost ×2,
//! the hit ratio ±5%), PgUp/PgDn ×10, s static kinds, d deletes; the chooser answers at once.

use crate::tui::fmt;
use crate::tui::msg::{Cmd, Msg};
use crate::tui::state::{MAX_N, MIN_P, State};
use crate::tui::tradeoffs::TradeField;

pub(super) fn tradeoffs_msg(s: &mut State, msg: Msg) -> Vec<Cmd> {
    let t = &mut s.tradeoffs;
    let all = TradeField::ALL;
    let i = all.iter().position(|f| *f == t.field).unwrap_or(0);
    let step: i32 = match msg {
        Msg::Up => {
            t.field = all[(i + all.len() - 1) % all.len()];
            return Vec::new();
        }
        Msg::Down => {
            t.field = all[(i + 1) % all.len()];
            return Vec::new();
        }
        Msg::Right | Msg::Plus => 1,
        Msg::Left | Msg::Minus => -1,
        Msg::BigUp => 10,
        Msg::BigDown => -10,
        // s and d (see `event`): the two yes/no constraints.
        Msg::Answer(0) => {
            t.c.allow_static = !t.c.allow_static;
            t.recompute();
            return Vec::new();
        }
        Msg::Answer(1) => {
            t.c.deletes = !t.c.deletes;
            t.recompute();
            return Vec::new();
        }
        _ => return Vec::new(),
    };
    let up = step > 0;
    let times = if step.abs() == 10 { 3 } else { 1 };
    for _ in 0..times {
        match t.field {
            TradeField::N => {
                t.c.n = (fmt::step_125(t.c.n as f64, up).round() as u64).clamp(1, MAX_N);
            }
            TradeField::P => t.p = fmt::step_125(t.p, up).clamp(MIN_P, 0.5),
            TradeField::NegativeCost => {
                let c = if up {
                    t.c.negative_cost_ns * 2.0
                } else {
                    t.c.negative_cost_ns / 2.0
                };
                t.c.negative_cost_ns = c.clamp(1.0, 1e10);
            }
            TradeField::HitRatio => {
                let h = t.c.hit_ratio + if up { 0.05 } else { -0.05 };
                t.c.hit_ratio = (h * 100.0).round().clamp(0.0, 100.0) / 100.0;
            }
            TradeField::Static => t.c.allow_static = !t.c.allow_static,
            TradeField::Deletes => t.c.deletes = !t.c.deletes,
        }
    }
    t.recompute();
    Vec::new()
}
