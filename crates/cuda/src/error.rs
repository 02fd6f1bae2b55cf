//! The backend's typed errors.

use cudarc::driver::DriverError;
use tailrace_model::ParamError;

/// Everything that can go wrong in the CUDA backend.
#[derive(Debug, thiserror::Error)]
pub enum CudaError {
    /// libcuda could not be loaded (no NVIDIA driver on this machine).
    #[error(
        "CUDA driver library not found (libcuda.so): this machine has no usable NVIDIA driver"
    )]
    NoDriver,
    /// libnvrtc could not be loaded.
    #[error(
        "NVRTC library not found (libnvrtc.so.13): install CUDA 13 or `pip install nvidia-cuda-nvrtc==13.0.*` \
         and put its nvidia/cu13/lib folder (with libnvrtc-builtins) on LD_LIBRARY_PATH"
    )]
    NoNvrtc,
    /// A CUDA driver call failed.
    #[error("CUDA driver call failed while {context}: {source:?}")]
    Driver {
        /// What the backend was doing.
        context: &'static str,
        /// The driver's error code.
        source: DriverError,
    },
    /// NVRTC rejected the kernels (or wrote a warning).
    #[error("NVRTC compilation failed (options {options:?}):\n{log}")]
    Compile {
        /// The options passed to NVRTC.
        options: Vec<String>,
        /// NVRTC's log.
        log: String,
    },
    /// A parameter was rejected before any work (same checks as the CPU model).
    #[error(transparent)]
    Param(#[from] ParamError),
    /// Buffers that do not fit the call (rows, vocabulary, dtype, launch options).
    #[error("shape mismatch: {0}")]
    Shape(String),
}

/// Result of the backend.
pub type Result<T, E = CudaError> = std::result::Result<T, E>;

/// Attaches a context to a driver error.
pub(crate) trait DriverContext<T> {
    fn ctx(self, context: &'static str) -> Result<T>;
}

impl<T> DriverContext<T> for std::result::Result<T, DriverError> {
    fn ctx(self, context: &'static str) -> Result<T> {
        self.map_err(|source| CudaError::Driver { context, source })
    }
}
