//! Output files that never exist half-written.
//!
//! [`AtomicFile`] writes to a temporary file beside the target (same
//! directory, so same file system) and renames it into place only on
//! [`AtomicFile::commit`]; on an error, on drop without commit, and on
//! Ctrl-C (see [`remove_on_interrupt`]) the temporary file is removed and a
//! previous file under the real name is left as it was. [`Output`] adds `-`
//! for standard output, so every command that writes takes the same path,
//! and compresses on every core where the name ends in `.gz` or `.zst`
//! ([`swath::compress`]; other compressed names are refused).
//!
//! Beside it: [`parquet`] and [`arrow`] (Parquet and Arrow IPC written
//! that way), [`parts`]
//! (the parts of a split, written in parallel), [`json_escape`] (JSON
//! strings for the commands that print JSON).
//!
//! Not promised: durability across a power loss. That needs an fsync of the
//! file and the directory, which a 512 MiB generated file does not deserve;
//! [`AtomicFile::commit`] says where to add it if a command ever needs it.

pub mod arrow;
pub mod json_escape;
pub mod parquet;
pub mod parts;

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, Once};

use swath::compress::{Codec, CompressWriter};

/// Paths to remove if the process is interrupted: temp files being written,
/// temp directories of generated data.
static PENDING: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Remove every registered temporary path on Ctrl-C (SIGINT, and SIGTERM),
/// then exit with status 130. Idempotent; a command that creates temporary
/// files calls it before creating them.
pub fn remove_on_interrupt() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        // ctrlc runs this on its own thread, not in the signal handler, so
        // taking a lock and calling remove_file is allowed here.
        let installed = ctrlc::set_handler(|| {
            let paths = PENDING.lock().map(|p| p.clone()).unwrap_or_default();
            for path in paths {
                remove_path(&path);
            }
            // Multipart uploads to an object store: aborted, never completed.
            #[cfg(feature = "remote")]
            swath_remote::abort_uploads();
            let _ = writeln!(io::stderr(), "swath: interrupted");
            std::process::exit(130);
        });
        if let Err(err) = installed {
            // Without the handler, Ctrl-C still stops us; only cleanup is lost.
            let _ = writeln!(io::stderr(), "swath: warning: no Ctrl-C cleanup: {err}");
        }
    });
}

/// Register `path` (a file or a directory) for removal on Ctrl-C.
pub fn register_temp(path: &Path) {
    if let Ok(mut pending) = PENDING.lock() {
        pending.push(path.to_path_buf());
    }
}

/// Forget `path`: it was removed or renamed into place.
pub fn unregister_temp(path: &Path) {
    if let Ok(mut pending) = PENDING.lock() {
        pending.retain(|p| p != path);
    }
}

fn remove_path(path: &Path) {
    let _ = if path.is_dir() { fs::remove_dir_all(path) } else { fs::remove_file(path) };
}

/// A file written under a temporary name and renamed into place on commit.
#[derive(Debug)]
pub struct AtomicFile {
    /// `None` once committed.
    file: Option<File>,
    tmp: PathBuf,
    target: PathBuf,
}

impl AtomicFile {
    /// Create a temporary file beside `target`.
    ///
    /// # Errors
    ///
    /// When the directory of `target` cannot hold a new file (missing,
    /// read-only, ...); the message names the target.
    pub fn create(target: impl AsRef<Path>) -> io::Result<AtomicFile> {
        let target = target.as_ref();
        let name = target.file_name().ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("{}: not a file name", target.display()),
            )
        })?;
        let dir = match target.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        static SERIAL: AtomicU64 = AtomicU64::new(0);
        loop {
            let serial = SERIAL.fetch_add(1, Ordering::Relaxed);
            let mut tmp_name = std::ffi::OsString::from(".");
            tmp_name.push(name);
            tmp_name.push(format!(".{}.{serial}.swath-tmp", std::process::id()));
            let tmp = dir.join(tmp_name);
            match OpenOptions::new().write(true).create_new(true).open(&tmp) {
                Ok(file) => {
                    register_temp(&tmp);
                    // Keep the mode of a file we replace (an executable script, a 0600 secret).
                    if let Ok(meta) = fs::metadata(target) {
                        if meta.is_file() {
                            let _ = file.set_permissions(meta.permissions());
                        }
                    }
                    return Ok(AtomicFile { file: Some(file), tmp, target: target.to_path_buf() });
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                Err(e) => {
                    return Err(io::Error::new(
                        e.kind(),
                        format!("{}: cannot create a file here: {e}", target.display()),
                    ))
                }
            }
        }
    }

    /// The open temporary file (for `copy_file_range`, which writes at its
    /// offset); `None` once committed.
    pub fn as_file(&self) -> Option<&File> {
        self.file.as_ref()
    }

    /// The temporary name it is written under.
    #[cfg(test)]
    pub fn temp_path(&self) -> &Path {
        &self.tmp
    }

    /// Rename the file into place. On failure the temporary file is removed.
    ///
    /// # Errors
    ///
    /// The rename error, naming the target (e.g. it is a directory).
    pub fn commit(mut self) -> io::Result<()> {
        // Dropping the handle closes it; writes already reached the kernel
        // (File is unbuffered). Add `file.sync_all()` here for durability.
        drop(self.file.take());
        let renamed = fs::rename(&self.tmp, &self.target);
        if let Err(e) = renamed {
            remove_path(&self.tmp);
            unregister_temp(&self.tmp);
            return Err(io::Error::new(
                e.kind(),
                format!("{}: cannot put the file in place: {e}", self.target.display()),
            ));
        }
        unregister_temp(&self.tmp);
        Ok(())
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match &mut self.file {
            Some(f) => f.write(buf),
            None => Err(io::Error::other("write after commit")),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match &mut self.file {
            Some(f) => f.flush(),
            None => Ok(()),
        }
    }
}

impl Drop for AtomicFile {
    /// Not committed: the work failed, so the temporary file goes.
    fn drop(&mut self) {
        if self.file.take().is_some() {
            remove_path(&self.tmp);
            unregister_temp(&self.tmp);
        }
    }
}

/// Where a command writes: standard output (`-`), an [`AtomicFile`], or
/// something that is not a regular file (`/dev/null`, a FIFO), written
/// directly.
#[derive(Debug)]
pub enum Output {
    /// Standard output, for `-`.
    Stdout(io::Stdout),
    /// A file, renamed into place by [`Output::finish`].
    File(AtomicFile),
    /// An existing device, FIFO or socket. Renaming a temporary file over
    /// it would replace it: as root, `-o /dev/null` would turn /dev/null
    /// into a regular file that every later reader of /dev/null then reads.
    Special(fs::File),
    /// An object store URL (`-o s3://bucket/key`): a multipart upload,
    /// completed by [`Output::finish`], aborted otherwise.
    #[cfg(feature = "remote")]
    Remote(swath_remote::Upload),
    /// Any of the above, written through a compressor (`-o FILE.gz`).
    Compressed(Box<CompressWriter<Output>>),
}

impl Output {
    /// Open `path` for text: `-` is standard output; a name ending in
    /// `.gz` or `.zst` is written compressed, on `--threads` threads.
    ///
    /// # Errors
    ///
    /// See [`AtomicFile::create`]; a compressed format swath does not
    /// write (`.bz2`, `.xz`, ...).
    pub fn create(path: &Path) -> io::Result<Output> {
        let codec = Codec::for_path(path).map_err(io::Error::other)?;
        let out = Output::create_plain(path)?;
        match codec {
            Some(codec) if path != Path::new("-") => {
                let threads = swath::decompress::decode_threads();
                Ok(Output::Compressed(Box::new(CompressWriter::new(out, codec, threads)?)))
            }
            _ => Ok(out),
        }
    }

    /// Open `path` for a binary format that compresses inside itself
    /// (`what`: "a Parquet file"): a name that asks for compression of the
    /// whole file is refused, since no reader of `what` would open it.
    ///
    /// # Errors
    ///
    /// See [`AtomicFile::create`]; a compressed file's name.
    pub fn create_binary(path: &Path, what: &str) -> io::Result<Output> {
        let compressed = !matches!(Codec::for_path(path), Ok(None));
        if compressed && path != Path::new("-") {
            return Err(io::Error::other(format!(
                "{what} is not written compressed as a whole (no reader would open it; \
                 its own compression is inside it): drop the compressed extension"
            )));
        }
        Output::create_plain(path)
    }

    fn create_plain(path: &Path) -> io::Result<Output> {
        if path == Path::new("-") {
            return Ok(Output::Stdout(io::stdout()));
        }
        #[cfg(feature = "remote")]
        if let Some(url) = swath::remote::as_url(path) {
            remove_on_interrupt();
            let opts = swath_remote::RemoteOptions::from_env().map_err(io::Error::other)?;
            let upload = swath_remote::Upload::create(url, &opts).map_err(io::Error::other)?;
            return Ok(Output::Remote(upload));
        }
        #[cfg(not(feature = "remote"))]
        crate::lean::check_output(path)?;
        if fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir()) {
            return fs::OpenOptions::new().write(true).open(path).map(Output::Special);
        }
        remove_on_interrupt();
        AtomicFile::create(path).map(Output::File)
    }

    /// Flush, and put a file in place.
    ///
    /// # Errors
    ///
    /// The flush or rename error; a file is then not left under its name.
    pub fn finish(self) -> io::Result<()> {
        match self {
            Output::Stdout(mut out) => out.flush(),
            Output::File(mut file) => {
                file.flush()?;
                file.commit()
            }
            Output::Special(mut file) => file.flush(),
            #[cfg(feature = "remote")]
            Output::Remote(upload) => upload.finish(),
            Output::Compressed(writer) => writer.finish()?.finish(),
        }
    }
}

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Output::Stdout(out) => out.write(buf),
            Output::File(file) => file.write(buf),
            Output::Special(file) => file.write(buf),
            #[cfg(feature = "remote")]
            Output::Remote(upload) => upload.write(buf),
            Output::Compressed(writer) => writer.write(buf),
        }
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        match self {
            Output::Stdout(out) => out.write_all(buf),
            Output::File(file) => file.write_all(buf),
            Output::Special(file) => file.write_all(buf),
            #[cfg(feature = "remote")]
            Output::Remote(upload) => upload.write_all(buf),
            Output::Compressed(writer) => writer.write_all(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Output::Stdout(out) => out.flush(),
            Output::File(file) => file.flush(),
            Output::Special(file) => file.flush(),
            #[cfg(feature = "remote")]
            Output::Remote(upload) => upload.flush(),
            Output::Compressed(writer) => writer.flush(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn a_fifo_target_is_written_directly_and_stays_a_fifo() {
        use std::io::Read;
        use std::os::unix::fs::FileTypeExt;
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("pipe");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status().unwrap();
        assert!(made.success());
        let reader_path = fifo.clone();
        let reader = std::thread::spawn(move || {
            let mut got = Vec::new();
            fs::File::open(reader_path).unwrap().read_to_end(&mut got).unwrap();
            got
        });
        let mut out = Output::create(&fifo).unwrap();
        assert!(matches!(out, Output::Special(_)));
        out.write_all(b"through the pipe").unwrap();
        out.finish().unwrap();
        assert_eq!(reader.join().unwrap(), b"through the pipe");
        assert!(fs::metadata(&fifo).unwrap().file_type().is_fifo(), "the FIFO was replaced");
        assert_eq!(names(dir.path()), ["pipe"], "a temporary file was left");
    }

    #[test]
    fn commit_puts_the_file_in_place_and_leaves_no_temp() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("out.txt");
        let mut f = AtomicFile::create(&target).unwrap();
        f.write_all(b"hello").unwrap();
        assert!(!target.exists(), "visible before commit");
        assert!(f.temp_path().exists());
        f.commit().unwrap();
        assert_eq!(fs::read(&target).unwrap(), b"hello");
        assert_eq!(names(dir.path()), ["out.txt"]);
    }

    #[test]
    fn drop_without_commit_keeps_the_old_file_and_removes_the_temp() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("out.txt");
        fs::write(&target, b"old").unwrap();
        {
            let mut f = AtomicFile::create(&target).unwrap();
            f.write_all(b"half of the new").unwrap();
            // An error happens here: the writer is dropped, not committed.
        }
        assert_eq!(fs::read(&target).unwrap(), b"old");
        assert_eq!(names(dir.path()), ["out.txt"]);
        let pending = PENDING.lock().unwrap();
        assert!(!pending.iter().any(|p| p.starts_with(dir.path())));
    }

    #[test]
    fn a_failed_rename_removes_the_temp_and_names_the_target() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("taken");
        fs::create_dir(&target).unwrap();
        fs::write(target.join("inside"), b"x").unwrap();
        let mut f = AtomicFile::create(&target).unwrap();
        f.write_all(b"data").unwrap();
        let err = f.commit().unwrap_err();
        assert!(err.to_string().contains("taken"), "{err}");
        assert_eq!(names(dir.path()), ["taken"]);
        assert_eq!(names(&target), ["inside"]);
    }

    #[test]
    fn a_missing_directory_is_an_error_naming_the_target() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("no/such/dir/out.txt");
        let err = AtomicFile::create(&target).unwrap_err();
        assert!(err.to_string().contains("out.txt"), "{err}");
    }

    #[cfg(unix)]
    #[test]
    fn keeps_the_mode_of_the_file_it_replaces() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("script");
        fs::write(&target, b"old").unwrap();
        fs::set_permissions(&target, fs::Permissions::from_mode(0o751)).unwrap();
        let mut f = AtomicFile::create(&target).unwrap();
        f.write_all(b"new").unwrap();
        f.commit().unwrap();
        let mode = fs::metadata(&target).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o751);
    }
}
