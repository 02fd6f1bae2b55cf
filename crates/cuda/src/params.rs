//! Per-row parameters: validated on the host (the CPU model's own checks),
//! packed into structure-of-arrays form, uploaded once, and read by the kernels.

use crate::error::{DriverContext, Result};
use cudarc::driver::{CudaSlice, CudaStream, DevicePtr};
use std::sync::Arc;
use tailrace_model::{LogitBias, NoiseProfile, ParamError, RowRequest, MAX_VOCAB};

/// Bias kind codes of the device arrays.
pub mod bias_kind {
    /// No bias.
    pub const NONE: u8 = 0;
    /// A row of the dense bias buffer.
    pub const DENSE: u8 = 1;
    /// A sparse list, expanded on the device before sampling.
    pub const SPARSE: u8 = 2;
}

/// Host-side structure-of-arrays form of a batch's parameters.
#[derive(Debug, Clone, PartialEq)]
pub struct PackedParams {
    /// Vocabulary size the rows were validated for.
    pub vocab: usize,
    /// Temperature per row (0 = greedy).
    pub temperature: Vec<f64>,
    /// top-k per row (0 = off).
    pub top_k: Vec<u32>,
    /// top-p per row (1 = off).
    pub top_p: Vec<f64>,
    /// min-p per row (0 = off).
    pub min_p: Vec<f64>,
    /// Request seed per row.
    pub seed: Vec<u64>,
    /// Absolute position per row.
    pub position: Vec<u64>,
    /// `NoiseProfile::code()` per row.
    pub profile: Vec<u32>,
    /// [`bias_kind`] per row.
    pub bias_kind: Vec<u8>,
    /// Sparse rows: their row in the expanded buffer.
    pub bias_slot: Vec<u32>,
    /// Dense bias rows, `[rows, vocab]` (empty when no row has a dense bias).
    pub dense: Vec<f32>,
    /// CSR offsets of the sparse lists (`rows + 1` entries).
    pub sparse_offsets: Vec<u32>,
    /// Sparse indices.
    pub sparse_index: Vec<u32>,
    /// Sparse values.
    pub sparse_value: Vec<f32>,
    /// Number of rows with a sparse bias.
    pub sparse_rows: usize,
    /// Whether some row runs the filters (non-greedy with top-k, top-p or min-p).
    pub any_filter: bool,
    /// Whether some row has a bias (dense or sparse).
    pub any_bias: bool,
    /// Whether some racing (non-greedy) row outside the fused top-k path uses
    /// a profile other than `exact`.
    pub any_direct: bool,
    /// Whether some row qualifies for the fused top-k path ([`fused_row`]).
    pub any_fused: bool,
    /// Whether some fused-path row uses a profile other than `exact`.
    pub any_direct_fused: bool,
    /// Whether some filter row qualifies for neither the fused top-k path
    /// nor the binned top-p path.
    pub any_other_filter: bool,
    /// Whether some row qualifies for the binned top-p path ([`topp_row`]).
    pub any_topp: bool,
    /// Whether every row qualifies for the binned top-p path (and there is
    /// at least one row).
    pub all_topp: bool,
}

/// Whether a row takes the binned top-p path (`kernels/topp.cu`,
/// `tr_topp_row`): top-p < 1 without top-k, T > 0, no bias (min-p may be on).
/// The filter kernel still runs for such rows when their cut falls in a bin
/// holding more than `launch::TOPP_CAP` elements. Same results either way.
pub fn topp_row(req: &RowRequest) -> bool {
    let raw = req.params.raw();
    raw.temperature != 0.0
        && raw.top_k == 0
        && raw.top_p < 1.0
        && matches!(req.bias, LogitBias::None)
}

/// The launches after the first pass, (filter kernel, second pass), for a
/// batch with (some filter row on neither path, some fused top-k row, some
/// binned top-p row) while the fused and binned paths are on or off.
fn later_launches(rows: (bool, bool, bool), fused_on: bool, topp_on: bool) -> (bool, bool) {
    let (other, fused, topp) = rows;
    let filter = other || (fused && !fused_on) || (topp && !topp_on);
    (filter, filter || topp)
}

/// Largest top-k of the fused path (`TR_FUSED_K_MAX` in the kernels).
pub const FUSED_TOP_K_MAX: u32 = 256;

/// Whether a row is filtered and raced inside the pass kernel (the fused
/// top-k path of `kernels/sample.cu`, `tr_fused_row`): 2 <= top_k <=
/// [`FUSED_TOP_K_MAX`], T > 0, no bias. The results are the same either way;
/// only the launch sequence differs.
pub fn fused_row(req: &RowRequest) -> bool {
    let raw = req.params.raw();
    raw.temperature != 0.0
        && (2..=FUSED_TOP_K_MAX).contains(&raw.top_k)
        && matches!(req.bias, LogitBias::None)
}

impl PackedParams {
    /// Validates `rows` for `vocab` exactly as the CPU model does (same
    /// [`ParamError`]s, naming the row) and packs them.
    pub fn new(vocab: usize, rows: &[RowRequest]) -> Result<Self, ParamError> {
        // The model's check_vocab (not exported): SAMPLER.md §1.
        if vocab == 0 || vocab > MAX_VOCAB {
            return Err(ParamError::InvalidVocab(vocab));
        }
        for (r, req) in rows.iter().enumerate() {
            req.bias.validate(vocab).map_err(|e| ParamError::Row {
                row: r,
                source: Box::new(e),
            })?;
        }
        let n = rows.len();
        let any_dense = rows.iter().any(|r| matches!(r.bias, LogitBias::Dense(_)));
        let mut p = PackedParams {
            vocab,
            temperature: Vec::with_capacity(n),
            top_k: Vec::with_capacity(n),
            top_p: Vec::with_capacity(n),
            min_p: Vec::with_capacity(n),
            seed: Vec::with_capacity(n),
            position: Vec::with_capacity(n),
            profile: Vec::with_capacity(n),
            bias_kind: Vec::with_capacity(n),
            bias_slot: Vec::with_capacity(n),
            dense: if any_dense {
                vec![0.0; n * vocab]
            } else {
                Vec::new()
            },
            sparse_offsets: Vec::with_capacity(n + 1),
            sparse_index: Vec::new(),
            sparse_value: Vec::new(),
            sparse_rows: 0,
            any_filter: false,
            any_bias: false,
            any_direct: false,
            any_fused: false,
            any_direct_fused: false,
            any_other_filter: false,
            any_topp: false,
            all_topp: !rows.is_empty(),
        };
        p.sparse_offsets.push(0);
        for (r, req) in rows.iter().enumerate() {
            let raw = req.params.raw();
            p.temperature.push(raw.temperature);
            p.top_k.push(raw.top_k);
            p.top_p.push(raw.top_p);
            p.min_p.push(raw.min_p);
            p.seed.push(raw.seed);
            p.position.push(raw.position);
            p.profile.push(raw.profile.code());
            let filters = !req.params.is_greedy() && req.params.has_filter();
            let fused = fused_row(req);
            let direct = !req.params.is_greedy() && raw.profile != NoiseProfile::Exact;
            p.any_filter |= filters;
            p.any_fused |= fused;
            p.any_other_filter |= filters && !fused && !topp_row(req);
            p.any_bias |= !matches!(req.bias, LogitBias::None);
            p.any_direct |= direct && !fused;
            p.any_direct_fused |= direct && fused;
            p.any_topp |= topp_row(req);
            p.all_topp &= topp_row(req);
            match &req.bias {
                LogitBias::None => {
                    p.bias_kind.push(bias_kind::NONE);
                    p.bias_slot.push(0);
                }
                LogitBias::Dense(b) => {
                    p.bias_kind.push(bias_kind::DENSE);
                    p.bias_slot.push(0);
                    p.dense[r * vocab..(r + 1) * vocab].copy_from_slice(b);
                }
                LogitBias::Sparse(list) => {
                    p.bias_kind.push(bias_kind::SPARSE);
                    p.bias_slot.push(p.sparse_rows as u32);
                    p.sparse_rows += 1;
                    for &(i, v) in list {
                        p.sparse_index.push(i);
                        p.sparse_value.push(v);
                    }
                }
            }
            let end = u32::try_from(p.sparse_index.len()).map_err(|_| {
                ParamError::Shape("more than 2^32 sparse bias entries in one batch".into())
            })?;
            p.sparse_offsets.push(end);
        }
        Ok(p)
    }

    /// Number of rows.
    pub fn rows(&self) -> usize {
        self.temperature.len()
    }
}

/// Raw device pointers of the parameter arrays (what the kernels read).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct ParamPtrs {
    pub temperature: u64,
    pub top_k: u64,
    pub top_p: u64,
    pub min_p: u64,
    pub seed: u64,
    pub position: u64,
    pub profile: u64,
    pub bias_kind: u64,
    pub bias_slot: u64,
    pub dense: u64,
    pub sparse_offsets: u64,
    pub sparse_index: u64,
    pub sparse_value: u64,
}

/// A batch's parameters resident on the device.
///
/// Build it outside any graph capture. For decoding loops (and CUDA graph
/// replays) the seeds and positions can be rewritten in place with
/// [`DeviceParams::set_positions`] / [`DeviceParams::set_seeds`]; every other
/// field is fixed at upload (the host keeps flags derived from them).
pub struct DeviceParams {
    rows: usize,
    vocab: usize,
    sparse_rows: usize,
    any_filter: bool,
    any_fused: bool,
    any_direct_fused: bool,
    any_other_filter: bool,
    any_topp: bool,
    all_topp: bool,
    any_sparse: bool,
    fast: bool,
    ptrs: ParamPtrs,
    _temperature: CudaSlice<f64>,
    _top_k: CudaSlice<u32>,
    _top_p: CudaSlice<f64>,
    _min_p: CudaSlice<f64>,
    seed: CudaSlice<u64>,
    position: CudaSlice<u64>,
    _profile: CudaSlice<u32>,
    _bias_kind: CudaSlice<u8>,
    _bias_slot: CudaSlice<u32>,
    _dense: CudaSlice<f32>,
    _sparse_offsets: CudaSlice<u32>,
    _sparse_index: CudaSlice<u32>,
    _sparse_value: CudaSlice<f32>,
}

/// Uploads `v` (at least one element is allocated, so empty arrays are fine).
fn upload<T: cudarc::driver::DeviceRepr + Default + Clone>(
    stream: &Arc<CudaStream>,
    v: &[T],
) -> Result<(CudaSlice<T>, u64)> {
    let s = if v.is_empty() {
        stream.clone_htod(&[T::default()])
    } else {
        stream.clone_htod(v)
    }
    .ctx("uploading sampling parameters")?;
    let ptr = {
        let (p, _sync) = s.device_ptr(stream);
        p
    };
    Ok((s, ptr))
}

impl DeviceParams {
    /// Validates and uploads `rows` for vocabulary size `vocab`.
    pub fn new(stream: &Arc<CudaStream>, vocab: usize, rows: &[RowRequest]) -> Result<Self> {
        let p = PackedParams::new(vocab, rows)?;
        Self::upload(stream, &p)
    }

    /// Uploads packed parameters.
    pub fn upload(stream: &Arc<CudaStream>, p: &PackedParams) -> Result<Self> {
        let (temperature, t_ptr) = upload(stream, &p.temperature)?;
        let (top_k, k_ptr) = upload(stream, &p.top_k)?;
        let (top_p, p_ptr) = upload(stream, &p.top_p)?;
        let (min_p, m_ptr) = upload(stream, &p.min_p)?;
        let (seed, s_ptr) = upload(stream, &p.seed)?;
        let (position, pos_ptr) = upload(stream, &p.position)?;
        let (profile, pr_ptr) = upload(stream, &p.profile)?;
        let (bias_kind, bk_ptr) = upload(stream, &p.bias_kind)?;
        let (bias_slot, bs_ptr) = upload(stream, &p.bias_slot)?;
        let (dense, d_ptr) = upload(stream, &p.dense)?;
        let (sparse_offsets, so_ptr) = upload(stream, &p.sparse_offsets)?;
        let (sparse_index, si_ptr) = upload(stream, &p.sparse_index)?;
        let (sparse_value, sv_ptr) = upload(stream, &p.sparse_value)?;
        Ok(DeviceParams {
            rows: p.rows(),
            vocab: p.vocab,
            sparse_rows: p.sparse_rows,
            any_filter: p.any_filter,
            any_fused: p.any_fused,
            any_direct_fused: p.any_direct_fused,
            any_other_filter: p.any_other_filter,
            any_topp: p.any_topp,
            all_topp: p.all_topp,
            any_sparse: p.sparse_rows > 0,
            fast: !p.any_bias && !p.any_direct,
            ptrs: ParamPtrs {
                temperature: t_ptr,
                top_k: k_ptr,
                top_p: p_ptr,
                min_p: m_ptr,
                seed: s_ptr,
                position: pos_ptr,
                profile: pr_ptr,
                bias_kind: bk_ptr,
                bias_slot: bs_ptr,
                dense: d_ptr,
                sparse_offsets: so_ptr,
                sparse_index: si_ptr,
                sparse_value: sv_ptr,
            },
            _temperature: temperature,
            _top_k: top_k,
            _top_p: top_p,
            _min_p: min_p,
            seed,
            position,
            _profile: profile,
            _bias_kind: bias_kind,
            _bias_slot: bias_slot,
            _dense: dense,
            _sparse_offsets: sparse_offsets,
            _sparse_index: sparse_index,
            _sparse_value: sparse_value,
        })
    }

    /// Rewrites every row's position (e.g. between graph replays).
    pub fn set_positions(&mut self, stream: &Arc<CudaStream>, positions: &[u64]) -> Result<()> {
        if positions.len() != self.rows {
            return Err(crate::CudaError::Shape(format!(
                "{} positions for {} rows",
                positions.len(),
                self.rows
            )));
        }
        stream
            .memcpy_htod(positions, &mut self.position)
            .ctx("uploading positions")
    }

    /// Rewrites every row's seed.
    pub fn set_seeds(&mut self, stream: &Arc<CudaStream>, seeds: &[u64]) -> Result<()> {
        if seeds.len() != self.rows {
            return Err(crate::CudaError::Shape(format!(
                "{} seeds for {} rows",
                seeds.len(),
                self.rows
            )));
        }
        stream
            .memcpy_htod(seeds, &mut self.seed)
            .ctx("uploading seeds")
    }

    /// Number of rows.
    pub fn rows(&self) -> usize {
        self.rows
    }
    /// Vocabulary size the rows were validated for.
    pub fn vocab(&self) -> usize {
        self.vocab
    }
    /// Rows with a sparse bias.
    pub fn sparse_rows(&self) -> usize {
        self.sparse_rows
    }
    /// Whether some row runs the filters.
    pub fn any_filter(&self) -> bool {
        self.any_filter
    }
    pub(crate) fn any_sparse(&self) -> bool {
        self.any_sparse
    }
    /// Whether the specialized pass kernel serves the batch: no bias, and
    /// every row racing in the pass uses `exact` (with the fused top-k path
    /// on, its rows race outside the hot loop and do not count; off, they do).
    pub fn fast_path(&self, fused_on: bool) -> bool {
        self.fast && (fused_on || !self.any_direct_fused)
    }

    /// Whether some row qualifies for the fused top-k path.
    pub fn any_fused(&self) -> bool {
        self.any_fused
    }

    /// Whether some row qualifies for the binned top-p path.
    pub fn any_topp(&self) -> bool {
        self.any_topp
    }

    /// Whether every row qualifies for the binned top-p path.
    pub fn all_topp(&self) -> bool {
        self.all_topp
    }

    /// Whether the filter kernel must run: some filter row outside the fused
    /// top-k and binned top-p paths, or on one of them while it is off for
    /// the shape. (The binned top-p path finishes every row it takes: rows
    /// its bins cannot settle get the filter's selection from its own last
    /// block.)
    pub fn needs_filter_kernel(&self, fused_on: bool, topp_on: bool) -> bool {
        self.later_launches(fused_on, topp_on).0
    }

    /// Whether the second pass (the race of the filtered rows) must run.
    pub fn needs_second_pass(&self, fused_on: bool, topp_on: bool) -> bool {
        self.later_launches(fused_on, topp_on).1
    }

    fn later_launches(&self, fused_on: bool, topp_on: bool) -> (bool, bool) {
        later_launches(
            (self.any_other_filter, self.any_fused, self.any_topp),
            fused_on,
            topp_on,
        )
    }
    pub(crate) fn ptrs(&self) -> ParamPtrs {
        self.ptrs
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tailrace_model::{NoiseProfile, RawParams, SamplingParams};

    fn req(raw: RawParams, bias: LogitBias) -> RowRequest {
        RowRequest {
            params: SamplingParams::new(raw).unwrap(),
            bias,
        }
    }

    #[test]
    fn packs_structure_of_arrays() {
        let rows = vec![
            req(
                RawParams {
                    temperature: 0.7,
                    top_k: 5,
                    seed: 1 << 40,
                    position: u64::MAX,
                    profile: NoiseProfile::Triton,
                    ..RawParams::default()
                },
                LogitBias::Sparse(vec![(2, -1.0), (0, f32::NEG_INFINITY)]),
            ),
            req(RawParams::default(), LogitBias::Dense(vec![0.5; 4])),
            req(
                RawParams {
                    temperature: 0.0,
                    top_p: 0.5,
                    ..RawParams::default()
                },
                LogitBias::Sparse(vec![(3, 2.0)]),
            ),
        ];
        let p = PackedParams::new(4, &rows).unwrap();
        assert_eq!(p.rows(), 3);
        assert_eq!(p.temperature, vec![0.7, 1.0, 0.0]);
        assert_eq!(p.top_k, vec![5, 0, 0]);
        assert_eq!(p.top_p, vec![1.0, 1.0, 0.5]);
        assert_eq!(p.seed[0], 1 << 40);
        assert_eq!(p.position[0], u64::MAX);
        assert_eq!(p.profile, vec![3, 0, 0]);
        assert_eq!(
            p.bias_kind,
            vec![bias_kind::SPARSE, bias_kind::DENSE, bias_kind::SPARSE]
        );
        assert_eq!(p.bias_slot, vec![0, 0, 1]);
        assert_eq!(p.sparse_offsets, vec![0, 2, 2, 3]);
        assert_eq!(p.sparse_index, vec![2, 0, 3]);
        assert_eq!(p.sparse_rows, 2);
        assert_eq!(&p.dense[4..8], &[0.5; 4]);
        assert_eq!(&p.dense[0..4], &[0.0; 4]);
        // Row 0 filters (top-k 5, T > 0); row 2 is greedy, so its top-p is moot.
        assert!(p.any_filter);
        assert!(p.any_bias);
        assert!(p.any_direct); // row 0 races with the triton profile
    }

    #[test]
    fn fused_top_k_rows_are_told_apart() {
        let k = |top_k: u32, top_p: f64, bias: LogitBias| {
            req(
                RawParams {
                    top_k,
                    top_p,
                    ..RawParams::default()
                },
                bias,
            )
        };
        // Qualifying: 2 <= top_k <= 256, T > 0, no bias (other filters may be on).
        assert!(fused_row(&k(2, 1.0, LogitBias::None)));
        assert!(fused_row(&k(256, 0.9, LogitBias::None)));
        assert!(!fused_row(&k(257, 1.0, LogitBias::None)));
        assert!(!fused_row(&k(1, 1.0, LogitBias::None)));
        assert!(!fused_row(&k(0, 0.9, LogitBias::None)));
        assert!(!fused_row(&k(50, 1.0, LogitBias::Sparse(vec![(0, 1.0)]))));
        let greedy = req(
            RawParams {
                temperature: 0.0,
                top_k: 50,
                ..RawParams::default()
            },
            LogitBias::None,
        );
        assert!(!fused_row(&greedy));

        let only_fused = PackedParams::new(10, &[k(50, 0.9, LogitBias::None)]).unwrap();
        assert!(only_fused.any_filter && only_fused.any_fused && !only_fused.any_other_filter);
        // Top-p without top-k takes the binned path, a biased one the filter kernel.
        let mixed = PackedParams::new(
            10,
            &[k(50, 1.0, LogitBias::None), k(0, 0.5, LogitBias::None)],
        )
        .unwrap();
        assert!(mixed.any_fused && mixed.any_topp && !mixed.any_other_filter);
        let biased = PackedParams::new(
            10,
            &[
                k(50, 1.0, LogitBias::None),
                k(0, 0.5, LogitBias::Sparse(vec![(0, 1.0)])),
            ],
        )
        .unwrap();
        assert!(biased.any_fused && !biased.any_topp && biased.any_other_filter);

        // Fused rows with a non-exact profile race outside the hot loop only
        // while the fused path is on.
        let f32_row = req(
            RawParams {
                top_k: 50,
                profile: NoiseProfile::F32,
                ..RawParams::default()
            },
            LogitBias::None,
        );
        let p = PackedParams::new(10, &[f32_row]).unwrap();
        assert!(!p.any_direct && p.any_direct_fused);

        // Binned top-p: top-p without top-k (min-p allowed), no bias, T > 0.
        assert!(topp_row(&k(0, 0.9, LogitBias::None)));
        assert!(!topp_row(&k(50, 0.9, LogitBias::None)));
        assert!(!topp_row(&k(0, 1.0, LogitBias::None)));
        assert!(!topp_row(&k(0, 0.9, LogitBias::Sparse(vec![(0, 1.0)]))));
        let p = PackedParams::new(10, &[k(0, 0.9, LogitBias::None)]).unwrap();
        assert!(p.any_topp && p.all_topp && !p.any_other_filter && !p.any_fused);
        // Every row on the binned path, or not.
        let both = PackedParams::new(
            10,
            &[k(0, 0.9, LogitBias::None), k(0, 0.5, LogitBias::None)],
        )
        .unwrap();
        assert!(both.all_topp);
        assert!(!mixed.all_topp && !only_fused.all_topp && !biased.all_topp);
        let greedy_too = PackedParams::new(10, &[k(0, 0.9, LogitBias::None), greedy]).unwrap();
        assert!(greedy_too.any_topp && !greedy_too.all_topp);
        assert!(!PackedParams::new(10, &[]).unwrap().all_topp);
    }

    #[test]
    fn launches_follow_the_paths_that_are_on() {
        let row = |top_k: u32, top_p: f64, min_p: f64| {
            req(
                RawParams {
                    top_k,
                    top_p,
                    min_p,
                    ..RawParams::default()
                },
                LogitBias::None,
            )
        };
        let dev = |rows: &[RowRequest]| {
            let p = PackedParams::new(10, rows).unwrap();
            (p.any_other_filter, p.any_fused, p.any_topp)
        };
        let launches = later_launches;
        let plain = dev(&[row(0, 1.0, 0.0)]);
        assert_eq!(launches(plain, true, true), (false, false));
        let topp = dev(&[row(0, 0.9, 0.0), row(0, 0.5, 0.1)]);
        assert_eq!(launches(topp, true, true), (false, true));
        assert_eq!(launches(topp, true, false), (true, true));
        let fused = dev(&[row(50, 0.9, 0.0)]);
        assert_eq!(launches(fused, true, true), (false, false));
        assert_eq!(launches(fused, false, true), (true, true));
        let min_p = dev(&[row(0, 1.0, 0.05), row(0, 0.9, 0.0)]);
        assert_eq!(launches(min_p, true, true), (true, true));
    }

    #[test]
    fn greedy_rows_do_not_filter() {
        let rows = vec![req(
            RawParams {
                top_k: 1,
                top_p: 0.5,
                ..RawParams::default()
            },
            LogitBias::None,
        )];
        assert!(!PackedParams::new(10, &rows).unwrap().any_filter);
    }

    #[test]
    fn rejects_like_the_cpu_model() {
        let bad = vec![
            req(RawParams::default(), LogitBias::None),
            req(
                RawParams::default(),
                LogitBias::Sparse(vec![(1, 0.0), (1, 2.0)]),
            ),
        ];
        let err = PackedParams::new(8, &bad).unwrap_err();
        assert_eq!(
            err,
            ParamError::Row {
                row: 1,
                source: Box::new(ParamError::DuplicateBiasIndex(1))
            }
        );
        let oob = vec![req(RawParams::default(), LogitBias::Sparse(vec![(8, 0.0)]))];
        assert!(matches!(
            PackedParams::new(8, &oob).unwrap_err(),
            ParamError::Row { row: 0, .. }
        ));
        let shape = vec![req(RawParams::default(), LogitBias::Dense(vec![0.0; 3]))];
        assert!(matches!(
            PackedParams::new(8, &shape).unwrap_err(),
            ParamError::Row { .. }
        ));
        assert_eq!(
            PackedParams::new(0, &[]).unwrap_err(),
            ParamError::InvalidVocab(0)
        );
        let nan = vec![req(
            RawParams::default(),
            LogitBias::Sparse(vec![(0, f32::NAN)]),
        )];
        assert!(PackedParams::new(8, &nan).is_err());
    }
}
