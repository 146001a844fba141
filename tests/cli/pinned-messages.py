#!/usr/bin/env python3
"""pinned-messages.py - an error message is pinned in one place.

The Check suites (tests/check_*.c) own the library's messages and compare them
whole. A golden file (tests/cli/golden/*/*.err, and the .out of a case that
sends stderr to stdout) owns what the CLI adds: the framing of each error line
and the first words of the message, written

    tshape: <input or file>: <first three words> [...]

(more words when the third is inside a "quoted" pattern, up to its end).

(run.sh matches an expected line ending in " [...]" against any line that
begins with the text before it). This script finds golden error lines that
repeat, after a ": ", a whole message that a string literal of a Check suite
spells out, and

    pinned-messages.py            lists them; exit 1 if there is any
    pinned-messages.py --fix [F]  rewrites them in the short form, in the
                                  golden files F (default: all of them)

run.sh --update calls --fix on the files it rewrites.
"""
import glob
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
GOLDEN = os.path.join(HERE, 'golden')
WORDS = 3          # first words of the message a golden line keeps
MARK = ' [...]'

LITERALS = re.compile(r'"(?:[^"\\\n]|\\.)*"(?:\s*"(?:[^"\\\n]|\\.)*")*')
ONE = re.compile(r'"((?:[^"\\\n]|\\.)*)"')
ESC = re.compile(r'\\(x[0-9A-Fa-f]{1,2}|[0-7]{1,3}|.)')
SIMPLE = {'n': '\n', 't': '\t', 'r': '\r', '0': '\0', 'a': '\a', 'b': '\b', 'f': '\f',
          'v': '\v', '\\': '\\', '"': '"', "'": "'", '?': '?'}


def unescape(s):
    def one(m):
        e = m.group(1)
        if e[0] == 'x':
            return chr(int(e[1:], 16))
        if e[0] in '01234567':
            return chr(int(e, 8))
        return SIMPLE.get(e, e)
    return ESC.sub(one, s)


def pinned_messages():
    """{message: 'check_x.c:line'} for every string of the Check suites that
    could be a whole message: several words, one line."""
    found = {}
    for path in sorted(glob.glob(os.path.join(ROOT, 'tests', 'check_*.c'))):
        src = open(path, encoding='utf-8').read()
        for m in LITERALS.finditer(src):
            text = ''.join(unescape(p) for p in ONE.findall(m.group(0)))
            if len(text.split()) > WORDS and '\n' not in text and '%' not in text:
                line = src.count('\n', 0, m.start()) + 1
                found.setdefault(text, '%s:%d' % (os.path.basename(path), line))
    return found


def golden_files():
    files = glob.glob(os.path.join(GOLDEN, '*', '*.err'))
    files += glob.glob(os.path.join(GOLDEN, '*', '*.out'))
    return sorted(files)


def is_error_line(path, line):
    # Every stderr line is an error line; on stdout only those of tshape.
    return path.endswith('.err') or line.startswith('tshape')


def short_form(line, messages):
    """(short line, where the message is pinned) if line repeats a pinned
    message whole, after ': ' and up to the end; else None."""
    if line.endswith(MARK):
        return None
    i = line.find(': ')
    while i >= 0:
        tail = line[i + 2:]
        if tail in messages:
            words = tail.split(' ')
            k = WORDS
            while k < len(words) and ' '.join(words[:k]).count('"') % 2:
                k += 1          # not in the middle of a "quoted" pattern
            head = ' '.join(words[:k])
            return line[:i + 2] + head + MARK, messages[tail]
        i = line.find(': ', i + 1)
    return None


def main(argv):
    fix = bool(argv) and argv[0] == '--fix'
    files = [os.path.abspath(f) for f in argv[1:]] if fix and len(argv) > 1 else golden_files()
    messages = pinned_messages()
    found = 0
    for path in files:
        if not os.path.isfile(path):
            continue
        with open(path, encoding='utf-8', errors='surrogateescape', newline='') as f:
            lines = f.read().split('\n')
        changed = False
        for n, line in enumerate(lines):
            if not is_error_line(path, line):
                continue
            s = short_form(line, messages)
            if s is None:
                continue
            found += 1
            if fix:
                lines[n] = s[0]
                changed = True
            else:
                print('%s:%d: repeats the message %s pins: %s' %
                      (os.path.relpath(path, ROOT), n + 1, s[1], line))
        if changed:
            with open(path, 'w', encoding='utf-8', errors='surrogateescape', newline='') as f:
                f.write('\n'.join(lines))
    if fix:
        return 0
    if found:
        print('%d golden lines repeat messages the Check suites pin: '
              'run tests/cli/pinned-messages.py --fix' % found)
    return 1 if found else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
