//! A small, careful HTML-to-text converter for fetched pages.
//!
//! Owns turning markup into readable text: tags dropped, `script`, `style` and
//! similar non-content elements dropped with their content, comments dropped,
//! block elements turned into line breaks, list items into `- ` lines, headings
//! into `#` lines, common character references decoded, whitespace collapsed
//! outside `pre`. It is a reader's view, not a parser: it never executes, fetches
//! or follows anything, and it is linear in the input size.

/// Elements dropped together with everything inside them.
const SKIPPED: &[&str] = &[
    "script", "style", "noscript", "template", "svg", "math", "iframe", "object", "canvas", "head",
];

/// Elements that start and end a line.
const LINE: &[&str] = &[
    "div",
    "br",
    "tr",
    "dt",
    "dd",
    "header",
    "footer",
    "nav",
    "main",
    "aside",
    "form",
    "figure",
    "figcaption",
    "option",
    "address",
    "details",
    "summary",
];

/// Elements that start and end a paragraph (a blank line around them).
const PARAGRAPH: &[&str] = &[
    "p",
    "pre",
    "blockquote",
    "table",
    "ul",
    "ol",
    "dl",
    "hr",
    "section",
    "article",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
];

/// Readable text of an HTML document.
pub fn html_to_text(html: &str) -> String {
    let mut out = Output::default();
    let mut i = 0;
    while i < html.len() {
        let rest = &html[i..];
        if rest.starts_with("<!--") {
            i += rest.find("-->").map_or(rest.len(), |end| end + 3);
            continue;
        }
        if let Some(tag) = parse_tag(rest) {
            i += tag.len;
            if !tag.closing && !tag.self_closing && SKIPPED.contains(&tag.name.as_str()) {
                i += skip_element(&html[i..], &tag.name);
            } else {
                out.tag(&tag);
            }
            continue;
        }
        // Text up to the next '<' (a '<' that starts no tag is text).
        let end = rest
            .char_indices()
            .skip(1)
            .find(|&(_, c)| c == '<')
            .map_or(rest.len(), |(at, _)| at);
        out.text(&decode_entities(&rest[..end]));
        i += end;
    }
    out.finish()
}

#[derive(Debug)]
struct Tag {
    /// Lower-case element name; empty for declarations (`<!doctype>`, `<?xml?>`).
    name: String,
    closing: bool,
    self_closing: bool,
    /// Bytes of the input the tag spans, including `<` and `>`.
    len: usize,
}

/// Parses the tag at the start of `text` (which starts with `<`), if it is one.
fn parse_tag(text: &str) -> Option<Tag> {
    let bytes = text.as_bytes();
    if bytes.first() != Some(&b'<') {
        return None;
    }
    let (closing, name_start) = match bytes.get(1) {
        Some(b'/') => (true, 2),
        Some(b'!' | b'?') => {
            let len = text.find('>').map_or(text.len(), |end| end + 1);
            return Some(Tag {
                name: String::new(),
                closing: false,
                self_closing: true,
                len,
            });
        }
        _ => (false, 1),
    };
    if !bytes.get(name_start).is_some_and(u8::is_ascii_alphabetic) {
        return None;
    }
    let name_end = bytes[name_start..]
        .iter()
        .position(|b| !(b.is_ascii_alphanumeric() || *b == b'-' || *b == b':'))
        .map_or(bytes.len(), |at| name_start + at);
    let name = text[name_start..name_end].to_ascii_lowercase();
    // Find the closing '>' outside quoted attribute values.
    let mut quote = None;
    let mut end = None;
    for (at, &b) in bytes.iter().enumerate().skip(name_end) {
        match (quote, b) {
            (Some(q), _) if b == q => quote = None,
            (Some(_), _) => {}
            (None, b'"' | b'\'') => quote = Some(b),
            (None, b'>') => {
                end = Some(at);
                break;
            }
            (None, _) => {}
        }
    }
    let (len, self_closing) = match end {
        Some(at) => (at + 1, at > 0 && bytes[at - 1] == b'/'),
        None => (bytes.len(), true),
    };
    Some(Tag {
        name,
        closing,
        self_closing,
        len,
    })
}

/// Bytes of `text` up to and including the end tag `</name ...>` (all of it if none).
fn skip_element(text: &str, name: &str) -> usize {
    let bytes = text.as_bytes();
    let mut from = 0;
    while let Some(found) = text[from..].find("</") {
        let at = from + found;
        let after = &bytes[at + 2..];
        let matches = after.len() >= name.len()
            && after[..name.len()].eq_ignore_ascii_case(name.as_bytes())
            && after
                .get(name.len())
                .is_none_or(|b| !(b.is_ascii_alphanumeric() || *b == b'-'));
        if matches {
            return text[at..].find('>').map_or(text.len(), |end| at + end + 1);
        }
        from = at + 2;
    }
    text.len()
}

#[derive(Debug, Default)]
struct Output {
    text: String,
    pre_depth: usize,
    pending_space: bool,
}

impl Output {
    fn tag(&mut self, tag: &Tag) {
        let name = tag.name.as_str();
        if name == "pre" {
            if tag.closing {
                self.pre_depth = self.pre_depth.saturating_sub(1);
            } else if !tag.self_closing {
                self.pre_depth += 1;
            }
        }
        if name == "br" {
            self.text.push('\n');
            self.pending_space = false;
        } else if PARAGRAPH.contains(&name) {
            self.break_lines(2);
            if !tag.closing && name.len() == 2 && name.starts_with('h') {
                let level = name[1..].parse::<usize>().unwrap_or(1);
                self.text.push_str(&"#".repeat(level));
                self.text.push(' ');
            }
        } else if LINE.contains(&name) {
            self.break_lines(1);
        } else if name == "li" {
            self.break_lines(1);
            if !tag.closing {
                self.text.push_str("- ");
            }
        } else if matches!(name, "td" | "th") {
            self.pending_space = true;
        }
    }

    fn text(&mut self, text: &str) {
        if self.pre_depth > 0 {
            self.text.push_str(text);
            return;
        }
        for c in text.chars() {
            if c.is_whitespace() {
                self.pending_space = true;
                continue;
            }
            if self.pending_space && !self.text.is_empty() && !self.text.ends_with(['\n', ' ']) {
                self.text.push(' ');
            }
            self.pending_space = false;
            self.text.push(c);
        }
    }

    /// Ends the current line so that at least `count` line breaks precede what follows.
    fn break_lines(&mut self, count: usize) {
        self.pending_space = false;
        if self.text.is_empty() {
            return;
        }
        let trimmed = self.text.trim_end_matches([' ', '\t']).len();
        self.text.truncate(trimmed);
        let have = self.text.len() - self.text.trim_end_matches('\n').len();
        for _ in have..count {
            self.text.push('\n');
        }
    }

    fn finish(self) -> String {
        let mut result = String::with_capacity(self.text.len());
        let mut blank_run = 0;
        for line in self.text.lines() {
            let line = line.trim_end();
            if line.is_empty() {
                blank_run += 1;
                if blank_run > 1 {
                    continue;
                }
            } else {
                blank_run = 0;
            }
            result.push_str(line);
            result.push('\n');
        }
        result.trim().to_owned()
    }
}

/// Decodes character references (`&amp;`, `&#39;`, `&#x27;` and common named ones).
/// Unknown or malformed references are kept as written.
pub fn decode_entities(text: &str) -> String {
    if !text.contains('&') {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        rest = &rest[amp..];
        let decoded = rest[1..]
            .find(';')
            .filter(|&semi| semi > 0 && semi <= 32)
            .and_then(|semi| entity(&rest[1..=semi]).map(|c| (c, semi + 2)));
        match decoded {
            Some((c, len)) => {
                out.push(c);
                rest = &rest[len..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

fn entity(name: &str) -> Option<char> {
    if let Some(number) = name.strip_prefix('#') {
        let code = match number.strip_prefix(['x', 'X']) {
            Some(hex) => u32::from_str_radix(hex, 16).ok()?,
            None => number.parse::<u32>().ok()?,
        };
        return match char::from_u32(code) {
            Some('\0') | None => Some('\u{fffd}'),
            Some(c) => Some(c),
        };
    }
    Some(match name {
        "amp" => '&',
        "lt" => '<',
        "gt" => '>',
        "quot" => '"',
        "apos" => '\'',
        "nbsp" => ' ',
        "ndash" => '–',
        "mdash" => '—',
        "hellip" => '…',
        "lsquo" => '‘',
        "rsquo" => '’',
        "ldquo" => '“',
        "rdquo" => '”',
        "laquo" => '«',
        "raquo" => '»',
        "bull" => '•',
        "middot" => '·',
        "copy" => '©',
        "reg" => '®',
        "trade" => '™',
        "deg" => '°',
        "times" => '×',
        "euro" => '€',
        "pound" => '£',
        "sect" => '§',
        "para" => '¶',
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drops_tags_scripts_styles_and_comments() {
        let html = r#"<!DOCTYPE html><html><head><title>T</title><style>body{color:red}</style></head>
            <body><!-- hidden --><h1>Title</h1><p>Hello <b>world</b>&amp; friends.</p>
            <script type="text/javascript">var x = "</p>"; alert(1)</script>
            <SCRIPT>evil()</SCRIPT ><p>Second</p></body></html>"#;
        assert_eq!(
            html_to_text(html),
            "# Title\n\nHello world& friends.\n\nSecond"
        );
    }

    #[test]
    fn lists_and_line_breaks_become_lines() {
        let html = "<ul><li>one</li><li>two <i>2</i></li></ul>a<br>b<div>c</div>";
        assert_eq!(html_to_text(html), "- one\n- two 2\n\na\nb\nc");
    }

    #[test]
    fn preformatted_text_keeps_its_whitespace() {
        let html = "<p>x</p><pre>fn main() {\n    run();\n}</pre>";
        assert_eq!(html_to_text(html), "x\n\nfn main() {\n    run();\n}");
    }

    #[test]
    fn quoted_angle_brackets_in_attributes_do_not_end_the_tag() {
        let html = r#"<a title="a > b" href='x'>link</a> <img alt="<script>">after"#;
        assert_eq!(html_to_text(html), "link after");
    }

    #[test]
    fn stray_angle_brackets_are_text() {
        assert_eq!(html_to_text("1 < 2 and 3 <= 4"), "1 < 2 and 3 <= 4");
    }

    #[test]
    fn an_unclosed_script_drops_the_rest() {
        assert_eq!(html_to_text("<p>kept</p><script>never closed"), "kept");
    }

    #[test]
    fn entities_decode_and_unknown_ones_stay() {
        assert_eq!(
            decode_entities("&lt;a&gt; &#39;q&#x27; &copy; &bogus; AT&T &#0;"),
            "<a> 'q' © &bogus; AT&T \u{fffd}"
        );
    }
}
