use bloomlab::theory::{self, blocked, split_block, counting};
fn main() {
    let (m, n) = (10_000_000u64, 1_000_000u64);
    for k in 4..10 { println!("k={k} blocked={:.6} exact={:.6} std={:.6}", blocked::fpr_blocked(m,n,k,512), blocked::fpr_blocked_exact(m,n,k,512), theory::fpr_classic(m,n,k)); }
    println!("sbbf 10bpk {:.6}", split_block::fpr_split_block(m, n));
    for p in [0.1,0.01,0.001,0.0001] {
        let s = blocked::size_for(1_000_000, p, None).unwrap();
        println!("blocked p={p} {:?} frac={:.4}", s, s.extra_fraction());
        println!("sbbf blocks {:?} bpk {:.3}", split_block::blocks_for(1_000_000,p).unwrap(), split_block::blocks_for(1_000_000,p).unwrap() as f64*256.0/1e6);
        println!("{:?}", split_block::parquet_undershoot(1_000_000,p).unwrap());
    }
    println!("fan16 {:e}", counting::overflow_bound_optimal(1,16));
    println!("tail {:e}", counting::counter_tail_binomial(9_585_058,1_000_000,7,16));
    println!("tail {:e}", counting::counter_tail_binomial(1000,4000,3,15));
    println!("fpr exact 512 26 7 {}", theory::fpr_exact(256,26,7));
}
