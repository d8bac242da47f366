//! The Trade-offs screen's state: a workload (n, p, the cost of a false positive) and what
//! the library's chooser makes of it from theory alone ([`bloomlab::choose::estimate`]: no
//! filter built, microseconds per change, so every key press recomputes it), the Pareto front
//! over (bits/key, FPR, lookup ns) and the recommendation by expected cost per query
//! (Lang et al. 2019, PVLDB 12(5), §2: lookup + (1 − hit ratio) · FPR · negative cost).

use bloomlab::choose::{self, Constraints, Measured, Recommendation, Target};

/// The controls, in display order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TradeField {
    /// Keys held.
    N,
    /// Target false-positive rate.
    P,
    /// Work a false positive wastes (ns).
    NegativeCost,
    /// Share of queries for present keys.
    HitRatio,
    /// Static kinds (xor, binary fuse, ribbon) allowed.
    Static,
    /// Keys must be removable.
    Deletes,
}

impl TradeField {
    /// Display order.
    pub const ALL: [TradeField; 6] = [
        TradeField::N,
        TradeField::P,
        TradeField::NegativeCost,
        TradeField::HitRatio,
        TradeField::Static,
        TradeField::Deletes,
    ];
}

/// The screen: the constraints, the selected control and the chooser's answer for them.
#[derive(Debug, Clone, PartialEq)]
pub struct Tradeoffs {
    /// The workload.
    pub c: Constraints,
    /// The target rate (the chooser's `Target::Fpr`).
    pub p: f64,
    /// Selected control.
    pub field: TradeField,
    /// Every candidate's model numbers, or why there are none.
    pub est: Result<Vec<Measured>, String>,
    /// Indices of the Pareto set.
    pub front: Vec<usize>,
    /// The cheapest candidate by expected cost.
    pub rec: Option<Recommendation>,
}

impl Tradeoffs {
    /// n = 10⁶ keys at 1%, a false positive costing 10 µs (a disk read), 10% hits, static
    /// kinds allowed.
    pub fn new() -> Self {
        let p = 0.01;
        let mut c = Constraints::new(1_000_000, Target::Fpr(p));
        c.negative_cost_ns = 10_000.0;
        c.allow_static = true;
        let mut t = Self {
            c,
            p,
            field: TradeField::N,
            est: Ok(Vec::new()),
            front: Vec::new(),
            rec: None,
        };
        t.recompute();
        t
    }

    /// Ask the chooser again (after any change of the constraints).
    pub fn recompute(&mut self) {
        self.c.target = Target::Fpr(self.p);
        self.est = choose::estimate(&self.c).map_err(|e| e.to_string());
        match &self.est {
            Ok(all) => {
                self.front = choose::pareto(all);
                self.rec = choose::recommend(all, &self.c).ok();
            }
            Err(_) => {
                self.front.clear();
                self.rec = None;
            }
        }
    }
}
