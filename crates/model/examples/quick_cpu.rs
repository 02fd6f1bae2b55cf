use std::time::Instant;
use tailrace_model::*;
fn main() {
    let v = 131072usize;
    let mut s = 1u64;
    let x: Vec<f32> = (0..v)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((s >> 40) as f32 / (1u64 << 24) as f32 - 0.5) * 8.0
        })
        .collect();
    for profile in NoiseProfile::ALL {
        for (name, raw) in [
            (
                "plain",
                RawParams {
                    profile,
                    ..RawParams::default()
                },
            ),
            (
                "topk50",
                RawParams {
                    profile,
                    top_k: 50,
                    ..RawParams::default()
                },
            ),
            (
                "topp0.9",
                RawParams {
                    profile,
                    top_p: 0.9,
                    ..RawParams::default()
                },
            ),
        ] {
            let reqs: Vec<RowRequest> = (0..64)
                .map(|p| SamplingParams::new(raw).unwrap().at_position(p).into())
                .collect();
            let opts = BatchOptions {
                chunk: 0,
                parallel: false,
            };
            let t0 = Instant::now();
            let mut acc = 0u64;
            for r in &reqs {
                acc += sample_batch_with(opts, &x, v, v, std::slice::from_ref(r)).unwrap()[0].token
                    as u64;
            }
            let dt = t0.elapsed().as_secs_f64() / reqs.len() as f64;
            println!("{profile:7} {name:8} {:.3} ms/row  ({acc})", dt * 1e3);
        }
    }
}
