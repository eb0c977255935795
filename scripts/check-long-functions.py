#!/usr/bin/python3
# Lists every function longer than MAX lines in the C++ files given: "file:line: function NAME is N lines (at most
# MAX)". Used by scripts/check-structure.sh (rule 4). A function runs from the first line of its declaration to its
# closing brace, comments and blank lines included. Braces in comments, strings and preprocessor lines do not count;
# lambdas and blocks inside a function belong to it; a constructor's brace initialisers belong to its declaration.
# Usage: check-long-functions.py MAX FILE...
import re, sys

MAX = int(sys.argv[1])
QUALIFIERS = re.compile(r"\)\s*(?:const|noexcept(?:\([^)]*\))?|override|final|mutable|&&|&|->\s*[\w:<>,\s*&]+|\s)*$")


def blank_out(text):
    """Comments, string and character literals replaced by spaces (newlines kept), so braces in them do not count."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i)); i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j])); i = j
        elif text.startswith('R"', i):
            m = re.match(r'R"([^(\s]*)\(', text[i:])
            end = text.find(")" + m.group(1) + '"', i) if m else -1
            j = n if end < 0 else end + len(m.group(1)) + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j])); i = j
        elif c in "\"'" and not (c == "'" and i > 0 and text[i - 1].isalnum()):  # 1'000 is a digit separator
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(" " * (min(j + 1, n) - i)); i = j + 1
        elif c == "#" and (i == 0 or text[i - 1] == "\n"):  # a preprocessor line, with its continuations
            j = i
            while True:
                k = text.find("\n", j)
                if k < 0: k = n; break
                if text[k - 1] != "\\": break
                j = k + 1
            out.append(re.sub(r"[^\n]", " ", text[i:k])); i = k
        else:
            out.append(c); i += 1
    return "".join(out)


def without_parens(head):
    depth, out = 0, []
    for c in head:
        if c == "(": depth += 1; out.append("(") if depth == 1 else None
        elif c == ")": depth -= 1; out.append(")") if depth == 0 else None
        elif depth == 0: out.append(c)
    return "".join(out)


def kind_of(head):
    if head.count("(") > head.count(")"): return "init"  # a lambda among a call's arguments
    flat = " ".join(without_parens(head).split())
    if re.search(r"\bnamespace\b", flat) or re.match(r'^extern\s*$', flat): return "scope"
    if re.search(r"(^|\s|>)(class|struct|union|enum)\b", flat) and "(" not in flat: return "scope"
    if re.search(r"(?<![=!<>])=(?!=)", flat.replace("operator=", "")): return "data"
    if QUALIFIERS.search(flat) or re.search(r"\)\s*:", flat): return "function"
    return "init"  # a member's brace initialiser in a constructor's list, or an aggregate


def check(path):
    text = blank_out(open(path, encoding="utf-8", errors="replace").read())
    stack, head, head_start, line = [], "", None, 1
    for c in text:
        if c == "\n": line += 1
        if c == "{":
            top_level = all(k == "scope" for k, _, _ in stack)
            kind = kind_of(head) if top_level else "inner"
            stack.append((kind, head_start or line, head))
            if kind != "init": head, head_start = "", None
        elif c == "}":
            if not stack: continue
            kind, start, opened_head = stack.pop()
            if kind == "function" and line - start + 1 > MAX:
                name = re.findall(r"[\w:~]+(?=\s*\()", opened_head)
                print(f"{path}:{start}: function {name[0] if name else '?'} is {line - start + 1} lines (at most {MAX})")
            if kind != "init": head, head_start = "", None
        elif c == ";":
            if all(k == "scope" for k, _, _ in stack): head, head_start = "", None
        else:
            if head_start is None and not c.isspace(): head_start = line
            head += c


for path in sys.argv[2:]:
    check(path)
