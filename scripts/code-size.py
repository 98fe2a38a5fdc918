#!/usr/bin/env python3
"""Sizes of the workspace's Rust code: the files over a number of lines of code
and the longest functions (docs/architecture.md, "Layers").

    scripts/code-size.py [DIR] [--max-loc 400] [--top 10] [--src]

DIR is a git checkout (default: this repository); its tracked `*.rs` files
are read, with --src only those under a `src/` folder that are not test files
(`*_tests.rs`, `tests.rs`; a `mod tests` inside a file still counts). A line of code is a line with something other than blanks and
comments on it. A function's length is the lines from its `fn` to its closing
brace, both included (blank and comment lines too: what a reader scrolls).
Reads text only: a small tokenizer that knows comments, strings, raw strings,
char literals and lifetimes, so braces inside them are not counted.
"""

import argparse
import re
import subprocess
import sys
from pathlib import Path

IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def tokens(text):
    """Yields (line, token) for the code outside comments; a string or char
    literal is the token '"', once for each line it spans. Lines start at 1."""
    i, line, n = 0, 1, len(text)
    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
            i += 1
        elif c.isspace():
            i += 1
        elif text.startswith("//", i):
            end = text.find("\n", i)
            i = n if end < 0 else end
        elif text.startswith("/*", i):
            depth, i = 1, i + 2
            while i < n and depth:
                if text.startswith("/*", i):
                    depth, i = depth + 1, i + 2
                elif text.startswith("*/", i):
                    depth, i = depth - 1, i + 2
                else:
                    line += text[i] == "\n"
                    i += 1
        elif raw := re.match(r'b?r(#*)"', text[i : i + 300]):
            closing = '"' + raw.group(1)
            end = text.find(closing, i + raw.end())
            end = n if end < 0 else end + len(closing)
            for _ in range(text.count("\n", i, end) + 1):
                yield line, '"'
                line += 1
            line -= 1
            i = end
        elif c == '"' or text.startswith('b"', i):
            start = i
            i += 2 if c == "b" else 1
            while i < n and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
            i += 1
            for _ in range(text.count("\n", start, i) + 1):
                yield line, '"'
                line += 1
            line -= 1
        elif c == "'" or text.startswith("b'", i):
            j = i + (2 if c == "b" else 1)
            if j < n and text[j] == "\\":
                end = text.find("'", j + 2)
                yield line, '"'
                i = end + 1
            elif j + 1 < n and text[j + 1] == "'":
                yield line, '"'
                i = j + 2
            else:
                # a lifetime or a label
                m = IDENT.match(text, j)
                i = m.end() if m else j
                yield line, "'"
        elif m := IDENT.match(text, i):
            yield line, m.group(0)
            i = m.end()
        else:
            yield line, c
            i += 1


def lines_of_code(text):
    return len({line for line, _ in tokens(text)})


def functions(text):
    """(name, first line, length in lines) of every function with a body."""
    toks = list(tokens(text))
    found = []
    for k, (line, tok) in enumerate(toks):
        if tok != "fn" or k + 1 >= len(toks) or not IDENT.fullmatch(toks[k + 1][1]):
            continue  # `fn(u32) -> u32` is a type
        depth, j = 0, k + 2
        while j < len(toks):
            t = toks[j][1]
            if t in "([":
                depth += 1
            elif t in ")]":
                depth -= 1
            elif depth == 0 and t in "{;":
                break
            j += 1
        if j >= len(toks) or toks[j][1] == ";":
            continue  # a declaration without a body
        braces = 0
        for end in range(j, len(toks)):
            t = toks[end][1]
            braces += (t == "{") - (t == "}")
            if braces == 0:
                found.append((toks[k + 1][1], line, toks[end][0] - line + 1))
                break
    return found


def is_test_file(path):
    name = Path(path).name
    return name == "tests.rs" or name.endswith("_tests.rs")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dir", nargs="?", default=str(Path(__file__).resolve().parent.parent))
    parser.add_argument("--max-loc", type=int, default=400)
    parser.add_argument("--top", type=int, default=10)
    parser.add_argument("--src", action="store_true", help="library and binary code only")
    args = parser.parse_args()
    root = Path(args.dir)
    listed = subprocess.run(
        ["git", "-C", str(root), "ls-files", "*.rs"], check=True, capture_output=True, text=True
    ).stdout.split()
    if args.src:
        listed = [p for p in listed if "/src/" in f"/{p}" and not is_test_file(p)]
    big, fns = [], []
    for path in listed:
        text = (root / path).read_text(encoding="utf-8", errors="replace")
        loc = lines_of_code(text)
        if loc > args.max_loc:
            big.append((loc, path))
        fns.extend((length, f"{path}:{first}", name) for name, first, length in functions(text))
    big.sort(reverse=True)
    fns.sort(reverse=True)
    print(f"{len(listed)} Rust files; {len(big)} over {args.max_loc} lines of code:")
    for loc, path in big:
        print(f"  {loc:5} {path}")
    print(f"longest functions (lines from fn to its closing brace):")
    for length, place, name in fns[: args.top]:
        print(f"  {length:5} {name} ({place})")
    over_80 = sum(1 for length, _, _ in fns if length > 80)
    print(f"{over_80} of {len(fns)} functions over 80 lines")
    return 0


if __name__ == "__main__":
    sys.exit(main())
