use bloomlab::workload::{KeyGen, KeyKind};
use bloomlab::{Filter, FilterKind, FilterSpec, hash::HashId};
fn main() {
    let n = 20_000u64; let q = 200_000u64;
    for (kind, hash) in [(FilterKind::SplitBlock, HashId::Xxh3), (FilterKind::SplitBlock, HashId::Xxh64), (FilterKind::Blocked, HashId::Xxh3), (FilterKind::Standard, HashId::Xxh3)] {
        let mut rates = vec![]; let mut model = 0.0;
        for seed in 0..40u64 {
            let g = KeyGen::new(KeyKind::U64, seed);
            let mut f = FilterSpec { kind, n, m: Some(10*n), p: None, hash, ..FilterSpec::default() }.build().unwrap();
            let mut buf = Vec::new();
            for i in 0..n { g.present(i,&mut buf); f.insert(&buf); }
            let mut fp = 0u64;
            for j in 0..q { g.absent(j,&mut buf); fp += f.contains(&buf) as u64; }
            rates.push(fp as f64/q as f64); model = f.expected_fpr();
        }
        let mean = rates.iter().sum::<f64>()/rates.len() as f64;
        let sd = (rates.iter().map(|r| (r-mean).powi(2)).sum::<f64>()/(rates.len()-1) as f64).sqrt();
        println!("{kind} {hash}: mean {:.5} ± {:.5} (se), sd {:.5}, model {:.5}, seed42? first {:.5}", mean, sd/(rates.len() as f64).sqrt(), sd, model, rates[0]);
    }
}
