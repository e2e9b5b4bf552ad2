//! Which vector instructions this CPU has, as a token: a [`Kernel`] is
//! made only for instructions the CPU supports, so code that dispatches
//! on [`Kernel::level`] to `unsafe` vector routines is safe to run. The
//! one token for every vector routine in the workspace: counting bytes
//! here ([`Kernel::count`]), classifying CSV's structural bytes in
//! swath-csv. Every level has a scalar twin the tests compare it against.

/// A vector instruction level this CPU supports. Kernels compare by value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Kernel(Level);

/// The instructions of a [`Kernel`]: only a kernel made by [`Kernel::sse2`]
/// or [`Kernel::avx2`] on a CPU that has them gives these levels, so a
/// routine given the level of a kernel may use them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    /// One byte at a time.
    Scalar,
    /// 16 bytes at a time (every x86_64 CPU).
    #[cfg(target_arch = "x86_64")]
    Sse2,
    /// 32 bytes at a time.
    #[cfg(target_arch = "x86_64")]
    Avx2,
}

impl Kernel {
    /// One byte at a time: the slow, obvious twin.
    pub fn scalar() -> Kernel {
        Kernel(Level::Scalar)
    }

    /// 16 bytes at a time, when the CPU has SSE2 (every x86_64 CPU).
    pub fn sse2() -> Option<Kernel> {
        #[cfg(target_arch = "x86_64")]
        {
            Some(Kernel(Level::Sse2))
        }
        #[cfg(not(target_arch = "x86_64"))]
        None
    }

    /// 32 bytes at a time, when the CPU has AVX2.
    pub fn avx2() -> Option<Kernel> {
        #[cfg(target_arch = "x86_64")]
        {
            if std::is_x86_feature_detected!("avx2") {
                return Some(Kernel(Level::Avx2));
            }
            None
        }
        #[cfg(not(target_arch = "x86_64"))]
        None
    }

    /// The fastest kernel this CPU supports (the feature check is a cached
    /// atomic load).
    pub fn detect() -> Kernel {
        Kernel::avx2().or_else(Kernel::sse2).unwrap_or_else(Kernel::scalar)
    }

    /// Every kernel this CPU can run, slowest first.
    pub fn available() -> Vec<Kernel> {
        [Some(Kernel::scalar()), Kernel::sse2(), Kernel::avx2()].into_iter().flatten().collect()
    }

    /// Its instructions, for a routine to dispatch on.
    #[inline]
    pub fn level(self) -> Level {
        self.0
    }

    /// A short name: `scalar`, `sse2` or `avx2`.
    pub fn name(self) -> &'static str {
        match self.0 {
            Level::Scalar => "scalar",
            #[cfg(target_arch = "x86_64")]
            Level::Sse2 => "sse2",
            #[cfg(target_arch = "x86_64")]
            Level::Avx2 => "avx2",
        }
    }
}

impl Default for Kernel {
    /// The fastest this CPU supports.
    fn default() -> Kernel {
        Kernel::detect()
    }
}
