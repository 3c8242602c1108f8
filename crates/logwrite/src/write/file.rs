//! Files written the way Kafka writes its checkpoints (`CheckpointFile`):
//! a temporary file beside the target, fsync, rename over it, fsync of the
//! directory; a crash leaves the old file or the new one, never half of it.
//! Large files (segments) stream through [`AtomicFile`] with bounded memory.

use std::fs::{self, File};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use logfmt::error::{Error, Result};

fn io(e: std::io::Error, path: &Path) -> Error {
    Error::io(e, Some(path))
}

thread_local! {
    /// Whether fsyncs are deferred on this thread ([`with_deferred_sync`]).
    static DEFERRED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Run `f` with this thread's fsyncs deferred: files are written, renamed
/// and removed as usual, but neither they nor their directories are
/// fsynced one by one. Only for a tree nobody reads until the caller makes
/// it durable as a whole ([`sync_filesystem`]) and then publishes it with a
/// rename (`logtool fixture`'s staging dir: thousands of partitions, one
/// sync instead of a dozen per partition).
pub fn with_deferred_sync<R>(f: impl FnOnce() -> R) -> R {
    struct Restore(bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            DEFERRED.with(|d| d.set(self.0));
        }
    }
    let _restore = Restore(DEFERRED.with(|d| d.replace(true)));
    f()
}

fn deferred() -> bool {
    DEFERRED.with(std::cell::Cell::get)
}

/// fsync a file, unless fsyncs are deferred ([`with_deferred_sync`]).
pub fn sync_file(f: &File, path: &Path) -> Result<()> {
    if deferred() {
        return Ok(());
    }
    f.sync_all().map_err(|e| io(e, path))
}

/// Make everything written on the filesystem holding `path` durable
/// (`syncfs`; `sync` where there is none): the end of a deferred build.
pub fn sync_filesystem(path: &Path) -> Result<()> {
    #[cfg(target_os = "linux")]
    {
        let f = File::open(path).map_err(|e| io(e, path))?;
        rustix::fs::syncfs(&f).map_err(|e| io(e.into(), path))
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = path;
        rustix::fs::sync();
        Ok(())
    }
}

/// fsync a directory (so renames and creations in it are durable), unless
/// fsyncs are deferred ([`with_deferred_sync`]).
pub fn fsync_dir(dir: &Path) -> Result<()> {
    if deferred() {
        return Ok(());
    }
    File::open(dir).and_then(|f| f.sync_all()).map_err(|e| io(e, dir))
}

/// The temporary name a file is written under: `<name>.tmp`, as Kafka's
/// checkpoints (`LogLoader` removes leftovers of that kind).
pub fn temp_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().map(|s| s.to_os_string()).unwrap_or_default();
    name.push(logfmt::spec::names::TMP_FILE_SUFFIX);
    path.with_file_name(name)
}

/// Write `content` to `path` atomically (see the module docs).
pub fn write_atomic(path: &Path, content: &[u8]) -> Result<()> {
    let mut f = AtomicFile::create(path)?;
    f.write_all(content).map_err(|e| io(e, path))?;
    f.commit()
}

/// Bytes gathered before they go to the file.
const CHUNK: usize = 1 << 20;
/// Chunks in flight to the writing thread (memory: this many + 1 chunks).
const CHUNKS_IN_FLIGHT: usize = 2;

/// Where an [`AtomicFile`]'s bytes go: straight to the file, or through a
/// thread that writes them while the caller makes the next ones.
enum Sink {
    Direct(BufWriter<File>),
    Threaded {
        buf: Vec<u8>,
        to_writer: std::sync::mpsc::SyncSender<Vec<u8>>,
        spare: std::sync::mpsc::Receiver<Vec<u8>>,
        writer: std::thread::JoinHandle<std::io::Result<File>>,
    },
}

/// A file being written under its temporary name; [`AtomicFile::commit`]
/// fsyncs it and renames it into place. Dropped without commit, the
/// temporary file is removed.
pub struct AtomicFile {
    path: PathBuf,
    tmp: PathBuf,
    out: Option<Sink>,
}

impl AtomicFile {
    /// Start writing `path` (its directory is created if needed).
    pub fn create(path: &Path) -> Result<AtomicFile> {
        let (tmp, f) = Self::open_tmp(path)?;
        Ok(AtomicFile { path: path.to_path_buf(), tmp, out: Some(Sink::Direct(BufWriter::with_capacity(CHUNK, f))) })
    }

    /// Start writing a large file: a thread writes 1 MiB chunks while the
    /// caller makes the next (memory: three chunks).
    pub fn create_streaming(path: &Path) -> Result<AtomicFile> {
        use std::sync::mpsc::sync_channel;
        let (tmp, mut f) = Self::open_tmp(path)?;
        let (to_writer, from_caller) = sync_channel::<Vec<u8>>(CHUNKS_IN_FLIGHT);
        let (give_back, spare) = sync_channel::<Vec<u8>>(CHUNKS_IN_FLIGHT.saturating_add(1));
        let writer = std::thread::Builder::new()
            .name("logtool-write".into())
            .spawn(move || {
                for mut chunk in from_caller {
                    f.write_all(&chunk)?;
                    chunk.clear();
                    let _ = give_back.try_send(chunk);
                }
                Ok(f)
            })
            .map_err(|e| io(e, &tmp))?;
        Ok(AtomicFile {
            path: path.to_path_buf(),
            tmp,
            out: Some(Sink::Threaded { buf: Vec::with_capacity(CHUNK), to_writer, spare, writer }),
        })
    }

    fn open_tmp(path: &Path) -> Result<(PathBuf, File)> {
        let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
        fs::create_dir_all(dir).map_err(|e| io(e, dir))?;
        let tmp = temp_path(path);
        let f = File::create(&tmp).map_err(|e| io(e, &tmp))?;
        Ok((tmp, f))
    }

    /// The file it becomes.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// fsync, rename into place, fsync the directory. On an error the
    /// temporary file is removed (a full disk leaves no `.tmp` behind).
    pub fn commit(mut self) -> Result<()> {
        let done = self.finish();
        if done.is_err() {
            let _ = fs::remove_file(&self.tmp);
        }
        done
    }

    fn finish(&mut self) -> Result<()> {
        let f = match self.out.take() {
            None => return Ok(()),
            Some(Sink::Direct(out)) => out.into_inner().map_err(|e| io(e.into_error(), &self.tmp))?,
            Some(Sink::Threaded { buf, to_writer, writer, .. }) => {
                if !buf.is_empty() {
                    to_writer
                        .send(buf)
                        .map_err(|_| io(std::io::Error::other("the writing thread stopped"), &self.tmp))?;
                }
                drop(to_writer);
                writer
                    .join()
                    .map_err(|_| io(std::io::Error::other("the writing thread panicked"), &self.tmp))?
                    .map_err(|e| io(e, &self.tmp))?
            }
        };
        sync_file(&f, &self.tmp)?;
        drop(f);
        fs::rename(&self.tmp, &self.path).map_err(|e| io(e, &self.path))?;
        fsync_dir(self.path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new(".")))
    }
}

impl Write for AtomicFile {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        match &mut self.out {
            Some(Sink::Direct(o)) => o.write(data),
            Some(Sink::Threaded { buf, to_writer, spare, .. }) => {
                buf.extend_from_slice(data);
                if buf.len() >= CHUNK {
                    let next = spare.try_recv().unwrap_or_else(|_| Vec::with_capacity(CHUNK));
                    let full = std::mem::replace(buf, next);
                    to_writer.send(full).map_err(|_| std::io::Error::other("the writing thread stopped"))?;
                }
                Ok(data.len())
            }
            None => Err(std::io::Error::other("already committed")),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match &mut self.out {
            Some(Sink::Direct(o)) => o.flush(),
            _ => Ok(()),
        }
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if let Some(sink) = self.out.take() {
            if let Sink::Threaded { to_writer, writer, .. } = sink {
                drop(to_writer);
                let _ = writer.join();
            }
            let _ = fs::remove_file(&self.tmp);
        }
    }
}
