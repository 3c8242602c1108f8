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
use tabled::builder::Builder;
use tabled::settings::{Padding, Style};

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

pub fn json_int(out: &mut Vec<u8>, name: &str, v: impl itoa::Integer) {
    out.extend_from_slice(b",\"");
    out.extend_from_slice(name.as_bytes());
    out.extend_from_slice(b"\":");
    out.extend_from_slice(itoa::Buffer::new().format(v).as_bytes());
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
}

#[derive(Default)]
struct TableState {
    header: Vec<&'static str>,
    rows: Vec<Vec<String>>,
    /// The columns said not shown already (said once per run).
    said_hidden: Vec<Vec<&'static str>>,
}

impl<W: Write> Output<W> {
    pub fn new(out: W, format: Format) -> Output<W> {
        Output { out, format, table: TableState::default(), json: Vec::new(), json_name: JsonName::default() }
    }

    /// A line of a command's own ([`Emit`]).
    pub fn emit<L: Emit>(&mut self, line: &L) -> io::Result<()> {
        match self.format {
            Format::Json => {
                // a hot line is written directly (the same bytes serde
                // writes), many at a time
                if let Some(r) = line.fast_json(&mut self.json, &mut self.json_name) {
                    r?;
                    if self.json.len() >= JSON_CHUNK {
                        self.flush_json()?;
                    }
                    return Ok(());
                }
                self.flush_json()?;
                self.write_out(|out| {
                    serde_json::to_writer(&mut *out, line).map_err(io::Error::from)?;
                    out.write_all(b"\n")
                })
            }
            Format::Table => line.table(self),
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
            Format::Table => match r.show() {
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

    /// Free text between tables (charts in the terminal); nothing in JSON.
    pub fn prose(&mut self, s: &str) -> io::Result<()> {
        match self.format {
            Format::Json => Ok(()),
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
        let notes = footnotes(&mut self.table.rows);
        let layout = match terminal_width() {
            Some(w) => layout(&self.table.header, &self.table.rows, w),
            None => Layout::Bordered(vec![None; self.table.header.len()]),
        };
        let (widths, plain, hidden) = match layout {
            Layout::Expanded(width) => return self.flush_expanded(width),
            Layout::Bordered(w) => (w, false, Vec::new()),
            Layout::Plain(w, hidden) => (w, true, hidden),
        };
        let keep = |i: &usize| !hidden.contains(i);
        // the terminal's width: each cell (and header) wrapped to its
        // column's share, at words (JSON keeps every value whole)
        let fit = |row: Vec<String>| -> Vec<String> {
            row.into_iter()
                .zip(&widths)
                .enumerate()
                .filter(|(i, _)| keep(i))
                .map(|(_, (cell, w))| match w {
                    Some(w) => wrap_cell(&cell, *w),
                    None => cell,
                })
                .collect()
        };
        let mut rows: Vec<Vec<String>> = vec![fit(self.table.header.iter().map(|s| s.to_string()).collect())];
        rows.extend(self.table.rows.drain(..).map(fit));
        let heights: Vec<usize> = rows.iter().map(|r| r.iter().map(|c| c.lines().count()).max().unwrap_or(1)).collect();
        let mut b = Builder::default();
        for row in rows {
            b.push_record(row);
        }
        let mut t = b.build();
        if plain {
            // no borders: two spaces between columns, and a blank line
            // between rows when a row (or the header) takes more than one
            t.with(Style::empty()).with(Padding::new(0, 2, 0, 0));
            let text = t.to_string();
            let text = if heights.iter().skip(1).any(|&h| h > 1) {
                separate_rows(&text, &heights)
            } else {
                text.lines().map(str::trim_end).collect::<Vec<_>>().join("\n")
            };
            self.write_out(|out| writeln!(out, "{text}"))?;
        } else {
            t.with(Style::sharp());
            self.write_out(|out| writeln!(out, "{t}"))?;
        }
        let mut text: Vec<String> = notes.iter().enumerate().map(|(i, n)| format!("  [{}] {n}", i + 1)).collect();
        let names: Vec<&'static str> = hidden.iter().filter_map(|&i| self.table.header.get(i).copied()).collect();
        if !names.is_empty() && !self.table.said_hidden.contains(&names) {
            text.push(format!(
                "  not shown at this width: {} (a wider terminal, a pipe or --format json shows every column)",
                names.join(", ")
            ));
            self.table.said_hidden.push(names);
        }
        if text.is_empty() {
            return Ok(());
        }
        self.push_wrapped(&text.join("\n"))
    }

    /// The rows one below the other, `COLUMN  value` per line (empty cells
    /// left out): a table too wide for the terminal even with every column
    /// wrapped to its header (as `psql`'s expanded mode).
    fn flush_expanded(&mut self, width: usize) -> io::Result<()> {
        let header = std::mem::take(&mut self.table.header);
        let label = header.iter().map(|h| shown_width(h)).max().unwrap_or(0);
        let value_width = width.saturating_sub(label.saturating_add(2)).max(10);
        let mut text = String::new();
        for (n, row) in self.table.rows.drain(..).enumerate() {
            let title = format!("─[ {} ]", n.saturating_add(1));
            let rule = "─".repeat(width.saturating_sub(shown_width(&title)).min(40));
            text.push_str(&format!("{title}{rule}\n"));
            for (h, cell) in header.iter().zip(row) {
                if cell.trim().is_empty() {
                    continue;
                }
                for (i, line) in wrap_cell(cell.trim(), value_width).split('\n').enumerate() {
                    let name = if i == 0 { *h } else { "" };
                    text.push_str(&format!("{name:<label$}  {line}\n"));
                }
            }
        }
        self.table.header = header;
        self.write_out(|out| write!(out, "{text}"))
    }

    fn push_row(&mut self, header: &[&'static str], row: Vec<String>) -> io::Result<()> {
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
        self.write_out(|out| writeln!(out, "{s}"))
    }

    /// Text in sentences, wrapped at words to the terminal's width (charts
    /// go through [`Output::prose`], unwrapped).
    fn push_wrapped(&mut self, s: &str) -> io::Result<()> {
        match terminal_width() {
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

/// The longest word a column keeps whole when it can (longer ones, paths
/// mostly, wrap after a `/`, `_` or `-`).
const WHOLE_WORD: usize = 24;

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

/// How a table is shown in a terminal `width` characters wide.
#[derive(Debug, PartialEq, Eq)]
enum Layout {
    /// Boxed, each column's width (`None`: as wide as its widest cell).
    Bordered(Vec<Option<usize>>),
    /// No borders, two spaces between columns (a boxed table does not fit
    /// even with every column wrapped to its floor); the columns in
    /// `hidden` (`None` width) are left out and named under the table.
    Plain(Vec<Option<usize>>, Vec<usize>),
    /// The rows one below the other (not even that fits).
    Expanded(usize),
}

/// The layout of a table in a terminal `width` characters wide. A table
/// that fits boxed is left alone. Else each column keeps at least its floor:
/// the longest word of its header (headers wrap at spaces and after a `-`),
/// a column of names (one word per cell, no path: a finding kind such as
/// `unclean_shutdown`) its longest name up to [`WHOLE_WORD`], anything else
/// at least 6 (or its natural width, if narrower); the rest is shared out
/// narrowest-first (max-min fairness), so short columns stay whole and the
/// wide ones split what is left. Boxed, borders and padding take 3 per column
/// and 1; without borders 2 between columns.
fn layout(header: &[&str], rows: &[Vec<String>], width: usize) -> Layout {
    let n = header.len();
    let mut natural: Vec<usize> = header.iter().map(|h| shown_width(h)).collect();
    for row in rows {
        for (w, cell) in natural.iter_mut().zip(row) {
            *w = (*w).max(cell_width(cell));
        }
    }
    let boxed = width.saturating_sub(n.saturating_mul(3).saturating_add(1));
    if natural.iter().sum::<usize>() <= boxed {
        return Layout::Bordered(vec![None; n]);
    }
    let mut longest_word: Vec<usize> = vec![0; n];
    let mut names: Vec<bool> = vec![true; n];
    for row in rows {
        for ((w, is_name), cell) in longest_word.iter_mut().zip(names.iter_mut()).zip(row) {
            *is_name &= !cell.contains([' ', '\n', '/']);
            *w = (*w).max(shown_width(cell).min(WHOLE_WORD));
        }
    }
    for (w, is_name) in longest_word.iter_mut().zip(&names) {
        if !is_name {
            *w = 0;
        }
    }
    // names whole where that fits, else names wrap too (at separators)
    let floors = |names_whole: bool| -> Vec<usize> {
        header
            .iter()
            .zip(&natural)
            .zip(&longest_word)
            .map(|((h, &nat), &word)| {
                let word = if names_whole { word } else { 0 };
                nat.min(header_floor(h).max(word).max(if word > 0 { 0 } else { 6 }))
            })
            .collect()
    };
    let plain = width.saturating_sub(n.saturating_sub(1).saturating_mul(2));
    let floor = floors(true);
    let need: usize = floor.iter().sum();
    let prose: Vec<bool> = (0..n).map(|i| rows.iter().any(|r| r.get(i).is_some_and(|c| c.contains(' ')))).collect();
    if need <= boxed {
        let widths = share(&natural, &floor, boxed);
        // (unless a name or path would take more than two lines)
        let cut = rows.iter().any(|r| {
            r.iter()
                .zip(&widths)
                .zip(&prose)
                .any(|((c, w), &p)| !p && w.is_some_and(|w| wrap_cell(c, w).lines().count() > 2))
        });
        if !cut {
            return Layout::Bordered(widths);
        }
    }
    // borderless: unless the rows one below the other take fewer lines
    if need <= plain {
        let widths = share(&natural, &floor, plain);
        if plain_lines(header, rows, &widths).is_some_and(|lines| lines <= expanded_lines(rows)) {
            return Layout::Plain(widths, Vec::new());
        }
    }
    // names and times would break mid-word: leave out up to a third of the
    // columns, from the right (the detail columns; prose columns wrap well
    // and stay), where that makes the table fit and at most half as long as
    // the rows one below the other
    let mut hidden: Vec<usize> = Vec::new();
    // (lines, widths, hidden) of the best so far: one more column left out
    // only where that saves a quarter of the lines
    let mut best: Option<(usize, Vec<Option<usize>>, Vec<usize>)> = None;
    for i in (2..n).rev() {
        if prose.get(i) == Some(&true) {
            continue;
        }
        if hidden.len() >= n / 3 {
            break;
        }
        hidden.push(i);
        let shown = |v: &[usize]| -> Vec<usize> {
            v.iter().enumerate().map(|(j, &w)| if hidden.contains(&j) { 0 } else { w }).collect()
        };
        let (nat, flo) = (shown(&natural), shown(&floor));
        let plain = width.saturating_sub(n.saturating_sub(1 + hidden.len()).saturating_mul(2));
        if flo.iter().sum::<usize>() > plain {
            continue;
        }
        let mut widths = share(&nat, &flo, plain);
        for &j in &hidden {
            if let Some(w) = widths.get_mut(j) {
                *w = None;
            }
        }
        let Some(lines) = plain_lines(header, rows, &widths) else { continue };
        if lines.saturating_add(2).saturating_mul(2) > expanded_lines(rows) {
            continue;
        }
        if best.as_ref().is_none_or(|(b, _, _)| lines.saturating_mul(4) <= b.saturating_mul(3)) {
            let mut h = hidden.clone();
            h.sort_unstable();
            best = Some((lines, widths, h));
        }
    }
    if let Some((_, widths, hidden)) = best {
        return Layout::Plain(widths, hidden);
    }
    // else every column, names wrapped too, if that is shorter
    let floor = floors(false);
    if floor.iter().sum::<usize>() <= plain {
        let widths = share(&natural, &floor, plain);
        if plain_lines(header, rows, &widths).is_some_and(|lines| lines <= expanded_lines(rows)) {
            return Layout::Plain(widths, Vec::new());
        }
    }
    Layout::Expanded(width)
}

/// The narrowest a header can be: its longest piece when it wraps at spaces
/// and after a `-` (`LOG-END-OFFSET (HW)`: 6).
fn header_floor(h: &str) -> usize {
    h.split(' ').flat_map(|w| w.split_inclusive('-')).map(shown_width).max().unwrap_or(0)
}

/// Column widths: each its floor, then `available` shared out: the columns
/// that need least to show whole get it first (so as many columns as can stay
/// whole), the rest is split evenly among the others. `None` for a column
/// left at its natural width.
fn share(natural: &[usize], floor: &[usize], available: usize) -> Vec<Option<usize>> {
    let n = natural.len();
    let mut alloc = floor.to_vec();
    let mut rest = available.saturating_sub(floor.iter().sum());
    let want = |i: usize| natural.get(i).copied().unwrap_or(0).saturating_sub(floor.get(i).copied().unwrap_or(0));
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_key(|&i| want(i));
    let mut k = 0;
    while let Some(&i) = order.get(k) {
        if want(i) > rest {
            break;
        }
        if let Some(a) = alloc.get_mut(i) {
            *a = a.saturating_add(want(i));
        }
        rest = rest.saturating_sub(want(i));
        k += 1;
    }
    let left = order.len().saturating_sub(k);
    for (j, &i) in order.iter().skip(k).enumerate() {
        let give = rest / (left - j).max(1);
        if let Some(a) = alloc.get_mut(i) {
            *a = a.saturating_add(give);
        }
        rest = rest.saturating_sub(give);
    }
    alloc.into_iter().zip(natural).map(|(a, &nat)| (a < nat).then_some(a.max(1))).collect()
}

/// The most lines a wrapped cell of a borderless table may take (beyond,
/// the rows one below the other read better).
const PLAIN_CELL_LINES: usize = 4;

/// How many lines a table takes with these column widths, borderless: the
/// header and each row as tall as its tallest wrapped cell, a blank line
/// between rows when a row (not the header) takes more than one; `None` when a cell would
/// take more than [`PLAIN_CELL_LINES`].
fn plain_lines(header: &[&str], rows: &[Vec<String>], widths: &[Option<usize>]) -> Option<usize> {
    let height = |row: &mut dyn Iterator<Item = &str>| -> usize {
        row.zip(widths)
            .map(|(c, w)| match w {
                Some(w) => wrap_cell(c, *w).lines().count(),
                None => c.lines().count(),
            })
            .max()
            .unwrap_or(1)
            .max(1)
    };
    let mut heights = vec![height(&mut header.iter().copied())];
    heights.extend(rows.iter().map(|r| height(&mut r.iter().map(String::as_str))));
    if heights.iter().any(|&h| h > PLAIN_CELL_LINES) {
        return None;
    }
    let lines: usize = heights.iter().sum();
    Some(if heights.iter().skip(1).any(|&h| h > 1) {
        lines.saturating_add(heights.len().saturating_sub(1))
    } else {
        lines
    })
}

/// How many lines the rows take one below the other.
fn expanded_lines(rows: &[Vec<String>]) -> usize {
    rows.iter().map(|r| r.iter().filter(|c| !c.trim().is_empty()).count().saturating_add(1)).sum()
}

/// A borderless table's lines with a blank line after each row (the
/// header first) of `heights` lines each: rows that take several lines are
/// told apart (used when a row, not just the header, takes several).
fn separate_rows(text: &str, heights: &[usize]) -> String {
    let mut lines = text.lines().map(str::trim_end);
    let mut out: Vec<&str> = Vec::new();
    for (i, &h) in heights.iter().enumerate() {
        out.extend(lines.by_ref().take(h.max(1)));
        if i + 1 < heights.len() {
            out.push("");
        }
    }
    out.extend(lines);
    out.join("\n")
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

    #[test]
    fn a_column_of_names_keeps_them_whole() {
        let header = ["SEVERITY", "KIND", "MESSAGE"];
        let rows = vec![vec![
            "info".to_string(),
            "unclean_shutdown".to_string(),
            "no clean-shutdown marker: the broker did not stop cleanly".to_string(),
        ]];
        let Layout::Bordered(widths) = layout(&header, &rows, 50) else { panic!() };
        // KIND whole (16), MESSAGE wraps; before, KIND wrapped at `unclean_`
        assert_eq!(widths.get(1), Some(&None), "{widths:?}");
        assert!(matches!(widths.get(2), Some(Some(_))), "{widths:?}");
    }

    #[test]
    fn cells_wrap_at_words_and_separators() {
        assert_eq!(wrap_cell("no clean-shutdown marker: the broker", 14), "no\nclean-shutdown\nmarker: the\nbroker");
        assert_eq!(wrap_cell("kill-lz4-0/00000000000000000775.index", 16), "kill-lz4-0/\n0000000000000000\n0775.index");
        assert_eq!(wrap_cell("short", 10), "short");
        let widths = layout(&["A", "MESSAGE"], &[vec!["x".into(), "word ".repeat(40)]], 40);
        assert_eq!(widths, Layout::Bordered(vec![None, Some(40 - 7 - 1)]));
        // too wide boxed: no borders, headers wrapped at spaces and `-`
        let lag = ["GROUP", "TOPIC", "PARTITION", "CURRENT-OFFSET", "LOG-END-OFFSET (HW)", "LAG"];
        let rows: Vec<Vec<String>> = (0..3)
            .map(|p| ["g-active", "orders", &p.to_string(), "40", "100", "60"].map(String::from).to_vec())
            .collect();
        assert!(matches!(layout(&lag, &rows, 50), Layout::Plain(_, _)), "{:?}", layout(&lag, &rows, 50));
        // too many columns for the width: rows one below the other
        assert_eq!(layout(&["POSITION"; 9], &[], 80), Layout::Expanded(80));
    }

    #[test]
    fn detail_columns_left_out_before_names_break() {
        // a lag table at 80 columns: its two detail columns (a time, a
        // name) are left out rather than every name cut mid-word
        let header = logfmt::groups::LAG_COLUMNS;
        let rows: Vec<Vec<String>> = (0..3)
            .map(|p| {
                let p = p.to_string();
                ["fixture-group", "plain", &p, "210", "210", "0", "210", "2026-11-22T05:08:54.148Z", "seen=180"]
                    .map(String::from)
                    .to_vec()
            })
            .collect();
        let Layout::Plain(widths, hidden) = layout(header, &rows, 80) else {
            panic!("{:?}", layout(header, &rows, 80))
        };
        assert_eq!(hidden, [7, 8]);
        assert_eq!(widths.first(), Some(&None), "GROUP whole: {widths:?}");
        // a prose column is never left out; a third of the columns at most
        let rows =
            vec![["info", "unclean_shutdown", "x/y", "no marker: the broker did not stop"].map(String::from).to_vec()];
        match layout(&["SEVERITY", "KIND", "FILE", "MESSAGE"], &rows, 40) {
            Layout::Plain(_, hidden) => assert!(!hidden.contains(&3) && hidden.len() <= 1, "{hidden:?}"),
            other => assert!(!matches!(other, Layout::Plain(..)), "{other:?}"),
        }
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
