#!/usr/bin/env python3
"""abi_protos.py [--fix] HEADER... - list the function prototypes of public
headers that lack WG_EXTERN; exit 1 when any does. --fix adds it in place.

A prototype is a top-level declaration (outside braces, comments, strings and
preprocessor lines; an extern "C" { } block is top level) that ends in ';'
and names wg_<x>( outside any parentheses. typedefs (function-pointer types)
and static inline functions are not prototypes: nothing is exported for
them. Used by tests/packaging/abi.sh.
"""
import re
import sys

NAME = re.compile(r'\b(wg_\w+)\s*\(')


def skip_preprocessor(text, i):
    """Offset of the newline that ends the directive starting at i."""
    n = len(text)
    while True:
        j = text.find('\n', i)
        if j < 0:
            return n
        if text[j - 1] != '\\':
            return j
        i = j + 1


def statements(text):
    """Yield (start, code) for every top-level statement that ends in ';':
    start is the offset of its first character, code its text with the
    comments blanked."""
    i, n = 0, len(text)
    depth = 0              # braces, not counting extern "C" {
    extern_c = 0           # open extern "C" blocks
    start, code = None, []
    line_start = True
    while i < n:
        c = text[i]
        if text.startswith('/*', i):
            j = text.find('*/', i + 2)
            i = n if j < 0 else j + 2
            code.append(' ')
            continue
        if text.startswith('//', i):
            j = text.find('\n', i)
            i = n if j < 0 else j
            continue
        if line_start and c == '#':
            i = skip_preprocessor(text, i)
            continue
        if c == '\n':
            line_start = True
        elif not c.isspace():
            line_start = False
            if start is None:
                start = i
        if c in '"\'':
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == '\\' else 1
            code.append(text[i:j + 1])
            i = j + 1
            continue
        code.append(c)
        i += 1
        if c == '{':
            if depth == 0 and ' '.join(''.join(code).split()) == 'extern "C" {':
                extern_c += 1
                start, code = None, []
            else:
                depth += 1
        elif c == '}':
            if depth == 0 and extern_c:
                extern_c -= 1
                start, code = None, []
            else:
                depth -= 1
        elif c == ';' and depth == 0:
            yield start, ''.join(code)
            start, code = None, []


def outside_parens(s):
    out, depth = [], 0
    for ch in s:
        if ch == '(':
            if depth == 0:
                out.append('(')
            depth += 1
        elif ch == ')':
            depth -= 1
        elif depth == 0:
            out.append(ch)
    return ''.join(out)


def prototypes(text):
    """Yield (start, name, declaration) for each prototype in text."""
    for start, code in statements(text):
        flat = ' '.join(code.split())
        if re.match(r'(typedef|static)\b', flat):
            continue
        m = NAME.search(outside_parens(flat))
        if m:
            yield start, m.group(1), flat


def main(argv):
    fix = '--fix' in argv
    missing = 0
    for path in (a for a in argv if a != '--fix'):
        with open(path, encoding='utf-8') as f:
            text = f.read()
        bare = [start for start, name, flat in prototypes(text)
                if not flat.startswith('WG_EXTERN ')]
        for start in bare:
            line = text.count('\n', 0, start) + 1
            name = NAME.search(outside_parens(text[start:text.find(';', start)]))
            print(f'{path}:{line}: {name.group(1) if name else "?"} lacks WG_EXTERN')
        missing += len(bare)
        if fix and bare:
            for start in reversed(bare):
                end = text.find(';', start)
                # keep continuation lines aligned under the opening parenthesis
                decl = text[start:end].replace('\n' + ' ' * 4, '\n' + ' ' * 14)
                text = text[:start] + 'WG_EXTERN ' + decl + text[end:]
            with open(path, 'w', encoding='utf-8') as f:
                f.write(text)
    return 1 if missing and not fix else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
