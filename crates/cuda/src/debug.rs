//! Audit dumps: the device's noise and math, word for word, next to the CPU
//! reference computed the same way, so a check can compare bits.

use crate::error::{DriverContext, Result};
use crate::sampler::Sampler;
use cudarc::driver::{result as drv, CudaFunction, DevicePtr};
use std::ffi::c_void;
use tailrace_model::filter;
use tailrace_noise::profile::{self, exact, NoiseDraw};
use tailrace_noise::{libdevice, math, NoiseProfile};

/// One noise dump entry: `ln E`, `E`, the uniform (binary64 bits), the
/// `exact` grid point, the binary32 uniform and noise (`f32`, `triton`), and
/// the lead-word bounds of `ln E` (`exact`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NoiseWords(pub [u64; 8]);

impl NoiseWords {
    /// Names of the words, for reports.
    pub const NAMES: [&'static str; 8] = [
        "ln_noise",
        "noise",
        "uniform",
        "grid_lo",
        "grid_hi",
        "f32_uniform_noise",
        "lead_lower_bound",
        "lead_upper_bound",
    ];

    /// The CPU reference: `tailrace_noise::NoiseDraw` and the exact bounds.
    pub fn cpu(profile: NoiseProfile, seed: u64, position: u64, index: u32) -> Self {
        let d = NoiseDraw::new(profile, seed, position, index);
        let k = d.grid_point.unwrap_or(0);
        let f32bits = match (d.uniform_f32, d.noise_f32) {
            (Some(u), Some(e)) => u64::from(u.to_bits()) | (u64::from(e.to_bits()) << 32),
            _ => 0,
        };
        let (lb, ub) = if profile == NoiseProfile::Exact {
            let lead = d.lead.expect("an exact draw has a lead");
            (
                exact::ln_variate_lower_bound(lead).to_bits(),
                exact::ln_variate_upper_bound(lead).to_bits(),
            )
        } else {
            let word = profile::bound_word(profile, seed, position, index);
            (profile::ln_variate_lower_bound(profile, word).to_bits(), 0)
        };
        NoiseWords([
            d.ln_noise.to_bits(),
            d.noise.to_bits(),
            d.uniform.to_bits(),
            k as u64,
            (k >> 64) as u64,
            f32bits,
            lb,
            ub,
        ])
    }
}

/// CPU reference of the math dump of `x` (see `tr_math_dump`).
pub fn cpu_math_words(x: f64) -> [u64; 8] {
    let y = if x < 0.0 { x } else { -x };
    [
        math::ln(x).to_bits(),
        math::log1p(x).to_bits(),
        math::exp_nonpositive(y).to_bits(),
        u64::from(libdevice::logf(x as f32).to_bits()),
        if x <= 0.0 {
            filter::top_p_mass(x, 0.0, 1.0)
        } else {
            0
        },
        0,
        0,
        0,
    ]
}

/// CPU reference of the integer dump of `(v, p)` (see `tr_int_dump`).
pub fn cpu_int_words(v: u128, p: f64) -> [u64; 4] {
    let t = filter::top_p_target(p, v & ((1u128 << 100) - 1));
    [(v as f64).to_bits(), t as u64, (t >> 64) as u64, 0]
}

impl Sampler {
    fn run_dump(&self, f: &CudaFunction, n: usize, args: &mut [*mut c_void]) -> Result<()> {
        let grid = n.div_ceil(128).max(1) as u32;
        self.context().bind_to_thread().ctx("binding the context")?;
        // SAFETY: callers pass argument lists matching the dump kernels.
        unsafe {
            drv::launch_kernel(
                f.cu_function(),
                (grid, 1, 1),
                (128, 1, 1),
                0,
                self.stream().cu_stream(),
                args,
            )
        }
        .ctx("launching a dump kernel")
    }

    /// The device's noise for each `(seed, position, index)` under `profile`.
    pub fn noise_dump(
        &self,
        profile: NoiseProfile,
        triples: &[(u64, u64, u32)],
    ) -> Result<Vec<NoiseWords>> {
        let n = triples.len();
        if n == 0 {
            return Ok(Vec::new());
        }
        let s = self.stream();
        let seeds = s
            .clone_htod(&triples.iter().map(|t| t.0).collect::<Vec<_>>())
            .ctx("uploading seeds")?;
        let positions = s
            .clone_htod(&triples.iter().map(|t| t.1).collect::<Vec<_>>())
            .ctx("uploading positions")?;
        let indices = s
            .clone_htod(&triples.iter().map(|t| t.2).collect::<Vec<_>>())
            .ctx("uploading indices")?;
        let out = s.alloc_zeros::<u64>(n * 8).ctx("allocating the dump")?;
        let mut a_profile = profile.code();
        let mut a_n = n as u32;
        let mut a_seeds = seeds.device_ptr(s).0;
        let mut a_pos = positions.device_ptr(s).0;
        let mut a_idx = indices.device_ptr(s).0;
        let mut a_out = out.device_ptr(s).0;
        let mut args = [
            &mut a_profile as *mut u32 as *mut c_void,
            &mut a_n as *mut u32 as *mut c_void,
            &mut a_seeds as *mut u64 as *mut c_void,
            &mut a_pos as *mut u64 as *mut c_void,
            &mut a_idx as *mut u64 as *mut c_void,
            &mut a_out as *mut u64 as *mut c_void,
        ];
        self.run_dump(&self.kernels().noise_dump, n, &mut args)?;
        let words = s.clone_dtoh(&out).ctx("downloading the dump")?;
        s.synchronize().ctx("synchronizing the stream")?;
        Ok(words
            .chunks_exact(8)
            .map(|c| NoiseWords(c.try_into().expect("8 words")))
            .collect())
    }

    /// The device's ln, log1p, exp_nonpositive, logf and top-p mass of each x.
    pub fn math_dump(&self, xs: &[f64]) -> Result<Vec<[u64; 8]>> {
        let n = xs.len();
        if n == 0 {
            return Ok(Vec::new());
        }
        let s = self.stream();
        let x = s.clone_htod(xs).ctx("uploading inputs")?;
        let out = s.alloc_zeros::<u64>(n * 8).ctx("allocating the dump")?;
        let mut a_n = n as u32;
        let mut a_x = x.device_ptr(s).0;
        let mut a_out = out.device_ptr(s).0;
        let mut args = [
            &mut a_n as *mut u32 as *mut c_void,
            &mut a_x as *mut u64 as *mut c_void,
            &mut a_out as *mut u64 as *mut c_void,
        ];
        self.run_dump(&self.kernels().math_dump, n, &mut args)?;
        let words = s.clone_dtoh(&out).ctx("downloading the dump")?;
        s.synchronize().ctx("synchronizing the stream")?;
        Ok(words
            .chunks_exact(8)
            .map(|c| c.try_into().expect("8 words"))
            .collect())
    }

    /// The device's u128 -> f64 conversion and exact top-p target of each (v, p).
    pub fn int_dump(&self, items: &[(u128, f64)]) -> Result<Vec<[u64; 4]>> {
        let n = items.len();
        if n == 0 {
            return Ok(Vec::new());
        }
        let s = self.stream();
        let lo = s
            .clone_htod(&items.iter().map(|i| i.0 as u64).collect::<Vec<_>>())
            .ctx("uploading inputs")?;
        let hi = s
            .clone_htod(&items.iter().map(|i| (i.0 >> 64) as u64).collect::<Vec<_>>())
            .ctx("uploading inputs")?;
        let ps = s
            .clone_htod(&items.iter().map(|i| i.1).collect::<Vec<_>>())
            .ctx("uploading inputs")?;
        let out = s.alloc_zeros::<u64>(n * 4).ctx("allocating the dump")?;
        let mut a_n = n as u32;
        let mut a_lo = lo.device_ptr(s).0;
        let mut a_hi = hi.device_ptr(s).0;
        let mut a_p = ps.device_ptr(s).0;
        let mut a_out = out.device_ptr(s).0;
        let mut args = [
            &mut a_n as *mut u32 as *mut c_void,
            &mut a_lo as *mut u64 as *mut c_void,
            &mut a_hi as *mut u64 as *mut c_void,
            &mut a_p as *mut u64 as *mut c_void,
            &mut a_out as *mut u64 as *mut c_void,
        ];
        self.run_dump(&self.kernels().int_dump, n, &mut args)?;
        let words = s.clone_dtoh(&out).ctx("downloading the dump")?;
        s.synchronize().ctx("synchronizing the stream")?;
        Ok(words
            .chunks_exact(4)
            .map(|c| c.try_into().expect("4 words"))
            .collect())
    }
}

/// Bits equal, or both NaN (NaN payloads differ between platforms and are
/// never a sampled value).
pub fn same_f64_bits(a: u64, b: u64) -> bool {
    a == b || (f64::from_bits(a).is_nan() && f64::from_bits(b).is_nan())
}

/// The same for binary32 bits.
pub fn same_f32_bits(a: u32, b: u32) -> bool {
    a == b || (f32::from_bits(a).is_nan() && f32::from_bits(b).is_nan())
}
