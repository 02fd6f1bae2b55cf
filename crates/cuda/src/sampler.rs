//! The sampler: device buffers, the workspace, and the launch sequence.

use crate::error::{CudaError, DriverContext, Result};
use crate::kernels::{self, Kernels};
use crate::launch::{
    split, topp_cluster_blocks, topp_float_hist_smem, topp_late_trigger, topp_stage_smem, Geometry,
    LaunchOptions, SampleArgs, PARTIAL_BYTES, PEND_SMEM_BYTES, ROWSTATE_BYTES, TOPP_PEND_WORDS,
    TOPP_STAGE_AT, TOPP_TABLE_BYTES,
};
use crate::params::DeviceParams;
use cudarc::driver::{
    result as drv, sys, CudaContext, CudaFunction, CudaSlice, CudaStream, DevicePtr, DeviceRepr,
};
use half::{bf16, f16};
use std::collections::HashMap;
use std::ffi::c_void;
use std::marker::PhantomData;
use std::sync::Arc;
use tailrace_model::{Logit, RowOutput, RowRequest, RowStatus, NO_TOKEN};

/// Element type of a logits buffer on the device.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Dtype {
    /// binary32.
    F32,
    /// bfloat16.
    Bf16,
    /// IEEE binary16.
    F16,
}

impl Dtype {
    /// The kernels' dtype code (0 f32, 1 bf16, 2 f16).
    pub fn code(self) -> u32 {
        match self {
            Dtype::F32 => 0,
            Dtype::Bf16 => 1,
            Dtype::F16 => 2,
        }
    }
    /// Bytes per element.
    pub fn size(self) -> usize {
        match self {
            Dtype::F32 => 4,
            Dtype::Bf16 | Dtype::F16 => 2,
        }
    }
}

/// A host logit type the backend can upload: its bits are what the device reads.
pub trait HostLogit: Logit {
    /// The device dtype.
    const DEVICE_DTYPE: Dtype;
    /// The storage type on the device.
    type Bits: DeviceRepr + Copy + Default;
    /// The raw bits of a slice.
    fn bits(xs: &[Self]) -> Vec<Self::Bits>;
}

impl HostLogit for f32 {
    const DEVICE_DTYPE: Dtype = Dtype::F32;
    type Bits = f32;
    fn bits(xs: &[Self]) -> Vec<f32> {
        xs.to_vec()
    }
}

impl HostLogit for bf16 {
    const DEVICE_DTYPE: Dtype = Dtype::Bf16;
    type Bits = u16;
    fn bits(xs: &[Self]) -> Vec<u16> {
        xs.iter().map(|x| x.to_bits()).collect()
    }
}

impl HostLogit for f16 {
    const DEVICE_DTYPE: Dtype = Dtype::F16;
    type Bits = u16;
    fn bits(xs: &[Self]) -> Vec<u16> {
        xs.iter().map(|x| x.to_bits()).collect()
    }
}

/// A `[rows, vocab]` logits buffer on the device (row stride in elements).
/// Holds a raw pointer and borrows the allocation it came from.
#[derive(Debug, Clone, Copy)]
pub struct DeviceLogits<'a> {
    ptr: u64,
    dtype: Dtype,
    rows: usize,
    vocab: usize,
    stride: usize,
    _borrow: PhantomData<&'a ()>,
}

impl<'a> DeviceLogits<'a> {
    /// Describes `buf` (elements of `dtype`; `B` must have the dtype's size, e.g.
    /// `u16` bits for bf16/f16) as `rows` rows of `vocab` with row stride `stride`
    /// (0: every row reads the same logits).
    pub fn new<B: DeviceRepr>(
        buf: &'a CudaSlice<B>,
        stream: &Arc<CudaStream>,
        dtype: Dtype,
        rows: usize,
        vocab: usize,
        stride: usize,
    ) -> Result<Self> {
        if std::mem::size_of::<B>() != dtype.size() {
            return Err(CudaError::Shape(format!(
                "buffer elements of {} bytes for dtype {dtype:?}",
                std::mem::size_of::<B>()
            )));
        }
        check_shape(buf.len(), rows, vocab, stride)?;
        let (ptr, _sync) = buf.device_ptr(stream);
        Ok(DeviceLogits {
            ptr,
            dtype,
            rows,
            vocab,
            stride,
            _borrow: PhantomData,
        })
    }

    /// Describes device memory the caller owns (e.g. another framework's tensor).
    ///
    /// # Safety
    /// `ptr` must point to at least `(rows - 1) * stride + vocab` readable
    /// elements of `dtype` that stay alive and unmodified until the sampling
    /// work queued on the stream has finished.
    pub unsafe fn from_raw(
        ptr: u64,
        dtype: Dtype,
        rows: usize,
        vocab: usize,
        stride: usize,
    ) -> Result<Self> {
        check_shape(usize::MAX, rows, vocab, stride)?;
        Ok(DeviceLogits {
            ptr,
            dtype,
            rows,
            vocab,
            stride,
            _borrow: PhantomData,
        })
    }

    /// Rows.
    pub fn rows(&self) -> usize {
        self.rows
    }
    /// Element type.
    pub fn dtype(&self) -> Dtype {
        self.dtype
    }
}

fn check_shape(len: usize, rows: usize, vocab: usize, stride: usize) -> Result<()> {
    // Stride 0: every row reads the same logits (as in the CPU model).
    if stride < vocab && stride != 0 {
        return Err(CudaError::Shape(format!(
            "row stride {stride} is below vocabulary size {vocab} (0 means every row reads the same logits)"
        )));
    }
    if rows > 0 {
        let need = (rows - 1)
            .checked_mul(stride)
            .and_then(|n| n.checked_add(vocab))
            .ok_or_else(|| CudaError::Shape("rows * stride overflows".into()))?;
        if len < need {
            return Err(CudaError::Shape(format!(
                "{rows} rows of vocabulary {vocab} with stride {stride} need {need} elements, got {len}"
            )));
        }
    }
    Ok(())
}

/// Per-row outputs on the device: token (u32) and status code (u8).
pub struct DeviceOutput {
    rows: usize,
    tokens: CudaSlice<u32>,
    status: CudaSlice<u8>,
    tokens_ptr: u64,
    status_ptr: u64,
}

impl DeviceOutput {
    /// Allocates outputs for `rows` rows.
    pub fn new(stream: &Arc<CudaStream>, rows: usize) -> Result<Self> {
        let tokens = stream
            .alloc_zeros::<u32>(rows.max(1))
            .ctx("allocating outputs")?;
        let status = stream
            .alloc_zeros::<u8>(rows.max(1))
            .ctx("allocating outputs")?;
        let tokens_ptr = tokens.device_ptr(stream).0;
        let status_ptr = status.device_ptr(stream).0;
        Ok(DeviceOutput {
            rows,
            tokens,
            status,
            tokens_ptr,
            status_ptr,
        })
    }

    /// Rows.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Fills tokens and statuses with 0xFF bytes (an invalid status), so a row
    /// the kernels never wrote cannot pass for a result.
    pub fn poison(&mut self, stream: &Arc<CudaStream>) -> Result<()> {
        stream
            .context()
            .bind_to_thread()
            .ctx("binding the context")?;
        // SAFETY: both buffers hold at least `rows` elements (allocated above).
        unsafe {
            drv::memset_d8_async(self.tokens_ptr, 0xff, self.rows * 4, stream.cu_stream())
                .ctx("poisoning outputs")?;
            drv::memset_d8_async(self.status_ptr, 0xff, self.rows, stream.cu_stream())
                .ctx("poisoning outputs")
        }
    }

    /// The token buffer.
    pub fn tokens(&self) -> &CudaSlice<u32> {
        &self.tokens
    }

    /// The status buffer ([`RowStatus::code`]).
    pub fn status(&self) -> &CudaSlice<u8> {
        &self.status
    }

    /// Copies the outputs to the host (synchronizes the stream).
    pub fn download(&self, stream: &Arc<CudaStream>) -> Result<Vec<RowOutput>> {
        let t = stream.clone_dtoh(&self.tokens).ctx("downloading tokens")?;
        let s = stream.clone_dtoh(&self.status).ctx("downloading status")?;
        stream.synchronize().ctx("synchronizing the stream")?;
        (0..self.rows)
            .map(|r| {
                let status = RowStatus::from_code(s[r]).ok_or_else(|| {
                    CudaError::Shape(format!("row {r}: invalid status code {}", s[r]))
                })?;
                Ok(RowOutput {
                    token: if status == RowStatus::Ok {
                        t[r]
                    } else {
                        NO_TOKEN
                    },
                    status,
                })
            })
            .collect()
    }
}

/// Device memory the sampler owns and reuses across calls.
#[derive(Default)]
struct Workspace {
    scratch: Option<CudaSlice<u8>>,
    scratch_ptr: u64,
    counters: Option<CudaSlice<u32>>,
    counters_ptr: u64,
    counters_len: usize,
    sparse: Option<CudaSlice<f32>>,
    sparse_ptr: u64,
    cand: Option<CudaSlice<u64>>,
    cand_ptr: u64,
    topp: Option<CudaSlice<u64>>,
    topp_ptr: u64,
    topp_cnt: Option<CudaSlice<u32>>,
    topp_cnt_ptr: u64,
    /// The last call's row records: their byte offset in `scratch` and rows
    /// (read by [`Sampler::debug_row_cuts`]).
    last_rowstate: Option<(usize, usize)>,
    /// Whether the last call ran without a first pass
    /// ([`Sampler::last_skipped_first_pass`]).
    last_own_max: bool,
    /// Whether the last call's race settled pending top-p cuts
    /// ([`Sampler::last_pending_topp`]).
    last_pend: bool,
    /// Units a thread the last call's histogram blocks were given room to
    /// stage, 0 for none ([`Sampler::last_staged_units`]).
    last_stage_units: u32,
    /// The staging the last call considered: units a thread, and clusters
    /// of its rows resident at once with that room
    /// ([`Sampler::last_stage_fit`]).
    last_stage_fit: Option<(u32, u32)>,
}

/// A row's top-p cut as the kernels recorded it ([`Sampler::debug_row_cuts`]):
/// the row keeps every token whose logit is above `a`, and of those whose
/// logit equals `a` the ones up to the boundary in index order.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum RecordedCut {
    /// The race kernel (or, in their fallback, the filter kernel) finished
    /// the row.
    Index {
        /// The boundary's logit.
        a: f64,
        /// The boundary's vocabulary index.
        index: u32,
    },
    /// The top-p histogram's cluster raced the row once its cut was known
    /// (`TR_TOPP_SETTLE` of `kernels/topp.cu`, `tr_topp_settle`), and the
    /// race kernel left it.
    Settled {
        /// The boundary's logit.
        a: f64,
        /// The boundary's vocabulary index.
        index: u32,
    },
    /// The top-p histogram's cluster found the cut's index (`TR_TOPP_CUT_INDEX`
    /// of `kernels/topp.cu`, `tr_topp_cut_index`, which marks the record's
    /// `pad1` with `u32::MAX`), and the race kernel raced the row.
    Clustered {
        /// The boundary's logit.
        a: f64,
        /// The boundary's vocabulary index.
        index: u32,
    },
    /// The top-p histogram raced the row itself (`TR_TOPP_RACE` of
    /// `kernels/topp.cu`, `tr_topp_race_settle`), which never learns the
    /// boundary's index.
    Rank {
        /// The boundary's logit.
        a: f64,
        /// The boundary's rank among the row's elements of logit `a` in
        /// index order (from 1).
        q: u32,
    },
}

/// The cuts of row records (`RowState` of `kernels/sample.cu`, little-endian:
/// a_max f64, cut_a f64, cut_index u32, need_race u32, pad0 u32, pad1 u32):
/// for a filter row the top-p kernels finished (need_race 1, pad0 1) its
/// `cut_a` and `cut_index`, as well for a row the histogram's cluster raced
/// after its cut (need_race 0, pad0 1) or whose cut's index it found (need_race
/// 1, pad0 1, pad1 `u32::MAX`); for a row the histogram raced while
/// it counted (need_race 0, pad0 3) its `cut_a` and rank `pad1`, as
/// `tr_topp_pend_record` wrote them.
fn row_cuts(records: &[u8]) -> Vec<Option<RecordedCut>> {
    records
        .chunks_exact(ROWSTATE_BYTES)
        .map(|r| {
            let word = |o: usize| u32::from_le_bytes([r[o], r[o + 1], r[o + 2], r[o + 3]]);
            let mut a = [0u8; 8];
            a.copy_from_slice(&r[8..16]);
            let a = f64::from_le_bytes(a);
            match (word(20), word(24)) {
                (1, 1) if word(28) == u32::MAX => {
                    Some(RecordedCut::Clustered { a, index: word(16) })
                }
                (1, 1) => Some(RecordedCut::Index { a, index: word(16) }),
                (0, 1) => Some(RecordedCut::Settled { a, index: word(16) }),
                (0, 3) => Some(RecordedCut::Rank { a, q: word(28) }),
                _ => None,
            }
        })
        .collect()
}

fn grown(have: Option<usize>, need: usize) -> bool {
    have.is_none_or(|h| h < need)
}

/// The CUDA sampler of one stream. Compiles its kernels on first use (once
/// per process and architecture) and owns a workspace that grows as needed.
pub struct Sampler {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    kernels: Arc<Kernels>,
    sm_count: u32,
    /// Programmatic dependent launch is available (compute capability >= 9.0).
    pdl: bool,
    ws: Workspace,
    /// Blocks of a specialized pass kernel's default build resident on one
    /// SM, by (build, dtype code, block threads, dynamic shared memory).
    resident: HashMap<(PassBuild, usize, u32, u32), u32>,
    /// Clusters of the bf16 top-p histogram resident at once on this
    /// device, by blocks a cluster and staging bytes (the driver's answer,
    /// cached; 0: such clusters are not launched).
    cluster_fits: HashMap<(u32, Option<u32>), u32>,
}

/// The specialized pass kernels that have a build with fewer registers for
/// launches whose blocks queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum PassBuild {
    /// `tr_fast_*` (no fused top-k path); its wide build is `tr_fast_wide_*`.
    Fast,
    /// `tr_fused_*`; its wide build is `tr_fused_wide_*`.
    Fused,
}

impl Sampler {
    /// A sampler on a new stream of device `ordinal`.
    pub fn new(ordinal: usize) -> Result<Self> {
        kernels::require_driver()?;
        kernels::require_nvrtc()?;
        let ctx = CudaContext::new(ordinal).ctx("creating the CUDA context")?;
        let stream = ctx.new_stream().ctx("creating a stream")?;
        Self::with_stream(stream)
    }

    /// A sampler that queues its work on `stream`.
    pub fn with_stream(stream: Arc<CudaStream>) -> Result<Self> {
        Self::with_variant(stream, &[])
    }

    /// A sampler running a tuning variant of the kernels (see
    /// [`kernels::source_with`]); results are the same for every variant.
    pub fn with_variant(stream: Arc<CudaStream>, defines: &[String]) -> Result<Self> {
        kernels::require_driver()?;
        kernels::require_nvrtc()?;
        let ctx = stream.context().clone();
        let kernels = kernels::kernels_with(&ctx, defines)?;
        let sm_count = ctx
            .attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
            .ctx("reading the multiprocessor count")? as u32;
        let major = ctx
            .attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)
            .ctx("reading the compute capability")?;
        Ok(Sampler {
            ctx,
            stream,
            kernels,
            sm_count,
            pdl: major >= 9,
            ws: Workspace::default(),
            resident: HashMap::new(),
            cluster_fits: HashMap::new(),
        })
    }

    /// The stream the work is queued on.
    pub fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }

    /// The context.
    pub fn context(&self) -> &Arc<CudaContext> {
        &self.ctx
    }

    /// The compiled architecture and NVRTC's log.
    pub fn kernel_info(&self) -> (&str, &str) {
        (&self.kernels.arch, &self.kernels.log)
    }

    /// Multiprocessors of the device.
    pub fn sm_count(&self) -> u32 {
        self.sm_count
    }

    /// Grows the workspace for a batch shape, so that later calls with that
    /// shape allocate nothing (do this before capturing a CUDA graph).
    pub fn reserve(
        &mut self,
        rows: usize,
        vocab: usize,
        sparse_rows: usize,
        opts: &LaunchOptions,
    ) -> Result<Geometry> {
        let g = Geometry::new(opts, rows, vocab, self.sm_count)?;
        let scratch = rows * (g.nchunks as usize * PARTIAL_BYTES + ROWSTATE_BYTES);
        if grown(self.ws.scratch.as_ref().map(|s| s.len()), scratch) {
            let s = self
                .stream
                .alloc_zeros::<u8>(scratch.max(256))
                .ctx("allocating the workspace")?;
            self.ws.scratch_ptr = s.device_ptr(&self.stream).0;
            self.ws.scratch = Some(s);
        }
        if grown(
            self.ws.counters.as_ref().map(|_| self.ws.counters_len),
            rows,
        ) {
            let c = self
                .stream
                .alloc_zeros::<u32>(rows.max(64))
                .ctx("allocating the workspace")?;
            self.ws.counters_ptr = c.device_ptr(&self.stream).0;
            self.ws.counters_len = rows.max(64);
            self.ws.counters = Some(c);
        }
        let cand = (g.fused_list_bytes / 8) as usize;
        if cand > 0 && grown(self.ws.cand.as_ref().map(|s| s.len()), cand) {
            let c = self
                .stream
                .alloc_zeros::<u64>(cand)
                .ctx("allocating the workspace")?;
            self.ws.cand_ptr = c.device_ptr(&self.stream).0;
            self.ws.cand = Some(c);
        }
        let topp = (g.topp_bytes / 8) as usize;
        if topp > 0 && grown(self.ws.topp.as_ref().map(|s| s.len()), topp) {
            // Zeroed: the histograms and row states start clear; each call
            // leaves them clear again.
            let c = self
                .stream
                .alloc_zeros::<u64>(topp)
                .ctx("allocating the workspace")?;
            self.ws.topp_ptr = c.device_ptr(&self.stream).0;
            self.ws.topp = Some(c);
        }
        let counts = (g.topp_cnt_bytes / 4) as usize;
        if counts > 0 && grown(self.ws.topp_cnt.as_ref().map(|s| s.len()), counts) {
            // Written before they are read in every call: no clearing needed.
            let c = self
                .stream
                .alloc_zeros::<u32>(counts)
                .ctx("allocating the workspace")?;
            self.ws.topp_cnt_ptr = c.device_ptr(&self.stream).0;
            self.ws.topp_cnt = Some(c);
        }
        let sparse = sparse_rows * vocab;
        if sparse > 0 && grown(self.ws.sparse.as_ref().map(|s| s.len()), sparse) {
            let s = self
                .stream
                .alloc_zeros::<f32>(sparse)
                .ctx("allocating the workspace")?;
            self.ws.sparse_ptr = s.device_ptr(&self.stream).0;
            self.ws.sparse = Some(s);
        }
        Ok(g)
    }

    /// Samples every row of `logits` with `params` into `out`, asynchronously on
    /// the sampler's stream. No host synchronization; captureable in a CUDA graph
    /// once [`Sampler::reserve`] has sized the workspace for the shape.
    pub fn sample(
        &mut self,
        logits: &DeviceLogits<'_>,
        params: &DeviceParams,
        out: &mut DeviceOutput,
        opts: &LaunchOptions,
    ) -> Result<()> {
        let rows = logits.rows;
        if params.rows() != rows || out.rows() != rows {
            return Err(CudaError::Shape(format!(
                "logits hold {rows} rows, parameters {}, outputs {}",
                params.rows(),
                out.rows()
            )));
        }
        if params.vocab() != logits.vocab {
            return Err(CudaError::Shape(format!(
                "parameters were validated for vocabulary {}, logits have {}",
                params.vocab(),
                logits.vocab
            )));
        }
        if rows == 0 {
            return Ok(());
        }
        let mut g = self.reserve(rows, logits.vocab, params.sparse_rows(), opts)?;
        // The generic kernel keeps blocks of 256 threads (same workspace).
        let generic = opts.generic || !params.fast_path(g.fused_list_bytes > 0);
        if generic {
            g = Geometry::for_build(opts, rows, logits.vocab, self.sm_count, false)?;
        }
        let p = params.ptrs();
        let partials = self.ws.scratch_ptr;
        let fused_on = g.fused_list_bytes > 0;
        let topp_on = g.topp_bytes > 0;
        let (pass_smem, staged) = g.pass_smem_for(logits.dtype.size() as u32);
        let rowstate_at = rows * g.nchunks as usize * PARTIAL_BYTES;
        let rowstate = partials + rowstate_at as u64;
        self.ws.last_rowstate = Some((rowstate_at, rows));
        let mut args = SampleArgs {
            logits: logits.ptr,
            row_stride: logits.stride as u64,
            temperature: p.temperature,
            top_k: p.top_k,
            top_p: p.top_p,
            min_p: p.min_p,
            seed: p.seed,
            position: p.position,
            profile: p.profile,
            bias_kind: p.bias_kind,
            bias_slot: p.bias_slot,
            dense_bias: p.dense,
            dense_stride: logits.vocab as u64,
            sparse_dense: self.ws.sparse_ptr,
            sparse_offsets: p.sparse_offsets,
            sparse_index: p.sparse_index,
            sparse_value: p.sparse_value,
            partials,
            counters: self.ws.counters_ptr,
            rowstate,
            out_token: out.tokens_ptr,
            out_status: out.status_ptr,
            vocab: logits.vocab as u32,
            rows: rows as u32,
            nchunks: g.nchunks,
            chunk_len: g.chunk_len,
            phase: 0,
            queue_cap: g.queue_cap,
            cand: self.ws.cand_ptr,
            fused_on: u32::from(fused_on),
            topp_on: u32::from(topp_on),
            topp: self.ws.topp_ptr,
            topp_cnt: if g.topp_cnt_bytes > 0 {
                self.ws.topp_cnt_ptr
            } else {
                0
            },
            race_stages: u32::from(staged),
            topp_seg_units: g.topp_seg_units,
            topp_pend: 0,
            topp_own_max: 0,
            topp_late: u32::from(topp_late_trigger(opts, rows)),
        };
        let dt = logits.dtype.code() as usize;
        let k = self.kernels.clone();
        let pdl = self.pdl && !opts.no_pdl;
        self.ctx.bind_to_thread().ctx("binding the context")?;
        if params.any_sparse() {
            self.launch(&k.expand, &mut args, (rows as u32, 256, 0), pdl)?;
        }
        let pass_blocks = rows as u32 * g.nchunks;
        // The generic kernel serves every row; the specialized ones only
        // batches without bias or direct-profile racing rows, and only the
        // first pass with fused top-k rows needs the one with that path
        // (phase 1 never takes it).
        let fused_rows = fused_on && params.any_fused();
        let smem = if fused_rows {
            pass_smem.max(g.fused_smem)
        } else {
            pass_smem
        };
        // A specialized kernel with more blocks than its default build
        // keeps resident takes its wide build (fewer registers, more blocks an
        // SM, some spills: `tr_fast_wide_*` 80, `tr_fused_wide_*` 64;
        // docs/cuda-notes.md, runs 9, 11 and 14).
        // Pending top-p rows (kernels/topp.cu, `tr_topp_pend`): bf16 batches
        // whose race runs a specialized kernel, which then lists the cut's
        // value and settles the cut in its pass-kernel shared memory (the
        // race queues, used up by then).
        let pend = !generic
            && !opts.no_topp_pend
            && logits.dtype == Dtype::Bf16
            && topp_on
            && params.any_topp()
            && g.pass_smem >= PEND_SMEM_BYTES
            && u64::from(g.nchunks) * u64::from(g.block_threads / 32) * 4 <= TOPP_PEND_WORDS
            && logits.vocab < 1 << 27;
        let (pass, race_pass) = if generic {
            (&k.pass[dt], &k.pass[dt])
        } else {
            let wide =
                self.blocks_queue(PassBuild::Fast, dt, pass_blocks, g.block_threads, pass_smem)?;
            let fast = if wide { &k.fast_wide[dt] } else { &k.fast[dt] };
            let race = match (pend, wide) {
                (false, _) => fast,
                (true, false) => &k.fast_pend,
                (true, true) => &k.fast_wide_pend,
            };
            if !fused_rows {
                (fast, race)
            } else if self.blocks_queue(PassBuild::Fused, dt, pass_blocks, g.block_threads, smem)? {
                (&k.fused_wide[dt], race)
            } else {
                (&k.fused[dt], race)
            }
        };
        args.topp_pend = u32::from(pend);
        self.ws.last_pend = pend;
        if pend {
            // No gather: nothing reads a chunk's own counts or the segments.
            args.topp_cnt = 0;
            args.topp_seg_units = 0;
        }
        // A batch of pending top-p rows alone has no first pass: each row's
        // histogram blocks, one cluster a row, find its record
        // (kernels/topp.cu, tr_topp_own_max). Rows of more chunks than the
        // cluster's size (launch::topp_cluster_blocks) are split into that
        // many.
        let cluster = topp_cluster_blocks(opts, rows, g.topp_nchunks, self.sm_count);
        let (mut topp_nchunks, mut topp_chunk_len) = (g.topp_nchunks, g.topp_chunk_len);
        if topp_nchunks > cluster {
            let (n, len) = split(logits.vocab, u64::from(cluster))?;
            (topp_nchunks, topp_chunk_len) = (n as u32, len as u32);
        }
        // Plain stream order keeps the first pass: clusters have only been
        // launched together with programmatic dependent launch on a device
        // (docs/cuda-notes.md, run 26).
        // Rows of short chunks stage them (launch::topp_stage_smem) where the
        // device keeps every row's cluster resident at once with the
        // staging's shared memory; else the build without it. (At B = 64 on
        // the H200, 80 KiB blocks in clusters of 4 did not all fit: the
        // histogram ran in two waves, top-p 0.9 63.6 -> 76.1 us per call;
        // docs/cuda-notes.md, run 30.)
        let mut stage_smem = topp_stage_smem(topp_nchunks, topp_chunk_len);
        self.ws.last_stage_fit = None;
        let own_max = pend && params.all_topp() && !opts.first_pass_always && pdl && {
            if let Some(bytes) = stage_smem {
                let n = self.max_clusters(topp_nchunks, stage_smem)?;
                self.ws.last_stage_fit = Some(((bytes - TOPP_STAGE_AT) / (256 * 16), n));
                if (n as usize) < rows {
                    stage_smem = None;
                }
            }
            self.max_clusters(topp_nchunks, stage_smem)? > 0
        };
        self.ws.last_own_max = own_max;
        self.ws.last_stage_units = match stage_smem {
            Some(bytes) if own_max => (bytes - TOPP_STAGE_AT) / (256 * 16),
            _ => 0,
        };
        if !own_max {
            (topp_nchunks, topp_chunk_len) = (g.topp_nchunks, g.topp_chunk_len);
        }
        let second = params.needs_second_pass(fused_on, topp_on);
        for f in [pass, race_pass].iter().take(if second { 2 } else { 1 }) {
            let max = f
                .max_threads_per_block()
                .ctx("reading the kernel's block limit")?;
            if g.block_threads as i32 > max {
                return Err(CudaError::Shape(format!(
                    "block_threads {} exceeds this kernel variant's limit {max}",
                    g.block_threads
                )));
            }
        }
        if !own_max {
            self.launch(pass, &mut args, (pass_blocks, g.block_threads, smem), pdl)?;
        }
        if topp_on && params.any_topp() {
            // Binned top-p (kernels/topp.cu): masses into bins and the cut's
            // bin; its elements and the cut (or, for a row the bins cannot
            // settle, the filter's selection). Memory-bound: their own chunks.
            let topp_args = &mut SampleArgs {
                nchunks: topp_nchunks,
                chunk_len: topp_chunk_len,
                topp_own_max: u32::from(own_max),
                ..args
            };
            let topp_blocks = rows as u32 * topp_nchunks;
            // bf16 rows count values in dynamic shared memory (one table,
            // or one a segment); f32/f16 rows count their bins in static
            // memory and sum their masses in dynamic memory.
            // Batches without a first pass whose chunks are short stage
            // them for the scan and the count (launch::topp_stage_smem), in
            // their own build.
            let stage = own_max && stage_smem.is_some();
            let hist_smem = if let (true, Some(bytes)) = (stage, stage_smem) {
                bytes
            } else if pend {
                TOPP_TABLE_BYTES
            } else if logits.dtype == Dtype::Bf16 {
                g.topp_hist_smem
            } else {
                topp_float_hist_smem(topp_chunk_len)
            };
            self.launch_clusters(
                if stage {
                    &k.topp_hist_stage
                } else {
                    &k.topp_hist[dt]
                },
                topp_args,
                (topp_blocks, 256, hist_smem),
                pdl,
                if own_max { topp_nchunks } else { 1 },
            )?;
            // Pending rows take their cut in the race, every other row its
            // fallback in the histogram: no gather.
            if !pend {
                self.launch(&k.topp_gather[dt], topp_args, (topp_blocks, 256, 0), pdl)?;
            }
        }
        if second {
            if params.needs_filter_kernel(fused_on, topp_on) {
                self.launch(
                    &k.filter[dt],
                    &mut args,
                    (rows as u32, g.filter_threads, 0),
                    pdl,
                )?;
            }
            args.phase = 1;
            self.launch(
                race_pass,
                &mut args,
                (pass_blocks, g.block_threads, pass_smem),
                pdl,
            )?;
        }
        Ok(())
    }

    /// How many clusters of `blocks` blocks of the bf16 top-p histogram the
    /// device keeps resident at once (the driver's answer, cached), 0 where
    /// it cannot run a row as one such cluster: thread block clusters need
    /// compute capability 9.0 (the devices that also have programmatic
    /// dependent launch), more than 8 blocks the non-portable opt-in, and the
    /// driver must place at least one. Asked of the build and the shared
    /// memory the launch will take: the staging build with `stage_smem` bytes
    /// a block where given, else the build without it. One block needs no
    /// cluster (`u32::MAX`).
    fn max_clusters(&mut self, blocks: u32, stage_smem: Option<u32>) -> Result<u32> {
        if !self.pdl {
            return Ok(0);
        }
        if blocks <= 1 {
            return Ok(u32::MAX);
        }
        let key = (blocks, stage_smem);
        if let Some(&n) = self.cluster_fits.get(&key) {
            return Ok(n);
        }
        // Both builds of the bf16 histogram (one stages its chunks) launch
        // such clusters; the driver is asked about the one this launch takes.
        let (f, smem) = match stage_smem {
            Some(bytes) => (&self.kernels.topp_hist_stage, bytes),
            None => (
                &self.kernels.topp_hist[Dtype::Bf16.code() as usize],
                TOPP_TABLE_BYTES,
            ),
        };
        if blocks > 8
            && [
                &self.kernels.topp_hist[Dtype::Bf16.code() as usize],
                &self.kernels.topp_hist_stage,
            ]
            .iter()
            .any(|f| {
                f.set_attribute(
                    sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED,
                    1,
                )
                .is_err()
            })
        {
            self.cluster_fits.insert(key, 0);
            return Ok(0);
        }
        // SAFETY: an all-zero launch attribute is a valid value of the union;
        // the cluster dimension is set below.
        let mut attr: sys::CUlaunchAttribute = unsafe { std::mem::zeroed() };
        attr.id = sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
        attr.value.clusterDim.x = blocks;
        attr.value.clusterDim.y = 1;
        attr.value.clusterDim.z = 1;
        let config = sys::CUlaunchConfig {
            gridDimX: blocks,
            gridDimY: 1,
            gridDimZ: 1,
            blockDimX: 256,
            blockDimY: 1,
            blockDimZ: 1,
            sharedMemBytes: smem,
            hStream: self.stream.cu_stream(),
            attrs: &mut attr,
            numAttrs: 1,
        };
        let mut n: std::ffi::c_int = 0;
        self.ctx.bind_to_thread().ctx("binding the context")?;
        // SAFETY: `config` and `attr` outlive the call, which only reads
        // them; `n` is a valid place for the answer.
        let n = match unsafe { sys::cuOccupancyMaxActiveClusters(&mut n, f.cu_function(), &config) }
            .result()
        {
            Ok(()) => n.max(0) as u32,
            Err(_) => 0,
        };
        self.cluster_fits.insert(key, n);
        Ok(n)
    }

    /// Whether this device launches thread block clusters (compute
    /// capability 9.0 and later), which batches without a first pass need.
    pub fn has_clusters(&self) -> bool {
        self.pdl
    }

    /// Whether the last [`Sampler::sample`] call launched the race that
    /// settles pending bf16 top-p cuts (LaunchOptions::no_topp_pend), so
    /// that its rows whose cut value holds few elements had no gather. For
    /// checks that must know the path ran.
    pub fn last_pending_topp(&self) -> bool {
        self.ws.last_pend
    }

    /// Whether the last [`Sampler::sample`] call ran without a first pass
    /// (a bf16 batch of pending top-p rows alone, whose histogram blocks
    /// found the rows' records). For checks that must know the path ran.
    pub fn last_skipped_first_pass(&self) -> bool {
        self.ws.last_own_max
    }

    /// Units a thread that the last [`Sampler::sample`] call's histogram
    /// blocks were given room to stage in shared memory (a batch without a
    /// first pass whose rows' chunks are short: launch::topp_stage_smem), 0
    /// where it staged none. A block of a row that is not 16-byte aligned,
    /// or the chunk holding a row's partial last unit, loads instead. For
    /// checks that must know the path ran.
    pub fn last_staged_units(&self) -> u32 {
        self.ws.last_stage_units
    }

    /// The staging the last [`Sampler::sample`] call considered for a batch
    /// without a first pass: units a thread, and how many clusters of a
    /// row's histogram blocks the device keeps resident at once with that
    /// room (the driver's answer). It stages only where every row's cluster
    /// fits at once; `None` where no staging was considered.
    pub fn last_stage_fit(&self) -> Option<(u32, u32)> {
        self.ws.last_stage_fit
    }

    /// Whether a launch of `blocks` blocks of `build` (its default build) has
    /// more blocks than the device keeps resident at once (the driver's
    /// occupancy answer, cached per build, dtype, block size and shared memory).
    fn blocks_queue(
        &mut self,
        build: PassBuild,
        dt: usize,
        blocks: u32,
        block_threads: u32,
        smem: u32,
    ) -> Result<bool> {
        let key = (build, dt, block_threads, smem);
        let per_sm = match self.resident.get(&key) {
            Some(&n) => n,
            None => {
                let f = match build {
                    PassBuild::Fast => &self.kernels.fast[dt],
                    PassBuild::Fused => &self.kernels.fused[dt],
                };
                let n = f
                    .occupancy_max_active_blocks_per_multiprocessor(
                        block_threads,
                        smem as usize,
                        None,
                    )
                    .ctx("reading the pass kernel's occupancy")?
                    .max(1);
                self.resident.insert(key, n);
                n
            }
        };
        Ok(u64::from(blocks) > u64::from(per_sm) * u64::from(self.sm_count))
    }

    /// Launches one kernel of the sequence: `shape` is (grid, block, dynamic
    /// shared memory). With `pdl`, the kernel may be scheduled while the
    /// previous one in the stream runs (every sampling kernel waits for it
    /// first: `tr_grid_begin`).
    fn launch(
        &self,
        f: &CudaFunction,
        args: &mut SampleArgs,
        shape: (u32, u32, u32),
        pdl: bool,
    ) -> Result<()> {
        self.launch_clusters(f, args, shape, pdl, 1)
    }

    /// [`Sampler::launch`] in thread block clusters of `cluster` blocks
    /// (consecutive block indices; 1: no cluster attribute).
    fn launch_clusters(
        &self,
        f: &CudaFunction,
        args: &mut SampleArgs,
        shape: (u32, u32, u32),
        pdl: bool,
        cluster: u32,
    ) -> Result<()> {
        let (grid, block, smem) = shape;
        let mut params = [args as *mut SampleArgs as *mut c_void];
        if !pdl && cluster <= 1 {
            // SAFETY: the argument block matches the kernel's `SampleArgs` by
            // value; every pointer in it is live for the queued work (borrowed
            // descriptors, the sampler's own workspace and the parameters'
            // buffers).
            return unsafe {
                drv::launch_kernel(
                    f.cu_function(),
                    (grid, 1, 1),
                    (block, 1, 1),
                    smem,
                    self.stream.cu_stream(),
                    &mut params,
                )
            }
            .ctx("launching a sampling kernel");
        }
        // SAFETY: an all-zero launch attribute is a valid value of the union
        // (its `pad` member); the fields that matter are set below.
        let mut attrs: [sys::CUlaunchAttribute; 2] = unsafe { std::mem::zeroed() };
        let mut n = 0;
        if pdl {
            attrs[n].id =
                sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
            attrs[n].value.programmaticStreamSerializationAllowed = 1;
            n += 1;
        }
        if cluster > 1 {
            attrs[n].id = sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
            attrs[n].value.clusterDim.x = cluster;
            attrs[n].value.clusterDim.y = 1;
            attrs[n].value.clusterDim.z = 1;
            n += 1;
        }
        let config = sys::CUlaunchConfig {
            gridDimX: grid,
            gridDimY: 1,
            gridDimZ: 1,
            blockDimX: block,
            blockDimY: 1,
            blockDimZ: 1,
            sharedMemBytes: smem,
            hStream: self.stream.cu_stream(),
            attrs: attrs.as_mut_ptr(),
            numAttrs: n as u32,
        };
        // SAFETY: as above; `config` and `attrs` outlive the call, which copies them.
        unsafe {
            sys::cuLaunchKernelEx(
                &config,
                f.cu_function(),
                params.as_mut_ptr(),
                std::ptr::null_mut(),
            )
        }
        .result()
        .ctx("launching a sampling kernel")
    }

    /// Uploads, samples and downloads: the GPU counterpart of
    /// `tailrace_model::sample_batch` (same validation, same results).
    pub fn sample_host<T: HostLogit>(
        &mut self,
        logits: &[T],
        vocab: usize,
        row_stride: usize,
        rows: &[RowRequest],
    ) -> Result<Vec<RowOutput>> {
        self.sample_host_with(&LaunchOptions::default(), logits, vocab, row_stride, rows)
    }

    /// [`Sampler::sample_host`] with explicit launch options.
    pub fn sample_host_with<T: HostLogit>(
        &mut self,
        opts: &LaunchOptions,
        logits: &[T],
        vocab: usize,
        row_stride: usize,
        rows: &[RowRequest],
    ) -> Result<Vec<RowOutput>> {
        let params = DeviceParams::new(&self.stream, vocab, rows)?;
        check_shape(logits.len(), rows.len(), vocab, row_stride).map_err(|e| match e {
            CudaError::Shape(s) => CudaError::Param(tailrace_model::ParamError::Shape(s)),
            e => e,
        })?;
        if rows.is_empty() {
            return Ok(Vec::new());
        }
        let used = (rows.len() - 1) * row_stride + vocab;
        let buf = self
            .stream
            .clone_htod(&T::bits(&logits[..used]))
            .ctx("uploading logits")?;
        let dl = DeviceLogits::new(
            &buf,
            &self.stream,
            T::DEVICE_DTYPE,
            rows.len(),
            vocab,
            row_stride,
        )?;
        let mut out = DeviceOutput::new(&self.stream, rows.len())?;
        out.poison(&self.stream)?;
        self.sample(&dl, &params, &mut out, opts)?;
        out.download(&self.stream)
    }

    /// The rank-order cut the top-p kernels (`kernels/topp.cu`) recorded for
    /// each row of the last [`Sampler::sample`] call, after waiting for the
    /// stream: `Some(cut)` for a row they finished (their own cut or the
    /// filter kernel's in their fallback, by index; or, for a row the
    /// histogram raced itself, by rank among the cut value's elements),
    /// `None` for rows they did not take (other modes, small vocabularies,
    /// rows the filter kernel took). For acceptance checks of the cut itself
    /// (`tailrace-cuda-check`), not for serving.
    pub fn debug_row_cuts(&self) -> Result<Vec<Option<RecordedCut>>> {
        let (Some((at, rows)), Some(scratch)) = (self.ws.last_rowstate, self.ws.scratch.as_ref())
        else {
            return Ok(Vec::new());
        };
        let bytes = self
            .stream
            .clone_dtoh(scratch)
            .ctx("downloading the row records")?;
        Ok(row_cuts(&bytes[at..at + rows * ROWSTATE_BYTES]))
    }

    /// Fills `buf` (elements of `dtype`) with random logits, about N(0, scale^2).
    pub fn fill_random<B: DeviceRepr>(
        &self,
        buf: &mut CudaSlice<B>,
        dtype: Dtype,
        seed: u64,
        scale: f32,
    ) -> Result<()> {
        let n = (buf.len() * std::mem::size_of::<B>() / dtype.size()) as u64;
        let ptr = buf.device_ptr(&self.stream).0;
        let mut a_ptr = ptr;
        let mut a_n = n;
        let mut a_dt = dtype.code();
        let mut a_seed = seed;
        let mut a_scale = scale;
        let mut params = [
            &mut a_ptr as *mut u64 as *mut c_void,
            &mut a_n as *mut u64 as *mut c_void,
            &mut a_dt as *mut u32 as *mut c_void,
            &mut a_seed as *mut u64 as *mut c_void,
            &mut a_scale as *mut f32 as *mut c_void,
        ];
        self.ctx.bind_to_thread().ctx("binding the context")?;
        // SAFETY: argument types match `tr_fill_random`; the buffer holds n elements.
        unsafe {
            drv::launch_kernel(
                self.kernels.fill_random.cu_function(),
                (4 * self.sm_count, 1, 1),
                (256, 1, 1),
                0,
                self.stream.cu_stream(),
                &mut params,
            )
        }
        .ctx("launching tr_fill_random")
    }

    pub(crate) fn kernels(&self) -> &Kernels {
        &self.kernels
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(
        a_max: f64,
        cut_a: f64,
        cut_index: u32,
        need_race: u32,
        pad0: u32,
        pad1: u32,
    ) -> Vec<u8> {
        let mut r = Vec::new();
        r.extend_from_slice(&a_max.to_le_bytes());
        r.extend_from_slice(&cut_a.to_le_bytes());
        for w in [cut_index, need_race, pad0, pad1] {
            r.extend_from_slice(&w.to_le_bytes());
        }
        r
    }

    #[test]
    fn row_cuts_read_the_kernel_record() {
        // The layout row_cuts reads is the kernel's struct, field for field.
        let src = include_str!("../kernels/sample.cu");
        let body = &src[src.find("struct RowState {").unwrap()..];
        let body = &body[..body.find("};").unwrap()];
        let fields: Vec<&str> = body
            .lines()
            .skip(1)
            .filter_map(|l| l.split("//").next())
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect();
        assert_eq!(
            fields,
            [
                "double a_max;",
                "double cut_a;",
                "u32 cut_index;",
                "u32 need_race;",
                "u32 pad0;",
                "u32 pad1;"
            ]
        );
        assert_eq!(ROWSTATE_BYTES, 8 + 8 + 4 * 4);
        let mut bytes = record(3.5, -1.25, 17, 1, 1, 7);
        bytes.extend(record(2.0, 0.5, 9, 1, 0, 7)); // the filter kernel's row
        bytes.extend(record(2.0, f64::NEG_INFINITY, u32::MAX, 0, 0, 0)); // no filter
        bytes.extend(record(1.0, 0.75, 4_000_000_000, 1, 1, 7));
        // A row the histogram raced: its cut as value and rank among that
        // value's elements (pad1), no index.
        bytes.extend(record(1.0, 0.75, u32::MAX, 0, 3, 12));
        bytes.extend(record(1.0, 0.75, u32::MAX, 1, 2, 12)); // pending: the race kernel's
                                                             // A row the histogram's cluster raced after its cut.
        bytes.extend(record(1.0, 0.75, 31, 0, 1, 12));
        // A row whose cut's index the histogram's cluster found (pad1 marked).
        bytes.extend(record(1.0, 0.75, 40, 1, 1, u32::MAX));
        let index = |a, index| Some(RecordedCut::Index { a, index });
        assert_eq!(
            row_cuts(&bytes),
            vec![
                index(-1.25, 17),
                None,
                None,
                index(0.75, 4_000_000_000),
                Some(RecordedCut::Rank { a: 0.75, q: 12 }),
                None,
                Some(RecordedCut::Settled { a: 0.75, index: 31 }),
                Some(RecordedCut::Clustered { a: 0.75, index: 40 })
            ]
        );
    }
}
