//! The CUDA backend as a [`Sampler`]: `tailrace-cuda` behind the trait, with
//! side streams for the contention property.

use crate::{BatchInput, Geometry, Logits, Sampler};
use std::sync::Mutex;
use tailrace_cuda::{CudaError, LaunchOptions};
use tailrace_model::RowOutput;
use tailrace_noise::NoiseProfile;

/// The CUDA sampler on device 0.
pub struct CudaSampler {
    inner: Mutex<tailrace_cuda::Sampler>,
    describe: String,
}

/// Opens the CUDA backend, or says why it cannot be opened (no driver, no
/// GPU, no NVRTC): never panics.
pub fn open() -> Result<Box<dyn Sampler>, String> {
    let s = tailrace_cuda::Sampler::new(0).map_err(|e| e.to_string())?;
    let ctx = s.context();
    let name = ctx.name().unwrap_or_else(|_| "unknown GPU".into());
    let mut v = 0i32;
    // SAFETY: libcuda is loaded (the sampler opened); the call writes one int.
    let driver = unsafe { cudarc::driver::sys::cuDriverGetVersion(&mut v) };
    let driver = if driver == cudarc::driver::sys::CUresult::CUDA_SUCCESS {
        format!("{}.{}", v / 1000, (v % 1000) / 10)
    } else {
        "?".into()
    };
    let (mut a, mut b) = (0i32, 0i32);
    // SAFETY: libnvrtc is loaded (the kernels compiled); the call writes two ints.
    let nvrtc = unsafe { cudarc::nvrtc::sys::nvrtcVersion(&mut a, &mut b) };
    let nvrtc = if nvrtc == cudarc::nvrtc::sys::nvrtcResult::NVRTC_SUCCESS {
        format!("{a}.{b}")
    } else {
        "?".into()
    };
    let describe = format!(
        "{name}, {} SMs, CUDA driver API {driver}, NVRTC {nvrtc}, kernels for {}",
        s.sm_count(),
        s.kernel_info().0
    );
    Ok(Box::new(CudaSampler {
        inner: Mutex::new(s),
        describe,
    }))
}

fn to_anyhow(e: CudaError) -> anyhow::Error {
    match e {
        CudaError::Param(p) => anyhow::Error::new(p),
        e => anyhow::Error::new(e),
    }
}

fn options(g: Geometry) -> LaunchOptions {
    LaunchOptions {
        block_threads: g.block.unwrap_or(0),
        blocks_per_row: g.splits.unwrap_or(0),
        ..LaunchOptions::default()
    }
}

impl CudaSampler {
    fn run(
        &self,
        s: &mut tailrace_cuda::Sampler,
        input: &BatchInput,
        opts: &LaunchOptions,
    ) -> anyhow::Result<Vec<RowOutput>> {
        let r = match &input.logits {
            Logits::F32(v) => s.sample_host_with(opts, v, input.vocab, input.stride, &input.rows),
            Logits::Bf16(v) => s.sample_host_with(opts, v, input.vocab, input.stride, &input.rows),
            Logits::F16(v) => s.sample_host_with(opts, v, input.vocab, input.stride, &input.rows),
        };
        r.map_err(to_anyhow)
    }
}

impl Sampler for CudaSampler {
    fn name(&self) -> &'static str {
        "cuda"
    }

    fn describe(&self) -> String {
        self.describe.clone()
    }

    fn sample(&self, input: &BatchInput, geometry: Geometry) -> anyhow::Result<Vec<RowOutput>> {
        let mut s = self
            .inner
            .lock()
            .map_err(|_| anyhow::anyhow!("CUDA sampler poisoned by an earlier panic"))?;
        self.run(&mut s, input, &options(geometry))
    }

    fn geometries(&self, vocab: usize) -> Vec<Geometry> {
        let mut g = vec![Geometry::default()];
        for block in [32u32, 128, 512] {
            g.push(Geometry {
                block: Some(block),
                splits: None,
            });
        }
        for splits in [1u32, 3, 64] {
            if (splits as usize) <= vocab {
                g.push(Geometry {
                    block: None,
                    splits: Some(splits),
                });
            }
        }
        g.push(Geometry {
            block: Some(64),
            splits: Some(7),
        });
        g
    }

    fn noise_ln_bits(
        &self,
        profile: NoiseProfile,
        triples: &[(u64, u64, u32)],
    ) -> Option<anyhow::Result<Vec<u64>>> {
        let s = match self.inner.lock() {
            Ok(s) => s,
            Err(_) => return Some(Err(anyhow::anyhow!("CUDA sampler poisoned"))),
        };
        Some(
            s.noise_dump(profile, triples)
                .map(|w| w.iter().map(|x| x.0[0]).collect())
                .map_err(to_anyhow),
        )
    }

    fn sample_under_contention(
        &self,
        input: &BatchInput,
        replays: usize,
        perturb: bool,
    ) -> Option<anyhow::Result<Vec<Vec<RowOutput>>>> {
        Some(self.contention(input, replays, perturb))
    }
}

impl CudaSampler {
    /// Replays `input` on the sampler's stream while samplers on three side
    /// streams (highest, default and lowest priority) keep the GPU busy with
    /// large batches; with `perturb`, replay 1 shifts every position by one
    /// (the negative control).
    fn contention(
        &self,
        input: &BatchInput,
        replays: usize,
        perturb: bool,
    ) -> anyhow::Result<Vec<Vec<RowOutput>>> {
        let mut main = self
            .inner
            .lock()
            .map_err(|_| anyhow::anyhow!("CUDA sampler poisoned"))?;
        let ctx = main.context().clone();
        let (lo, hi) = cudarc::driver::result::stream::get_priority_range()
            .map_err(|e| anyhow::anyhow!("{e:?}"))?;
        let mut side = Vec::new();
        for prio in [hi, 0, lo] {
            let st = ctx
                .new_stream_with_priority(prio)
                .map_err(|e| anyhow::anyhow!("side stream: {e:?}"))?;
            side.push(tailrace_cuda::Sampler::with_stream(st).map_err(to_anyhow)?);
        }
        // Heavy side work: 512 rows of 131072 bf16 logits on the device, sampled repeatedly.
        let (rows, vocab) = (512usize, 131072usize);
        let heavy_rows: Vec<tailrace_model::RowRequest> = (0..rows as u64)
            .map(|k| tailrace_model::SamplingParams::temperature(1.0, k, k).map(Into::into))
            .collect::<Result<_, _>>()?;
        let mut bufs = Vec::new();
        for s in &side {
            let mut b = s
                .stream()
                .alloc_zeros::<u16>(rows * vocab)
                .map_err(|e| anyhow::anyhow!("{e:?}"))?;
            s.fill_random(&mut b, tailrace_cuda::Dtype::Bf16, 7, 2.0)
                .map_err(to_anyhow)?;
            bufs.push(b);
        }
        let mut outs = Vec::new();
        for k in 0..replays {
            // Queue heavy work on every side stream, without waiting for it.
            for (s, b) in side.iter_mut().zip(&bufs) {
                let params = tailrace_cuda::DeviceParams::new(s.stream(), vocab, &heavy_rows)
                    .map_err(to_anyhow)?;
                let dl = tailrace_cuda::DeviceLogits::new(
                    b,
                    s.stream(),
                    tailrace_cuda::Dtype::Bf16,
                    rows,
                    vocab,
                    vocab,
                )
                .map_err(to_anyhow)?;
                let mut o =
                    tailrace_cuda::DeviceOutput::new(s.stream(), rows).map_err(to_anyhow)?;
                s.sample(&dl, &params, &mut o, &LaunchOptions::default())
                    .map_err(to_anyhow)?;
            }
            let mut this = input.clone();
            if perturb && k == 1 {
                for r in &mut this.rows {
                    r.params = r.params.at_position(r.params.position().wrapping_add(1));
                }
            }
            outs.push(self.run(&mut main, &this, &LaunchOptions::default())?);
        }
        for s in &side {
            s.stream()
                .synchronize()
                .map_err(|e| anyhow::anyhow!("{e:?}"))?;
        }
        Ok(outs)
    }
}
