//! Random batches for the differential check: deterministic from a seed, so a
//! mismatch can be regenerated anywhere from its batch seed.

use half::{bf16, f16};
use serde::Serialize;
use tailrace_cuda::Dtype;
use tailrace_model::{LogitBias, NoiseProfile, RawParams, RowRequest, SamplingParams};

/// splitmix64.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in [0, n).
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            0
        } else {
            self.next() % n
        }
    }
    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
    pub fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }
    /// Roughly standard normal (sum of 4 uniforms, scaled).
    pub fn normal(&mut self) -> f64 {
        (self.unit() + self.unit() + self.unit() + self.unit() - 2.0) * 1.732_050_8
    }
    pub fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[self.below(xs.len() as u64) as usize]
    }
}

/// Logits in one of the three dtypes.
pub enum Typed {
    F32(Vec<f32>),
    Bf16(Vec<bf16>),
    F16(Vec<f16>),
}

impl Typed {
    /// `data` as logits of `dtype` (rounded to nearest).
    fn from_f32(dtype: Dtype, data: Vec<f32>) -> Typed {
        match dtype {
            Dtype::F32 => Typed::F32(data),
            Dtype::Bf16 => Typed::Bf16(data.iter().map(|&v| bf16::from_f32(v)).collect()),
            Dtype::F16 => Typed::F16(data.iter().map(|&v| f16::from_f32(v)).collect()),
        }
    }
}

/// One generated batch.
pub struct Batch {
    pub id: u64,
    pub seed: u64,
    pub dtype: Dtype,
    pub vocab: usize,
    pub stride: usize,
    pub reqs: Vec<RowRequest>,
    pub logits: Typed,
    /// What each row's data looks like (for reports).
    pub kinds: Vec<&'static str>,
}

/// A row's description in a mismatch report.
#[derive(Serialize)]
pub struct RowReport {
    pub batch: u64,
    pub batch_seed: u64,
    pub row: usize,
    pub dtype: String,
    pub vocab: usize,
    pub stride: usize,
    pub rows_in_batch: usize,
    pub data_kind: String,
    pub params: RawParams,
    pub bias: String,
    pub cpu: String,
    pub gpu: String,
    /// The row's a-values as binary32 logits (rows with vocab <= 256 only).
    pub logits: Option<Vec<f32>>,
}

fn round_to(dtype: Dtype, x: f32) -> f32 {
    match dtype {
        Dtype::F32 => x,
        Dtype::Bf16 => bf16::from_f32(x).to_f32(),
        Dtype::F16 => f16::from_f32(x).to_f32(),
    }
}

const LARGE_VOCABS: [usize; 7] = [131072, 131071, 131073, 262144, 100_003, 131080, 65536];

impl Batch {
    /// The batch `id` of the run seeded `run_seed`.
    pub fn generate(run_seed: u64, id: u64) -> Batch {
        let seed = run_seed ^ id.wrapping_mul(0xA076_1D64_78BD_642F);
        let mut r = Rng(seed);
        let dtype = r.pick(&[Dtype::F32, Dtype::Bf16, Dtype::Bf16, Dtype::F16]);
        let vocab = match r.below(1000) {
            0..=349 => r.pick(&[1usize, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 33, 63, 64]),
            350..=749 => 65 + r.below(4032) as usize,
            750..=939 => 4097 + r.below(36000) as usize,
            940..=997 => r.pick(&LARGE_VOCABS),
            _ => (1 << 20) + r.below(9) as usize,
        };
        let stride = if r.chance(0.04) {
            0 // every row reads the same logits
        } else if r.chance(0.5) {
            vocab
        } else {
            vocab + 1 + r.below(9) as usize
        };
        let max_rows = (2_000_000 / vocab).clamp(1, 192);
        let rows = 1 + r.below(max_rows as u64) as usize;
        let mut data = vec![0f32; (rows - 1) * stride + vocab];
        let mut reqs = Vec::with_capacity(rows);
        let mut kinds = Vec::with_capacity(rows);
        for row in 0..rows {
            if stride > 0 || row == 0 {
                let x = &mut data[row * stride..row * stride + vocab];
                kinds.push(fill_row(&mut r, dtype, x));
            } else {
                kinds.push(kinds[0]);
            }
            reqs.push(RowRequest {
                params: gen_params(&mut r, vocab),
                bias: gen_bias(&mut r, vocab),
            });
        }
        // Padding between rows holds junk that must never be read as a logit.
        if stride > vocab {
            for row in 0..rows - 1 {
                for v in &mut data[row * stride + vocab..(row + 1) * stride] {
                    *v = f32::NAN;
                }
            }
        }
        let logits = Typed::from_f32(dtype, data);
        Batch {
            id,
            seed,
            dtype,
            vocab,
            stride,
            reqs,
            logits,
            kinds,
        }
    }

    /// A bf16 batch of top-p rows long enough that the top-p kernels give
    /// each chunk 16384 elements or more on a 132-SM device, so that the
    /// histogram writes its per-chunk counts and the gather reads only the
    /// cut's chunk (`Geometry::topp_cnt_bytes`), and batches of 1 to 8 such
    /// rows, which by default run without a first pass in clusters of 8
    /// histogram blocks a row. Every row: top-p < 1, no top-k, no bias,
    /// T > 0; the data kinds and the other parameters as in
    /// [`Batch::generate`].
    pub fn generate_long_topp(run_seed: u64, id: u64) -> Batch {
        Self::generate_topp(
            run_seed ^ 0x70BB,
            id,
            &[
                (131072, 66),
                (131073, 100),
                (100_003, 120),
                (262144, 40),
                (131072, 1),
                (131073, 8),
                (262144, 3),
            ],
        )
    }

    /// A bf16 batch of top-p rows, as [`Batch::generate_long_topp`], with
    /// enough rows that the top-p kernels give each row one chunk on a
    /// 132-SM device, whose histogram counts it in segments
    /// (`Geometry::topp_seg_units`: four 16-bit ones up to 262,112
    /// elements, two 32-bit ones at 262,144) so that the gather reads the
    /// segment holding the cut.
    pub fn generate_segmented_topp(run_seed: u64, id: u64) -> Batch {
        Self::generate_topp(
            run_seed ^ 0x5E65,
            id,
            &[(131072, 300), (131073, 280), (100_003, 400), (262144, 270)],
        )
    }

    /// A bf16 batch of top-p rows of one of `shapes` (vocabulary, rows).
    fn generate_topp(seed: u64, id: u64, shapes: &[(usize, usize)]) -> Batch {
        let seed = seed ^ id.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let mut r = Rng(seed);
        let (vocab, rows) = r.pick(shapes);
        let stride = vocab;
        let mut data = vec![0f32; rows * vocab];
        let mut reqs = Vec::with_capacity(rows);
        let mut kinds = Vec::with_capacity(rows);
        // Half the batches keep to the specialized kernels (every row
        // `exact`), whose race settles pending cuts and whose batches of
        // top-p rows alone run without a first pass.
        let fast = r.chance(0.5);
        for row in 0..rows {
            kinds.push(fill_row(
                &mut r,
                Dtype::Bf16,
                &mut data[row * vocab..(row + 1) * vocab],
            ));
            let mut raw = gen_params(&mut r, vocab).raw();
            raw.top_k = 0;
            if raw.temperature == 0.0 {
                raw.temperature = 1.0;
            }
            if raw.top_p >= 1.0 {
                raw.top_p = r.pick(&[0.9, 0.5, 0.95, 0.1, 0.999_999]);
            }
            if fast {
                raw.profile = NoiseProfile::Exact;
            }
            reqs.push(RowRequest {
                params: SamplingParams::new(raw).expect("generated parameters are valid"),
                bias: LogitBias::None,
            });
        }
        Batch {
            id,
            seed,
            dtype: Dtype::Bf16,
            vocab,
            stride,
            reqs,
            logits: Typed::from_f32(Dtype::Bf16, data),
            kinds,
        }
    }

    /// A batch of 397 to 2,048 rows of one logit type, whose automatic
    /// geometry (on a 132-SM device) takes one chunk a row in blocks of
    /// fewer than 256 threads (`Geometry::new`). Rows, parameters and biases
    /// as in [`Batch::generate`] (half the batches all `exact`
    /// without bias, for the specialized kernels), at vocabularies of 4,000
    /// to 65,536.
    pub fn generate_large(run_seed: u64, id: u64) -> Batch {
        let seed = run_seed ^ id.wrapping_mul(0xD6E8_FEB8_6659_FD93) ^ 0x1A26;
        let mut r = Rng(seed);
        let dtype = r.pick(&[Dtype::F32, Dtype::Bf16, Dtype::Bf16, Dtype::F16]);
        let (vocab, rows) = r.pick(&[
            (32000usize, 1024usize),
            (50257, 800),
            (65536, 450),
            (4000, 2048),
            (32769, 1100),
            (16384, 600),
        ]);
        // The first two batches: f32 and f16 rows that the top-p kernels
        // take one chunk a row of more than 2^16 elements (the histogram's
        // 15-bit piece sums up to 2^17, its 128-bit sums beyond), which the
        // other shapes never reach.
        let (dtype, (vocab, rows)) = match id {
            0 => (Dtype::F32, (131072, 400)),
            1 => (Dtype::F16, (140000, 400)),
            _ => (dtype, (vocab, rows)),
        };
        let stride = vocab;
        let mut data = vec![0f32; rows * vocab];
        let mut reqs = Vec::with_capacity(rows);
        let mut kinds = Vec::with_capacity(rows);
        // Half the batches keep to the specialized kernels: every row
        // `exact`, no bias.
        let fast = r.chance(0.5);
        for row in 0..rows {
            kinds.push(fill_row(
                &mut r,
                dtype,
                &mut data[row * vocab..(row + 1) * vocab],
            ));
            let mut params = gen_params(&mut r, vocab);
            let mut bias = gen_bias(&mut r, vocab);
            if fast {
                let raw = RawParams {
                    profile: NoiseProfile::Exact,
                    ..params.raw()
                };
                params = SamplingParams::new(raw).expect("generated parameters are valid");
                bias = LogitBias::None;
            }
            reqs.push(RowRequest { params, bias });
        }
        let logits = Typed::from_f32(dtype, data);
        Batch {
            id,
            seed,
            dtype,
            vocab,
            stride,
            reqs,
            logits,
            kinds,
        }
    }

    /// Whether the batch takes the specialized pass kernels: every row
    /// `exact`, no bias (`DeviceParams::fast_path`, the fused rows aside).
    pub fn specialized(&self) -> bool {
        self.reqs
            .iter()
            .all(|q| q.params.raw().profile == NoiseProfile::Exact && q.bias == LogitBias::None)
    }

    pub fn rows(&self) -> usize {
        self.reqs.len()
    }

    /// Row `r`'s logits as binary32.
    pub fn row_f32(&self, r: usize) -> Vec<f32> {
        let s = r * self.stride..r * self.stride + self.vocab;
        match &self.logits {
            Typed::F32(v) => v[s].to_vec(),
            Typed::Bf16(v) => v[s].iter().map(|x| x.to_f32()).collect(),
            Typed::F16(v) => v[s].iter().map(|x| x.to_f32()).collect(),
        }
    }

    /// The same rows in another order (`perm[j]` = source row of row j), stride = vocab.
    pub fn permuted(&self, perm: &[usize]) -> Batch {
        let v = self.vocab;
        let pick = |src: &dyn Fn(usize) -> Vec<f32>| -> Vec<f32> {
            perm.iter().flat_map(|&p| src(p)).collect()
        };
        let data = pick(&|p| self.row_f32(p));
        let logits = Typed::from_f32(self.dtype, data);
        Batch {
            id: self.id,
            seed: self.seed,
            dtype: self.dtype,
            vocab: v,
            stride: v,
            reqs: perm.iter().map(|&p| self.reqs[p].clone()).collect(),
            logits,
            kinds: perm.iter().map(|&p| self.kinds[p]).collect(),
        }
    }

    pub fn report(&self, row: usize, cpu: String, gpu: String) -> RowReport {
        let bias = match &self.reqs[row].bias {
            LogitBias::None => "none".to_string(),
            LogitBias::Dense(b) => format!(
                "dense ({} -inf, {} non-finite other)",
                b.iter().filter(|v| **v == f32::NEG_INFINITY).count(),
                b.iter()
                    .filter(|v| !v.is_finite() && **v != f32::NEG_INFINITY)
                    .count()
            ),
            LogitBias::Sparse(l) => format!("sparse {:?}", &l[..l.len().min(16)]),
        };
        RowReport {
            batch: self.id,
            batch_seed: self.seed,
            row,
            dtype: format!("{:?}", self.dtype),
            vocab: self.vocab,
            stride: self.stride,
            rows_in_batch: self.rows(),
            data_kind: self.kinds[row].to_string(),
            params: self.reqs[row].params.raw(),
            bias,
            cpu,
            gpu,
            logits: (self.vocab <= 256).then(|| self.row_f32(row)),
        }
    }
}

fn fill_row(r: &mut Rng, dtype: Dtype, x: &mut [f32]) -> &'static str {
    let v = x.len();
    let limit = if dtype == Dtype::F16 { 60000.0 } else { 3.0e38 };
    let kind = match r.below(100) {
        0..=35 => "normal",
        36..=39 => "near_zero",
        40..=54 => "peaked",
        55..=69 => "ties",
        70..=77 => "wide",
        78..=84 => "masked",
        85..=88 => "all_equal",
        89..=91 => "nan",
        92..=93 => "pos_inf",
        94..=95 => "all_masked",
        96..=97 => "extreme",
        _ => "tiny_spread",
    };
    let sigma = r.pick(&[0.01, 0.5, 1.0, 3.0, 10.0, 40.0]);
    let offset = r.normal() * 5.0;
    for xi in x.iter_mut() {
        *xi = (offset + sigma * r.normal()) as f32;
    }
    match kind {
        "peaked" => {
            for _ in 0..1 + r.below(3) {
                let i = r.below(v as u64) as usize;
                x[i] = (offset + r.pick(&[5.0, 15.0, 30.0, 60.0, 120.0])) as f32;
            }
        }
        "ties" => {
            let q = r.pick(&[0.5f32, 1.0, 4.0]);
            for xi in x.iter_mut() {
                *xi = (*xi / q).round() * q;
            }
        }
        "wide" => {
            for xi in x.iter_mut() {
                *xi = (r.normal() * r.pick(&[100.0, 1000.0, 1e4])) as f32;
            }
        }
        "masked" => {
            let p = r.pick(&[0.1, 0.5, 0.9, 0.999]);
            for xi in x.iter_mut() {
                if r.chance(p) {
                    *xi = f32::NEG_INFINITY;
                }
            }
        }
        "all_equal" => {
            let c = offset as f32;
            x.fill(c);
        }
        "nan" => {
            let i = r.below(v as u64) as usize;
            x[i] = f32::NAN;
        }
        "pos_inf" => {
            let i = r.below(v as u64) as usize;
            x[i] = f32::INFINITY;
        }
        "all_masked" => x.fill(f32::NEG_INFINITY),
        "near_zero" => {
            // Tiny magnitudes (subnormals included) next to a few ordinary values.
            let s = r.pick(&[1e-3, 1e-20, 1e-39]);
            for xi in x.iter_mut() {
                *xi = if r.chance(0.01) {
                    r.normal() as f32
                } else {
                    (r.normal() * s) as f32
                };
            }
        }
        "extreme" => {
            for xi in x.iter_mut() {
                *xi = (r.normal() * 1e37).clamp(-3.0e38, 3.0e38) as f32;
            }
        }
        "tiny_spread" => {
            let base = offset as f32;
            for (j, xi) in x.iter_mut().enumerate() {
                *xi = base + (j % 3) as f32 * f32::EPSILON * base.abs().max(1.0);
            }
        }
        _ => {}
    }
    for xi in x.iter_mut() {
        if xi.is_finite() {
            *xi = xi.clamp(-limit, limit);
        }
        *xi = round_to(dtype, *xi);
    }
    kind
}

fn gen_params(r: &mut Rng, vocab: usize) -> SamplingParams {
    let v = vocab as u32;
    let temperature = if r.chance(0.08) {
        0.0
    } else if r.chance(0.06) {
        // 2^-1022 and 2^1022: the extreme powers of two whose reciprocals
        // the f32/f16 top-p histogram multiplies by.
        r.pick(&[
            5e-324,
            1e-300,
            f64::MIN_POSITIVE,
            1e-12,
            1e-6,
            1e10,
            1e300,
            4.49423283715579e307,
            1.7e308,
        ])
    } else {
        r.pick(&[0.01, 0.3, 0.5, 0.7, 1.0, 1.0, 1.0, 1.5, 2.0, 3.0, 100.0])
    };
    let top_k = if r.chance(0.6) {
        0
    } else {
        let x = r.pick(&[1u32, 2, 3, 5, 10, 50, 100, 256, 257, 0, 0, 0, 0]);
        match x {
            0 => match r.below(4) {
                0 => v.saturating_sub(1).max(1),
                1 => v,
                2 => v + 1,
                _ => 1 + r.below(u64::from(v)) as u32,
            },
            k => k,
        }
    };
    let top_p = if r.chance(0.6) {
        1.0
    } else {
        let p = r.pick(&[0.9, 0.5, 0.1, 1e-9, 0.999_999, 0.95, -1.0]);
        if p < 0.0 {
            r.unit().max(1e-12)
        } else {
            p
        }
    };
    let min_p = if r.chance(0.7) {
        0.0
    } else {
        let p = r.pick(&[0.05, 0.1, 0.5, 1.0, 1e-6, -1.0]);
        if p < 0.0 {
            r.unit()
        } else {
            p
        }
    };
    let special = [
        0u64,
        1,
        (1 << 32) - 1,
        1 << 32,
        (1 << 63) - 1,
        1 << 63,
        u64::MAX,
    ];
    let seed = if r.chance(0.15) {
        r.pick(&special)
    } else {
        r.next()
    };
    let position = if r.chance(0.2) {
        r.pick(&special)
    } else if r.chance(0.5) {
        r.below(100_000)
    } else {
        r.next()
    };
    let profile = r.pick(&[
        NoiseProfile::Exact,
        NoiseProfile::Exact,
        NoiseProfile::Exact,
        NoiseProfile::F64,
        NoiseProfile::F32,
        NoiseProfile::Triton,
    ]);
    SamplingParams::new(RawParams {
        temperature,
        top_k,
        top_p,
        min_p,
        seed,
        position,
        profile,
    })
    .expect("generated parameters are valid")
}

fn gen_bias(r: &mut Rng, vocab: usize) -> LogitBias {
    match r.below(10) {
        0..=5 => LogitBias::None,
        6..=7 => {
            let scale = r.pick(&[0.1, 1.0, 10.0]);
            let mut b: Vec<f32> = (0..vocab).map(|_| (r.normal() * scale) as f32).collect();
            if r.chance(0.3) {
                for v in b.iter_mut() {
                    if r.chance(0.2) {
                        *v = f32::NEG_INFINITY;
                    }
                }
            }
            if r.chance(0.03) {
                let i = r.below(vocab as u64) as usize;
                b[i] = r.pick(&[f32::NAN, f32::INFINITY]);
            }
            LogitBias::Dense(b)
        }
        _ => {
            let n = (1 + r.below(8) as usize).min(vocab);
            let mut idx: Vec<u32> = Vec::with_capacity(n);
            while idx.len() < n {
                let i = r.below(vocab as u64) as u32;
                if !idx.contains(&i) {
                    idx.push(i);
                }
            }
            LogitBias::Sparse(
                idx.into_iter()
                    .map(|i| {
                        let v = r.pick(&[f32::NEG_INFINITY, -5.0, 0.5, 3.0, 50.0, -1e30, 1e30]);
                        (i, v)
                    })
                    .collect(),
            )
        }
    }
}
