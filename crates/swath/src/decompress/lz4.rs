//! LZ4's framing, followed as the compressed bytes go by: lz4_flex ends
//! quietly when its input stops inside a frame (a file cut after a block,
//! or inside the end mark or checksum), which would make a cut file a short
//! count with exit 0. [`Framed`] passes every byte through unchanged and,
//! at the end of the input, fails unless it ended where a frame ends.
//!
//! The frame format (lz4_Frame_format.md): a magic number; a frame
//! descriptor (FLG, BD, an optional 8-byte content size and 4-byte
//! dictionary id, a header checksum byte); blocks, each a 4-byte size
//! (high bit: stored) and its bytes and, if FLG says so, a 4-byte block
//! checksum; a zero size ends the blocks, followed by a 4-byte content
//! checksum if FLG says so. Skippable frames hold a 4-byte size and that
//! many bytes. The legacy format (`lz4 -l`) is a magic number and blocks
//! of a 4-byte size and their bytes until the input ends.

use std::io::{self, Read};

const FRAME: u32 = 0x184d_2204;
const LEGACY: u32 = 0x184c_2102;

/// Where the bytes going by are in the framing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// Between frames: the next 4 bytes are a magic number.
    Magic,
    /// FLG and BD.
    Descriptor,
    /// The rest of the descriptor: content size, dictionary id, checksum.
    DescriptorRest,
    /// A block's 4-byte size (or the end mark).
    BlockSize,
    /// Bytes to pass over: a block's data (and its checksum), a content
    /// checksum, a skippable frame's data.
    Skip,
    /// A skippable frame's 4-byte size.
    SkippableSize,
    /// The legacy format: a block's 4-byte size, or the input's end.
    LegacySize,
}

/// A reader of LZ4 frames that fails at the end of its input unless the
/// input ended where a frame ends.
pub(super) struct Framed<R> {
    inner: R,
    state: State,
    /// The bytes of the field being read (at most 14: a descriptor's rest).
    field: Vec<u8>,
    /// Bytes the field needs, or bytes left to pass over in `Skip`.
    need: u64,
    /// The state after `Skip`.
    after: State,
    /// FLG: block checksums, content checksum.
    block_checksum: bool,
    content_checksum: bool,
}

impl<R: Read> Framed<R> {
    pub(super) fn new(inner: R) -> Framed<R> {
        Framed {
            inner,
            state: State::Magic,
            field: Vec::with_capacity(16),
            need: 4,
            after: State::Magic,
            block_checksum: false,
            content_checksum: false,
        }
    }

    /// Whether the input may end here.
    fn at_boundary(&self) -> bool {
        match self.state {
            State::Magic => self.field.is_empty(),
            State::LegacySize => self.field.is_empty(),
            _ => false,
        }
    }

    fn skip(&mut self, n: u64, after: State) {
        self.field.clear();
        if n == 0 {
            self.enter(after);
        } else {
            self.state = State::Skip;
            self.need = n;
            self.after = after;
        }
    }

    fn enter(&mut self, state: State) {
        self.field.clear();
        self.state = state;
        self.need = match state {
            State::Magic | State::BlockSize | State::SkippableSize | State::LegacySize => 4,
            State::Descriptor => 2,
            State::DescriptorRest | State::Skip => self.need,
        };
    }

    fn field_u32(&self) -> u32 {
        u32::from_le_bytes([self.field[0], self.field[1], self.field[2], self.field[3]])
    }

    /// A field is complete: act on it.
    fn field_done(&mut self) -> io::Result<()> {
        match self.state {
            State::Magic | State::LegacySize => {
                let v = self.field_u32();
                match v {
                    FRAME => self.enter(State::Descriptor),
                    LEGACY => self.enter(State::LegacySize),
                    _ if v & 0xffff_fff0 == 0x184d_2a50 => self.enter(State::SkippableSize),
                    _ if self.state == State::LegacySize => {
                        self.skip(u64::from(v), State::LegacySize);
                    }
                    _ => return Err(bad("not an LZ4 frame where one should start")),
                }
            }
            State::Descriptor => {
                let flg = self.field[0];
                self.block_checksum = flg & 0x10 != 0;
                self.content_checksum = flg & 0x04 != 0;
                let rest =
                    1 + if flg & 0x08 != 0 { 8 } else { 0 } + if flg & 0x01 != 0 { 4 } else { 0 };
                self.field.clear();
                self.state = State::DescriptorRest;
                self.need = rest;
            }
            State::DescriptorRest => self.enter(State::BlockSize),
            State::BlockSize => {
                let v = self.field_u32();
                if v == 0 {
                    let tail = if self.content_checksum { 4 } else { 0 };
                    self.skip(tail, State::Magic);
                } else {
                    let data = u64::from(v & 0x7fff_ffff);
                    let check = if self.block_checksum { 4 } else { 0 };
                    self.skip(data + check, State::BlockSize);
                }
            }
            State::SkippableSize => {
                let n = u64::from(self.field_u32());
                self.skip(n, State::Magic);
            }
            State::Skip => unreachable!("Skip has no field"),
        }
        Ok(())
    }

    /// Follow the framing over `bytes`.
    fn follow(&mut self, mut bytes: &[u8]) -> io::Result<()> {
        while !bytes.is_empty() {
            if self.state == State::Skip {
                let n = self.need.min(bytes.len() as u64);
                bytes = &bytes[n as usize..];
                self.need -= n;
                if self.need == 0 {
                    self.enter(self.after);
                }
                continue;
            }
            let want = (self.need as usize - self.field.len()).min(bytes.len());
            self.field.extend_from_slice(&bytes[..want]);
            bytes = &bytes[want..];
            if self.field.len() as u64 == self.need {
                self.field_done()?;
            }
        }
        Ok(())
    }
}

fn bad(msg: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, msg.to_string())
}

impl<R: Read> Read for Framed<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        if n == 0 && !self.at_boundary() {
            // Not UnexpectedEof: lz4_flex takes that, met where a block's
            // size should be, for the end of the input.
            return Err(bad("the input ends inside an LZ4 frame (cut short)"));
        }
        self.follow(&buf[..n])?;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn frame(data: &[u8]) -> Vec<u8> {
        let mut e = lz4_flex::frame::FrameEncoder::new(Vec::new());
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    fn read_all(bytes: &[u8]) -> io::Result<Vec<u8>> {
        let mut out = Vec::new();
        // One byte at a time: every field is split across reads.
        let mut r = Framed::new(io::BufReader::with_capacity(1, bytes));
        r.read_to_end(&mut out)?;
        Ok(out)
    }

    #[test]
    fn whole_frames_pass_and_every_cut_fails() {
        let data: Vec<u8> = (0..200_000u32).flat_map(|i| (i % 251).to_le_bytes()).collect();
        let mut file = frame(&data);
        file.extend_from_slice(&0x184d_2a51u32.to_le_bytes());
        file.extend_from_slice(&3u32.to_le_bytes());
        file.extend_from_slice(b"abc");
        file.extend(frame(b"second frame"));
        assert_eq!(read_all(&file).unwrap(), file);
        for cut in [1, 4, 5, 7, 11, 100, file.len() / 2, file.len() - 20, file.len() - 1] {
            assert!(read_all(&file[..cut]).is_err(), "cut at {cut} of {}", file.len());
        }
        assert!(read_all(b"").is_ok(), "an empty input has no frame to cut");
    }
}
