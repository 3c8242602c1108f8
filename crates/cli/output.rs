//! Output: the [`Output`] renders every command's lines as JSON Lines (one
//! object per line, `type` first; schema in docs/json.md) or as tables for
//! people. A line is a type that shows itself ([`Report`], the library's
//! report types and most commands' lines) or an [`Emit`] line (`dump`'s, in
//! `cmd/dump/lines.rs`, whose record line has a fast path);
//! this module knows none of their fields.
//!
//! Memory stays bounded for any input: JSON lines are written as they come,
//! and tables are rendered in chunks of [`TABLE_CHUNK`] rows.

use std::borrow::Cow;
use std::io::{self, Write};

use logfmt::report::{Report, Shown};
use serde::Serialize;

use crate::args::Format;

/// Rows per rendered table chunk.
pub const TABLE_CHUNK: usize = 1000;

/// A payload field: absent (`--payload none`), null, or a string.
pub enum Field<'a> {
    Absent,
    Null,
    Text(Cow<'a, str>),
}

pub trait Skip {
    fn skip(&self) -> bool;
}

impl Skip for Field<'_> {
    fn skip(&self) -> bool {
        matches!(self, Field::Absent)
    }
}

impl Serialize for Field<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Field::Absent | Field::Null => s.serialize_none(),
            Field::Text(t) => s.serialize_str(t),
        }
    }
}

/// Whether serde_json escapes `b` in a string (`"`, `\`, controls).
#[inline(always)]
fn json_escaped(b: u8) -> bool {
    b < 0x20 || b == b'"' || b == b'\\'
}

/// Whether any of the 8 bytes of `x` is one [`json_escaped`] names (SWAR:
/// a byte below 0x20, or equal to `"` or `\`; exact, no false positives).
#[inline(always)]
fn any_escaped(x: u64) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let has_zero = |v: u64| v.wrapping_sub(ONES) & !v & HIGH;
    let below_space = x.wrapping_sub(ONES.wrapping_mul(0x20)) & !x & HIGH;
    (below_space | has_zero(x ^ ONES.wrapping_mul(u64::from(b'"'))) | has_zero(x ^ ONES.wrapping_mul(u64::from(b'\\'))))
        != 0
}

/// `s` as a JSON string, escaped exactly as serde_json escapes it (its
/// `ESCAPE` table: the short escapes, else `\u00xx`); clean 8-byte runs are
/// copied whole.
pub fn json_str(out: &mut Vec<u8>, s: &str) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let b = s.as_bytes();
    out.push(b'"');
    let (mut run, mut i) = (0usize, 0usize);
    while i < b.len() {
        if let Some(chunk) = b.get(i..i.saturating_add(8))
            && !any_escaped(u64::from_le_bytes(chunk.try_into().unwrap_or([0; 8])))
        {
            i = i.saturating_add(8);
            continue;
        }
        let c = b.get(i).copied().unwrap_or(0);
        if json_escaped(c) {
            out.extend_from_slice(b.get(run..i).unwrap_or_default());
            match c {
                b'"' => out.extend_from_slice(b"\\\""),
                b'\\' => out.extend_from_slice(b"\\\\"),
                0x08 => out.extend_from_slice(b"\\b"),
                0x0c => out.extend_from_slice(b"\\f"),
                b'\n' => out.extend_from_slice(b"\\n"),
                b'\r' => out.extend_from_slice(b"\\r"),
                b'\t' => out.extend_from_slice(b"\\t"),
                _ => out.extend_from_slice(&[
                    b'\\',
                    b'u',
                    b'0',
                    b'0',
                    HEX[usize::from(c >> 4)],
                    HEX[usize::from(c & 0xf)],
                ]),
            }
            run = i.saturating_add(1);
        }
        i = i.saturating_add(1);
    }
    out.extend_from_slice(b.get(run..).unwrap_or_default());
    out.push(b'"');
}

pub fn json_field(out: &mut Vec<u8>, name: &str, f: &Field<'_>) {
    match f {
        Field::Absent => {}
        Field::Null => {
            out.extend_from_slice(b",\"");
            out.extend_from_slice(name.as_bytes());
            out.extend_from_slice(b"\":null");
        }
        Field::Text(t) => {
            out.extend_from_slice(b",\"");
            out.extend_from_slice(name.as_bytes());
            out.extend_from_slice(b"\":");
            json_str(out, t);
        }
    }
}

#[inline(always)]
pub fn json_int(out: &mut Vec<u8>, name: &str, v: impl itoa::Integer) {
    let mut digits = itoa::Buffer::new();
    let digits = digits.format(v).as_bytes();
    out.reserve(name.len().saturating_add(digits.len()).saturating_add(4));
    out.extend_from_slice(b",\"");
    out.extend_from_slice(name.as_bytes());
    out.extend_from_slice(b"\":");
    // (a number is at most 20 bytes: pushed, not copied by a call)
    for &d in digits {
        out.push(d);
    }
}

/// A file name as a JSON string, escaped once for all the lines of a file
/// (a fast line's cache, see [`Emit::fast_json`]).
#[derive(Default)]
pub struct JsonName {
    name: Option<String>,
    json: Vec<u8>,
}

impl JsonName {
    /// Append `name` as a JSON string.
    pub fn write(&mut self, out: &mut Vec<u8>, name: &str) {
        if self.name.as_deref() != Some(name) {
            self.name = Some(name.to_string());
            self.json.clear();
            json_str(&mut self.json, name);
        }
        out.extend_from_slice(&self.json);
    }
}

/// A line a command prints that is not a [`Report`] of the library's:
/// its JSON object is its serde form (`type` first, from an enum's tag),
/// or, for a hot line, written straight into the output; in a table it is
/// rows under columns or text.
pub trait Emit: Serialize {
    /// Append the JSON line (and its newline) directly, the bytes serde
    /// would write; `None`: go through serde.
    fn fast_json(&self, _out: &mut Vec<u8>, _names: &mut JsonName) -> Option<io::Result<()>> {
        None
    }

    /// Show the line in a table.
    fn table(&self, sink: &mut dyn TableSink) -> io::Result<()>;
}

/// Where an [`Emit`] line's table form goes.
pub trait TableSink {
    /// A row under `header` (rows with the same header make one table).
    fn row(&mut self, header: &[&'static str], row: Vec<String>) -> io::Result<()>;
    /// Text of its own, between tables.
    fn text(&mut self, s: &str) -> io::Result<()>;
}

/// A note: something worth knowing, in words.
pub use logfmt::report::NoteLine;

/// A warning: what an operator must read before going on.
#[derive(Serialize)]
pub struct WarningLine<'a> {
    pub file: &'a str,
    pub message: String,
}

impl Report for WarningLine<'_> {
    const TYPE: &'static str = "warning";

    fn show(&self) -> Shown {
        Shown::Text(format!("  WARNING: {}: {}", self.file, self.message))
    }
}

impl<W: Write> Drop for Output<W> {
    fn drop(&mut self) {
        let _ = self.flush_json();
    }
}

/// Record lines are written out in chunks of about this many bytes.
const JSON_CHUNK: usize = 256 << 10;

/// Where lines go.
pub struct Output<W: Write> {
    out: W,
    format: Format,
    table: TableState,
    /// Record lines not written yet (at most about [`JSON_CHUNK`]).
    json: Vec<u8>,
    json_name: JsonName,
    /// Tables show paths under it relative to it (JSON keeps them whole).
    base: Option<String>,
    /// Every JSON line stays in `json` until [`Output::into_bytes`] (a part
    /// of a dump told on another thread, written later in order).
    hold: bool,
}

#[derive(Default)]
struct TableState {
    header: Vec<&'static str>,
    rows: Vec<Vec<String>>,
    /// The header of the last TSV rows written (a header line is written
    /// when it changes).
    tsv_header: Vec<&'static str>,
    /// The columns said not shown at this width already (once per run).
    said_dropped: Vec<Vec<String>>,
    /// Cut record contents said (once per run).
    said_clipped: bool,
    /// Each table's layout so far (its columns shown, its detail columns
    /// left out), kept for its later chunks: one layout per output.
    layouts: Vec<(Vec<&'static str>, Vec<bool>, Vec<String>)>,
}

impl Output<Vec<u8>> {
    /// JSON lines kept in `buf` (cleared first) until [`Output::into_bytes`]
    /// gives it back: a dump's lines told on another thread.
    pub fn held_json(mut buf: Vec<u8>) -> Output<Vec<u8>> {
        buf.clear();
        let mut o = Output::new(Vec::new(), Format::Json);
        o.json = buf;
        o.hold = true;
        o
    }

    /// The JSON lines held ([`Output::held_json`]).
    pub fn into_bytes(mut self) -> Vec<u8> {
        std::mem::take(&mut self.json)
    }
}

impl<W: Write> Output<W> {
    pub fn new(out: W, format: Format) -> Output<W> {
        Output {
            out,
            format,
            table: TableState::default(),
            json: Vec::new(),
            json_name: JsonName::default(),
            base: None,
            hold: false,
        }
    }

    /// Table cells that are paths under `dir` show them relative to it
    /// (the plan or summary names `dir` once).
    pub fn relative_to(&mut self, dir: &std::path::Path) {
        let d = dir.display().to_string();
        self.base = Some(if d.ends_with('/') { d } else { format!("{d}/") });
    }

    /// A line of a command's own ([`Emit`]).
    pub fn emit<L: Emit>(&mut self, line: &L) -> io::Result<()> {
        match self.format {
            Format::Json => {
                // a hot line is written directly (the same bytes serde
                // writes), many at a time
                if let Some(r) = line.fast_json(&mut self.json, &mut self.json_name) {
                    r?;
                    if self.json.len() >= JSON_CHUNK && !self.hold {
                        self.flush_json()?;
                    }
                    return Ok(());
                }
                if self.hold {
                    serde_json::to_writer(&mut self.json, line).map_err(io::Error::from)?;
                    self.json.push(b'\n');
                    return Ok(());
                }
                self.flush_json()?;
                self.write_out(|out| {
                    serde_json::to_writer(&mut *out, line).map_err(io::Error::from)?;
                    out.write_all(b"\n")
                })
            }
            Format::Table | Format::Tsv => line.table(self),
        }
    }

    /// A line that renders itself ([`logfmt::report::Report`]): its serde
    /// form with `type` first, or a row under its columns.
    pub fn report<R: Report>(&mut self, r: &R) -> io::Result<()> {
        match self.format {
            Format::Json => {
                self.flush_json()?;
                let body = serde_json::to_vec(r).map_err(io::Error::from)?;
                self.write_out(|out| {
                    write!(out, "{{\"type\":\"{}\"", R::TYPE)?;
                    match body.strip_prefix(b"{") {
                        Some(rest) if rest != b"}" => {
                            out.write_all(b",")?;
                            out.write_all(rest)?;
                        }
                        _ => out.write_all(b"}")?,
                    }
                    out.write_all(b"\n")
                })
            }
            Format::Table | Format::Tsv => match r.show() {
                Shown::Text(t) => self.push_wrapped(&t),
                Shown::Row(columns, mut cells) => {
                    // severities in colour (when asked)
                    if let Some(i) = columns.iter().position(|c| *c == "SEVERITY")
                        && let Some(cell) = cells.get_mut(i)
                    {
                        *cell = severity(cell);
                    }
                    self.push_row(columns, cells)
                }
            },
        }
    }

    /// Bytes another [`Output`] of the same format rendered (a held line).
    pub fn raw(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.flush_json()?;
        self.flush_table()?;
        self.write_out(|out| out.write_all(bytes))
    }

    /// Free text between tables (charts in the terminal); nothing in JSON.
    pub fn prose(&mut self, s: &str) -> io::Result<()> {
        match self.format {
            Format::Json | Format::Tsv => Ok(()),
            Format::Table => self.push_text(s),
        }
    }

    /// Record lines held back go out now (also on drop).
    fn flush_json(&mut self) -> io::Result<()> {
        let json = std::mem::take(&mut self.json);
        let r = self.write_out(|out| out.write_all(&json));
        self.json = json;
        self.json.clear();
        r
    }

    /// Write to the output; with a progress bar on the screen, around it
    /// (cleared, written, flushed, drawn again).
    fn write_out(&mut self, f: impl FnOnce(&mut W) -> io::Result<()>) -> io::Result<()> {
        let out = &mut self.out;
        crate::progress::suspend(|bar| {
            f(out)?;
            if bar { out.flush() } else { Ok(()) }
        })
    }

    pub fn finish(&mut self) -> io::Result<()> {
        self.flush_json()?;
        self.flush_table()?;
        self.out.flush()
    }

    fn flush_table(&mut self) -> io::Result<()> {
        if self.table.rows.is_empty() {
            return Ok(());
        }
        let header: Vec<String> = self.table.header.iter().map(|h| h.to_string()).collect();
        let rows: Vec<Vec<String>> = self.table.rows.drain(..).map(|r| r.into_iter().map(one_line).collect()).collect();
        if self.format == Format::Tsv {
            let line = |cells: &[String]| cells.iter().map(|c| c.replace('\t', " ")).collect::<Vec<_>>().join("\t");
            let mut text = String::new();
            if self.table.tsv_header != self.table.header {
                text.push_str(&line(&header));
                text.push('\n');
                self.table.tsv_header = self.table.header.clone();
            }
            for row in &rows {
                text.push_str(&line(row));
                text.push('\n');
            }
            return self.write_out(|out| out.write_all(text.as_bytes()));
        }
        // a column empty in every row is left out (one shown in an earlier
        // chunk of the same table stays: one layout per output)
        let before = self.table.layouts.iter().find(|(h, _, _)| *h == self.table.header);
        let keep: Vec<bool> = (0..header.len())
            .map(|i| {
                before.is_some_and(|(_, k, _)| k.get(i) == Some(&true))
                    || rows.iter().any(|r| r.get(i).is_some_and(|c| !c.trim().is_empty()))
            })
            .collect();
        let forced: Option<Vec<String>> = before.map(|(_, _, d)| d.clone());
        let only = |cells: Vec<String>| -> Vec<String> {
            cells.into_iter().zip(&keep).filter(|(_, k)| **k).map(|(c, _)| c).collect()
        };
        let header = only(header);
        let rows: Vec<Vec<String>> = rows.into_iter().map(only).collect();
        let width = terminal_width();
        // too wide even with sentences and paths at their narrowest: the
        // detail columns go, in order
        let (header, mut rows, dropped) = match width {
            Some(w) => drop_details(header, rows, w, forced.as_deref()),
            None => (header, rows, Vec::new()),
        };
        let key = self.table.header.clone();
        self.table.layouts.retain(|(h, _, _)| *h != key);
        self.table.layouts.push((key, keep.clone(), dropped.clone()));
        let repeated = footnotes(&mut rows);
        let (lines, notes, clipped) = render(&header, &rows, width, repeated.len());
        let mut text = lines.join("\n");
        text.push('\n');
        if clipped && !self.table.said_clipped {
            notes_text(
                &mut text,
                "  record contents cut at this width: a pipe, --format tsv or --format json shows them whole",
                width,
            );
            self.table.said_clipped = true;
        }
        if !dropped.is_empty() && !self.table.said_dropped.contains(&dropped) {
            let n = format!(
                "  not shown at this width: {} (a pipe, --format tsv or --format json shows every column)",
                dropped.join(", ")
            );
            notes_text(&mut text, &n, width);
            self.table.said_dropped.push(dropped);
        }
        for (i, n) in repeated.iter().chain(&notes).enumerate() {
            let note = format!("  [{}] {n}", i.saturating_add(1));
            let note = match width {
                Some(w) => wrap_hanging(&note, w),
                None => note,
            };
            text.push_str(&note);
            text.push('\n');
        }
        self.write_out(|out| out.write_all(text.as_bytes()))
    }

    fn push_row(&mut self, header: &[&'static str], mut row: Vec<String>) -> io::Result<()> {
        if let Some(base) = &self.base {
            for cell in &mut row {
                if let Some(rel) = cell.strip_prefix(base.as_str())
                    && !rel.is_empty()
                {
                    *cell = rel.to_string();
                }
            }
        }
        if self.table.header != header {
            self.flush_table()?;
            self.table.header = header.to_vec();
        }
        self.table.rows.push(row);
        if self.table.rows.len() >= TABLE_CHUNK {
            self.flush_table()?;
        }
        Ok(())
    }

    fn push_text(&mut self, s: &str) -> io::Result<()> {
        self.flush_table()?;
        if self.format == Format::Tsv {
            // text between the rows: `# ` lines (a TSV reader skips them)
            let text: String = s.lines().map(|l| format!("# {}\n", l.trim_start())).collect();
            return self.write_out(|out| out.write_all(text.as_bytes()));
        }
        self.write_out(|out| writeln!(out, "{s}"))
    }

    /// Text in sentences, wrapped at words to the terminal's width (charts
    /// go through [`Output::prose`], unwrapped).
    fn push_wrapped(&mut self, s: &str) -> io::Result<()> {
        match terminal_width().filter(|_| self.format == Format::Table) {
            Some(w) => {
                let wrapped: Vec<String> = s.split('\n').map(|l| wrap_line(l, w)).collect();
                self.push_text(&wrapped.join("\n"))
            }
            None => self.push_text(s),
        }
    }
}

/// A line of text wrapped to `width`, continuation lines indented as the
/// line is (so "  note: ..." stays readable).
pub fn wrap_line(line: &str, width: usize) -> String {
    if shown_width(line) <= width {
        return line.to_string();
    }
    let indent: String = line.chars().take_while(|c| *c == ' ').collect();
    let inner = width.saturating_sub(indent.len()).max(10);
    wrap_cell(line.trim_start(), inner).split('\n').map(|l| format!("{indent}{l}")).collect::<Vec<_>>().join("\n")
}

impl<W: Write> TableSink for Output<W> {
    fn row(&mut self, header: &[&'static str], row: Vec<String>) -> io::Result<()> {
        self.push_row(header, row)
    }

    fn text(&mut self, s: &str) -> io::Result<()> {
        self.push_wrapped(s)
    }
}

/// The width tables fit: the terminal's (stdout's), else `COLUMNS`; `None`
/// when neither is known (a pipe: rows stay whole, for grep).
pub fn terminal_width() -> Option<usize> {
    static WIDTH: std::sync::OnceLock<Option<usize>> = std::sync::OnceLock::new();
    *WIDTH.get_or_init(|| {
        if let Some((terminal_size::Width(w), _)) = terminal_size::terminal_size_of(io::stdout()) {
            return Some(usize::from(w)).filter(|&w| w >= 20);
        }
        std::env::var("COLUMNS").ok()?.trim().parse().ok().filter(|&w: &usize| w >= 20)
    })
}

/// How wide `s` shows: characters, less colour escapes.
fn shown_width(s: &str) -> usize {
    let mut n = 0usize;
    let mut escape = false;
    for c in s.chars() {
        match (escape, c) {
            (false, '\x1b') => escape = true,
            (true, 'm') => escape = false,
            (true, _) => {}
            (false, _) => n = n.saturating_add(1),
        }
    }
    n
}

/// The widest line of a cell.
fn cell_width(s: &str) -> usize {
    s.lines().map(shown_width).max().unwrap_or(0)
}

/// Explanations at least this long that end cells of two rows or more are
/// shown once under the table.
const FOOTNOTE_MIN: usize = 40;

/// Long text repeated on rows, once: a cell ending in a parenthesised
/// explanation of [`FOOTNOTE_MIN`] characters or more that another cell of
/// the chunk ends in too keeps `[n]` in its place; the notes, in order,
/// are returned (printed under the table).
fn footnotes(rows: &mut [Vec<String>]) -> Vec<String> {
    fn tail(cell: &str) -> Option<&str> {
        let body = cell.strip_suffix(')')?;
        // the `(` that opens the last group (nested groups counted)
        let mut depth = 0usize;
        for (i, c) in body.char_indices().rev() {
            match c {
                ')' => depth += 1,
                '(' if depth == 0 => {
                    let t = cell.get(i..)?;
                    return (t.chars().count() >= FOOTNOTE_MIN).then_some(t);
                }
                '(' => depth -= 1,
                _ => {}
            }
        }
        None
    }
    let mut seen: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for row in rows.iter() {
        for cell in row {
            if let Some(t) = tail(cell) {
                *seen.entry(t.to_string()).or_default() += 1;
            }
        }
    }
    let mut notes: Vec<String> = Vec::new();
    for row in rows.iter_mut() {
        for cell in row.iter_mut() {
            let Some(t) = tail(cell).map(str::to_string) else { continue };
            if seen.get(&t).copied().unwrap_or(0) < 2 {
                continue;
            }
            let n = match notes.iter().position(|x| *x == t) {
                Some(n) => n,
                None => {
                    notes.push(t.clone());
                    notes.len() - 1
                }
            };
            let keep = cell.len() - t.len();
            cell.truncate(keep);
            cell.push_str(&format!("[{}]", n + 1));
        }
    }
    notes.into_iter().map(|t| t.strip_prefix('(').and_then(|t| t.strip_suffix(')')).unwrap_or(&t).to_string()).collect()
}

/// Append a line of text under a table, wrapped to `width`.
fn notes_text(text: &mut String, line: &str, width: Option<usize>) {
    match width {
        Some(w) => text.push_str(&wrap_line(line, w)),
        None => text.push_str(line),
    }
    text.push('\n');
}

/// The table without the [`DETAIL_COLUMNS`] it needs to leave out to fit
/// `width` (at their narrowest, sentences and paths given), and their names.
fn drop_details(
    header: Vec<String>,
    rows: Vec<Vec<String>>,
    width: usize,
    forced: Option<&[String]>,
) -> (Vec<String>, Vec<Vec<String>>, Vec<String>) {
    let narrowest = |h: &[String], r: &[Vec<String>]| -> usize {
        let n = h.len();
        let w = widths_with(h, r, Some(0), 1);
        w.iter().sum::<usize>().saturating_add(n.saturating_sub(1))
    };
    let mut gone: Vec<String> = Vec::new();
    let original = header.clone();
    let (mut header, mut rows) = (header, rows);
    for (table, column) in DETAIL_COLUMNS {
        match forced {
            // an earlier chunk of the table decided
            Some(f) if !f.iter().any(|c| c == column) => continue,
            Some(_) => {}
            None if narrowest(&header, &rows) <= width => break,
            None => {}
        }
        if !original.iter().any(|h| h == table) {
            continue;
        }
        let Some(i) = header.iter().position(|h| h == column) else { continue };
        header.remove(i);
        for r in &mut rows {
            if i < r.len() {
                r.remove(i);
            }
        }
        gone.push((*column).to_string());
    }
    (header, rows, gone)
}

/// A cell on one line: its line breaks become spaces.
fn one_line(cell: String) -> String {
    if cell.contains('\n') { cell.split('\n').map(str::trim).collect::<Vec<_>>().join(" ") } else { cell }
}

/// A note line `  [n] text` wrapped to `width`, continuation lines under
/// the text.
fn wrap_hanging(note: &str, width: usize) -> String {
    if shown_width(note) <= width {
        return note.to_string();
    }
    let indent = note.find("] ").map_or(4, |i| i.saturating_add(2));
    // (our notes start `  [n] `: ASCII; any other start is left whole)
    let Some((head, body)) = note.get(..indent).zip(note.get(indent..)) else { return note.to_string() };
    let inner = width.saturating_sub(indent).max(20);
    let pad = " ".repeat(indent);
    wrap_cell(body, inner)
        .split('\n')
        .enumerate()
        .map(|(i, l)| if i == 0 { format!("{head}{l}") } else { format!("{pad}{l}") })
        .collect::<Vec<_>>()
        .join("\n")
}

/// How a column gives way in a table wider than the terminal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Give {
    /// Numbers, offsets, times, names: always whole.
    Fixed,
    /// Paths: shortened in the middle (the whole path in the row's note).
    Path,
    /// Sentences: cut, the whole text in the row's note; at the last,
    /// only the note's number.
    Prose,
    /// Record contents (data, one per row): cut with `…`, no note (said
    /// once under the table).
    Clip,
}

/// Columns of sentences whatever their cells hold.
const PROSE_COLUMNS: &[&str] = &["MESSAGE", "WHY", "DETAIL", "DESCRIPTION", "CONSUMER-ID"];

/// Columns always whole, whatever their cells hold (a client's host,
/// `/127.0.0.1`, is no path).
const FIXED_COLUMNS: &[&str] = &["HOST"];

/// Columns of record contents.
const CLIP_COLUMNS: &[&str] = &["FLAGS / RECORD", "KEY", "VALUE"];

/// Columns a table at a narrow width leaves out, in this order, when its
/// sentences and paths have given all they can (named once under the
/// table; a pipe, `--format tsv` and `--format json` show every column):
/// (a column that tells the table, the column left out). Details only:
/// what a row is about (offsets, times, sizes, positions of damage) stays.
const DETAIL_COLUMNS: &[(&str, &str)] = &[
    // stats: what the other columns give (SIZE / BATCHES), estimates
    ("AVG BATCH", "AVG BATCH"),
    ("AVG BATCH", "KEYS≈"),
    ("AVG BATCH", "PRODUCERS"),
    ("AVG BATCH", "TIME RANGE"),
    // offset-for-time: where in the files the answer is
    ("SEGMENT", "SEGMENT"),
    ("SEGMENT", "POSITION"),
    // dump: the count (OFFSETS gives it), the producer, the epoch
    ("FLAGS / RECORD", "COUNT"),
    ("FLAGS / RECORD", "PRODUCER"),
    ("FLAGS / RECORD", "EPOCH"),
    // diff-replicas --records: the value's size (its CRC tells values apart)
    ("VALUE CRC32C", "VALUE SIZE"),
    // producer state: the coordinator's epoch
    ("COORD EPOCH", "COORD EPOCH"),
    // open transactions: the last batch's time (AGE gives it), the epoch
    ("TRANSACTIONAL ID", "LAST BATCH"),
    ("TRANSACTIONAL ID", "EPOCH"),
    ("TRANSACTIONAL ID", "COORDINATOR"),
    // recover: the index interval its indexes were rebuilt with, a roll
    ("RECOVERED", "INDEX INTERVAL"),
    ("RECOVERED", "ROLLED AT"),
    // groups' offsets: the member's host and client id (its id names it)
    ("CURRENT-OFFSET", "HOST"),
    ("CURRENT-OFFSET", "CLIENT-ID"),
    // groups' states: the epoch
    ("ASSIGNMENT-STRATEGY", "EPOCH"),
];

/// The narrowest a cut sentence or a shortened path is shown.
const PROSE_MIN: usize = 16;
const PATH_MIN: usize = 16;

/// Columns are two spaces apart.
const GAP: usize = 2;

fn give(header: &str, rows: &[Vec<String>], i: usize) -> Give {
    let cells = || rows.iter().filter_map(|r| r.get(i));
    if FIXED_COLUMNS.contains(&header) {
        Give::Fixed
    } else if CLIP_COLUMNS.contains(&header) {
        Give::Clip
    } else if PROSE_COLUMNS.contains(&header) || cells().any(|c| c.split(' ').count() > 4) {
        Give::Prose
    } else if cells().any(|c| c.contains('/')) {
        Give::Path
    } else {
        Give::Fixed
    }
}

/// Each column's width for a terminal `width` wide (`None`: a pipe, every
/// cell whole). Tables that fit are left alone; else sentence columns
/// shrink first, then path columns, then sentences go to their notes
/// whole; numbers, times and names never shrink (a row of them alone wider
/// than the terminal stays one line, wider).
/// And the gap between columns: two spaces, one where two do not fit.
fn widths(header: &[String], rows: &[Vec<String>], width: Option<usize>) -> (Vec<usize>, usize) {
    let w = widths_with(header, rows, width, GAP);
    let n = header.len();
    let total = w.iter().sum::<usize>().saturating_add(n.saturating_sub(1).saturating_mul(GAP));
    match width {
        Some(width) if total > width => (widths_with(header, rows, Some(width), 1), 1),
        _ => (w, GAP),
    }
}

fn widths_with(header: &[String], rows: &[Vec<String>], width: Option<usize>, gap: usize) -> Vec<usize> {
    let n = header.len();
    let mut natural: Vec<usize> = header.iter().map(|h| shown_width(h)).collect();
    for row in rows {
        for (w, cell) in natural.iter_mut().zip(row) {
            *w = (*w).max(shown_width(cell));
        }
    }
    let Some(width) = width else { return natural };
    let total = |w: &[usize]| w.iter().sum::<usize>().saturating_add(n.saturating_sub(1).saturating_mul(gap));
    let gives: Vec<Give> = header.iter().enumerate().map(|(i, h)| give(h, rows, i)).collect();
    let mut w = natural.clone();
    let header_w = |i: usize| header.get(i).map_or(0, |h| shown_width(h));
    // (which columns, down to what) in the order they give way
    // (which columns, down to at least what, besides their header's width)
    let steps: [(Give, usize); 4] =
        [(Give::Clip, 8), (Give::Prose, PROSE_MIN), (Give::Path, PATH_MIN), (Give::Prose, 4)];
    for (kind, least) in steps {
        let floor = |i: usize| header_w(i).max(least);
        // the widest of them gives a character at a time
        while total(&w) > width {
            let widest = (0..n)
                .filter(|&i| gives.get(i) == Some(&kind))
                .filter(|&i| w.get(i).copied().unwrap_or(0) > floor(i))
                .max_by_key(|&i| w.get(i).copied().unwrap_or(0));
            let Some(i) = widest else { break };
            if let Some(x) = w.get_mut(i) {
                *x = x.saturating_sub(1);
            }
        }
    }
    w
}

/// `s` cut to `width` characters, ending in `…` (colour escapes kept whole
/// cells are never cut: they are names).
fn cut_end(s: &str, width: usize) -> String {
    if shown_width(s) <= width {
        return s.to_string();
    }
    let mut out: String = s.chars().take(width.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// A path shortened to `width`: its leading directories give way first
/// (`…/kill-lz4-0/00000000000000000775.index`); only when even the last
/// two components (or a name alone) do not fit is the middle cut.
/// `(shown, lossy)`: lossy when the middle was cut (the row gets a note).
fn cut_path(s: &str, width: usize) -> (String, bool) {
    let len = s.chars().count();
    if len <= width {
        return (s.to_string(), false);
    }
    let parts: Vec<&str> = s.split('/').collect();
    // the most trailing components that fit after `…/`, at least two
    // (one when the path has no directory)
    let least = parts.len().min(2);
    for k in (least..parts.len()).rev() {
        let tail = parts.get(parts.len().saturating_sub(k)..).unwrap_or_default().join("/");
        if tail.chars().count().saturating_add(2) <= width {
            return (format!("…/{tail}"), false);
        }
    }
    // the partition dir and the file name, the name's zero padding cut
    // (`kill-lz4-0/0…775.index`: only zeros go, nothing is lost)
    if let (Some(name), Some(parent)) = (parts.last(), parts.len().checked_sub(2).and_then(|i| parts.get(i))) {
        let lead = if parts.len() > 2 { "…/" } else { "" };
        let fixed = lead.chars().count() + parent.chars().count() + 1;
        if let Some(short) = width.checked_sub(fixed).and_then(|room| cut_zeros(name, room)) {
            return (format!("{lead}{parent}/{short}"), false);
        }
    }
    let keep = width.saturating_sub(1);
    let head = keep / 4;
    let tail = keep.saturating_sub(head);
    let mut out: String = s.chars().take(head).collect();
    out.push('…');
    out.extend(s.chars().skip(len.saturating_sub(tail)));
    (out, true)
}

/// A name with a zero-padded number (`00000000000000000775.index`)
/// shortened to `width` by cutting only padding zeros (`0…775.index`);
/// `None` when that does not make it fit.
fn cut_zeros(name: &str, width: usize) -> Option<String> {
    let len = name.chars().count();
    if len <= width {
        return Some(name.to_string());
    }
    let zeros = name.chars().take_while(|c| *c == '0').count();
    // keep the first zero and the `…`: cut `len - width + 1` zeros after it
    let cut = len.checked_sub(width)?.checked_add(1)?;
    if zeros < cut.checked_add(1)? || width < 4 {
        return None;
    }
    let rest: String = name.chars().skip(cut.saturating_add(1)).collect();
    Some(format!("0…{rest}"))
}

/// The table's lines (header first, then one line per row) and the notes
/// that go under it: a row whose sentence or path had to be cut gets a
/// number (`[n]`, in its last cut cell; counted from `first` + 1) and its
/// whole texts in note n.
fn render(
    header: &[String],
    rows: &[Vec<String>],
    width: Option<usize>,
    first: usize,
) -> (Vec<String>, Vec<String>, bool) {
    let (w, gap) = widths(header, rows, width);
    let gives: Vec<Give> = header.iter().enumerate().map(|(i, h)| give(h, rows, i)).collect();
    let mut notes: Vec<String> = Vec::new();
    let mut clipped = false;
    let line = |cells: &[String]| -> String {
        let mut s = String::new();
        let last = cells.len().saturating_sub(1);
        for (i, c) in cells.iter().enumerate() {
            s.push_str(c);
            if i < last {
                let pad = w.get(i).copied().unwrap_or(0).saturating_sub(shown_width(c)).saturating_add(gap);
                s.extend(std::iter::repeat_n(' ', pad));
            }
        }
        s.trim_end().to_string()
    };
    let mut lines = vec![line(header)];
    for row in rows {
        let too_wide = |i: usize| row.get(i).is_some_and(|c| shown_width(c) > w.get(i).copied().unwrap_or(0));
        // paths that only lose leading directories need no note
        let mut shown: Vec<Option<String>> = vec![None; row.len()];
        let mut cut: Vec<usize> = Vec::new();
        for i in 0..row.len() {
            match gives.get(i) {
                Some(Give::Path) if too_wide(i) => {
                    let (p, lossy) = cut_path(row.get(i).map_or("", String::as_str), w.get(i).copied().unwrap_or(0));
                    if lossy {
                        cut.push(i);
                    } else if let Some(x) = shown.get_mut(i) {
                        *x = Some(p);
                    }
                }
                Some(Give::Prose) if too_wide(i) => cut.push(i),
                Some(Give::Clip) if too_wide(i) => {
                    if let Some(x) = shown.get_mut(i) {
                        *x = Some(cut_end(row.get(i).map_or("", String::as_str), w.get(i).copied().unwrap_or(0)));
                    }
                    clipped = true;
                }
                _ => {}
            }
        }
        if cut.is_empty() {
            let cells: Vec<String> = row.iter().zip(shown).map(|(c, s)| s.unwrap_or_else(|| c.clone())).collect();
            lines.push(line(&cells));
            continue;
        }
        let text = cut.iter().filter_map(|&i| row.get(i).map(String::as_str)).collect::<Vec<_>>().join(": ");
        let n = match notes.iter().position(|x| *x == text) {
            Some(n) => n,
            None => {
                notes.push(text);
                notes.len().saturating_sub(1)
            }
        };
        let marker = format!("[{}]", n.saturating_add(first).saturating_add(1));
        let cells: Vec<String> = row
            .iter()
            .zip(shown)
            .enumerate()
            .map(|(i, (c, s))| {
                let cw = w.get(i).copied().unwrap_or(0);
                if !cut.contains(&i) {
                    return s.unwrap_or_else(|| c.clone());
                }
                let room = if cut.last() == Some(&i) { cw.saturating_sub(marker.len().saturating_add(1)) } else { cw };
                let short = match gives.get(i) {
                    Some(Give::Path) => cut_path(c, room).0,
                    _ if room < 6 => String::new(),
                    _ => cut_end(c, room),
                };
                if cut.last() == Some(&i) {
                    if short.is_empty() { marker.clone() } else { format!("{short} {marker}") }
                } else {
                    short
                }
            })
            .collect();
        lines.push(line(&cells));
    }
    (lines, notes, clipped)
}

/// `s` wrapped to lines of at most `width` characters: at spaces, and a
/// word longer than a line after a `/`, `_`, `-`, `.` or `,` where it has
/// one (a path, a Kafka name), else where it must. Coloured cells are left
/// whole (a severity, one word).
fn wrap_cell(s: &str, width: usize) -> String {
    if s.contains('\x1b') || cell_width(s) <= width {
        return s.to_string();
    }
    let mut out: Vec<String> = Vec::new();
    for para in s.lines() {
        let mut line = String::new();
        for word in para.split(' ').filter(|w| !w.is_empty()) {
            let mut word = word.to_string();
            loop {
                let len = word.chars().count();
                let used = line.chars().count();
                let sep = usize::from(used > 0);
                if used + sep + len <= width {
                    if sep == 1 {
                        line.push(' ');
                    }
                    line.push_str(&word);
                    break;
                }
                if used > 0 {
                    out.push(std::mem::take(&mut line));
                    continue;
                }
                // a word longer than a line: cut it after a separator
                let chars: Vec<char> = word.chars().collect();
                let limit = width.min(chars.len());
                let cut = (1..limit)
                    .rev()
                    .find(|&i| {
                        let digit = |j: usize| chars.get(j).is_some_and(char::is_ascii_digit);
                        // (a time's `T` between its date and time of day)
                        chars.get(i - 1).is_some_and(|c| {
                            matches!(c, '/' | '_' | '-' | '.' | ',')
                                || (*c == 'T' && digit(i) && i >= 2 && digit(i - 2))
                        })
                    })
                    .filter(|&i| i * 3 >= limit)
                    .unwrap_or(limit)
                    .max(1);
                out.push(chars.iter().take(cut).collect());
                word = chars.iter().skip(cut).collect();
                if word.is_empty() {
                    break;
                }
            }
        }
        out.push(line);
    }
    out.join("\n")
}

/// Whether tables are coloured (`--color`, set once at start).
static COLOR: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

pub fn set_color(on: bool) {
    COLOR.store(on, std::sync::atomic::Ordering::Relaxed);
}

/// A severity, coloured when colour is on: error red, warning yellow.
fn severity(s: &str) -> String {
    if !COLOR.load(std::sync::atomic::Ordering::Relaxed) {
        return s.to_string();
    }
    match s {
        "error" => format!("\x1b[1;31m{s}\x1b[0m"),
        "warning" => format!("\x1b[33m{s}\x1b[0m"),
        _ => s.to_string(),
    }
}

// one home for cell texts: the library's (its report types use them too)
pub use logfmt::report::{clip, time_text as fmt_time};

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn every_row_is_one_line_and_sentences_go_to_notes() {
        let header = strings(&["SEVERITY", "KIND", "FILE", "MESSAGE"]);
        let rows = vec![
            strings(&[
                "info",
                "unclean_shutdown",
                ".kafka_cleanshutdown",
                "no clean-shutdown marker: the broker did not stop cleanly (or is running)",
            ]),
            strings(&[
                "error",
                "crc_mismatch",
                "kill-lz4-0/00000000000000000775.log",
                "stored CRC-32C 1925361728 but the batch's bytes give 207498924",
            ]),
        ];
        let (lines, notes, _) = render(&header, &rows, Some(80), 0);
        assert_eq!(lines.len(), 3, "{lines:#?}");
        assert!(lines.iter().all(|l| l.chars().count() <= 80), "{lines:#?}");
        // names whole, the path's file name kept; both sentences cut, whole
        // in the notes
        assert!(lines[2].contains("crc_mismatch") && lines[2].contains("0775.log"), "{lines:#?}");
        assert!(lines[2].ends_with("[2]"), "{lines:#?}");
        assert_eq!(notes.len(), 2);
        assert!(notes[1].ends_with("give 207498924"), "{notes:?}");
        // piped: whole rows, no notes
        let (lines, notes, _) = render(&header, &rows, None, 0);
        assert!(notes.is_empty() && lines[2].ends_with("207498924"));
        assert!(lines.iter().all(|l| l.is_ascii()), "{lines:#?}");
    }

    #[test]
    fn paths_lose_leading_directories_first() {
        assert_eq!(cut_path("/work/main/logs/kill-lz4-0", 20), ("…/logs/kill-lz4-0".to_string(), false));
        assert_eq!(
            cut_path("/a/very/long/prefix/kill-lz4-0/00000000000000000775.index", 40),
            ("…/kill-lz4-0/00000000000000000775.index".to_string(), false)
        );
        // only the file name's zero padding goes: nothing lost
        let (short, lossy) = cut_path("/logs/kill-lz4-0/00000000000000000775.index", 28);
        assert_eq!((short.as_str(), lossy), ("…/kill-lz4-0/0…0000775.index", false));
        assert_eq!(short.chars().count(), 28);
        let (short, lossy) = cut_path("a-very-long-partition-name-0/some-file-name.index", 20);
        assert!(lossy && short.chars().count() == 20 && short.ends_with("name.index"), "{short}");
    }

    #[test]
    fn detail_columns_go_before_numbers() {
        let header: Vec<String> = inspect::groups::LAG_COLUMNS.iter().map(|s| s.to_string()).collect();
        let rows: Vec<Vec<String>> = (0..3)
            .map(|p| {
                let p = p.to_string();
                strings(&[
                    "fixture-group",
                    "plain",
                    &p,
                    "210",
                    "210",
                    "0",
                    "210",
                    "2026-11-22T05:08:54.148Z",
                    "seen=180",
                ])
            })
            .collect();
        let (h, r, gone) = drop_details(header, rows, 80, None);
        assert_eq!(gone, ["HOST", "CLIENT-ID"]);
        assert!(h.contains(&"LAG".to_string()) && r.iter().all(|r| r.len() == h.len()));
    }

    #[test]
    fn cells_wrap_at_words_and_separators() {
        assert_eq!(wrap_cell("no clean-shutdown marker: the broker", 14), "no\nclean-shutdown\nmarker: the\nbroker");
        assert_eq!(wrap_cell("kill-lz4-0/00000000000000000775.index", 16), "kill-lz4-0/\n0000000000000000\n0775.index");
        assert_eq!(wrap_cell("short", 10), "short");
    }

    #[test]
    fn long_repeated_text_once_under_the_table() {
        let why = "(Kafka's default (no metadata log found: give --metadata-dir))";
        let mut rows = vec![
            vec!["a-0".to_string(), format!("4096 {why}")],
            vec!["b-0".to_string(), format!("4096 {why}")],
            vec!["c-0".to_string(), "128 (topic config)".to_string()],
        ];
        let notes = footnotes(&mut rows);
        assert_eq!(notes, ["Kafka's default (no metadata log found: give --metadata-dir)"]);
        assert_eq!(rows[0][1], "4096 [1]");
        assert_eq!(rows[1][1], "4096 [1]");
        assert_eq!(rows[2][1], "128 (topic config)");
        // said once: left alone
        let mut one = vec![vec![format!("4096 {why}")]];
        assert!(footnotes(&mut one).is_empty());
    }

    #[test]
    fn clipping() {
        assert_eq!(clip("short"), "short");
        assert_eq!(clip("a\nb\x1b[2J"), "a.b.[2J");
        assert_eq!(clip(&"x".repeat(70)).chars().count(), 61);
    }

    #[test]
    fn times() {
        assert_eq!(fmt_time(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(fmt_time(1_795_319_478_692), "2026-11-22T03:51:18.692Z");
        assert_eq!(fmt_time(951_782_400_000), "2000-02-29T00:00:00.000Z");
        assert_eq!(fmt_time(-1), "-");
    }
}
